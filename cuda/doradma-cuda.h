/* doradma — CUDA support without GStreamer and without linking CUDA.
 *
 * One build runs with and without a GPU: the driver is dlopen'ed
 * ("libcuda.so.1") on first use, never linked, and the CUDA toolkit is needed
 * only at build time. A build without CUDA headers keeps this API; every
 * call then fails with -ENOSYS and "built without CUDA support".
 *
 * The call sequence:
 *   doradma_cuda_load()              once per process (thread-safe, cached);
 *   doradma_cuda_device_open()       retain ordinal N's primary context and
 *                                    read the attributes that choose paths;
 * then any of
 *   doradma_cuda_hostreg_acquire()   page-lock a whole host mapping of a shm
 *                                    object once per (device, inode) per
 *                                    process, get its device alias
 *                                    (transport "unified"); _release() before
 *                                    munmap;
 *   doradma_cuda_ipc_export_new()    one device buffer for a slot area and its
 *                                    64-byte legacy IPC handle (header bytes
 *                                    32..96, transport "ipc");
 *   doradma_cuda_ipc_import_open()   map that handle in another process;
 *   doradma_cuda_stream_create(),    streams, events, host/device copies
 *   doradma_cuda_copy_*()            (linear and 2-D, sync and async) and
 *                                    managed-memory attach, for callers
 *                                    that must not see cuda.h (gst/);
 *   doradma_cuda_slab_pool_new()     a pool of slabs of one kind (managed,
 *                                    pinned, device) with size classes, free
 *                                    lists and a byte budget, for the slab
 *                                    GstAllocator.
 *
 * Every int function returns 0 on success or -errno, and fills the optional
 * caller-owned `diag` with a message naming the CUDA call and its error name
 * (diag->field = the CUDA call, or NULL). Functions never print. Objects may
 * be used from any thread; each call makes the device's primary context
 * current for its duration and restores the caller's.
 *
 * Errnos common to all: -ENOSYS built without CUDA support; -ENOENT no
 * libcuda.so.1 (or a symbol missing in it); -ENODEV no CUDA device or
 * ordinal out of range; -ENOTSUP the device lacks what the call needs (the
 * message names the attribute); -ENOMEM out of memory or budget; -EINVAL a
 * bad argument or a CUDA_ERROR_INVALID_VALUE; -EIO any other CUDA error.
 */
#ifndef DORADMA_CUDA_H
#define DORADMA_CUDA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doradma/ring.h>       /* struct doradma_diag */

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Loader and devices (loader.c) */

/* True when this build had CUDA headers (the driver may still be absent). */
bool doradma_cuda_built_with_support (void);

/* Loads libcuda.so.1 (or $DORADMA_CUDA_LIBRARY, for tests) and runs cuInit
 * once per process; later calls return the first result and message.
 * Returns 0, -ENOSYS, -ENOENT (library or symbol missing: message has the
 * dlerror text), -ENODEV (cuInit: CUDA_ERROR_NO_DEVICE, or zero devices),
 * -EIO (cuInit failed otherwise, e.g. driver/library version mismatch). */
int doradma_cuda_load (struct doradma_diag *diag);

/* Driver version as cuDriverGetVersion reports it (13000 = 13.0), or 0. */
int doradma_cuda_driver_version (void);

/* What one device can do; read once at open. */
struct doradma_cuda_device_info {
  int ordinal;
  char name[128];
  int cc_major, cc_minor;
  uint64_t total_mem;
  bool integrated;                      /* iGPU (Jetson): no legacy IPC */
  bool unified_addressing;
  bool host_register_supported;
  bool read_only_host_register_supported;
  bool can_use_host_pointer_for_registered_mem;
  bool concurrent_managed_access;       /* 0 on Jetson Orin */
  bool dma_buf_supported;               /* cuMemAlloc / VMM ranges */
  bool host_alloc_dma_buf_supported;    /* cuMemHostAlloc ranges (CUDA 13) */
  bool vmm_supported;
  bool posix_fd_handle_supported;
  bool gpu_direct_rdma_with_vmm_supported;
  bool gpu_direct_rdma_supported;
  bool ipc_event_supported;
};

struct doradma_cuda_device;

/* Opens device `ordinal` (0-based), retaining its primary context. One
 * object per ordinal per process, refcounted: a second open returns the same
 * object with one more reference. Loads the driver if needed.
 * Returns 0, -ENOSYS, -ENOENT, -ENODEV (no such ordinal), -EIO. */
int doradma_cuda_device_open (int ordinal, struct doradma_cuda_device **out,
    struct doradma_diag *diag);

struct doradma_cuda_device *doradma_cuda_device_ref (struct doradma_cuda_device
    *dev);

/* Drops a reference; the last one releases the primary context. */
void doradma_cuda_device_unref (struct doradma_cuda_device *dev);

const struct doradma_cuda_device_info *doradma_cuda_device_get_info (const
    struct doradma_cuda_device *dev);

/* The primary CUcontext, for callers that launch work themselves. */
void *doradma_cuda_device_get_context (const struct doradma_cuda_device *dev);

/* Makes the device's context current on this thread / restores the previous
 * one. Returns 0 or -EIO. */
int doradma_cuda_device_push (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag);
void doradma_cuda_device_pop (void);

/* cuMemGetInfo. Returns 0 or -EIO. */
int doradma_cuda_device_mem_info (const struct doradma_cuda_device *dev,
    uint64_t * free_bytes, uint64_t * total_bytes, struct doradma_diag *diag);

/* The device's CUdevice (an int ordinal handle), for callers that wrap the
 * primary context themselves (gst_cuda_context_new_wrapped). */
int doradma_cuda_device_get_handle (const struct doradma_cuda_device *dev);

/* cuCtxSynchronize on the device's primary context: every stream of it is
 * done. Returns 0, -EIO (or the errno of a sticky kernel error). */
int doradma_cuda_device_synchronize (const struct doradma_cuda_device *dev,
    struct doradma_diag *diag);

/* cuCtxSynchronize on any CUcontext (`context`: another library's, e.g.
 * gst_cuda_context_get_handle), pushed for the call; loads the driver API
 * when no call did yet. Returns 0, the load's error, -EIO (or the errno of
 * a sticky kernel error). */
int doradma_cuda_context_synchronize (void *context,
    struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Streams, events and copies (stream.c)
 *
 * Streams and events are the driver's own handles (CUstream, CUevent) as
 * void *, so they can be handed to and taken from other CUDA code (a
 * GstCudaStream's handle, an application's stream). A NULL stream is the
 * context's legacy default stream. Each call makes `dev`'s primary context
 * current for its duration, like every call of this API. Device addresses
 * are CUdeviceptr values (device memory, a host registration's alias, an IPC
 * mapping, a managed or pinned slab's device pointer). */

/* cuStreamCreate: `non_blocking` = CU_STREAM_NON_BLOCKING (no implicit
 * synchronisation with the legacy default stream). */
int doradma_cuda_stream_create (const struct doradma_cuda_device *dev,
    bool non_blocking, void **stream, struct doradma_diag *diag);

/* cuStreamSynchronize: waits for everything enqueued on `stream`. */
int doradma_cuda_stream_synchronize (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag);

/* cuStreamDestroy (work already enqueued still completes). NULL is a no-op. */
int doradma_cuda_stream_destroy (const struct doradma_cuda_device *dev,
    void *stream, struct doradma_diag *diag);

/* Where a managed allocation is attached (cuStreamAttachMemAsync flags). */
enum doradma_cuda_attach {
  DORADMA_CUDA_ATTACH_GLOBAL = 1,       /* CU_MEM_ATTACH_GLOBAL */
  DORADMA_CUDA_ATTACH_HOST = 2,         /* CU_MEM_ATTACH_HOST */
  DORADMA_CUDA_ATTACH_SINGLE = 4,       /* CU_MEM_ATTACH_SINGLE: `stream`
                                         * must not be NULL */
};

/* cuStreamAttachMemAsync of managed memory at `dptr` (`length` 0 = the
 * whole allocation) to `stream`. Asynchronous: the attachment takes effect
 * when the stream reaches it (synchronise before the CPU relies on it).
 * Returns 0, -EINVAL (not managed memory, SINGLE on the NULL stream), -EIO. */
int doradma_cuda_stream_attach_managed (const struct doradma_cuda_device *dev,
    void *stream, uint64_t dptr, size_t length, enum doradma_cuda_attach how,
    struct doradma_diag *diag);

/* cuEventCreate; `timing` false adds CU_EVENT_DISABLE_TIMING (cheaper, no
 * elapsed time). */
int doradma_cuda_event_create (const struct doradma_cuda_device *dev,
    bool timing, void **event, struct doradma_diag *diag);

/* cuEventRecord of `event` on `stream`. */
int doradma_cuda_event_record (const struct doradma_cuda_device *dev,
    void *event, void *stream, struct doradma_diag *diag);

/* cuEventSynchronize: waits until the recorded work is done. */
int doradma_cuda_event_synchronize (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag);

/* cuEventQuery: 0 when the recorded work is done, -EAGAIN while it is not
 * (CUDA_ERROR_NOT_READY, no message), else -errno. */
int doradma_cuda_event_query (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag);

/* cuEventElapsedTime between two completed timing events, in ms. Returns
 * 0, -ENOTSUP (the driver lacks the symbol), -EAGAIN (not yet complete),
 * -EINVAL (an event created without timing), -EIO. */
int doradma_cuda_event_elapsed_ms (const struct doradma_cuda_device *dev,
    void *start, void *end, float *ms, struct doradma_diag *diag);

/* cuEventDestroy. NULL is a no-op. */
int doradma_cuda_event_destroy (const struct doradma_cuda_device *dev,
    void *event, struct doradma_diag *diag);

/* Linear copies of `n` bytes (n 0 is a no-op). The plain forms are
 * cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD with the driver's synchronous
 * semantics: DtoH returns when the bytes are in host memory; HtoD from
 * pageable memory returns once they are staged, before the DMA reached the
 * device, and DtoD may still be in flight: synchronise
 * (doradma_cuda_device_synchronize) before another context or process may
 * read the destination. The _async forms enqueue on `stream` and return
 * (truly asynchronous only for page-locked host memory, pageable host
 * memory is staged). A failure message names the call and the byte count. */
int doradma_cuda_copy_htod (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, struct doradma_diag *diag);
int doradma_cuda_copy_dtoh (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, struct doradma_diag *diag);
int doradma_cuda_copy_dtod (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, struct doradma_diag *diag);
int doradma_cuda_copy_htod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, const void *src, size_t n, void *stream,
    struct doradma_diag *diag);
int doradma_cuda_copy_dtoh_async (const struct doradma_cuda_device *dev,
    void *dst, uint64_t src, size_t n, void *stream,
    struct doradma_diag *diag);
int doradma_cuda_copy_dtod_async (const struct doradma_cuda_device *dev,
    uint64_t dst, uint64_t src, size_t n, void *stream,
    struct doradma_diag *diag);

/* A strided copy of `height` rows of `width` bytes (cuMemcpy2D). A side is
 * host memory (a CPU pointer cast to uint64_t) unless its _device flag is
 * set. Pitches must be >= width. */
struct doradma_cuda_copy2d {
  uint64_t dst;
  bool dst_device;
  size_t dst_pitch;
  uint64_t src;
  bool src_device;
  size_t src_pitch;
  size_t width;         /* bytes per row */
  size_t height;        /* rows */
};

/* True when the loaded driver has cuMemcpy2D_v2 and cuMemcpy2DAsync_v2
 * (optional symbols; false before doradma_cuda_load succeeded). Without
 * them doradma_cuda_copy_2d* return -ENOTSUP: copy row by row instead. */
bool doradma_cuda_have_copy_2d (void);

/* cuMemcpy2D / cuMemcpy2DAsync on `stream`. Returns 0, -ENOTSUP (no 2-D
 * copy in this driver), -EINVAL (pitch < width, or the driver's
 * CUDA_ERROR_INVALID_VALUE, e.g. a pitch above its limit), -EIO. */
int doradma_cuda_copy_2d (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, struct doradma_diag *diag);
int doradma_cuda_copy_2d_async (const struct doradma_cuda_device *dev,
    const struct doradma_cuda_copy2d *c, void *stream,
    struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Host registration of a shm mapping: the "unified" transport (hostreg.c) */

struct doradma_cuda_hostreg;

/* Page-locks the whole mapping [addr, addr+len) of the object open as `fd`
 * (used only for fstat: the key is (device, st_dev, st_ino)) and obtains its
 * device alias. `prot` is the mapping's protection: without PROT_WRITE the
 * range is registered READ_ONLY, which needs
 * CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED (else -ENOTSUP: a
 * read-only mapping cannot be registered read-write). A second acquire of the
 * same inode in this process returns the same registration, refcounted; it
 * must name the same addr, len and prot (else -EBUSY).
 * Returns 0, -EBUSY, -ENOTSUP (host registration or read-only registration
 * unsupported), -EEXIST (range overlaps a registration made elsewhere),
 * -EBADF (fstat failed), -EINVAL, -ENOMEM, -EIO. */
int doradma_cuda_hostreg_acquire (struct doradma_cuda_device *dev, int fd,
    void *addr, size_t len, int prot, struct doradma_cuda_hostreg **out,
    struct doradma_diag *diag);

/* Device pointer of the mapping's first byte; slot i is at this + offset.
 * Never assume it equals the host pointer (it differs on Jetson). */
uint64_t doradma_cuda_hostreg_get_device_pointer (const struct
    doradma_cuda_hostreg *reg);

/* True when registered READ_ONLY. */
bool doradma_cuda_hostreg_is_read_only (const struct doradma_cuda_hostreg
    *reg);

/* True when the device is integrated (registered memory is the same DRAM,
 * uncached for the GPU on Orin). */
bool doradma_cuda_hostreg_is_integrated (const struct doradma_cuda_hostreg
    *reg);

/* Current number of acquires of `reg` (for tests and stats). */
unsigned doradma_cuda_hostreg_refcount (const struct doradma_cuda_hostreg *reg);

/* Drops one reference; the last unregisters. Call before munmap: the driver
 * tracks registrations by address and a new mapping at the same address
 * would be refused. Returns 0, or -EIO (cuMemHostUnregister failed; the
 * entry is dropped anyway). */
int doradma_cuda_hostreg_release (struct doradma_cuda_hostreg *reg,
    struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Legacy CUDA IPC: the "ipc" transport (ipc.c) */

#define DORADMA_CUDA_IPC_HANDLE_SIZE 64

struct doradma_cuda_ipc_export;
struct doradma_cuda_ipc_import;

/* Allocates one device buffer of `size` bytes (cuMemAlloc) and writes its
 * 64-byte IPC handle (cuIpcGetMemHandle) to `handle`. The buffer must outlive
 * every importer's mapping.
 * Returns 0, -ENOTSUP (integrated GPU: no legacy memory IPC; or no unified
 * addressing), -ENOMEM, -EINVAL (size 0), -EIO. */
int doradma_cuda_ipc_export_new (struct doradma_cuda_device *dev, size_t size,
    uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_export **out, struct doradma_diag *diag);

uint64_t doradma_cuda_ipc_export_get_device_pointer (const struct
    doradma_cuda_ipc_export *exp);
size_t doradma_cuda_ipc_export_get_size (const struct doradma_cuda_ipc_export
    *exp);

/* Frees the buffer. Returns 0 or -EIO. */
int doradma_cuda_ipc_export_free (struct doradma_cuda_ipc_export *exp,
    struct doradma_diag *diag);

/* Maps a handle exported by another process (cuIpcOpenMemHandle with lazy
 * peer access). Opening in the exporting process itself fails.
 * Returns 0, -ENOTSUP (integrated GPU), -EINVAL (invalid or stale handle,
 * or the handle was exported by this very process), -ENOMEM, -EIO. */
int doradma_cuda_ipc_import_open (struct doradma_cuda_device *dev,
    const uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE],
    struct doradma_cuda_ipc_import **out, struct doradma_diag *diag);

uint64_t doradma_cuda_ipc_import_get_device_pointer (const struct
    doradma_cuda_ipc_import *imp);

/* Unmaps. Returns 0 or -EIO. */
int doradma_cuda_ipc_import_close (struct doradma_cuda_ipc_import *imp,
    struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Slab pool, the core of the slab GstAllocator (slab.c) */

enum doradma_cuda_slab_kind {
  DORADMA_CUDA_SLAB_MANAGED = 0,  /* cuMemAllocManaged: host == device ptr */
  DORADMA_CUDA_SLAB_PINNED = 1,   /* cuMemHostAlloc DEVICEMAP: host + alias */
  DORADMA_CUDA_SLAB_DEVICE = 2,   /* cuMemCreate (VMM, POSIX fd, GPUDirect
                                   * capable) or cuMemAlloc: no host ptr */
};

/* Size classes: 4 per power of two from 64 KiB to 64 MiB, each rounded up to
 * the kind's granularity (page size; 2 MiB for VMM on H200). Larger requests
 * are unpooled: allocated exactly and freed on return. */
#define DORADMA_CUDA_SLAB_MIN_CLASS (64u << 10)
#define DORADMA_CUDA_SLAB_MAX_CLASS (64u << 20)
#define DORADMA_CUDA_SLAB_N_CLASSES 41
/* Budget when neither the argument nor the environment gives one. */
#define DORADMA_CUDA_SLAB_DEFAULT_BUDGET (512ull << 20)
#define DORADMA_CUDA_SLAB_BUDGET_ENV "DORADMA_SLAB_POOL_BYTES"

struct doradma_cuda_slab_pool;
struct doradma_cuda_slab;

struct doradma_cuda_slab_info {
  enum doradma_cuda_slab_kind kind;
  size_t size;          /* bytes asked for */
  size_t capacity;      /* bytes allocated (class size, granularity) */
  void *host;           /* CPU pointer, NULL for kind device */
  uint64_t device;      /* device pointer */
  int size_class;       /* index into the classes, -1 when unpooled */
  bool vmm;             /* device kind: cuMemCreate (else cuMemAlloc) */
};

struct doradma_cuda_slab_stats {
  uint64_t budget;              /* bytes */
  uint64_t bytes_in_use;        /* capacity of slabs handed out */
  uint64_t bytes_cached;        /* capacity of slabs on free lists */
  uint64_t allocs;              /* successful doradma_cuda_slab_alloc */
  uint64_t hits;                /* ... served from a free list */
  uint64_t misses;              /* ... that allocated from the driver */
  uint64_t unpooled;            /* ... above the largest class */
  uint64_t evictions;           /* cached slabs freed to fit the budget */
  uint64_t refusals;            /* -ENOMEM returned */
  uint64_t class_hits[DORADMA_CUDA_SLAB_N_CLASSES];
};

/* Parses $DORADMA_SLAB_POOL_BYTES: a decimal byte count with an optional
 * K/M/G/T suffix (powers of 1024, an optional "iB"/"B" after it). Unset or
 * empty: *out = 0. Returns 0, or -EINVAL naming the variable and its value. */
int doradma_cuda_slab_budget_from_env (uint64_t * out,
    struct doradma_diag *diag);

/* Creates a pool. `budget` > 0 is the byte budget; 0 takes
 * $DORADMA_SLAB_POOL_BYTES, else DORADMA_CUDA_SLAB_DEFAULT_BUDGET. The pool
 * holds a device reference.
 * Returns 0, -EINVAL (bad kind, malformed environment value), -ENOTSUP
 * (managed memory unsupported: message names the attribute), -EIO. */
int doradma_cuda_slab_pool_new (struct doradma_cuda_device *dev,
    enum doradma_cuda_slab_kind kind, uint64_t budget,
    struct doradma_cuda_slab_pool **out, struct doradma_diag *diag);

/* Hands out a slab of at least `size` bytes: from the class's free list if
 * one is cached (a hit), else from the driver. Cached slabs of other classes
 * are freed first when the budget would be exceeded. Managed requests are
 * refused when larger than the device's free memory (cuMemGetInfo):
 * oversubscribing managed memory can hang the GPU.
 * Returns 0, -EINVAL (size 0), -ENOMEM (budget exhausted, or larger than
 * free device memory, or the driver is out of memory: the message says
 * which), -ESHUTDOWN (pool destroyed), -EIO. */
int doradma_cuda_slab_alloc (struct doradma_cuda_slab_pool *pool, size_t size,
    struct doradma_cuda_slab **out, struct doradma_diag *diag);

const struct doradma_cuda_slab_info *doradma_cuda_slab_get_info (const struct
    doradma_cuda_slab *slab);

/* Returns a slab, from any thread: back onto its free list, or freed when
 * unpooled or when the pool is being destroyed. */
void doradma_cuda_slab_free (struct doradma_cuda_slab *slab);

/* Exports a kind-device slab (and a pinned one where
 * CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED) as a dma-buf
 * (cuMemGetHandleForAddressRange DMA_BUF_FD) of the slab's capacity. The
 * caller owns *fd. Managed slabs are refused: managed memory cannot be a
 * dma-buf, nor shared with another process or a NIC.
 * Returns 0, -ENOTSUP (kind managed; attribute missing: message says which),
 * -EIO. */
int doradma_cuda_slab_export_dmabuf (const struct doradma_cuda_slab *slab,
    int *fd, uint64_t * size, struct doradma_diag *diag);

void doradma_cuda_slab_pool_get_stats (struct doradma_cuda_slab_pool *pool,
    struct doradma_cuda_slab_stats *stats);

/* Capacity of size class `i` before rounding to granularity, 0 if out of
 * range. */
size_t doradma_cuda_slab_class_size (int i);

/* Starts shutdown: frees every cached slab now; slabs still handed out are
 * freed when returned, and the pool itself with the last of them. */
void doradma_cuda_slab_pool_destroy (struct doradma_cuda_slab_pool *pool);

/* Process-wide number of slabs whose memory is allocated (cached, in use or
 * awaiting return), for leak tests. */
uint64_t doradma_cuda_slab_live_count (void);

const char *doradma_cuda_slab_kind_name (enum doradma_cuda_slab_kind kind);

#ifdef __cplusplus
}
#endif
#endif /* DORADMA_CUDA_H */
