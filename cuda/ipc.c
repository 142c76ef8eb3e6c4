/* doradma — legacy CUDA IPC (transport "ipc", discrete GPUs).
 *
 * The writer puts the slot area in one cuMemAlloc allocation and writes its
 * 64-byte cuIpcGetMemHandle into the DORADMA header (bytes 32..96, ipc_flag
 * = 1); RCB and leases stay in host shm. Each reader process opens the
 * handle once. Legacy IPC needs the allocation's base pointer (hence one
 * allocation for all slots), works only on unified-addressing Linux, and is
 * absent on integrated GPUs before Thor (Orin: cudaIpcOpenMemHandle fails).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <doradma/layout.h>

#include "cuda-api.h"

_Static_assert (sizeof (CUipcMemHandle) == DORADMA_CUDA_IPC_HANDLE_SIZE,
    "CUipcMemHandle is 64 bytes");
_Static_assert (DORADMA_IPC_HANDLE_LEN == DORADMA_CUDA_IPC_HANDLE_SIZE,
    "header ipc_handle field holds one CUipcMemHandle");

struct doradma_cuda_ipc_export
{
  struct doradma_cuda_device *dev;
  CUdeviceptr dptr;
  size_t size;
};

struct doradma_cuda_ipc_import
{
  struct doradma_cuda_device *dev;
  CUdeviceptr dptr;
};

static int
check_ipc_capable (struct doradma_cuda_device *dev, const char *call,
    struct doradma_diag *diag)
{
  const struct doradma_cuda_device_info *info =
      doradma_cuda_device_get_info (dev);

  if (info->integrated)
    return __doradma_cuda_diag (diag, call, -ENOTSUP,
        "%s: device %d (%s) is an integrated GPU: legacy CUDA IPC of memory "
        "is not available there; use transport unified", call,
        info->ordinal, info->name);
  if (!info->unified_addressing)
    return __doradma_cuda_diag (diag, call, -ENOTSUP,
        "%s: device %d (%s) has no unified addressing "
        "(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING=0), which CUDA IPC needs",
        call, info->ordinal, info->name);
  return 0;
}

int
doradma_cuda_ipc_export_new (struct doradma_cuda_device *dev, size_t size,
    uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_export **out, struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  struct doradma_cuda_ipc_export *e;
  CUipcMemHandle h;
  CUresult res;
  int ret;

  if (dev == NULL || out == NULL || handle == NULL || size == 0)
    return __doradma_cuda_diag (diag, NULL, -EINVAL,
        "ipc export: NULL argument or zero size");
  *out = NULL;
  ret = check_ipc_capable (dev, "cuIpcGetMemHandle", diag);
  if (ret < 0)
    return ret;
  e = calloc (1, sizeof *e);
  if (e == NULL)
    return __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
  ret = __doradma_cuda_push (dev, diag);
  if (ret < 0) {
    free (e);
    return ret;
  }
  res = cu->MemAlloc (&e->dptr, size);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuMemAlloc", res, " (%zu bytes)", size);
    goto fail;
  }
  res = cu->IpcGetMemHandle (&h, e->dptr);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuIpcGetMemHandle", res, NULL);
    cu->MemFree (e->dptr);
    goto fail;
  }
  __doradma_cuda_pop ();
  memcpy (handle, &h, DORADMA_CUDA_IPC_HANDLE_SIZE);
  e->dev = doradma_cuda_device_ref (dev);
  e->size = size;
  *out = e;
  return 0;

fail:
  __doradma_cuda_pop ();
  free (e);
  return ret;
}

uint64_t
doradma_cuda_ipc_export_get_device_pointer (const struct
    doradma_cuda_ipc_export *exp)
{
  return exp->dptr;
}

size_t
doradma_cuda_ipc_export_get_size (const struct doradma_cuda_ipc_export *exp)
{
  return exp->size;
}

int
doradma_cuda_ipc_export_free (struct doradma_cuda_ipc_export *exp,
    struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  CUresult res;
  int ret;

  if (exp == NULL)
    return 0;
  ret = __doradma_cuda_push (exp->dev, diag);
  if (ret == 0) {
    res = cu->MemFree (exp->dptr);
    __doradma_cuda_pop ();
    if (res != CUDA_SUCCESS)
      ret = __doradma_cuda_fail (diag, "cuMemFree", res, NULL);
  }
  doradma_cuda_device_unref (exp->dev);
  free (exp);
  return ret;
}

int
doradma_cuda_ipc_import_open (struct doradma_cuda_device *dev,
    const uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_import **out, struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  struct doradma_cuda_ipc_import *im;
  CUipcMemHandle h;
  CUresult res;
  int ret;

  if (dev == NULL || out == NULL || handle == NULL)
    return __doradma_cuda_diag (diag, NULL, -EINVAL,
        "ipc import: NULL argument");
  *out = NULL;
  ret = check_ipc_capable (dev, "cuIpcOpenMemHandle", diag);
  if (ret < 0)
    return ret;
  im = calloc (1, sizeof *im);
  if (im == NULL)
    return __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
  memcpy (&h, handle, sizeof h);
  ret = __doradma_cuda_push (dev, diag);
  if (ret < 0) {
    free (im);
    return ret;
  }
  /* Lazy peer access: the handle may come from another GPU of the host. */
  res = cu->IpcOpenMemHandle (&im->dptr, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS) {
    free (im);
    /* The driver answers a handle of this very process with an
     * uninitialized/invalid context error: say so. */
    ret = __doradma_cuda_fail (diag, "cuIpcOpenMemHandle", res,
        "; the handle must come from a live allocation of another process");
    if (ret == -EIO && (res == CUDA_ERROR_NOT_INITIALIZED
            || res == CUDA_ERROR_INVALID_CONTEXT))
      ret = -EINVAL;
    return ret;
  }
  im->dev = doradma_cuda_device_ref (dev);
  *out = im;
  return 0;
}

uint64_t
doradma_cuda_ipc_import_get_device_pointer (const struct
    doradma_cuda_ipc_import *imp)
{
  return imp->dptr;
}

int
doradma_cuda_ipc_import_close (struct doradma_cuda_ipc_import *imp,
    struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  CUresult res;
  int ret;

  if (imp == NULL)
    return 0;
  ret = __doradma_cuda_push (imp->dev, diag);
  if (ret == 0) {
    res = cu->IpcCloseMemHandle (imp->dptr);
    __doradma_cuda_pop ();
    if (res != CUDA_SUCCESS)
      ret = __doradma_cuda_fail (diag, "cuIpcCloseMemHandle", res, NULL);
  }
  doradma_cuda_device_unref (imp->dev);
  free (imp);
  return ret;
}
