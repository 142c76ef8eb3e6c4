/* doradma GStreamer plugin — the GStreamer side of CUDA (private).
 *
 * One responsibility: everything the elements need from a GPU, on top of
 * cuda/doradma-cuda.h (driver loaded at run time, never linked):
 *
 *  - availability: is CUDA usable here, and if not, a sentence naming what
 *    is missing (not built with CUDA, no libcuda.so.1, no device);
 *  - the reader's registration of a segment: "unified" page-locks the whole
 *    read-only data mapping once per (device, inode) per process (cuda/
 *    hostreg registry) and gives slot device pointers as alias + offset;
 *    "ipc" opens the segment's CUDA IPC handle once per segment and gives
 *    base + slot * stride. Owned by the reader handle, released BEFORE the
 *    reader unmaps (gst_doradma_reader_handle_unref);
 *  - the writer's device slot area for transport=ipc (cuda/ ipc export);
 *  - copies on a private stream (per plane, honouring strides) with an
 *    explicit synchronise, so a lease is released or a frame published only
 *    after the GPU finished with it (the ring's CPU fences do not order GPU work);
 *  - with gstreamer-cuda (HAVE_GST_CUDA): a GstCudaContext that wraps the
 *    same primary context, so memory:CUDAMemory peers and our copies share
 *    one context.
 *
 * Without CUDA support every function fails cleanly with a reason; nothing
 * here makes the plugin need libcuda to load.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_CUDA_H__
#define __GST_DORADMA_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#endif

G_BEGIN_DECLS
/* The caps feature of GStreamer's CUDA memory. */
#define GST_DORADMA_CUDA_FEATURE "memory:CUDAMemory"
    struct doradma_cuda_device;

typedef enum
{
  GST_DORADMA_CUDA_PATH_NONE = 0,       /* host memory only */
  GST_DORADMA_CUDA_PATH_UNIFIED,        /* registered shm, discrete GPU */
  GST_DORADMA_CUDA_PATH_UNIFIED_INTEGRATED,     /* registered shm, iGPU (Jetson) */
  GST_DORADMA_CUDA_PATH_IPC,    /* device slots through a CUDA IPC handle */
} GstDoradmaCudaPath;

const gchar *gst_doradma_cuda_path_name (GstDoradmaCudaPath path);

/* Loads CUDA and opens device 0 (cached per process). Returns a new
 * reference, or NULL with *reason (g_free) naming what is missing. */
struct doradma_cuda_device *gst_doradma_cuda_device (gchar ** reason);

/* TRUE when gst_doradma_cuda_device () would succeed. */
gboolean gst_doradma_cuda_available (gchar ** reason);

/* TRUE when memory:CUDAMemory output/input is compiled in (gstreamer-cuda)
 * and its library loads. */
gboolean gst_doradma_cuda_memory_available (gchar ** reason);

/* Process-wide number of new host registrations made by readers here (a
 * second reader of the same inode shares the first registration). */
guint64 gst_doradma_cuda_registrations (void);

/* ---------------------------------------------------------------------- */
/* Reader side */

typedef struct _GstDoradmaCudaReader GstDoradmaCudaReader;

/* Sets up device access to the open reader's segment: IPC import when the
 * segment's slots live in device memory, else host registration of the
 * read-only data mapping. NULL with *reason on failure. */
GstDoradmaCudaReader *gst_doradma_cuda_reader_new (struct doradma_reader *r,
    gchar ** reason);

/* Unregisters / closes. Call before doradma_reader_close (). */
void gst_doradma_cuda_reader_free (GstDoradmaCudaReader * cr);

GstDoradmaCudaPath gst_doradma_cuda_reader_path (const GstDoradmaCudaReader *
    cr);

/* Device pointer of a leased frame's first byte. */
guint64 gst_doradma_cuda_reader_frame_pointer (const GstDoradmaCudaReader * cr,
    const struct doradma_frame *frame);

struct doradma_cuda_device *gst_doradma_cuda_reader_device (const
    GstDoradmaCudaReader * cr);

/* cuCtxSynchronize on the reader's device: every stream of the context is
 * done (before a wrapped frame's lease goes back). */
void gst_doradma_cuda_reader_sync (const GstDoradmaCudaReader * cr);

/* ---------------------------------------------------------------------- */
/* Writer side: one device allocation for the slot area (transport=ipc). */

typedef struct _GstDoradmaCudaSlots GstDoradmaCudaSlots;

/* Allocates `size` bytes of device memory and its 64-byte IPC handle. */
GstDoradmaCudaSlots *gst_doradma_cuda_slots_new (gsize size,
    guint8 handle[DORADMA_IPC_HANDLE_LEN], gchar ** reason);
guint64 gst_doradma_cuda_slots_pointer (const GstDoradmaCudaSlots * s);
gsize gst_doradma_cuda_slots_size (const GstDoradmaCudaSlots * s);
void gst_doradma_cuda_slots_free (GstDoradmaCudaSlots * s);

/* ---------------------------------------------------------------------- */
/* Copies on a private stream */

typedef struct _GstDoradmaCudaCopier GstDoradmaCudaCopier;

typedef enum
{
  GST_DORADMA_CUDA_MEM_HOST,
  GST_DORADMA_CUDA_MEM_DEVICE,  /* device memory, an alias or an IPC map */
} GstDoradmaCudaMemKind;

/* A non-blocking stream on device 0's primary context. */
GstDoradmaCudaCopier *gst_doradma_cuda_copier_new (gchar ** reason);
void gst_doradma_cuda_copier_free (GstDoradmaCudaCopier * c);
gpointer gst_doradma_cuda_copier_stream (GstDoradmaCudaCopier * c);
struct doradma_cuda_device *gst_doradma_cuda_copier_device (GstDoradmaCudaCopier
    * c);

typedef struct
{
  guint64 ptr;                  /* first byte of the frame */
  GstDoradmaCudaMemKind kind;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} GstDoradmaCudaFrame;

/* Enqueues a per-plane copy of `n_planes` planes of rows[p] rows of
 * row_bytes[p] bytes (one call per plane when both strides are equal, else
 * a 2-D copy, else row by row). Does not wait: call _sync. */
gboolean gst_doradma_cuda_copier_copy (GstDoradmaCudaCopier * c, guint n_planes,
    const GstDoradmaCudaFrame * dst, const GstDoradmaCudaFrame * src,
    const guint32 * rows, const guint32 * row_bytes, gchar ** err);

/* Waits until everything enqueued on the stream has finished. */
gboolean gst_doradma_cuda_copier_sync (GstDoradmaCudaCopier * c, gchar ** err);

/* Counters since creation. */
guint64 gst_doradma_cuda_copier_copies (GstDoradmaCudaCopier * c);

/* The device side of a buffer whose one memory is device memory:
 * memory:CUDAMemory (mapped for CUDA until _close), a doradma slot of a
 * writer with GPU slots (transport ipc) or a device slab. Layout: the video
 * meta's, else the CUDA memory's own, else the default of the caps. */
typedef struct
{
  GstDoradmaCudaFrame frame;
  gsize size;                   /* bytes of the memory */
  GstMemory *mapped;
  GstMapInfo map;
} GstDoradmaCudaSource;

/* *is_device FALSE: host memory, nothing opened (map the buffer instead).
 * FALSE with *err when device memory cannot be read. */
gboolean gst_doradma_cuda_source_open (const GstVideoInfo * info,
    GstBuffer * buf, GstDoradmaCudaSource * src, gboolean * is_device,
    gchar ** err);
void gst_doradma_cuda_source_close (GstDoradmaCudaSource * src);

/* Copies the frame `src` (caps `info`) to `dst_ptr` in the default layout
 * of `info`, plane by plane honouring the source's strides, and waits for
 * the copy. FALSE with *err. */
/* `f` as the planes of the mapped `vf`, in memory of `kind`: ptr 0 and
 * each plane's address in its offset (a GstVideoFrame mapped with
 * GST_MAP_CUDA gives device addresses). */
void gst_doradma_cuda_frame_of_video_frame (GstDoradmaCudaFrame * f,
    GstDoradmaCudaMemKind kind, const GstVideoFrame * vf);

gboolean gst_doradma_cuda_copy_frame (GstDoradmaCudaCopier * copier,
    const GstVideoInfo * info, const GstDoradmaCudaFrame * src,
    guint64 dst_ptr, GstDoradmaCudaMemKind dst_kind, gchar ** err);

/* transport=ipc: copies the frame of `buf` (caps `info`) into the device
 * slot at `dst_ptr`, in the default layout of `info`: device to device from
 * device memory (gst_doradma_cuda_source_open: *from_device TRUE), host to
 * device from anything else,
 * plane by plane honouring the source's strides. Waits for the copy before
 * returning, so the caller may publish at once. FALSE with *err. */
gboolean gst_doradma_cuda_upload_frame (GstDoradmaCudaCopier * copier,
    const GstVideoInfo * info, GstBuffer * buf, guint64 dst_ptr,
    gboolean * from_device, gchar ** err);

/* Bytes of device memory free now (cuMemGetInfo), 0 on failure. */
guint64 gst_doradma_cuda_mem_free (void);

#ifdef HAVE_GST_CUDA
/* Upstream's GPU work on a GstCudaMemory is done, before a frame is read
 * on one of our streams or published: the memory's stream synchronised
 * when it carries one (>= 1.24), else every stream of the memory's own
 * context (cuCtxSynchronize there, not in our primary context: a writer
 * without a stream may have queued on any stream of its context, and a
 * "synchronous" copy from pageable memory returns before its DMA lands).
 * FALSE with *err. */
gboolean gst_doradma_cuda_memory_sync (GstMemory * mem, gchar ** err);

/* A GstCudaContext wrapping device 0's primary context (one per process,
 * a new reference), or NULL with *reason. */
GstCudaContext *gst_doradma_cuda_context (gchar ** reason);

/* The element's CUDA context kept in *slot (under the element's object
 * lock): the one set_context gave, else device 0's primary context, stored
 * there. A new reference, or NULL with *reason. */
GstCudaContext *gst_doradma_cuda_element_context (GstElement * element,
    GstCudaContext ** slot, gchar ** reason);

/* Answers a CUDA context query with that context; FALSE when the query is
 * not one or CUDA is not available. */
gboolean gst_doradma_cuda_element_query (GstElement * element,
    GstCudaContext ** slot, GstQuery * query);

/* TRUE when `ctx` wraps device 0's primary context, the one the device
 * slots (transport=ipc) are allocated in: its kernels and copies may use
 * slot pointers directly. */
gboolean gst_doradma_cuda_context_is_primary (GstCudaContext * ctx);

/* For set_context: keeps a CUDA context on device 0 that the application or
 * a neighbour gave. */
void gst_doradma_cuda_element_set_context (GstElement * element,
    GstCudaContext ** slot, GstContext * context);
#endif


G_END_DECLS
#endif /* __GST_DORADMA_CUDA_H__ */
