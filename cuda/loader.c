/* doradma — the CUDA driver, loaded at run time.
 *
 * dlopen("libcuda.so.1") once per process (pthread_once), resolve every
 * symbol into one table, cuInit(0). The result, success or the first error
 * with its message, is kept: a process without a GPU pays for one failed
 * dlopen, not one per element. The gstcudaloader.cpp model, without GLib.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-api.h"

#define DR_CUDA_LIBRARY "libcuda.so.1"
#define DR_MAX_DEVICES 64

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct doradma_cuda_api api;
static const struct doradma_cuda_api *api_ready;
static int load_ret;
static char load_msg[200];
static const char *load_field;

struct doradma_cuda_device
{
  int refcount;                 /* under devices_lock */
  CUdevice handle;
  CUcontext ctx;
  struct doradma_cuda_device_info info;
};

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doradma_cuda_device *devices[DR_MAX_DEVICES];

static int
errno_for (CUresult res)
{
  switch (res) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return -ENOMEM;
    case CUDA_ERROR_NOT_SUPPORTED:
    case CUDA_ERROR_NOT_PERMITTED:
      return -ENOTSUP;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
      return -ENODEV;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_NOT_MAPPED:
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
      return -EINVAL;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
    case CUDA_ERROR_ALREADY_MAPPED:
      return -EEXIST;
    default:
      return -EIO;
  }
}

int
__doradma_cuda_fail (struct doradma_diag *diag, const char *call,
    CUresult res, const char *fmt, ...)
{
  const char *name = NULL, *str = NULL;
  char suffix[160] = "";
  va_list ap;

  if (diag == NULL)
    return errno_for (res);
  /* The table may be half-filled when cuInit itself fails. */
  if (api.GetErrorName == NULL || api.GetErrorName (res, &name) != CUDA_SUCCESS)
    name = NULL;
  if (api.GetErrorString == NULL
      || api.GetErrorString (res, &str) != CUDA_SUCCESS)
    str = NULL;
  if (fmt != NULL) {
    va_start (ap, fmt);
    vsnprintf (suffix, sizeof suffix, fmt, ap);
    va_end (ap);
  }
  if (name != NULL)
    return __doradma_cuda_diag (diag, call, errno_for (res), "%s: %s (%s)%s",
        call, name, str ? str : "?", suffix);
  return __doradma_cuda_diag (diag, call, errno_for (res),
      "%s: CUDA error %d%s", call, (int) res, suffix);
}

static void
load_driver (void)
{
  const char *lib = getenv ("DORADMA_CUDA_LIBRARY");
  void *handle;
  CUresult res;
  int count = 0;
  struct doradma_diag d = { 0 };

  /* Tests point this at a missing library to exercise the no-driver path
   * on a GPU machine. */
  if (lib == NULL || *lib == '\0')
    lib = DR_CUDA_LIBRARY;
  handle = dlopen (lib, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    const char *err = dlerror ();
    load_field = "dlopen";
    load_ret = -ENOENT;
    snprintf (load_msg, sizeof load_msg,
        "no CUDA driver: dlopen(\"%s\") failed: %s", lib, err ? err : "?");
    return;
  }
#define DR_LOAD_REQUIRED(field, name) \
  api.field = (__typeof__ (api.field)) dlsym (handle, DR_CU_SYMBOL (name)); \
  if (api.field == NULL) { \
    load_field = "dlsym"; \
    load_ret = -ENOENT; \
    snprintf (load_msg, sizeof load_msg, "%s has no symbol %s (driver too " \
        "old for CUDA 13 headers?)", lib, DR_CU_SYMBOL (name)); \
    goto fail; \
  }
#define DR_LOAD_OPTIONAL(field, name) \
  api.field = (__typeof__ (api.field)) dlsym (handle, DR_CU_SYMBOL (name));
  /* *INDENT-OFF* */
  DR_CU_REQUIRED (DR_LOAD_REQUIRED)
  DR_CU_OPTIONAL (DR_LOAD_OPTIONAL)
  /* *INDENT-ON* */
#undef DR_LOAD_REQUIRED
#undef DR_LOAD_OPTIONAL

  res = api.Init (0);
  if (res != CUDA_SUCCESS) {
    load_ret = __doradma_cuda_fail (&d, "cuInit", res,
        res == CUDA_ERROR_NO_DEVICE ? ": no CUDA device" : NULL);
    goto fail_msg;
  }
  res = api.DeviceGetCount (&count);
  if (res != CUDA_SUCCESS) {
    load_ret = __doradma_cuda_fail (&d, "cuDeviceGetCount", res, NULL);
    goto fail_msg;
  }
  if (count == 0) {
    load_ret = __doradma_cuda_diag (&d, "cuDeviceGetCount", -ENODEV,
        "cuDeviceGetCount: no CUDA device");
    goto fail_msg;
  }
  if (api.DriverGetVersion (&api.driver_version) != CUDA_SUCCESS)
    api.driver_version = 0;
  api_ready = &api;
  return;

fail_msg:
  load_field = d.field;
  memcpy (load_msg, d.msg, sizeof load_msg);
fail:
  /* Keep the library mapped: some of its threads may already run. */
  return;
}

bool
doradma_cuda_built_with_support (void)
{
  return true;
}

int
doradma_cuda_load (struct doradma_diag *diag)
{
  pthread_once (&load_once, load_driver);
  if (api_ready != NULL)
    return 0;
  return __doradma_cuda_diag (diag, load_field, load_ret, "%s", load_msg);
}

const struct doradma_cuda_api *
doradma_cuda_api (void)
{
  pthread_once (&load_once, load_driver);
  return api_ready;
}

int
doradma_cuda_driver_version (void)
{
  return doradma_cuda_api ()? api.driver_version : 0;
}

static bool
attr (CUdevice dev, CUdevice_attribute a)
{
  int v = 0;

  /* An attribute unknown to an older driver reads as "unsupported". */
  if (api.DeviceGetAttribute (&v, a, dev) != CUDA_SUCCESS)
    return false;
  return v != 0;
}

static void
read_info (struct doradma_cuda_device *dev, int ordinal)
{
  struct doradma_cuda_device_info *i = &dev->info;
  CUdevice h = dev->handle;
  size_t total = 0;

  i->ordinal = ordinal;
  if (api.DeviceGetName (i->name, sizeof i->name, h) != CUDA_SUCCESS)
    snprintf (i->name, sizeof i->name, "CUDA device %d", ordinal);
  api.DeviceGetAttribute (&i->cc_major,
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h);
  api.DeviceGetAttribute (&i->cc_minor,
      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h);
  if (api.DeviceTotalMem (&total, h) == CUDA_SUCCESS)
    i->total_mem = total;
  i->integrated = attr (h, CU_DEVICE_ATTRIBUTE_INTEGRATED);
  i->unified_addressing = attr (h, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  i->host_register_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  i->read_only_host_register_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  i->can_use_host_pointer_for_registered_mem =
      attr (h, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  i->concurrent_managed_access =
      attr (h, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  i->dma_buf_supported = attr (h, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
  i->host_alloc_dma_buf_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED);
  i->vmm_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
  i->posix_fd_handle_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
  i->gpu_direct_rdma_with_vmm_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED);
  i->gpu_direct_rdma_supported =
      attr (h, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  i->ipc_event_supported = attr (h, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
}

int
doradma_cuda_device_open (int ordinal, struct doradma_cuda_device **out,
    struct doradma_diag *diag)
{
  struct doradma_cuda_device *dev;
  CUresult res;
  int ret, count = 0;

  if (out == NULL)
    return __doradma_cuda_diag (diag, "out", -EINVAL, "out is NULL");
  *out = NULL;
  ret = doradma_cuda_load (diag);
  if (ret < 0)
    return ret;
  api.DeviceGetCount (&count);
  if (ordinal < 0 || ordinal >= count || ordinal >= DR_MAX_DEVICES)
    return __doradma_cuda_diag (diag, "ordinal", -ENODEV,
        "no CUDA device %d (%d present)", ordinal, count);

  pthread_mutex_lock (&devices_lock);
  dev = devices[ordinal];
  if (dev != NULL) {
    dev->refcount++;
    pthread_mutex_unlock (&devices_lock);
    *out = dev;
    return 0;
  }
  dev = calloc (1, sizeof *dev);
  if (dev == NULL) {
    pthread_mutex_unlock (&devices_lock);
    return __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
  }
  res = api.DeviceGet (&dev->handle, ordinal);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuDeviceGet", res, " (ordinal %d)",
        ordinal);
    goto fail;
  }
  /* The primary context is the one the runtime API and GStreamer's
   * gstreamer-cuda (when it wraps) share, so pointers interoperate. */
  res = api.DevicePrimaryCtxRetain (&dev->ctx, dev->handle);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuDevicePrimaryCtxRetain", res,
        " (device %d)", ordinal);
    goto fail;
  }
  read_info (dev, ordinal);
  dev->refcount = 1;
  devices[ordinal] = dev;
  pthread_mutex_unlock (&devices_lock);
  *out = dev;
  return 0;

fail:
  pthread_mutex_unlock (&devices_lock);
  free (dev);
  return ret;
}

struct doradma_cuda_device *
doradma_cuda_device_ref (struct doradma_cuda_device *dev)
{
  pthread_mutex_lock (&devices_lock);
  dev->refcount++;
  pthread_mutex_unlock (&devices_lock);
  return dev;
}

void
doradma_cuda_device_unref (struct doradma_cuda_device *dev)
{
  if (dev == NULL)
    return;
  pthread_mutex_lock (&devices_lock);
  if (--dev->refcount > 0) {
    pthread_mutex_unlock (&devices_lock);
    return;
  }
  devices[dev->info.ordinal] = NULL;
  pthread_mutex_unlock (&devices_lock);
  api.DevicePrimaryCtxRelease (dev->handle);
  free (dev);
}

const struct doradma_cuda_device_info *
doradma_cuda_device_get_info (const struct doradma_cuda_device *dev)
{
  return &dev->info;
}

void *
doradma_cuda_device_get_context (const struct doradma_cuda_device *dev)
{
  return dev->ctx;
}

int
doradma_cuda_device_get_handle (const struct doradma_cuda_device *dev)
{
  return (int) dev->handle;
}

CUcontext
__doradma_cuda_device_context (const struct doradma_cuda_device *dev)
{
  return dev->ctx;
}

CUdevice
__doradma_cuda_device_handle (const struct doradma_cuda_device *dev)
{
  return dev->handle;
}

int
__doradma_cuda_push (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag)
{
  CUresult res = api.CtxPushCurrent (dev->ctx);

  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuCtxPushCurrent", res, NULL);
  return 0;
}

void
__doradma_cuda_pop (void)
{
  CUcontext prev;

  api.CtxPopCurrent (&prev);
}

int
doradma_cuda_device_push (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag)
{
  return __doradma_cuda_push (dev, diag);
}

void
doradma_cuda_device_pop (void)
{
  __doradma_cuda_pop ();
}

int
doradma_cuda_device_mem_info (const struct doradma_cuda_device *dev,
    uint64_t * free_bytes, uint64_t * total_bytes, struct doradma_diag *diag)
{
  size_t f = 0, t = 0;
  CUresult res;
  int ret = __doradma_cuda_push (dev, diag);

  if (ret < 0)
    return ret;
  res = api.MemGetInfo (&f, &t);
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuMemGetInfo", res, NULL);
  if (free_bytes)
    *free_bytes = f;
  if (total_bytes)
    *total_bytes = t;
  return 0;
}

int
doradma_cuda_context_synchronize (void *context, struct doradma_diag *diag)
{
  CUresult res;
  int ret = doradma_cuda_load (diag);

  if (ret < 0)
    return ret;
  res = api.CtxPushCurrent ((CUcontext) context);
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuCtxPushCurrent", res, NULL);
  res = api.CtxSynchronize ();
  __doradma_cuda_pop ();
  if (res != CUDA_SUCCESS)
    return __doradma_cuda_fail (diag, "cuCtxSynchronize", res, NULL);
  return 0;
}

int
doradma_cuda_device_synchronize (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag)
{
  return doradma_cuda_context_synchronize (dev->ctx, diag);
}
