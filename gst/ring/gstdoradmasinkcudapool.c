/* doradma GStreamer plugin — doradmasink's CUDA slot pool (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each buffer holds one GstCudaMemory made per acquisition with
 * gst_cuda_allocator_alloc_wrapped around the device address of a slot
 * memory the producer lent (WRITING). The wrapper owns that slot memory:
 * its notify drops it, which returns the slot through the producer's
 * dispose hook (abandoned when nobody published it). A qdata on the
 * wrapper names the slot memory, so render recognises its own buffers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmasinkcudapool.h"
#include <gst/doradma/gstdoradmamemory.h>

#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED

GST_DEBUG_CATEGORY_STATIC (gst_doradma_sink_cuda_pool_debug);
#define GST_CAT_DEFAULT gst_doradma_sink_cuda_pool_debug

typedef struct
{
  GstCudaBufferPool parent;     /* its `context` is the one upstream uses */

  GstDoradmaProducer *producer;
  gint flushing;                /* atomic: cancels the producer's waits */
  GstVideoInfo info;            /* the caps */
  GstVideoInfo layout;          /* GstCudaMemory's pitched layout of them */
  GstCudaStream *stream;        /* upstream's (pool config), may be NULL */
  guint min_buffers;
} GstDoradmaSinkCudaPool;

typedef struct
{
  GstCudaBufferPoolClass parent_class;
} GstDoradmaSinkCudaPoolClass;

G_DEFINE_TYPE (GstDoradmaSinkCudaPool, gst_doradma_sink_cuda_pool,
    GST_TYPE_CUDA_BUFFER_POOL);

/* GstBufferPool's own methods: GstCudaBufferPool's need the allocator
 * that this pool does not have. */
static GstBufferPoolClass *base_class;

/* slot_quark (): the qdata that names a wrapper's slot memory */
G_DEFINE_QUARK (GstDoradmaSinkCudaPoolSlot, slot);

static gboolean
gst_doradma_sink_cuda_pool_set_config (GstBufferPool * pool,
    GstStructure * config)
{
  GstDoradmaSinkCudaPool *self = (GstDoradmaSinkCudaPool *) pool;
  GstCudaContext *ctx = GST_CUDA_BUFFER_POOL (pool)->context;
  GstCudaStream *stream;
  GstMemory *probe;
  GstCaps *caps;
  guint size, min, max;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || caps == NULL || !gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (pool, "no video caps in the config");
    return FALSE;
  }
  stream = gst_buffer_pool_config_get_cuda_stream (config);
  if (stream && stream->context != ctx)
    gst_clear_cuda_stream (&stream);
  /* the layout GstCudaMemory gives these caps (planes at a pitch kernels
   * and textures accept), from one probe allocation */
  probe = gst_cuda_allocator_alloc (NULL, ctx, stream, &info);
  if (probe == NULL) {
    GST_WARNING_OBJECT (pool, "GstCudaMemory has no layout for %"
        GST_PTR_FORMAT, caps);
    gst_clear_cuda_stream (&stream);
    return FALSE;
  }
  self->layout = GST_CUDA_MEMORY_CAST (probe)->info;
  gst_memory_unref (probe);
  gst_clear_cuda_stream (&self->stream);
  self->stream = stream;
  self->info = info;
  self->min_buffers = min;
  /* The size is the layout's, as GstCudaBufferPool sets it (CUDA elements
   * read it back); no maximum: buffers are ring slots. */
  gst_buffer_pool_config_set_params (config, caps, self->layout.size, min, 0);
  GST_DEBUG_OBJECT (pool, "%" GST_PTR_FORMAT ": %" G_GSIZE_FORMAT " bytes, "
      "stride %d, stream %p", caps, self->layout.size, self->layout.stride[0],
      stream);
  return base_class->set_config (pool, config);
}

static gboolean
gst_doradma_sink_cuda_pool_start (GstBufferPool * pool)
{
  GstDoradmaSinkCudaPool *self = (GstDoradmaSinkCudaPool *) pool;

  /* the segment, with slots large enough for the pitched layout */
  if (gst_doradma_producer_prepare (self->producer, self->layout.size)
      != GST_FLOW_OK)
    return FALSE;
  gst_doradma_producer_check_slots (self->producer, self->min_buffers);
  return TRUE;
}

static gboolean
gst_doradma_sink_cuda_pool_stop (GstBufferPool * pool)
{
  return base_class->stop (pool);
}

/* A GstCudaMemory over slot memory `slot` (taken). */
static GstMemory *
wrap_slot (GstDoradmaSinkCudaPool * self, GstMemory * slot)
{
  GstMemory *mem;

  mem = gst_cuda_allocator_alloc_wrapped (NULL,
      GST_CUDA_BUFFER_POOL (self)->context, self->stream, &self->layout,
      gst_doradma_memory_get_device_pointer (slot), slot,
      (GDestroyNotify) gst_memory_unref);
  if (mem == NULL) {
    gst_memory_unref (slot);
    return NULL;
  }
  gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), slot_quark (), slot, NULL);
  return mem;
}

static GstFlowReturn
gst_doradma_sink_cuda_pool_acquire_buffer (GstBufferPool * pool,
    GstBuffer ** buffer, GstBufferPoolAcquireParams * params)
{
  GstDoradmaSinkCudaPool *self = (GstDoradmaSinkCudaPool *) pool;
  gboolean dontwait = params
      && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT);
  GstMemory *slot = NULL, *mem = NULL;
  GstCudaMemory *cmem;
  GstFlowReturn ret;
  GstBuffer *buf;

  ret = gst_doradma_producer_acquire (self->producer, self->layout.size,
      dontwait, &self->flushing, &slot);
  if (ret != GST_FLOW_OK)
    return ret;

  if (slot && (mem = wrap_slot (self, slot)) == NULL)
    /* the slot went back (abandoned); render copies the plain memory */
    GST_INFO_OBJECT (pool, "could not wrap a slot as GstCudaMemory: lending "
        "plain CUDA memory, copied on the device");
  if (slot == NULL && dontwait)
    return GST_FLOW_EOS;
  if (slot == NULL || mem == NULL) {
    /* latest mode never blocks on readers: lend plain CUDA memory, render
     * copies it into a slot if one is free by then, or drops it */
    mem = gst_cuda_allocator_alloc (NULL, GST_CUDA_BUFFER_POOL (pool)->context,
        self->stream, &self->info);
    gst_doradma_producer_count (self->producer, GST_DORADMA_COUNT_FALLBACK);
    GST_LOG_OBJECT (pool, "no slot, fallback memory %p", mem);
  }
  if (mem == NULL) {
    GST_WARNING_OBJECT (pool, "could not make a GstCudaMemory");
    return GST_FLOW_ERROR;
  }

  cmem = GST_CUDA_MEMORY_CAST (mem);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&cmem->info), GST_VIDEO_INFO_WIDTH (&cmem->info),
      GST_VIDEO_INFO_HEIGHT (&cmem->info),
      GST_VIDEO_INFO_N_PLANES (&cmem->info), cmem->info.offset,
      cmem->info.stride);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_doradma_sink_cuda_pool_reset_buffer (GstBufferPool * pool,
    GstBuffer * buffer)
{
  /* release_buffer frees it: the default reset would resize a memory
   * that may be READONLY now */
}

static void
gst_doradma_sink_cuda_pool_release_buffer (GstBufferPool * pool,
    GstBuffer * buffer)
{
  /* the wrapper's notify gives the slot back */
  gst_buffer_unref (buffer);
}

static void
gst_doradma_sink_cuda_pool_flush_start (GstBufferPool * pool)
{
  GstDoradmaSinkCudaPool *self = (GstDoradmaSinkCudaPool *) pool;

  /* only our own waits: the producer is shared with the sink's other
   * pools */
  g_atomic_int_set (&self->flushing, TRUE);
  gst_doradma_producer_wake (self->producer);
}

static void
gst_doradma_sink_cuda_pool_flush_stop (GstBufferPool * pool)
{
  g_atomic_int_set (&((GstDoradmaSinkCudaPool *) pool)->flushing, FALSE);
}

static void
gst_doradma_sink_cuda_pool_finalize (GObject * object)
{
  GstDoradmaSinkCudaPool *self = (GstDoradmaSinkCudaPool *) object;

  gst_clear_cuda_stream (&self->stream);
  gst_doradma_producer_unref (self->producer);
  G_OBJECT_CLASS (gst_doradma_sink_cuda_pool_parent_class)->finalize (object);
}

void
gst_doradma_sink_cuda_pool_debug_init (void)
{
  GST_DEBUG_CATEGORY_INIT (gst_doradma_sink_cuda_pool_debug,
      "doradmacudapool", 0, "doradma CUDA slot buffer pool");
}

static void
gst_doradma_sink_cuda_pool_class_init (GstDoradmaSinkCudaPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  base_class = g_type_class_peek (GST_TYPE_BUFFER_POOL);
  /* alloc_buffer stays GstCudaBufferPool's, which needs its allocator:
   * GstBufferPool calls it only from the start and acquire_buffer
   * overridden here */
  gobject_class->finalize = gst_doradma_sink_cuda_pool_finalize;
  pool_class->set_config = gst_doradma_sink_cuda_pool_set_config;
  pool_class->start = gst_doradma_sink_cuda_pool_start;
  pool_class->stop = gst_doradma_sink_cuda_pool_stop;
  pool_class->acquire_buffer = gst_doradma_sink_cuda_pool_acquire_buffer;
  pool_class->reset_buffer = gst_doradma_sink_cuda_pool_reset_buffer;
  pool_class->release_buffer = gst_doradma_sink_cuda_pool_release_buffer;
  pool_class->flush_start = gst_doradma_sink_cuda_pool_flush_start;
  pool_class->flush_stop = gst_doradma_sink_cuda_pool_flush_stop;
}

static void
gst_doradma_sink_cuda_pool_init (GstDoradmaSinkCudaPool * self)
{
}

GstBufferPool *
gst_doradma_sink_cuda_pool_new (GstDoradmaProducer * producer,
    GstCudaContext * ctx, GstCaps * caps, guint * size, gchar ** reason)
{
  GstDoradmaSinkCudaPool *self;
  GstStructure *config;

  if (!gst_doradma_cuda_context_is_primary (ctx)) {
    *reason = g_strdup ("the CUDA context upstream uses is not device 0's "
        "primary context, where the slots are");
    return NULL;
  }
  gst_cuda_memory_init_once ();
  self = g_object_new (gst_doradma_sink_cuda_pool_get_type (), NULL);
  gst_object_ref_sink (self);
  self->producer = gst_doradma_producer_ref (producer);
  GST_CUDA_BUFFER_POOL (self)->context = gst_object_ref (ctx);

  config = gst_buffer_pool_get_config (GST_BUFFER_POOL (self));
  gst_buffer_pool_config_set_params (config, caps, 0, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (GST_BUFFER_POOL (self), config)) {
    *reason = g_strdup ("GstCudaMemory has no layout for these caps");
    gst_object_unref (self);
    return NULL;
  }
  *size = self->layout.size;
  return GST_BUFFER_POOL (self);
}

GstMemory *
gst_doradma_sink_cuda_pool_slot (GstBuffer * buf, const GstVideoInfo ** layout)
{
  GstMemory *mem, *slot;

  if (gst_buffer_n_memory (buf) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buf, 0);
  if (!gst_is_cuda_memory (mem))
    return NULL;
  slot = gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), slot_quark ());
  if (slot)
    *layout = &GST_CUDA_MEMORY_CAST (mem)->info;
  return slot;
}

gboolean
gst_doradma_sink_cuda_pool_sync (GstBuffer * buf, gchar ** err)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;

  /* a frame written through a CPU map sits in the staging copy: a CUDA map
   * uploads it */
  if (!gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA)) {
    *err = g_strdup ("could not map the frame's CUDA memory");
    return FALSE;
  }
  gst_memory_unmap (mem, &map);
  /* the stream upstream queued its work on (it set it in the config), or
   * without one every stream of the memory's context */
  return gst_doradma_cuda_memory_sync (mem, err);
}

#else /* no gst_cuda_allocator_alloc_wrapped: GStreamer < 1.24 */

void
gst_doradma_sink_cuda_pool_debug_init (void)
{
  /* no pool, no category */
}

#ifdef HAVE_GST_CUDA
GstBufferPool *
gst_doradma_sink_cuda_pool_new (GstDoradmaProducer * producer,
    GstCudaContext * ctx, GstCaps * caps, guint * size, gchar ** reason)
{
  *reason = g_strdup ("built against GStreamer < 1.24, which has no "
      "gst_cuda_allocator_alloc_wrapped");
  return NULL;
}
#endif

GstMemory *
gst_doradma_sink_cuda_pool_slot (GstBuffer * buf, const GstVideoInfo ** layout)
{
  return NULL;
}

gboolean
gst_doradma_sink_cuda_pool_sync (GstBuffer * buf, gchar ** err)
{
  return TRUE;
}
#endif
