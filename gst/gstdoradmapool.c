/* doradma GStreamer plugin — the slot buffer pool and the writer handle.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstBufferPool's own acquire sleeps until a buffer comes back to *this*
 * pool; our slots are freed by other processes (leases, lossless
 * consumption), so acquire_buffer is overridden (design-review #7a):
 *
 *  - a slot is chosen by libdoradma (oldest free, unleased, not newest,
 *    consumed in lossless mode) AND must not be referenced in this process
 *    (a decoder's reference frame, a tee branch, videorate's last buffer);
 *  - latest mode never waits: with no slot free it lends a system-memory
 *    fallback buffer (counted) that render copies or drops;
 *  - lossless mode waits for space in slices, honours flushing and applies
 *    the sink's on-reader-stall policy after `timeout`.
 *
 * The buffers themselves are empty shells recycled here; the slot identity
 * lives on the GstMemory (gstdoradmamemory.c), which is lent out WRITING and
 * comes back through its dispose hook, abandoning the slot when no render
 * published it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include "gstdoradmaelements.h"
#include "gstdoradmapool.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_pool_debug);
#define GST_CAT_DEFAULT gst_doradma_pool_debug

/* Wait slice for lossless waits: bounds how late a flush is noticed when
 * the interrupt races with the start of a wait. */
#define WAIT_SLICE_NS (10 * GST_MSECOND)

/* ---------------------------------------------------------------------- */
/* Writer handle */

DoradmaWriterHandle *
doradma_writer_handle_new (struct doradma_writer *w)
{
  DoradmaWriterHandle *wh = g_new0 (DoradmaWriterHandle, 1);

  wh->refcount = 1;
  g_mutex_init (&wh->lock);
  wh->w = w;
  wh->n_slots = doradma_writer_slot_count (w);
  wh->stride = doradma_writer_slot_stride (w);
  return wh;
}

DoradmaWriterHandle *
doradma_writer_handle_ref (DoradmaWriterHandle * wh)
{
  g_atomic_int_inc (&wh->refcount);
  return wh;
}

void
doradma_writer_handle_unref (DoradmaWriterHandle * wh)
{
  guint i;

  if (wh == NULL || !g_atomic_int_dec_and_test (&wh->refcount))
    return;

  /* Every lent-out memory holds a reference, so all of them are cached now:
   * let their dispose hooks free them this time. */
  g_mutex_lock (&wh->lock);
  wh->closing = TRUE;
  g_mutex_unlock (&wh->lock);
  for (i = 0; i < DORADMA_MAX_SLOTS; i++) {
    if (wh->mems[i])
      gst_memory_unref (wh->mems[i]);
  }
  doradma_writer_close (wh->w);
  if (wh->device_slots)
    wh->device_slots_free (wh->device_slots);
  g_mutex_clear (&wh->lock);
  g_free (wh);
}

static GstMemory *
lend_locked (DoradmaWriterHandle * wh, guint32 s)
{
  GstMemory *mem;

  if (wh->mems[s] == NULL)
    wh->mems[s] = doradma_memory_new_slot (wh, s);
  mem = wh->mems[s];
  wh->cached[s] = FALSE;
  /* Referenced here until its memory comes back (a decoder's reference
   * frame, a tee branch): the ring must not hand it out again. */
  doradma_writer_hold (wh->w, s, 1);
  doradma_memory_slot_set_state (mem, DORADMA_SLOT_WRITING);
  GST_MINI_OBJECT_FLAG_UNSET (mem, GST_MEMORY_FLAG_READONLY);
  mem->offset = 0;
  mem->size = wh->stride;
  /* the lent memory keeps the segment mapped */
  g_atomic_int_inc (&wh->refcount);
  return mem;
}

GstFlowReturn
doradma_writer_handle_acquire (DoradmaWriterHandle * wh,
    const DoradmaAcquireParams * p, GstMemory ** mem)
{
  GstClockTime deadline = GST_CLOCK_TIME_NONE;
  gboolean warned = FALSE;
  guint32 s;
  int r;

  /* Waits happen in the ring, without wh->lock: slot memories coming back
   * on other threads (doradma_writer_hold (0)) wake them. */
  for (;;) {
    if (p->cancelled && p->cancelled (p->cancelled_data))
      goto flushing;

    r = doradma_writer_acquire (wh->w, p->policy, 0, &s);
    if (r == 0)
      break;
    if (r != -EAGAIN && r != -EINTR)
      goto lib_error;
    if (p->policy == DORADMA_POLICY_LATEST)
      return GST_FLOW_EOS;

    /* lossless: wait for readers to consume, within `timeout` */
    if (p->waited)
      *p->waited = TRUE;
    if (GST_CLOCK_TIME_IS_VALID (p->timeout)) {
      GstClockTime now = doradma_monotonic_now ();

      if (!GST_CLOCK_TIME_IS_VALID (deadline))
        deadline = now + p->timeout;
      if (now >= deadline) {
        struct doradma_diag diag = { 0 };
        int n;

        switch (p->on_stall) {
          case GST_DORADMA_STALL_ERROR:
            goto stalled;
          case GST_DORADMA_STALL_EVICT:
            n = doradma_writer_evict_stalled (wh->w, &diag);
            if (n > 0)
              GST_ELEMENT_WARNING (p->element, RESOURCE, BUSY,
                  ("Evicted %d stalled reader(s) from back-pressure", n),
                  ("%s", diag.msg));
            break;
          case GST_DORADMA_STALL_WAIT:
          default:
            if (!warned)
              GST_WARNING_OBJECT (p->element, "no free slot for %"
                  GST_TIME_FORMAT ", still waiting (on-reader-stall=wait)",
                  GST_TIME_ARGS (p->timeout));
            warned = TRUE;
            break;
        }
        deadline = now + p->timeout;
      }
    }

    r = doradma_writer_acquire (wh->w, p->policy, WAIT_SLICE_NS, &s);
    if (r == 0)
      break;
    if (r == -EINTR) {
      /* the sink is unlocked (state change): look at flushing again soon */
      g_usleep (1000);
    } else if (r != -ETIMEDOUT && r != -EAGAIN) {
      goto lib_error;
    }
  }
  g_mutex_lock (&wh->lock);
  *mem = lend_locked (wh, s);
  g_mutex_unlock (&wh->lock);
  GST_LOG_OBJECT (p->element, "lent slot %u", s);
  return GST_FLOW_OK;

  /* ERRORS */
flushing:
  {
    return GST_FLOW_FLUSHING;
  }
lib_error:
  {
    GST_ELEMENT_ERROR (p->element, RESOURCE, WRITE,
        ("Could not acquire a frame slot"),
        ("doradma_writer_acquire: %s", g_strerror (-r)));
    return GST_FLOW_ERROR;
  }
stalled:
  {
    GST_ELEMENT_ERROR (p->element, RESOURCE, BUSY,
        ("No free frame slot within %" GST_TIME_FORMAT
            ": a lossless reader stalled, or upstream holds every slot",
            GST_TIME_ARGS (p->timeout)),
        ("on-reader-stall=error; raise `slots`, `timeout`, or use "
            "on-reader-stall=evict"));
    return GST_FLOW_ERROR;
  }
}

int
doradma_writer_handle_publish (DoradmaWriterHandle * wh, GstMemory * mem,
    struct doradma_frame_info *info)
{
  int r;

  g_mutex_lock (&wh->lock);
  r = doradma_writer_publish (wh->w, doradma_memory_slot_index (mem), info);
  if (r == 0) {
    doradma_memory_slot_set_state (mem, DORADMA_SLOT_PUBLISHED);
    /* upstream may still hold the buffer: a later write map must copy
     * instead of scribbling over a frame readers lease (#7d) */
    GST_MINI_OBJECT_FLAG_SET (mem, GST_MEMORY_FLAG_READONLY);
  }
  g_mutex_unlock (&wh->lock);
  return r;
}

/* ---------------------------------------------------------------------- */
/* The pool */

struct _GstDoradmaPool
{
  GstBufferPool parent;

  GstElement *sink;
  DoradmaWriterHandle *wh;      /* from start to stop */
  GstVideoInfo info;            /* layout of the frames, alignment applied */
  gsize size;
  guint min_buffers;
  gboolean add_meta;
  GQueue shells;                /* empty buffers, under the object lock */
};

G_DEFINE_TYPE_WITH_CODE (GstDoradmaPool, gst_doradma_pool,
    GST_TYPE_BUFFER_POOL,
    GST_DEBUG_CATEGORY_INIT (gst_doradma_pool_debug, "doradmapool", 0,
        "doradma slot buffer pool"));

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
  if (gst_buffer_pool_config_has_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT)) {
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
  gst_buffer_pool_config_set_params (config, caps, self->size, min, 0);
  GST_DEBUG_OBJECT (pool, "%" GST_PTR_FORMAT " size %" G_GSIZE_FORMAT
      " min %u", caps, self->size, min);

  return GST_BUFFER_POOL_CLASS (gst_doradma_pool_parent_class)->set_config
      (pool, config);
}

static gboolean
gst_doradma_pool_start (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);

  /* The segment is created (or replaced) here, when both the caps and the
   * layout upstream asked for are known. */
  self->wh = gst_doradma_sink_prepare_writer (self->sink, self->size);
  if (self->wh == NULL)
    return FALSE;

  if (self->min_buffers + 2 > self->wh->n_slots)
    GST_ELEMENT_WARNING (self->sink, RESOURCE, SETTINGS,
        ("Too few slots: upstream keeps up to %u buffers, the ring has %u",
            self->min_buffers, self->wh->n_slots),
        ("slots >= 1 (newest) + upstream outstanding + sum of reader "
            "max-leases + 1; extra frames go through fallback buffers"));
  return TRUE;
}

static gboolean
gst_doradma_pool_stop (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);
  GstBuffer *buf;

  GST_OBJECT_LOCK (self);
  while ((buf = g_queue_pop_head (&self->shells)))
    gst_buffer_unref (buf);
  GST_OBJECT_UNLOCK (self);

  doradma_writer_handle_unref (self->wh);
  self->wh = NULL;
  return GST_BUFFER_POOL_CLASS (gst_doradma_pool_parent_class)->stop (pool);
}

static gboolean
pool_flushing (gpointer data)
{
  return GST_BUFFER_POOL_IS_FLUSHING (GST_BUFFER_POOL (data));
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
  DoradmaAcquireParams ap;
  gboolean waited = FALSE;
  GstMemory *mem = NULL;
  GstFlowReturn ret;
  GstBuffer *buf;

  if (G_UNLIKELY (self->wh == NULL))
    return GST_FLOW_FLUSHING;

  gst_doradma_sink_get_acquire_params (self->sink, &ap);
  ap.cancelled = pool_flushing;
  ap.cancelled_data = pool;
  ap.waited = &waited;
  if (params && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT))
    ap.policy = DORADMA_POLICY_LATEST;

  ret = doradma_writer_handle_acquire (self->wh, &ap, &mem);
  if (waited)
    gst_doradma_sink_count_wait (self->sink);

  if (ret == GST_FLOW_EOS) {
    if (params && (params->flags & GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT))
      return GST_FLOW_EOS;
    /* latest mode never blocks on readers: lend plain memory, render will
     * copy it into a slot if one is free by then, or drop it */
    buf = gst_buffer_new_allocate (NULL, self->size, NULL);
    add_meta (self, buf);
    gst_doradma_sink_count_fallback (self->sink);
    GST_LOG_OBJECT (pool, "no free slot, fallback buffer %p", buf);
    *buffer = buf;
    return GST_FLOW_OK;
  }
  if (ret != GST_FLOW_OK)
    return ret;

  GST_OBJECT_LOCK (self);
  buf = g_queue_pop_head (&self->shells);
  GST_OBJECT_UNLOCK (self);
  if (buf == NULL)
    buf = gst_buffer_new ();

  mem->size = self->size;
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
      && doradma_memory_is_slot (gst_buffer_peek_memory (buffer, 0));

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
  if (GST_BUFFER_POOL_IS_FLUSHING (pool) || self->wh == NULL) {
    GST_OBJECT_UNLOCK (self);
    gst_buffer_unref (buffer);
    return;
  }
  g_queue_push_tail (&self->shells, buffer);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_pool_flush_start (GstBufferPool * pool)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (pool);

  /* Not doradma_writer_interrupt(): the writer is shared by every pool of
   * the sink (an old pool is flushed when upstream renegotiates). Waits
   * check GST_BUFFER_POOL_IS_FLUSHING after every wake: wake them. */
  if (self->wh)
    doradma_writer_wake (self->wh->w);
}

static void
gst_doradma_pool_finalize (GObject * object)
{
  GstDoradmaPool *self = GST_DORADMA_POOL (object);
  GstBuffer *buf;

  while ((buf = g_queue_pop_head (&self->shells)))
    gst_buffer_unref (buf);
  doradma_writer_handle_unref (self->wh);
  gst_object_unref (self->sink);

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
}

static void
gst_doradma_pool_init (GstDoradmaPool * self)
{
  g_queue_init (&self->shells);
}

GstBufferPool *
gst_doradma_pool_new (GstElement * sink)
{
  GstDoradmaPool *self = g_object_new (GST_TYPE_DORADMA_POOL, NULL);

  gst_object_ref_sink (self);
  self->sink = gst_object_ref (sink);
  return GST_BUFFER_POOL (self);
}
