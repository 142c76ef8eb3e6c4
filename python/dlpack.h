/* The DLPack ABI (dmlc/dlpack): the unversioned DLManagedTensor (v0.8),
 * what NumPy's from_dlpack (>= 1.22) and torch.utils.dlpack consume, and
 * the versioned one of DLPack 1.0, whose flags carry read-only-ness, for
 * consumers that ask with max_version. Only the types this module fills;
 * the layout is the standard's. */
#ifndef DORADMA_PY_DLPACK_H
#define DORADMA_PY_DLPACK_H

#include <stdint.h>

typedef enum
{
  kDLCPU = 1,
  kDLCUDA = 2,
} DLDeviceType;

typedef struct
{
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum
{
  kDLUInt = 1,
} DLDataTypeCode;

typedef struct
{
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct
{
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;             /* in elements */
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor
{
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter) (struct DLManagedTensor * self);
} DLManagedTensor;

typedef struct
{
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C (1) << 0)

typedef struct DLManagedTensorVersioned
{
  DLPackVersion version;
  void *manager_ctx;
  void (*deleter) (struct DLManagedTensorVersioned * self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#endif
