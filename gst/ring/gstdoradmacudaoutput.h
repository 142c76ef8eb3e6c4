/* doradma GStreamer plugin — doradmasrc's GPU output paths.
 *
 * Frame → buffer helpers for the frames that do not go out as a plain
 * leased slot: an ipc segment downloaded into system memory, a frame copied
 * into a CUDA slab (copy-to), and memory:CUDAMemory output (a wrapped slot
 * from 1.24, a device copy on 1.22). Each takes the consumer's frame and
 * gives its lease back exactly once, whatever happens; what it needs (pool,
 * video info, layout) comes as arguments.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_CUDA_OUTPUT_H__
#define __GST_DORADMA_CUDA_OUTPUT_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmaconsumer.h"
#include "gstdoradmacuda.h"

G_BEGIN_DECLS

/* doradmasrc's copy-to: the CUDA slab kind frames are copied into. */
typedef enum
{
  GST_DORADMA_COPY_TO_NONE,
  GST_DORADMA_COPY_TO_UMA,
  GST_DORADMA_COPY_TO_PINNED,
  GST_DORADMA_COPY_TO_DEVICE,
} GstDoradmaCopyTo;

/* The GPU state of one element, created on first use, freed by _reset. */
typedef struct
{
  GstElement *element;          /* for the CUDA context; not a ref */
  GstDoradmaCudaCopier *copier;
  GstAllocator *slab_alloc;
#ifdef HAVE_GST_CUDA
  GstCudaContext *ctx;          /* under the element's object lock */
  GstBufferPool *cuda_pool;
#endif
  gint device_copies;           /* frames copied by the GPU (atomic) */
  gint slab_copies;             /* frames copied by copy-to (atomic) */
} GstDoradmaCudaOutput;

void gst_doradma_cuda_output_init (GstDoradmaCudaOutput * o,
    GstElement * element);
/* Frees the copier, slab allocator and pools (keeps the context). */
void gst_doradma_cuda_output_reset (GstDoradmaCudaOutput * o);
/* The caps changed: pools of the old caps go. */
void gst_doradma_cuda_output_caps_changed (GstDoradmaCudaOutput * o);
void gst_doradma_cuda_output_finalize (GstDoradmaCudaOutput * o);

/* ipc segment, system-memory output: downloads into a buffer of `pool`
 * (default layout of `info`). */
GstBuffer *gst_doradma_cuda_output_download (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame,
    GstBufferPool * pool, const GstVideoInfo * info, gchar ** err);

/* copy-to: the frame into a slab of kind `to` (budget: bytes the slabs may
 * hold), in the writer's layout with GstVideoMeta when `meta` (downstream
 * accepts it), else in the default layout of `info`. */
GstBuffer *gst_doradma_cuda_output_copy_to_slab (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame,
    GstDoradmaCopyTo to, guint64 budget, const GstVideoInfo * info,
    gboolean meta, gchar ** err);

#ifdef HAVE_GST_CUDA
/* memory:CUDAMemory output with `caps` (features included). */
GstBuffer *gst_doradma_cuda_output_cuda_memory (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame,
    GstCaps * caps, const GstVideoInfo * info, gchar ** err);
#endif

G_END_DECLS

#endif /* __GST_DORADMA_CUDA_OUTPUT_H__ */
