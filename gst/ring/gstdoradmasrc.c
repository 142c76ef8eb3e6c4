/* doradma GStreamer plugin — doradmasrc
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-doradmasrc
 * @title: doradmasrc
 *
 * Reads raw video frames from a doradma channel written by a doradmasink in
 * another process. It is a live source: it waits for the channel to appear,
 * takes its caps from the ring, and pushes buffers whose memory points
 * straight at the ring's shared pages (read-only, zero copies). Each such
 * buffer holds a lease on its slot, released when the buffer is freed, from
 * any thread. Beyond `max-leases` outstanding buffers, frames are copied
 * into a local pool so that a downstream that holds many buffers cannot pin
 * the whole ring. A downstream that does not accept GstVideoMeta gets every
 * frame in the default layout of the caps.
 *
 * Timestamps are carried from the producer's capture domain through
 * CLOCK_MONOTONIC into this pipeline's running time; the producer's latency
 * is added to the LATENCY answer and re-announced (a LATENCY message)
 * whenever it changes. Frames captured before this element started
 * playing that were in the ring when it joined are dropped, except the
 * newest, and so are frames published while it was paused; PTS always
 * increase. A producer that is replaced (caps
 * that no longer fit its slots) is followed without a gap; one that dies
 * is waited for (`on-writer-lost=wait`), and its successor's new caps are
 * picked up.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! doradmasink channel=cam0
 * gst-launch-1.0 doradmasrc channel=cam0 ! videoconvert ! autovideosink
 * ]|
 * Display frames published by another process.
 * |[
 * gst-launch-1.0 doradmasrc channel=cam0 read-mode=latest ! videoconvert ! fpsdisplaysink
 * ]|
 * A preview that always shows the newest frame and never slows the producer.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif


#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmaformats.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"
#include "gstdoradmaconsumer.h"
#include "gstdoradmasrcoutput.h"
#include "gstdoradmasrcframe.h"
#include "gstdoradmasrccaps.h"
#include "gstdoradmasrctime.h"
#include "gstdoradmasrcsettings.h"
#include "gstdoradmadora.h"

/* also the consumer side's (caps, time, consumer, output, CUDA output) */
GST_DEBUG_CATEGORY (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

G_DECLARE_FINAL_TYPE (GstDoradmaSrc, gst_doradma_src, GST, DORADMA_SRC,
    GstPushSrc);

struct _GstDoradmaSrc
{
  GstPushSrc parent;

  /* properties (but stats), under the object lock */
  GstDoradmaSrcSettings settings;

  /* under the object lock: the consumer (start() to stop()) */
  GstDoradmaConsumer *consumer;
  gint paused;                  /* atomic: PLAYING → PAUSED happened */

  /* what frames become (its caps fields under the object lock) */
  GstDoradmaSrcOutput out;
  /* the writer's caps epochs → output caps */
  GstDoradmaSrcCaps caps;
  /* which frames go out after a join or a pause, PTS, DISCONT */
  GstDoradmaSrcTime time;
  /* the dora path (pool-name set): decided at start, where it is read once
   * (it changes only in NULL/READY), not looked up again per frame */
  gboolean dora;
};

G_DEFINE_TYPE (GstDoradmaSrc, gst_doradma_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmasrc, "doradmasrc",
    GST_RANK_NONE, gst_doradma_src_get_type (),
    gst_doradma_element_init (plugin));

/* the settings' properties (gstdoradmasrcsettings.c) come first */
#define PROP_STATS GST_DORADMA_SRC_SETTINGS_N_PROPS

/* The pad template: every carried format (gstdoradmaformats.h), in system
 * memory and, with gstreamer-cuda, in CUDA memory. */
static const gchar *const src_features[] = { "",
#ifdef HAVE_GST_CUDA
  GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY,
#endif
  NULL
};

/* GstBaseSink's default processing-deadline (not exported): the room a
 * syncing sink downstream asks of a live source's max latency */
#define DOWNSTREAM_DEADLINE (20 * GST_MSECOND)

/* create()'s "this frame does not go out, read the next one" */
#define SKIP_FRAME GST_DORADMA_SRC_SKIP_FRAME

/* ---------------------------------------------------------------------- */
/* Stats */

static GstStructure *
gst_doradma_src_get_stats (GstDoradmaSrc * self)
{
  GstDoradmaConsumerStats cs = { 0 };
  gboolean cuda_out;

  GST_OBJECT_LOCK (self);
  if (self->consumer)
    gst_doradma_consumer_get_stats (self->consumer, &cs);
  else if (self->dora)
    gst_doradma_dora_src_counts (GST_BASE_SRC (self), &cs.frames, &cs.skipped);
  cuda_out = self->out.cuda_out;
  GST_OBJECT_UNLOCK (self);

  return gst_structure_new ("doradmasrc-stats",
      "frames", G_TYPE_UINT64, cs.frames,
      "torn", G_TYPE_UINT64, cs.torn,
      "skipped", G_TYPE_UINT64, cs.skipped,
      "copies", G_TYPE_UINT64, (guint64) g_atomic_int_get (&self->out.copies),
      "lease-waits", G_TYPE_UINT64, cs.lease_waits,
      "latency-p50", G_TYPE_UINT64, cs.latency_p50,
      "latency-p99", G_TYPE_UINT64, cs.latency_p99,
      "spins", G_TYPE_UINT64, cs.spins,
      "sleeps", G_TYPE_UINT64, cs.sleeps,
      "transport", G_TYPE_STRING, cs.path == GST_DORADMA_CUDA_PATH_IPC ? "ipc" :
      cs.path == GST_DORADMA_CUDA_PATH_NONE ? "shmem" : "unified",
      "cuda-path", G_TYPE_STRING, gst_doradma_cuda_path_name (cs.path),
      "cuda-registrations", G_TYPE_UINT64, gst_doradma_cuda_registrations (),
      "memory", G_TYPE_STRING, cuda_out ? GST_DORADMA_CUDA_FEATURE : "system",
      "device-copies", G_TYPE_UINT64,
      (guint64) g_atomic_int_get (&self->out.cuda.device_copies),
      "copied-to-slab", G_TYPE_UINT64,
      (guint64) g_atomic_int_get (&self->out.cuda.slab_copies), NULL);
}

static void
post_stats (GstDoradmaSrc * self)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_doradma_src_get_stats (self)));
}

/* ---------------------------------------------------------------------- */
/* Frames: caps (gstdoradmasrccaps.c) and time (gstdoradmasrctime.c) */

/* Leaves `fr` unused: lease or copy back, consumed, counted. */
static void
drop_frame (GstDoradmaSrc * self, GstDoradmaConsumerFrame * fr)
{
  gst_doradma_src_time_drop (&self->time, self->consumer, fr);
}

/* Makes the caps of the frame's epoch the current ones. GST_FLOW_OK,
 * SKIP_FRAME (epoch unreadable) or an error flow (posted). */
static GstFlowReturn
ensure_caps (GstDoradmaSrc * self, const GstDoradmaConsumerFrame * fr)
{
  gboolean changed;
  GstFlowReturn ret = gst_doradma_src_caps_ensure (&self->caps,
      self->consumer, fr, &changed);

  if (changed)
    self->time.discont = TRUE;
  return ret;
}

/* ---------------------------------------------------------------------- */
/* create() */

/* A live PLAYING → PAUSED unlocks create() as a flush would, and the base
 * class may let us run again before (or without) calling unlock_stop: we
 * clear our own unlock, then wait. A real flush still ends the wait:
 * the base class raises its flushing flag before it unlocks us. */
static GstFlowReturn
wait_until_playing (GstDoradmaSrc * self)
{
  gst_doradma_consumer_interrupt (self->consumer, FALSE);
  return gst_base_src_wait_playing (GST_BASE_SRC (self));
}

static GstFlowReturn
gst_doradma_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  /* the vfunc's own instance: no checked cast per frame */
  GstDoradmaSrc *self = (GstDoradmaSrc *) psrc;

  if (self->dora)
    return gst_doradma_dora_src_create (psrc, outbuf);
  for (;;) {
    GstDoradmaConsumerFrame fr;
    GstClockTime pts;
    GstFlowReturn ret;
    GstBuffer *buf;

    ret = gst_doradma_consumer_next (self->consumer, &fr);
    if (ret == GST_FLOW_FLUSHING && g_atomic_int_get (&self->paused)) {
      if ((ret = wait_until_playing (self)) != GST_FLOW_OK)
        return ret;
      continue;
    }
    if (ret == GST_FLOW_EOS)
      post_stats (self);
    if (ret != GST_FLOW_OK)
      return ret;

    ret = ensure_caps (self, &fr);
    if (ret == GST_FLOW_OK && !gst_doradma_frame_fits (&self->out.info,
            &self->out.needs, &fr.f.info)) {
      GST_WARNING_OBJECT (self, "frame seq %" G_GUINT64_FORMAT " (%ux%u, %u "
          "planes) does not cover caps %" GST_PTR_FORMAT ": skipped",
          fr.f.info.seq, fr.f.info.width, fr.f.info.height,
          fr.f.info.n_planes, self->out.caps);
      ret = SKIP_FRAME;
    }
    if (ret != GST_FLOW_OK) {
      drop_frame (self, &fr);
      if (ret == SKIP_FRAME)
        continue;
      return ret;
    }
    if (!gst_doradma_src_time_place (&self->time, self->consumer, &fr, &pts))
      continue;
    if (g_atomic_int_get (&self->paused)) {
      /* paused while we waited: the base class would hold this frame
       * until we resume; what counts then is what is published then */
      drop_frame (self, &fr);
      if ((ret = wait_until_playing (self)) != GST_FLOW_OK)
        return ret;
      continue;
    }

    if ((buf = gst_doradma_src_output_frame (&self->out, self->consumer,
                &fr)) == NULL)
      return GST_FLOW_ERROR;
    gst_doradma_consumer_delivered (self->consumer, &fr);
    gst_doradma_src_time_stamp (&self->time, buf, &fr, pts);
    GST_LOG_OBJECT (self, "seq %" G_GUINT64_FORMAT " slot %u: %"
        GST_PTR_FORMAT, fr.f.info.seq, fr.f.slot, buf);
    *outbuf = buf;
    return GST_FLOW_OK;
  }
}

/* ---------------------------------------------------------------------- */
/* Base class vfuncs */

static GstCaps *
gst_doradma_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  if (gst_doradma_dora_enabled (bsrc))
    return gst_doradma_dora_src_get_caps (bsrc, filter);
  return gst_doradma_src_caps_query (&GST_DORADMA_SRC (bsrc)->caps, filter);
}

static gboolean
gst_doradma_src_negotiate (GstBaseSrc * bsrc)
{
  if (gst_doradma_dora_enabled (bsrc))
    return gst_doradma_dora_src_negotiate (bsrc);
  return gst_doradma_src_caps_negotiate (&GST_DORADMA_SRC (bsrc)->caps);
}

static gboolean
gst_doradma_src_decide_allocation (GstBaseSrc * bsrc, GstQuery * query)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  self->out.downstream_meta = gst_query_find_allocation_meta (query,
      GST_VIDEO_META_API_TYPE, NULL);
  return GST_BASE_SRC_CLASS (gst_doradma_src_parent_class)->decide_allocation
      (bsrc, query);
}

static gboolean
gst_doradma_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, producer = 0, dur = GST_CLOCK_TIME_NONE;
    GstDoradmaReadMode rmode;
    guint32 slots = 0;

    GST_OBJECT_LOCK (self);
    if (self->consumer) {
      producer = gst_doradma_consumer_latency (self->consumer);
      slots = gst_doradma_consumer_slot_count (self->consumer);
    }
    if (self->out.caps && GST_VIDEO_INFO_FPS_N (&self->out.info) > 0)
      dur = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&self->out.info),
          GST_VIDEO_INFO_FPS_N (&self->out.info));
    /* live; the producer's latency plus our own deadline */
    min = producer + self->settings.processing_deadline;
    rmode = self->settings.read_mode;
    GST_OBJECT_UNLOCK (self);

    /* latest: the newest frame stays in the ring for at least a frame
     * period (the writer fills the other slots first), and a reader that
     * is later than that takes the next frame instead: nothing is lost
     * that latest mode would keep. Downstream's processing deadline needs
     * the room, or every syncing sink warns: at least basesink's default
     * deadline, also above 50 fps. */
    if (rmode == GST_DORADMA_READ_MODE_LATEST)
      max = GST_CLOCK_TIME_IS_VALID (dur) ?
          min + MAX (dur, DOWNSTREAM_DEADLINE) : GST_CLOCK_TIME_NONE;
    else if (GST_CLOCK_TIME_IS_VALID (dur) && slots > 1)
      max = min + (slots - 1) * dur;
    else
      max = GST_CLOCK_TIME_NONE;
    GST_DEBUG_OBJECT (self, "latency min %" GST_TIME_FORMAT " max %"
        GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
    gst_query_set_latency (query, TRUE, min, max);
    return TRUE;
  }
#ifdef HAVE_GST_CUDA
  if (gst_doradma_cuda_element_query (GST_ELEMENT (self), &self->out.cuda.ctx,
          query))
    return TRUE;
#endif
  return GST_BASE_SRC_CLASS (gst_doradma_src_parent_class)->query (bsrc, query);
}

/* The pipeline clock, as the pipeline hands it out (PLAYING): whether
 * mono_pts map to running times without reading a clock. */
static gboolean
gst_doradma_src_set_clock (GstElement * element, GstClock * clock)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (element);

  gst_doradma_clock_map_set_clock (&self->time.clock_map, element, clock);
  return GST_ELEMENT_CLASS (gst_doradma_src_parent_class)->set_clock
      (element, clock);
}

#ifdef HAVE_GST_CUDA
static void
gst_doradma_src_set_context (GstElement * element, GstContext * context)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (element);

  gst_doradma_cuda_element_set_context (element, &self->out.cuda.ctx, context);
  GST_ELEMENT_CLASS (gst_doradma_src_parent_class)->set_context (element,
      context);
}
#endif

/* Frames captured while we were paused must not go out after we resume:
 * note when a PAUSED → PLAYING follows an earlier PLAYING. */
static GstStateChangeReturn
gst_doradma_src_change_state (GstElement * element, GstStateChange transition)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (element);

  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    g_atomic_int_set (&self->paused, TRUE);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING) {
    GST_OBJECT_LOCK (self);
    gst_doradma_src_time_playing (&self->time);
    g_atomic_int_set (&self->paused, FALSE);
    GST_OBJECT_UNLOCK (self);
  }
  return GST_ELEMENT_CLASS (gst_doradma_src_parent_class)->change_state
      (element, transition);
}

static gboolean
gst_doradma_src_start (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstDoradmaSrcSettings *set = &self->settings;
  GstDoradmaConsumerSettings cs;
  GstDoradmaConsumer *consumer;
  gchar *channel;

  if ((self->dora = gst_doradma_dora_enabled (bsrc)))
    return gst_doradma_dora_src_start (bsrc);
  GST_OBJECT_LOCK (self);
  channel = g_strdup (set->channel);
  GST_OBJECT_UNLOCK (self);
  if (!gst_doradma_channel_check_or_error (GST_ELEMENT (self), channel)) {
    g_free (channel);
    return FALSE;
  }

  /* every other setting is read here, once: later changes are refused */
  GST_OBJECT_LOCK (self);
  cs.channel = channel;
  cs.timeout = set->timeout;
  cs.mode = set->read_mode == GST_DORADMA_READ_MODE_LATEST ?
      DORADMA_READ_LATEST : DORADMA_READ_NEXT;
  cs.copy = set->copy_mode == GST_DORADMA_COPY_MODE_ALWAYS;
  cs.copy_set = set->copy_mode != GST_DORADMA_COPY_MODE_AUTO;
  cs.allowed_uid = set->allowed_uid;
  cs.spin_time = set->spin_time;
  cs.transport = set->transport;
  cs.on_writer_lost = set->on_writer_lost;
  self->out.max_leases = set->max_leases;
  self->out.copy_to = set->copy_to;
  self->out.copy_budget = set->copy_budget;
  set->started = TRUE;
  g_atomic_int_set (&self->paused, FALSE);
  gst_doradma_src_time_start (&self->time, set->read_mode);
  gst_doradma_src_caps_start (&self->caps);
  GST_OBJECT_UNLOCK (self);

  /* the consumer copies the settings */
  consumer = gst_doradma_consumer_new (GST_ELEMENT (self), &cs,
      gst_doradma_src_caps_downstream_wants_cuda, self);
  g_free (channel);
  GST_OBJECT_LOCK (self);
  self->consumer = consumer;
  GST_OBJECT_UNLOCK (self);
  return consumer != NULL;
}

static gboolean
gst_doradma_src_stop (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstDoradmaConsumer *consumer;

  if (gst_doradma_dora_enabled (bsrc))
    return gst_doradma_dora_src_stop (bsrc);
  gst_doradma_src_output_reset (&self->out);
  GST_OBJECT_LOCK (self);
  consumer = self->consumer;
  self->consumer = NULL;
  gst_clear_caps (&self->out.caps);
  gst_clear_caps (&self->out.out_caps);
  self->out.cuda_out = FALSE;
  self->settings.started = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_doradma_consumer_free (consumer);
  return TRUE;
}

static gboolean
gst_doradma_src_unlock (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  /* both paths: the one not running has nothing to unlock */
  gst_doradma_dora_src_unlock (bsrc, TRUE);
  GST_OBJECT_LOCK (self);
  if (self->consumer)
    gst_doradma_consumer_interrupt (self->consumer, TRUE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_doradma_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  gst_doradma_dora_src_unlock (bsrc, FALSE);
  GST_OBJECT_LOCK (self);
  if (self->consumer)
    gst_doradma_consumer_interrupt (self->consumer, FALSE);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GObject */

static void
gst_doradma_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (gst_doradma_dora_set_property (object, prop_id, value, pspec))
    return;
  gst_doradma_src_settings_set_property (&GST_DORADMA_SRC (object)->settings,
      object, prop_id, value, pspec);
}

static void
gst_doradma_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  if (gst_doradma_dora_get_property (object, prop_id, value, pspec))
    return;
  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_src_get_stats (self));
    return;
  }
  gst_doradma_src_settings_get_property (&self->settings, object, prop_id,
      value, pspec);
  /* what get returns is what it runs with: copying, also when `copy` was
   * left unset on a channel others may write */
  if (g_str_equal (pspec->name, "copy")) {
    GST_OBJECT_LOCK (self);
    if (self->consumer && gst_doradma_consumer_copying (self->consumer))
      g_value_set_boolean (value, TRUE);
    GST_OBJECT_UNLOCK (self);
  }
}

static void
gst_doradma_src_finalize (GObject * object)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  gst_doradma_src_settings_finalize (&self->settings);
  gst_doradma_src_output_finalize (&self->out);

  G_OBJECT_CLASS (gst_doradma_src_parent_class)->finalize (object);
}

static void
gst_doradma_src_class_init (GstDoradmaSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_src_debug, "doradmasrc", 0,
      "doradma shared-memory ring reader");

  gst_element_class_set_static_metadata (element_class,
      "doradma ring source", "Source/Video",
      "Reads raw video frames that a doradmasink in another process "
      "publishes into a shared-memory ring, without copying",
      "doradma authors <https://github.com/doradma/doradma>");
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
          gst_doradma_formats_caps (src_features)));

  gobject_class->set_property = gst_doradma_src_set_property;
  gobject_class->get_property = gst_doradma_src_get_property;
  gobject_class->finalize = gst_doradma_src_finalize;

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_doradma_src_change_state);
  element_class->set_clock = GST_DEBUG_FUNCPTR (gst_doradma_src_set_clock);
#ifdef HAVE_GST_CUDA
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_doradma_src_set_context);
#endif
  bsrc_class->start = GST_DEBUG_FUNCPTR (gst_doradma_src_start);
  bsrc_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_src_stop);
  bsrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_doradma_src_get_caps);
  bsrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_doradma_src_negotiate);
  bsrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_doradma_src_decide_allocation);
  bsrc_class->query = GST_DEBUG_FUNCPTR (gst_doradma_src_query);
  bsrc_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_src_unlock);
  bsrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_doradma_src_unlock_stop);
  psrc_class->create = GST_DEBUG_FUNCPTR (gst_doradma_src_create);

  gst_doradma_src_settings_install (gobject_class);

  /**
   * GstDoradmaSrc:stats:
   *
   * Counters since start, as a "doradmasrc-stats" structure (also posted as
   * an element message at EOS):
   *
   * - frames (guint64): frames pushed
   * - torn (guint64): copy reads discarded because the writer overwrote them
   * - skipped (guint64): frames never delivered (lapped, latest mode, a
   *   record that did not cover the caps, or captured before we started or
   *   while we were paused)
   * - copies (guint64): frames copied locally (copy mode's copy under the
   *   seqlock, over max-leases, a layout downstream cannot read without
   *   GstVideoMeta, ipc downloads)
   * - lease-waits (guint64): lease handshakes lost to the writer and retried
   * - latency-p50, latency-p99 (guint64): ns from publish to delivery, over
   *   the last 512 frames
   * - spins, sleeps (guint64): waits for a frame that ended while polling
   *   (#GstDoradmaSrc:spin-time) / that slept on the futex
   * - transport (string): shmem, unified or ipc, as taken
   * - cuda-path (string): none, unified, unified-integrated (iGPU) or ipc
   * - cuda-registrations (guint64): host registrations of segments made in
   *   this process (one per data object, shared by readers of it)
   * - memory (string): "system" or "memory:CUDAMemory" (output)
   * - device-copies (guint64): frames copied by the GPU (CUDA output on
   *   1.22, ipc downloads, copy-to from device slots)
   * - copied-to-slab (guint64): frames copied by copy-to
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters: frames, torn, skipped, copies, lease-waits, latency-p50 and "
          "latency-p99 (ns), spins, sleeps, transport, cuda-path, cuda-registrations, memory, "
          "device-copies, copied-to-slab", GST_TYPE_STRUCTURE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* dora-rs memory pools (dora-pool=...): gstdoradmadora.h; each vfunc
   * above runs the dora path first when `dora-pool` is set */
  gst_doradma_dora_src_class_init (gobject_class);
}

static void
gst_doradma_src_init (GstDoradmaSrc * self)
{
  gst_doradma_dora_state (self);        /* created here, in one thread */
  gst_doradma_src_settings_init (&self->settings);
  gst_doradma_src_output_init (&self->out, GST_ELEMENT (self));
  gst_doradma_src_caps_init (&self->caps, GST_BASE_SRC (self), &self->out);
  gst_doradma_src_time_init (&self->time, GST_ELEMENT (self));

  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
