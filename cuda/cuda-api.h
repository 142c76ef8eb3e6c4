/* doradma — private: the CUDA driver API as loaded at run time.
 *
 * Only files built with CUDA headers include this: the cuda/ sources and the
 * CUDA tests, never gst/ (which uses doradma-cuda.h alone). Nothing links
 * libcuda: loader.c dlopens "libcuda.so.1" once and fills one table of function pointers, whose prototypes are taken from
 * cuda.h itself with __typeof__, so a mismatch cannot compile.
 *
 * cuda.h maps many names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2);
 * DR_CU_SYMBOL() stringifies after macro expansion, so dlsym asks for the
 * same versioned symbol the prototype describes.
 */
#ifndef DORADMA_CUDA_API_H
#define DORADMA_CUDA_API_H

#include <cuda.h>

#include "cuda-private.h"

#define DR_CU_STR(x) #x
#define DR_CU_SYMBOL(x) DR_CU_STR (x)

/* X (field, cuda.h name): loading fails if one of these is missing. */
/* *INDENT-OFF* */
#define DR_CU_REQUIRED(X) \
  X (GetErrorName, cuGetErrorName) \
  X (GetErrorString, cuGetErrorString) \
  X (Init, cuInit) \
  X (DriverGetVersion, cuDriverGetVersion) \
  X (DeviceGetCount, cuDeviceGetCount) \
  X (DeviceGet, cuDeviceGet) \
  X (DeviceGetName, cuDeviceGetName) \
  X (DeviceGetAttribute, cuDeviceGetAttribute) \
  X (DeviceTotalMem, cuDeviceTotalMem) \
  X (DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain) \
  X (DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease) \
  X (CtxPushCurrent, cuCtxPushCurrent) \
  X (CtxPopCurrent, cuCtxPopCurrent) \
  X (CtxSynchronize, cuCtxSynchronize) \
  X (MemGetInfo, cuMemGetInfo) \
  X (MemAlloc, cuMemAlloc) \
  X (MemFree, cuMemFree) \
  X (MemAllocHost, cuMemAllocHost) \
  X (MemHostAlloc, cuMemHostAlloc) \
  X (MemFreeHost, cuMemFreeHost) \
  X (MemAllocManaged, cuMemAllocManaged) \
  X (MemHostRegister, cuMemHostRegister) \
  X (MemHostUnregister, cuMemHostUnregister) \
  X (MemHostGetDevicePointer, cuMemHostGetDevicePointer) \
  X (IpcGetMemHandle, cuIpcGetMemHandle) \
  X (IpcOpenMemHandle, cuIpcOpenMemHandle) \
  X (IpcCloseMemHandle, cuIpcCloseMemHandle) \
  X (MemcpyHtoD, cuMemcpyHtoD) \
  X (MemcpyDtoH, cuMemcpyDtoH) \
  X (MemcpyDtoD, cuMemcpyDtoD) \
  X (MemcpyHtoDAsync, cuMemcpyHtoDAsync) \
  X (MemcpyDtoHAsync, cuMemcpyDtoHAsync) \
  X (MemcpyDtoDAsync, cuMemcpyDtoDAsync) \
  X (MemsetD8, cuMemsetD8) \
  X (StreamCreate, cuStreamCreate) \
  X (StreamSynchronize, cuStreamSynchronize) \
  X (StreamDestroy, cuStreamDestroy) \
  X (StreamAttachMemAsync, cuStreamAttachMemAsync) \
  X (EventCreate, cuEventCreate) \
  X (EventRecord, cuEventRecord) \
  X (EventSynchronize, cuEventSynchronize) \
  X (EventQuery, cuEventQuery) \
  X (EventDestroy, cuEventDestroy) \
  X (ModuleLoadData, cuModuleLoadData) \
  X (ModuleUnload, cuModuleUnload) \
  X (ModuleGetFunction, cuModuleGetFunction) \
  X (LaunchKernel, cuLaunchKernel)

/* Present since CUDA 10.2 / 11.7; a driver without them only loses the slab
 * kind "device" through VMM (falls back to cuMemAlloc) or dma-buf export.
 * cuMemcpy2D*_v2 are old but kept optional (callers fall back to row-by-row
 * copies); cuEventElapsedTime_v2 is what CUDA 13's header names, absent from
 * drivers before 12.8 (only timing is lost). */
#define DR_CU_OPTIONAL(X) \
  X (Memcpy2D, cuMemcpy2D) \
  X (Memcpy2DAsync, cuMemcpy2DAsync) \
  X (EventElapsedTime, cuEventElapsedTime) \
  X (MemGetAllocationGranularity, cuMemGetAllocationGranularity) \
  X (MemCreate, cuMemCreate) \
  X (MemRelease, cuMemRelease) \
  X (MemAddressReserve, cuMemAddressReserve) \
  X (MemAddressFree, cuMemAddressFree) \
  X (MemMap, cuMemMap) \
  X (MemUnmap, cuMemUnmap) \
  X (MemSetAccess, cuMemSetAccess) \
  X (MemExportToShareableHandle, cuMemExportToShareableHandle) \
  X (MemGetHandleForAddressRange, cuMemGetHandleForAddressRange)
/* *INDENT-ON* */

#define DR_CU_FIELD(field, name) __typeof__ (name) *field;

struct doradma_cuda_api
{
  DR_CU_REQUIRED (DR_CU_FIELD)
  DR_CU_OPTIONAL (DR_CU_FIELD)
  int driver_version;           /* cuDriverGetVersion, e.g. 13000 */
};

/* The table, or NULL until doradma_cuda_load() has returned 0. */
const struct doradma_cuda_api *doradma_cuda_api (void);

/* Fills `diag` with "<call>: <CUDA_ERROR_NAME> (<description>)<suffix>" and
 * returns the -errno that best matches `res`: -ENOMEM (out of memory),
 * -ENOTSUP (not supported / not permitted), -ENODEV (no device), -EINVAL
 * (invalid value / handle), -EEXIST (already registered/mapped), -EIO. */
int __doradma_cuda_fail (struct doradma_diag *diag, const char *call,
    CUresult res, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

/* The device's primary context, pushed/popped around driver calls so the
 * API works from any thread (GstMemory is freed from any thread). */
CUcontext __doradma_cuda_device_context (const struct doradma_cuda_device
    *dev);
CUdevice __doradma_cuda_device_handle (const struct doradma_cuda_device *dev);
int __doradma_cuda_push (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag);
void __doradma_cuda_pop (void);

#endif /* DORADMA_CUDA_API_H */
