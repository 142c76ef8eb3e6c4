/* doradma — the CUDA API in a build without CUDA headers.
 *
 * Keeps every symbol of doradma-cuda.h so callers need no #ifdef: loading
 * and opening a device fail with -ENOSYS and "built without CUDA support",
 * and no other object can exist, so the remaining functions are never
 * reached with a valid argument. */
#include <errno.h>
#include <stddef.h>

#include "cuda-private.h"

#define NOCUDA(diag) \
  __doradma_cuda_diag ((diag), NULL, -ENOSYS, "doradma was built without " \
      "CUDA support (no cuda.h at build time; reconfigure with -Dcuda=enabled)")

bool
doradma_cuda_built_with_support (void)
{
  return false;
}

int
doradma_cuda_load (struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_driver_version (void)
{
  return 0;
}

int
doradma_cuda_device_open (int ordinal, struct doradma_cuda_device **out,
    struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

struct doradma_cuda_device *
doradma_cuda_device_ref (struct doradma_cuda_device *dev)
{
  return dev;
}

void
doradma_cuda_device_unref (struct doradma_cuda_device *dev)
{
}

const struct doradma_cuda_device_info *
doradma_cuda_device_get_info (const struct doradma_cuda_device *dev)
{
  return NULL;
}

void *
doradma_cuda_device_get_context (const struct doradma_cuda_device *dev)
{
  return NULL;
}

int
doradma_cuda_device_push (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

void
doradma_cuda_device_pop (void)
{
}

int
doradma_cuda_device_mem_info (const struct doradma_cuda_device *dev,
    uint64_t * free_bytes, uint64_t * total_bytes, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_hostreg_acquire (struct doradma_cuda_device *dev, int fd,
    void *addr, size_t len, int prot, struct doradma_cuda_hostreg **out,
    struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

uint64_t
doradma_cuda_hostreg_get_device_pointer (const struct doradma_cuda_hostreg *reg)
{
  return 0;
}

bool
doradma_cuda_hostreg_is_read_only (const struct doradma_cuda_hostreg *reg)
{
  return false;
}

bool
doradma_cuda_hostreg_is_integrated (const struct doradma_cuda_hostreg *reg)
{
  return false;
}

unsigned
doradma_cuda_hostreg_refcount (const struct doradma_cuda_hostreg *reg)
{
  return 0;
}

int
doradma_cuda_hostreg_release (struct doradma_cuda_hostreg *reg,
    struct doradma_diag *diag)
{
  return reg == NULL ? 0 : NOCUDA (diag);
}

int
doradma_cuda_ipc_export_new (struct doradma_cuda_device *dev, size_t size,
    uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_export **out, struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

uint64_t
doradma_cuda_ipc_export_get_device_pointer (const struct
    doradma_cuda_ipc_export *exp)
{
  return 0;
}

size_t
doradma_cuda_ipc_export_get_size (const struct doradma_cuda_ipc_export *exp)
{
  return 0;
}

int
doradma_cuda_ipc_export_free (struct doradma_cuda_ipc_export *exp,
    struct doradma_diag *diag)
{
  return exp == NULL ? 0 : NOCUDA (diag);
}

int
doradma_cuda_ipc_import_open (struct doradma_cuda_device *dev,
    const uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_import **out, struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

uint64_t
doradma_cuda_ipc_import_get_device_pointer (const struct
    doradma_cuda_ipc_import *imp)
{
  return 0;
}

int
doradma_cuda_ipc_import_close (struct doradma_cuda_ipc_import *imp,
    struct doradma_diag *diag)
{
  return imp == NULL ? 0 : NOCUDA (diag);
}

int
doradma_cuda_slab_pool_new (struct doradma_cuda_device *dev,
    enum doradma_cuda_slab_kind kind, uint64_t budget,
    struct doradma_cuda_slab_pool **out, struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

int
doradma_cuda_slab_alloc (struct doradma_cuda_slab_pool *pool, size_t size,
    struct doradma_cuda_slab **out, struct doradma_diag *diag)
{
  if (out)
    *out = NULL;
  return NOCUDA (diag);
}

const struct doradma_cuda_slab_info *
doradma_cuda_slab_get_info (const struct doradma_cuda_slab *slab)
{
  return NULL;
}

void
doradma_cuda_slab_free (struct doradma_cuda_slab *slab)
{
}

int
doradma_cuda_slab_export_dmabuf (const struct doradma_cuda_slab *slab,
    int *fd, uint64_t * size, struct doradma_diag *diag)
{
  if (fd)
    *fd = -1;
  return NOCUDA (diag);
}

void
doradma_cuda_slab_pool_get_stats (struct doradma_cuda_slab_pool *pool,
    struct doradma_cuda_slab_stats *stats)
{
}

void
doradma_cuda_slab_pool_destroy (struct doradma_cuda_slab_pool *pool)
{
}

uint64_t
doradma_cuda_slab_live_count (void)
{
  return 0;
}

int
doradma_cuda_device_get_handle (const struct doradma_cuda_device *dev)
{
  return -1;
}

int
doradma_cuda_device_synchronize (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_context_synchronize (void *context, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_stream_create (const struct doradma_cuda_device *dev,
    bool non_blocking, void **stream, struct doradma_diag *diag)
{
  if (stream)
    *stream = NULL;
  return NOCUDA (diag);
}

int
doradma_cuda_stream_synchronize (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_stream_destroy (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_stream_attach_managed (const struct doradma_cuda_device *dev,
    void *stream, uint64_t dptr, size_t length, enum doradma_cuda_attach how,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_event_create (const struct doradma_cuda_device *dev,
    bool timing, void **event, struct doradma_diag *diag)
{
  if (event)
    *event = NULL;
  return NOCUDA (diag);
}

int
doradma_cuda_event_record (const struct doradma_cuda_device *dev,
    void *event, void *stream, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_event_synchronize (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_event_query (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_event_elapsed_ms (const struct doradma_cuda_device *dev,
    void *start, void *end, float *ms, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_event_destroy (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_htod (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_dtoh (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_dtod (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_htod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, void *stream,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_dtoh_async (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, void *stream, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_dtod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, void *stream,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

bool
doradma_cuda_have_copy_2d (void)
{
  return false;
}

int
doradma_cuda_copy_2d (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, struct doradma_diag *diag)
{
  return NOCUDA (diag);
}

int
doradma_cuda_copy_2d_async (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, void *stream,
    struct doradma_diag *diag)
{
  return NOCUDA (diag);
}
