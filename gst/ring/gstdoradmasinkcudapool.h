/* doradma GStreamer plugin — private: doradmasink's CUDA slot pool.
 *
 * transport=ipc keeps the ring's slots in one device allocation. For
 * memory:CUDAMemory input the sink offers upstream a GstCudaBufferPool
 * subclass (CUDA elements take only those, and only of their own context)
 * whose buffers are those slots wrapped as GstCudaMemory: cudaupload,
 * cudaconvert, a decoder write the frame straight into the slot, and render
 * publishes it without a copy. Slots are acquired through the producer
 * with the sink's mode and stall policy, as gstdoradmapool.c does for
 * system-memory slots; latest mode with every slot busy lends a plain
 * GstCudaMemory instead (counted as a fallback buffer; render copies it or
 * drops it).
 *
 * Needs gst_cuda_allocator_alloc_wrapped (GStreamer >= 1.24); without it
 * gst_doradma_sink_cuda_pool_new says why and the sink keeps copying on
 * the device.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SINK_CUDA_POOL_H__
#define __GST_DORADMA_SINK_CUDA_POOL_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmaproducer.h"
#include "gstdoradmacuda.h"

G_BEGIN_DECLS
#ifdef HAVE_GST_CUDA
/* A pool configured for `caps` (memory:CUDAMemory video) in `ctx`, which
 * must wrap device 0's primary context (where the slots are); *size is
 * the buffer size to announce (GstCudaMemory's own pitched layout). NULL
 * with *reason when this build or `ctx` cannot have one. */
    GstBufferPool * gst_doradma_sink_cuda_pool_new (GstDoradmaProducer *
    producer, GstCudaContext * ctx, GstCaps * caps, guint * size,
    gchar ** reason);
#endif

/* Registers "doradmacudapool" where this build has the pool (plugin
 * init). */
void gst_doradma_sink_cuda_pool_debug_init (void);

/* The slot memory under `buf` when `buf` holds one GstCudaMemory that a
 * CUDA slot pool wrapped around a slot (NULL otherwise); *layout is that
 * memory's plane offsets and strides (from the slot's first byte). */
GstMemory *gst_doradma_sink_cuda_pool_slot (GstBuffer * buf,
    const GstVideoInfo ** layout);

/* Waits until the GPU work upstream queued on the wrapped memory of `buf`
 * is done (its stream when it has one, else the whole context): GPU work
 * is not ordered by the ring's CPU fences. FALSE with *err. */
gboolean gst_doradma_sink_cuda_pool_sync (GstBuffer * buf, gchar ** err);

G_END_DECLS
#endif /* __GST_DORADMA_SINK_CUDA_POOL_H__ */
