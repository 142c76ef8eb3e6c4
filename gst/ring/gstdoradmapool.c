/* doradma GStreamer plugin — the slot buffer pool.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstBufferPool's own acquire sleeps until a buffer comes back to *this*
 * pool; our slots are freed by other processes (leases, lossless
 * consumption), so acquire_buffer is overridden and asks the producer
 * (gstdoradmaproducer.c) for a slot:
 *
 *  - latest mode never waits: with no slot free it lends a system-memory
 *    fallback buffer (counted) that render copies or drops;
 *  - lossless mode waits in the ring, ends the wait when the pool flushes
 *    and applies the sink's on-reader-stall policy after `timeout`.
 *
 * The buffers themselves are empty shells recycled here; the slot identity
 * lives on the GstMemory, which is lent out WRITING and goes back to the
 * producer through its dispose hook, abandoning the slot when no render
 * published it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "gstdoradmapool.h"
#include <gst/doradma/gstdoradmamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_doradma_pool_debug);
#define GST_CAT_DEFAULT gst_doradma_pool_debug
/* Shells kept for reuse: one per slot at most (slots <= DORADMA_MAX_SLOTS),
 * a few more for buffers released while the next acquire ran. */
#define MAX_SHELLS 72

/* ---------------------------------------------------------------------- */
/* The pool */

struct _GstDoradmaPool
{
  GstBufferPool parent;

  GstDoradmaProducer *producer;
  gint flushing;                /* atomic: cancels the producer's waits */
  gboolean started;
  GstVideoInfo info;            /* layout of the frames, alignment applied */
  gsize size;
  guint min_buffers;
  gboolean add_meta;
  /* Empty buffers to wrap the next slot in, under the object lock: a
   * fixed stack, so that recycling allocates nothing per frame (a GQueue
   * allocates a list node per push). More buffers than slots are never
   * out at once; a release that finds it full frees the buffer. */
  GstBuffer *shells[MAX_SHELLS];
  guint n_shells;
};

/* Object lock held. */
static GstBuffer *
pop_shell (GstDoradmaPool * self)
{
  return self->n_shells ? self->shells[--self->n_shells] : NULL;
}

G_DEFINE_TYPE (GstDoradmaPool, gst_doradma_pool, GST_TYPE_BUFFER_POOL);

void
gst_doradma_pool_debug_init (void)
{
  GST_DEBUG_CATEGORY_INIT (gst_doradma_pool_debug, "doradmapool", 0,
      "doradma slot buffer pool");
}

static const gchar **
gst_doradma_pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META,
    GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT, NULL
  };
  return options;
}

static gboolean
gst_doradma_pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);
  GstCaps *caps;
  guint size, min, max;
  GstVideoInfo info;
  gboolean aligned, modified;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || caps == NULL) {
    GST_WARNING_OBJECT (pool, "no caps in config");
    return FALSE;
  }
  if (!gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (pool, "caps %" GST_PTR_FORMAT " are not video", caps);
    return FALSE;
  }

  self->add_meta = gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  aligned = gst_buffer_pool_config_has_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  if (aligned) {
    GstVideoAlignment align;

    gst_buffer_pool_config_get_video_alignment (config, &align);
    if (!gst_video_info_align (&info, &align)) {
      GST_WARNING_OBJECT (pool, "cannot apply alignment");
      return FALSE;
    }
    gst_buffer_pool_config_set_video_alignment (config, &align);
    /* a padded layout is only readable through the meta */
    self->add_meta = TRUE;
  }

  self->info = info;
  self->size = MAX ((gsize) size, info.size);
  self->min_buffers = min;
  /* Buffers are ring slots, not counted here: no maximum (max 0); and a
   * frame of the (aligned) layout must fit. When the caller asked for
   * something else, the config says what we do, and set_config returns
   * FALSE so that it can check it (gst_buffer_pool_config_validate_params)
   * and set it again. The growth that the alignment the caller asked for
   * needs is what it asked for, not a change (as GstVideoBufferPool):
   * a decoder that saw FALSE there drops its alignment and no longer
   * decodes into the slots. */
  modified = max != 0 || (!aligned && self->size != size);
  gst_buffer_pool_config_set_params (config, caps, self->size, min, 0);
  GST_DEBUG_OBJECT (pool, "%" GST_PTR_FORMAT " size %" G_GSIZE_FORMAT
      " min %u%s", caps, self->size, min, modified ? " (modified)" : "");

  return GST_BUFFER_POOL_CLASS (gst_doradma_pool_parent_class)->set_config
      (pool, config) && !modified;
}

static gboolean
gst_doradma_pool_start (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);

  /* The segment is created (or replaced) here, when both the caps and the
   * layout upstream asked for are known: readers may join before the first
   * frame. */
  if (gst_doradma_producer_prepare (self->producer, self->size) != GST_FLOW_OK)
    return FALSE;
  gst_doradma_producer_check_slots (self->producer, self->min_buffers);
  GST_OBJECT_LOCK (self);
  self->started = TRUE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_doradma_pool_stop (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);
  GstBuffer *buf;

  GST_OBJECT_LOCK (self);
  self->started = FALSE;
  while ((buf = pop_shell (self)))
    gst_buffer_unref (buf);
  GST_OBJECT_UNLOCK (self);
  return GST_BUFFER_POOL_CLASS (gst_doradma_pool_parent_class)->stop (pool);
}

static void
add_meta (GstDoradmaPool * self, GstBuffer * buf)
{
  GstVideoMeta *meta;

  if (!self->add_meta || gst_buffer_get_video_meta (buf))
    return;
  meta = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info),
      GST_VIDEO_INFO_N_PLANES (&self->info), self->info.offset,
      self->info.stride);
  GST_META_FLAG_SET (meta, GST_META_FLAG_POOLED);
}

static GstFlowReturn
gst_doradma_pool_acquire_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);
  gboolean dontwait = params
      && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT);
  GstMemory *mem = NULL;
  GstFlowReturn ret;
  GstBuffer *buf;

  ret = gst_doradma_producer_acquire (self->producer, self->size, dontwait,
      &self->flushing, &mem);
  if (ret != GST_FLOW_OK)
    return ret;

  if (mem == NULL) {
    if (dontwait)
      return GST_FLOW_EOS;
    /* latest mode never blocks on readers: lend plain memory, render will
     * copy it into a slot if one is free by then, or drop it */
    buf = gst_buffer_new_allocate (NULL, self->size, NULL);
    add_meta (self, buf);
    gst_doradma_producer_count (self->producer, GST_DORADMA_COUNT_FALLBACK);
    GST_LOG_OBJECT (pool, "no free slot, fallback buffer %p", buf);
    *buffer = buf;
    return GST_FLOW_OK;
  }

  GST_OBJECT_LOCK (self);
  buf = pop_shell (self);
  GST_OBJECT_UNLOCK (self);
  if (buf == NULL)
    buf = gst_buffer_new ();

  gst_buffer_append_memory (buf, mem);
  add_meta (self, buf);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
gst_doradma_pool_reset_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  /* everything happens in release_buffer: the default reset would resize
   * (and maybe copy) a memory that may be READONLY now */
}

static gboolean
remove_unpooled (GstBuffer * buffer, GstMeta ** meta, gpointer user_data)
{
  if (!GST_META_FLAG_IS_SET (*meta, GST_META_FLAG_POOLED)) {
    GST_META_FLAG_UNSET (*meta, GST_META_FLAG_LOCKED);
    *meta = NULL;
  }
  return TRUE;
}

static void
gst_doradma_pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);
  gboolean shell = gst_buffer_n_memory (buffer) == 1
      && gst_is_doradma_memory (gst_buffer_peek_memory (buffer, 0));

  if (!shell) {
    /* a fallback buffer, or one whose memory was replaced */
    gst_buffer_unref (buffer);
    return;
  }

  /* Dropping the memory sends the slot back through its dispose hook,
   * which abandons it if nobody rendered it. */
  gst_buffer_remove_all_memory (buffer);
  GST_BUFFER_FLAGS (buffer) = 0;
  GST_BUFFER_PTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DTS (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buffer) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_OFFSET (buffer) = GST_BUFFER_OFFSET_NONE;
  GST_BUFFER_OFFSET_END (buffer) = GST_BUFFER_OFFSET_NONE;
  gst_buffer_foreach_meta (buffer, remove_unpooled, NULL);

  GST_OBJECT_LOCK (self);
  if (GST_BUFFER_POOL_IS_FLUSHING (pool) || !self->started ||
      self->n_shells == MAX_SHELLS) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buffer);
    return;
  }
  self->shells[self->n_shells++] = buffer;
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_pool_flush_start (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);

  /* Only our own waits: the producer is shared by every pool of the sink
   * (an old pool is flushed when upstream renegotiates). */
  g_atomic_int_set (&self->flushing, TRUE);
  gst_doradma_producer_wake (self->producer);
}

static void
gst_doradma_pool_flush_stop (GstBufferPool * pool)
{
  g_atomic_int_set (&GST_DORADMA_POOL (pool)->flushing, FALSE);
}

static void
gst_doradma_pool_finalize (GObject * object)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (object);
  GstBuffer *buf;

  while ((buf = pop_shell (self)))
    gst_buffer_unref (buf);
  gst_doradma_producer_unref (self->producer);

  G_OBJECT_CLASS (gst_doradma_pool_parent_class)->finalize (object);
}

static void
gst_doradma_pool_class_init (GstDoradmaPoolClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  gobject_class->finalize = gst_doradma_pool_finalize;
  pool_class->get_options = gst_doradma_pool_get_options;
  pool_class->set_config = gst_doradma_pool_set_config;
  pool_class->start = gst_doradma_pool_start;
  pool_class->stop = gst_doradma_pool_stop;
  pool_class->acquire_buffer = gst_doradma_pool_acquire_buffer;
  pool_class->reset_buffer = gst_doradma_pool_reset_buffer;
  pool_class->release_buffer = gst_doradma_pool_release_buffer;
  pool_class->flush_start = gst_doradma_pool_flush_start;
  pool_class->flush_stop = gst_doradma_pool_flush_stop;
}

static void
gst_doradma_pool_init (GstDoradmaPool * self)
{
}

GstBufferPool *
gst_doradma_pool_new (GstDoradmaProducer * producer)
{
  GstDoradmaPool *self = g_object_new (GST_TYPE_DORADMA_POOL, NULL);

  gst_object_ref_sink (self);
  self->producer = gst_doradma_producer_ref (producer);
  return GST_BUFFER_POOL (self);
}
