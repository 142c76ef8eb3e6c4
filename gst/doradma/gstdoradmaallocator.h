/* doradma GStreamer plugin — the CUDA slab allocator (public API).
 *
 * DoradmaSlabAllocator is a GstAllocator whose memory is a slab of CUDA
 * memory from cuda/'s slab pool, in one of three kinds:
 *   managed  cuMemAllocManaged (UMA): host pointer == device pointer;
 *   pinned   cuMemHostAlloc(DEVICEMAP): host pointer + device alias;
 *   device   cuMemCreate (VMM, dma-buf exportable, GPUDirect capable):
 *            device pointer only, GST_MEMORY_FLAG_NOT_MAPPABLE.
 * Sizes up to 64 MiB come from size classes with per-class free lists; larger
 * ones are allocated exactly and freed on return. A byte budget bounds what
 * the allocator holds (handed out + cached): the constructor's argument, else
 * $DORADMA_SLAB_POOL_BYTES, else 512 MiB; a malformed variable is an error.
 *
 * Three allocators are registered by name when the plugin loads
 * (GST_DORADMA_SLAB_ALLOCATOR_MANAGED etc.); they load CUDA only on their
 * first allocation, so registering costs nothing on machines without a GPU.
 * Applications that want errors reported (and a budget of their own) create
 * one with gst_doradma_slab_allocator_new().
 *
 * GPUDirect RDMA: gst_doradma_slab_allocator_new_rdma() registers every slab
 * with a NIC protection domain once (device: dma-buf MR; pinned: plain MR),
 * caches the MR with the slab and deregisters it when the slab is freed;
 * gst_doradma_slab_memory_get_rdma_keys() gives lkey/rkey/address. See
 * docs/gpudirect.md.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ALLOCATOR_H__
#define __GST_DORADMA_ALLOCATOR_H__

#include <gst/gst.h>
#include "doradma-prelude.h"

G_BEGIN_DECLS

/**
 * GST_DORADMA_SLAB_MEMORY_TYPE:
 *
 * The mem_type of slab memory ("DoradmaSlab").
 */
#define GST_DORADMA_SLAB_MEMORY_TYPE "DoradmaSlab"

/* Names under which the plugin registers its three lazily created
 * allocators (gst_allocator_find). */
#define GST_DORADMA_SLAB_ALLOCATOR_MANAGED "DoradmaSlabManaged"
#define GST_DORADMA_SLAB_ALLOCATOR_PINNED "DoradmaSlabPinned"
#define GST_DORADMA_SLAB_ALLOCATOR_DEVICE "DoradmaSlabDevice"

/* Environment variable holding the default byte budget: a decimal count with
 * an optional K/M/G/T suffix (powers of 1024), e.g. 512M or 2GiB. */
#define GST_DORADMA_SLAB_BUDGET_ENV "DORADMA_SLAB_POOL_BYTES"

typedef enum
{
  GST_DORADMA_SLAB_KIND_MANAGED = 0,
  GST_DORADMA_SLAB_KIND_PINNED = 1,
  GST_DORADMA_SLAB_KIND_DEVICE = 2,
} GstDoradmaSlabKind;

GST_DORADMA_API
GType gst_doradma_slab_kind_get_type (void);
#define GST_TYPE_DORADMA_SLAB_KIND (gst_doradma_slab_kind_get_type ())

/**
 * GstDoradmaSlabError:
 * @GST_DORADMA_SLAB_ERROR_NO_CUDA: built without CUDA, no libcuda.so.1, or
 *   no CUDA device (the message says which).
 * @GST_DORADMA_SLAB_ERROR_UNSUPPORTED: the device or slab kind cannot do it
 *   (the message names the attribute).
 * @GST_DORADMA_SLAB_ERROR_BUDGET: malformed budget (variable or argument).
 * @GST_DORADMA_SLAB_ERROR_NO_MEMORY: budget exhausted, more managed memory
 *   than the device has free, or the driver is out of memory.
 * @GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE: a GPUDirect/RDMA prerequisite is
 *   missing; the message lists every missing one by name.
 * @GST_DORADMA_SLAB_ERROR_FAILED: any other CUDA or verbs failure.
 */
typedef enum
{
  GST_DORADMA_SLAB_ERROR_NO_CUDA,
  GST_DORADMA_SLAB_ERROR_UNSUPPORTED,
  GST_DORADMA_SLAB_ERROR_BUDGET,
  GST_DORADMA_SLAB_ERROR_NO_MEMORY,
  GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE,
  GST_DORADMA_SLAB_ERROR_FAILED,
} GstDoradmaSlabError;

GST_DORADMA_API
GQuark gst_doradma_slab_error_quark (void);
#define GST_DORADMA_SLAB_ERROR (gst_doradma_slab_error_quark ())

typedef struct _GstDoradmaSlabAllocator GstDoradmaSlabAllocator;
typedef struct _GstDoradmaSlabAllocatorClass GstDoradmaSlabAllocatorClass;

GST_DORADMA_API
GType gst_doradma_slab_allocator_get_type (void);
#define GST_TYPE_DORADMA_SLAB_ALLOCATOR (gst_doradma_slab_allocator_get_type ())
#define GST_IS_DORADMA_SLAB_ALLOCATOR(obj) \
  (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_DORADMA_SLAB_ALLOCATOR))

/**
 * gst_doradma_slab_allocator_new:
 * @kind: the slab kind
 * @budget: byte budget; 0 takes $DORADMA_SLAB_POOL_BYTES, else 512 MiB
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * Loads CUDA, opens device 0 and creates the slab pool now, so every reason
 * it cannot work is reported here.
 *
 * Returns: (transfer full) (nullable): a new allocator, or %NULL with @error
 * set: BUDGET (malformed variable; checked before anything else), NO_CUDA,
 * UNSUPPORTED (e.g. no managed memory on this device), FAILED.
 */
GST_DORADMA_API
GstAllocator *gst_doradma_slab_allocator_new (GstDoradmaSlabKind kind,
    guint64 budget, GError ** error);

/**
 * gst_doradma_slab_allocator_new_rdma:
 * @pd: (nullable): a `struct ibv_pd *` of the application's connection
 *   (rdma_cm: `id->pd`), or %NULL to open the first RDMA device with an
 *   active port and allocate a protection domain owned by the allocator
 * @budget: as for gst_doradma_slab_allocator_new()
 * @allow_fallback: on %FALSE only GPUDirect RDMA (device slabs registered
 *   through dma-buf, or through nvidia-peermem) is accepted; on %TRUE the
 *   chain GPUDirect → pinned (host slabs registered with ibv_reg_mr) →
 *   managed (no registration) is walked, each step logged and recorded in
 *   the "rdma-mode" and "rdma-fallback" fields of the stats
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * Returns: (transfer full) (nullable): an allocator whose slabs are
 * registered with the NIC, or %NULL with @error set; RDMA_UNAVAILABLE lists
 * every missing prerequisite (libibverbs, ibverbs-device, active-port,
 * dmabuf-mr, cuda-dma-buf, nvidia-peermem, cuda).
 */
GST_DORADMA_API
GstAllocator *gst_doradma_slab_allocator_new_rdma (gpointer pd,
    guint64 budget, gboolean allow_fallback, GError ** error);

/**
 * gst_doradma_slab_allocator_alloc: (skip)
 * @allocator: a slab allocator
 * @size: bytes (> 0)
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * gst_allocator_alloc() with the reason on failure (NO_MEMORY: budget
 * exhausted / managed request over the device's free memory).
 *
 * Returns: (transfer full) (nullable): slab memory of @size bytes.
 */
GST_DORADMA_API
GstMemory *gst_doradma_slab_allocator_alloc (GstAllocator * allocator,
    gsize size, GError ** error);

/**
 * gst_doradma_slab_allocator_get_stats: (skip)
 * @allocator: a slab allocator
 *
 * Bindings call gst_doradma_slab_get_stats() instead (as
 * gst_doradma_slab_alloc() for gst_doradma_slab_allocator_alloc()): taking
 * a #GstAllocator, these two became static methods of SlabAllocator in
 * GObject introspection, and `alloc` hid Gst.Allocator.alloc in Python.
 *
 * Returns: (transfer full): a "doradma-slab-stats" structure: kind (string),
 * budget, bytes-in-use, bytes-cached, allocs, hits, misses, unpooled,
 * evictions, refusals, live-slabs (guint64), rdma-mode (string: none,
 * gpudirect-dmabuf, gpudirect-peermem, pinned-mr), rdma-fallback (string,
 * one line per step taken), mr-registrations, mr-hits, mr-deregistrations
 * (guint64).
 */
GST_DORADMA_API
GstStructure *gst_doradma_slab_allocator_get_stats (GstAllocator * allocator);

/**
 * gst_doradma_slab_alloc:
 * @allocator: a slab allocator
 * @size: bytes (> 0)
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * gst_doradma_slab_allocator_alloc() under the name bindings use
 * (Python: GstDoradma.slab_alloc(allocator, size); allocator.alloc(size,
 * params) stays Gst.Allocator.alloc). Since: 0.1
 *
 * Returns: (transfer full) (nullable): slab memory of @size bytes.
 */
GST_DORADMA_API
GstMemory *gst_doradma_slab_alloc (GstAllocator * allocator, gsize size,
    GError ** error);

/**
 * gst_doradma_slab_get_stats:
 * @allocator: a slab allocator
 *
 * gst_doradma_slab_allocator_get_stats() under the name bindings use
 * (Python: GstDoradma.slab_get_stats(allocator)). Since: 0.1
 *
 * Returns: (transfer full): the "doradma-slab-stats" structure.
 */
GST_DORADMA_API
GstStructure *gst_doradma_slab_get_stats (GstAllocator * allocator);

/**
 * gst_doradma_slab_allocator_register_all: (skip)
 *
 * Registers the three lazily initialised allocators under
 * GST_DORADMA_SLAB_ALLOCATOR_MANAGED/PINNED/DEVICE, and the library's debug
 * categories (doradmaallocator, doradmamemory). The plugin calls it from
 * plugin_init; applications find the allocators with gst_allocator_find()
 * (not introspected: plugin plumbing).
 */
GST_DORADMA_API
void gst_doradma_slab_allocator_register_all (void);

/**
 * gst_doradma_gpudirect_probe:
 * @cuda_device: CUDA ordinal to check (0)
 * @report: (out) (optional) (transfer full): one boolean field per
 *   prerequisite (libibverbs, ibverbs-device, active-port, dmabuf-mr,
 *   cuda-dma-buf, nvidia-peermem) and a "<name>-detail" string for each
 * @error: return location: RDMA_UNAVAILABLE naming every missing one
 *
 * Returns: %TRUE when GPUDirect RDMA can work: (libibverbs, ibverbs-device,
 * active-port) and either (dmabuf-mr, cuda-dma-buf) or nvidia-peermem.
 */
GST_DORADMA_API
gboolean gst_doradma_gpudirect_probe (gint cuda_device, GstStructure ** report,
    GError ** error);

/**
 * gst_doradma_gpudirect_probe_report:
 * @cuda_device: CUDA ordinal to check (0)
 *
 * The report of gst_doradma_gpudirect_probe() without an error: bindings
 * that turn a #GError into an exception (Python) lose the out parameter
 * exactly when it says what is missing. Since: 0.1
 *
 * Returns: (transfer full): the "doradma-gpudirect-probe" structure: one
 * boolean field per prerequisite, a "<name>-detail" string for each, and
 * "usable" (boolean).
 */
GST_DORADMA_API
GstStructure *gst_doradma_gpudirect_probe_report (gint cuda_device);

/* ---- memory accessors (gstfdmemory model) ---- */

GST_DORADMA_API
gboolean gst_is_doradma_slab_memory (GstMemory * mem);

GST_DORADMA_API
GstDoradmaSlabKind gst_doradma_slab_memory_get_kind (GstMemory * mem);

/**
 * gst_doradma_slab_memory_get_host_pointer:
 * @mem: slab memory
 *
 * Returns: (type guintptr): the host address of the memory's first byte
 * (offset applied), or %NULL (0) for kind device.
 */
GST_DORADMA_API
gpointer gst_doradma_slab_memory_get_host_pointer (GstMemory * mem);

/**
 * gst_doradma_slab_memory_get_device_pointer:
 * @mem: slab memory
 *
 * Returns: the CUDA device address (CUdeviceptr) of the memory's first
 * byte. Never assume it equals the host pointer.
 */
GST_DORADMA_API
guint64 gst_doradma_slab_memory_get_device_pointer (GstMemory * mem);

/**
 * gst_doradma_slab_memory_get_rdma_keys:
 * @mem: slab memory
 * @lkey: (out) (optional): the slab's MR local key
 * @rkey: (out) (optional): the slab's MR remote key
 * @addr: (out) (optional): the address a peer names in RDMA operations for
 *   the memory's first byte (the MR's iova + offset)
 *
 * Returns: %FALSE when the slab is not registered with a NIC.
 */
GST_DORADMA_API
gboolean gst_doradma_slab_memory_get_rdma_keys (GstMemory * mem,
    guint32 * lkey, guint32 * rkey, guint64 * addr);

/**
 * gst_doradma_slab_memory_export_dmabuf:
 * @size: (out) (optional): bytes the dma-buf covers (the slab's capacity)
 *
 * Returns: a new dma-buf fd (caller closes) of the whole slab, or -1 with
 * @error set: UNSUPPORTED for managed slabs (never exportable) and for
 * pinned slabs on devices without HOST_ALLOC_DMA_BUF_SUPPORTED.
 */
GST_DORADMA_API
gint gst_doradma_slab_memory_export_dmabuf (GstMemory * mem, guint64 * size,
    GError ** error);

/**
 * gst_doradma_slab_memory_upload:
 * @mem: slab memory
 * @offset: where in @mem
 * @src: (array length=size) (element-type guint8): the bytes (Python:
 *   bytes or a NumPy array's buffer)
 * @size: how many
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * Copies @size bytes from host memory @src into @mem at @offset: memcpy for
 * managed and pinned slabs, cuMemcpyHtoD (synchronous) for device slabs.
 * doradmasrc's copy-to uses it. Returns %FALSE with @error set.
 */
GST_DORADMA_API
gboolean gst_doradma_slab_memory_upload (GstMemory * mem, gsize offset,
    gconstpointer src, gsize size, GError ** error);

/**
 * gst_doradma_slab_memory_attach_stream:
 * @mem: slab memory
 * @stream: (nullable): a CUstream of @mem's device (a context on it), or
 *   %NULL to attach back to the host
 * @error: return location for a #GST_DORADMA_SLAB_ERROR
 *
 * @stream is the raw driver handle, as CUDA libraries hand it out: in
 * Python an int, such as CuPy's `Stream.ptr` or torch's
 * `torch.cuda.Stream.cuda_stream`; 0 or None means the host (not CUDA's
 * legacy default stream, which SINGLE cannot take). Like those libraries'
 * external streams, doradma cannot check that the handle is live: the
 * caller keeps the stream alive while the slab is attached to it. A
 * handle the driver refuses comes back as an error naming the CUresult;
 * memory that is not slab memory as #GST_DORADMA_SLAB_ERROR_UNSUPPORTED.
 *
 * Managed slabs only (no-op for others): cuStreamAttachMemAsync with
 * SINGLE (to @stream) or HOST. On devices without concurrentManagedAccess
 * (Jetson Orin) the CPU may touch managed memory while any kernel runs only
 * when it is attached to the host, or to a stream whose work is done: such
 * slabs are created attached to the host, and mapping a slab attached to a
 * stream first synchronises that stream.
 */
GST_DORADMA_API
gboolean gst_doradma_slab_memory_attach_stream (GstMemory * mem,
    gpointer stream, GError ** error);

G_END_DECLS

#endif /* __GST_DORADMA_ALLOCATOR_H__ */
