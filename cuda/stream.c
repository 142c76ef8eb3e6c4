/* doradma — streams, events and copies for callers without cuda.h.
 *
 * Thin wrappers over the loaded table: push the device's primary context,
 * one driver call, pop, and turn a CUresult into -errno plus a message that
 * names the call. gst/ uses these instead of the private table.
 */
#include <errno.h>
#include <string.h>

#include "cuda-api.h"

/* The table is non-NULL once a device exists (device_open loaded it). */
#define CU (doradma_cuda_api ())

#define DR_CALL(dev, diag, call, expr, ...) do { \
    CUresult _res; \
    int _ret = __doradma_cuda_push ((dev), (diag)); \
    if (_ret < 0) \
      return _ret; \
    _res = (expr); \
    __doradma_cuda_pop (); \
    if (_res != CUDA_SUCCESS) \
      return __doradma_cuda_fail ((diag), (call), _res, __VA_ARGS__); \
    return 0; \
  } while (0)

int
doradma_cuda_stream_create (const struct doradma_cuda_device *dev,
    bool non_blocking, void **stream, struct doradma_diag *diag)
{
  CUstream s = NULL;
  CUresult res;
  int ret;

  if (stream == NULL)
    return __doradma_cuda_diag (diag, "stream", -EINVAL, "stream is NULL");
  *stream = NULL;
  ret = __doradma_cuda_push (dev, diag);
  if (ret < 0)
    return ret;
  res = CU->StreamCreate (&s, non_blocking ? CU_STREAM_NON_BLOCKING :
      CU_STREAM_DEFAULT);
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuStreamCreate", res, NULL);
  *stream = s;
  return 0;
}

int
doradma_cuda_stream_synchronize (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag)
{
  DR_CALL (dev, diag, "cuStreamSynchronize",
      CU->StreamSynchronize ((CUstream) stream), NULL);
}

int
doradma_cuda_stream_destroy (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag)
{
  if (stream == NULL)
    return 0;
  DR_CALL (dev, diag, "cuStreamDestroy",
      CU->StreamDestroy ((CUstream) stream), NULL);
}

int
doradma_cuda_stream_attach_managed (const struct doradma_cuda_device *dev,
    void *stream, uint64_t dptr, size_t length, enum doradma_cuda_attach how,
    struct doradma_diag *diag)
{
  unsigned flags;

  switch (how) {
    case DORADMA_CUDA_ATTACH_GLOBAL:
      flags = CU_MEM_ATTACH_GLOBAL;
      break;
    case DORADMA_CUDA_ATTACH_HOST:
      flags = CU_MEM_ATTACH_HOST;
      break;
    case DORADMA_CUDA_ATTACH_SINGLE:
      if (stream == NULL)
        return __doradma_cuda_diag (diag, "stream", -EINVAL,
            "CU_MEM_ATTACH_SINGLE needs a stream (NULL given)");
      flags = CU_MEM_ATTACH_SINGLE;
      break;
    default:
      return __doradma_cuda_diag (diag, "how", -EINVAL,
          "unknown attach mode %d", (int) how);
  }
  DR_CALL (dev, diag, "cuStreamAttachMemAsync",
      CU->StreamAttachMemAsync ((CUstream) stream, (CUdeviceptr) dptr, length,
          flags), NULL);
}

int
doradma_cuda_event_create (const struct doradma_cuda_device *dev,
    bool timing, void **event, struct doradma_diag *diag)
{
  CUevent e = NULL;
  CUresult res;
  int ret;

  if (event == NULL)
    return __doradma_cuda_diag (diag, "event", -EINVAL, "event is NULL");
  *event = NULL;
  ret = __doradma_cuda_push (dev, diag);
  if (ret < 0)
    return ret;
  res = CU->EventCreate (&e, timing ? CU_EVENT_DEFAULT :
      CU_EVENT_DISABLE_TIMING);
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuEventCreate", res, NULL);
  *event = e;
  return 0;
}

int
doradma_cuda_event_record (const struct doradma_cuda_device *dev,
    void *event, void *stream, struct doradma_diag *diag)
{
  DR_CALL (dev, diag, "cuEventRecord",
      CU->EventRecord ((CUevent) event, (CUstream) stream), NULL);
}

int
doradma_cuda_event_synchronize (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  DR_CALL (dev, diag, "cuEventSynchronize",
      CU->EventSynchronize ((CUevent) event), NULL);
}

int
doradma_cuda_event_query (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  CUresult res;
  int ret = __doradma_cuda_push (dev, diag);

  if (ret < 0)
    return ret;
  res = CU->EventQuery ((CUevent) event);
  __doradma_cuda_pop ();
  if (res == CUDA_SUCCESS)
    return 0;
  if (res == CUDA_ERROR_NOT_READY)
    return -EAGAIN;
  return __doradma_cuda_fail (diag, "cuEventQuery", res, NULL);
}

int
doradma_cuda_event_elapsed_ms (const struct doradma_cuda_device *dev,
    void *start, void *end, float *ms, struct doradma_diag *diag)
{
  CUresult res;
  int ret;

  if (CU->EventElapsedTime == NULL)
    return __doradma_cuda_diag (diag, "cuEventElapsedTime", -ENOTSUP,
        "this libcuda.so.1 has no %s", DR_CU_SYMBOL (cuEventElapsedTime));
  ret = __doradma_cuda_push (dev, diag);
  if (ret < 0)
    return ret;
  res = CU->EventElapsedTime (ms, (CUevent) start, (CUevent) end);
  __doradma_cuda_pop ();
  if (res == CUDA_ERROR_NOT_READY) {
    __doradma_cuda_fail (diag, "cuEventElapsedTime", res, NULL);
    return -EAGAIN;
  }
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuEventElapsedTime", res, NULL);
  return 0;
}

int
doradma_cuda_event_destroy (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  if (event == NULL)
    return 0;
  DR_CALL (dev, diag, "cuEventDestroy", CU->EventDestroy ((CUevent) event),
      NULL);
}

/* ------------------------------------------------------------------------ */
/* Linear copies */

#define DR_BYTES " (%zu bytes)", n

int
doradma_cuda_copy_htod (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyHtoD",
      CU->MemcpyHtoD ((CUdeviceptr) dst, src, n), DR_BYTES);
}

int
doradma_cuda_copy_dtoh (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyDtoH",
      CU->MemcpyDtoH (dst, (CUdeviceptr) src, n), DR_BYTES);
}

int
doradma_cuda_copy_dtod (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyDtoD",
      CU->MemcpyDtoD ((CUdeviceptr) dst, (CUdeviceptr) src, n), DR_BYTES);
}

int
doradma_cuda_copy_htod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, void *stream,
    struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyHtoDAsync",
      CU->MemcpyHtoDAsync ((CUdeviceptr) dst, src, n, (CUstream) stream),
      DR_BYTES);
}

int
doradma_cuda_copy_dtoh_async (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, void *stream, struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyDtoHAsync",
      CU->MemcpyDtoHAsync (dst, (CUdeviceptr) src, n, (CUstream) stream),
      DR_BYTES);
}

int
doradma_cuda_copy_dtod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, void *stream,
    struct doradma_diag *diag)
{
  if (n == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpyDtoDAsync",
      CU->MemcpyDtoDAsync ((CUdeviceptr) dst, (CUdeviceptr) src, n,
          (CUstream) stream), DR_BYTES);
}

/* ------------------------------------------------------------------------ */
/* 2-D copies */

bool
doradma_cuda_have_copy_2d (void)
{
  const struct doradma_cuda_api *cu = CU;

  return cu != NULL && cu->Memcpy2D != NULL && cu->Memcpy2DAsync != NULL;
}

static int
fill_2d (const struct doradma_cuda_copy2d *c, CUDA_MEMCPY2D * p,
    struct doradma_diag *diag)
{
  if (c == NULL)
    return __doradma_cuda_diag (diag, "copy", -EINVAL, "copy is NULL");
  if (c->dst_pitch < c->width || c->src_pitch < c->width)
    return __doradma_cuda_diag (diag, "pitch", -EINVAL, "2-D copy: pitch "
        "(dst %zu, src %zu) smaller than the row width %zu", c->dst_pitch,
        c->src_pitch, c->width);
  if (!doradma_cuda_have_copy_2d ())
    return __doradma_cuda_diag (diag, "cuMemcpy2D", -ENOTSUP,
        "this libcuda.so.1 has no %s/%s", DR_CU_SYMBOL (cuMemcpy2D),
        DR_CU_SYMBOL (cuMemcpy2DAsync));
  memset (p, 0, sizeof *p);
  if (c->src_device) {
    p->srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p->srcDevice = (CUdeviceptr) c->src;
  } else {
    p->srcMemoryType = CU_MEMORYTYPE_HOST;
    p->srcHost = (const void *) (uintptr_t) c->src;
  }
  if (c->dst_device) {
    p->dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p->dstDevice = (CUdeviceptr) c->dst;
  } else {
    p->dstMemoryType = CU_MEMORYTYPE_HOST;
    p->dstHost = (void *) (uintptr_t) c->dst;
  }
  p->srcPitch = c->src_pitch;
  p->dstPitch = c->dst_pitch;
  p->WidthInBytes = c->width;
  p->Height = c->height;
  return 0;
}

int
doradma_cuda_copy_2d (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, struct doradma_diag *diag)
{
  CUDA_MEMCPY2D p;
  int ret = fill_2d (c, &p, diag);

  if (ret < 0)
    return ret;
  if (c->width == 0 || c->height == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpy2D", CU->Memcpy2D (&p), " (%zu rows of %zu "
      "bytes)", c->height, c->width);
}

int
doradma_cuda_copy_2d_async (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, void *stream,
    struct doradma_diag *diag)
{
  CUDA_MEMCPY2D p;
  int ret = fill_2d (c, &p, diag);

  if (ret < 0)
    return ret;
  if (c->width == 0 || c->height == 0)
    return 0;
  DR_CALL (dev, diag, "cuMemcpy2DAsync",
      CU->Memcpy2DAsync (&p, (CUstream) stream), " (%zu rows of %zu bytes)",
      c->height, c->width);
}
