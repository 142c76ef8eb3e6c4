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

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmaconsumer.h"
#include "gstdoradmasrcoutput.h"
#include "gstdoradmasrcframe.h"
#include "gstdoradmadora.h"
#include "gstdoradmaframemeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

G_DECLARE_FINAL_TYPE (GstDoradmaSrc, gst_doradma_src, GST, DORADMA_SRC,
    GstPushSrc);

struct _GstDoradmaSrc
{
  GstPushSrc parent;

  /* properties, under the object lock; refused from start() to stop()
   * (but processing-deadline) */
  gchar *channel;
  guint64 timeout;
  GstDoradmaReadMode read_mode;
  gboolean copy;
  gboolean copy_set;            /* the user set `copy` */
  guint max_leases;
  GstDoradmaWriterLost on_writer_lost;
  GstClockTime processing_deadline;
  GstDoradmaSrcTransport transport;
  GstDoradmaCopyTo copy_to;
  guint64 copy_budget;
  gint64 allowed_uid;
  guint64 spin_time;
  gboolean started;

  /* under the object lock: the consumer (start() to stop()) and the resume
   * time of a PAUSED → PLAYING after having played */
  GstDoradmaConsumer *consumer;
  gboolean played;
  GstClockTime resume_mono;
  gint resync;                  /* atomic: frames before resume_mono go */
  gint paused;                  /* atomic: PLAYING → PAUSED happened */

  /* what frames become (its caps fields under the object lock) */
  GstDoradmaSrcOutput out;

  /* streaming thread only */
  guint32 epoch;
  gboolean have_epoch;
  gboolean discont;
  gboolean pushed;              /* a buffer went out since start() */
  GstClockTime last_pts;
  GstClockTime rebase;          /* next mode: added to running times */
};

G_DEFINE_TYPE (GstDoradmaSrc, gst_doradma_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmasrc, "doradmasrc",
    GST_RANK_NONE, gst_doradma_src_get_type (),
    gst_doradma_element_init (plugin));

#define DEFAULT_CHANNEL NULL
#define DEFAULT_TIMEOUT 0
#define DEFAULT_READ_MODE GST_DORADMA_READ_MODE_NEXT
#define DEFAULT_COPY FALSE
#define DEFAULT_MAX_LEASES 4
#define DEFAULT_ON_WRITER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_PROCESSING_DEADLINE (20 * GST_MSECOND)
#define DEFAULT_TRANSPORT GST_DORADMA_SRC_TRANSPORT_AUTO
#define DEFAULT_COPY_TO GST_DORADMA_COPY_TO_NONE
#define DEFAULT_COPY_BUDGET 0
#define DEFAULT_ALLOWED_UID ((gint64) getuid ())
#define DEFAULT_SPIN_TIME 0

enum
{
  PROP_0,
  PROP_CHANNEL,
  PROP_TIMEOUT,
  PROP_READ_MODE,
  PROP_COPY,
  PROP_MAX_LEASES,
  PROP_ON_WRITER_LOST,
  PROP_PROCESSING_DEADLINE,
  PROP_TRANSPORT,
  PROP_COPY_TO,
  PROP_COPY_BUDGET,
  PROP_ALLOWED_UID,
  PROP_SPIN_TIME,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

#ifdef HAVE_GST_CUDA
#define SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL) "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
        GST_VIDEO_FORMATS_ALL)
#else
#define SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL)
#endif

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

/* create()'s "this frame does not go out, read the next one" */
#define SKIP_FRAME GST_FLOW_CUSTOM_SUCCESS

/* ---------------------------------------------------------------------- */
/* The src's own enums */

static const GEnumValue src_transport_values[] = {
  {GST_DORADMA_SRC_TRANSPORT_AUTO, "unified when downstream asks for "
        "memory:CUDAMemory and CUDA works, else shmem", "auto"},
  {GST_DORADMA_SRC_TRANSPORT_SHMEM, "Host memory only", "shmem"},
  {GST_DORADMA_SRC_TRANSPORT_UNIFIED, "Register the ring with CUDA: "
        "buffers carry device pointers (needs CUDA)", "unified"},
  {0, NULL, NULL}
};

static const GEnumValue copy_to_values[] = {
  {GST_DORADMA_COPY_TO_NONE, "Lease the slot (zero-copy)", "none"},
  {GST_DORADMA_COPY_TO_UMA, "Copy into a managed (UMA) slab", "uma"},
  {GST_DORADMA_COPY_TO_PINNED, "Copy into a pinned host slab", "pinned"},
  {GST_DORADMA_COPY_TO_DEVICE, "Copy into a device slab", "device"},
  {0, NULL, NULL}
};

GType gst_doradma_src_transport_get_type (void);
GType gst_doradma_copy_to_get_type (void);
GST_DORADMA_DEFINE_ENUM (gst_doradma_src_transport_get_type,
    "GstDoradmaSrcTransport", src_transport_values);
GST_DORADMA_DEFINE_ENUM (gst_doradma_copy_to_get_type, "GstDoradmaCopyTo",
    copy_to_values);

#define GST_TYPE_DORADMA_SRC_TRANSPORT (gst_doradma_src_transport_get_type ())
#define GST_TYPE_DORADMA_COPY_TO (gst_doradma_copy_to_get_type ())

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
/* Frames */

/* Leaves `fr` unused: lease or copy back, consumed, counted. */
static void
drop_frame (GstDoradmaSrc * self, GstDoradmaConsumerFrame * fr)
{
  gst_doradma_consumer_drop (self->consumer, fr);
  self->discont = TRUE;
}

/* ---------------------------------------------------------------------- */
/* Caps and negotiation */

static gboolean
downstream_wants_cuda (gpointer self)
{
  return gst_doradma_src_output_peer_wants_cuda (GST_BASE_SRC_PAD (self));
}

/* Pushes the output caps for `caps` (taken) and re-runs the ALLOCATION
 * query with them (whether downstream takes GstVideoMeta decides whether
 * padded frames go out zero-copy). */
static GstFlowReturn
set_output_caps (GstDoradmaSrc * self, GstCaps * caps,
    const GstVideoInfo * info, const gchar * str)
{
  gchar *no_cuda = NULL;
  GstCaps *out = gst_doradma_src_output_choose_caps (GST_BASE_SRC_PAD (self),
      caps, &no_cuda);

  if (out == NULL)
    goto refused;
  GST_INFO_OBJECT (self, "caps %" GST_PTR_FORMAT, out);
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->out.caps, caps);
  gst_caps_replace (&self->out.out_caps, out);
  self->out.info = *info;
  self->out.cuda_out = !gst_caps_is_equal (out, caps);
  GST_OBJECT_UNLOCK (self);
  self->discont = TRUE;
  gst_doradma_src_output_caps_changed (&self->out);
  gst_caps_unref (out);
  gst_caps_unref (caps);
  g_free (no_cuda);
  if (!gst_base_src_negotiate (GST_BASE_SRC (self))) {
    if (GST_PAD_IS_FLUSHING (GST_BASE_SRC_PAD (self)))
      return GST_FLOW_FLUSHING;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream accepted the writer's caps %s but could not be "
            "configured with them", str), ("set_caps or the ALLOCATION "
            "query failed"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  return GST_FLOW_OK;

  /* ERRORS */
refused:
  {
    GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (self), NULL);
    gchar *peer_str = peer ? gst_caps_to_string (peer) : g_strdup ("nothing");

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the writer's caps %s", str),
        ("writer caps: %s; downstream accepts: %s%s%s", str, peer_str,
            no_cuda ? "; memory:CUDAMemory not offered: " : "",
            no_cuda ? no_cuda : ""));
    g_free (peer_str);
    gst_clear_caps (&peer);
    gst_caps_unref (caps);
    g_free (no_cuda);
    return GST_FLOW_NOT_NEGOTIATED;
  }
}

/* Makes the caps of the frame's epoch the current ones. GST_FLOW_OK,
 * SKIP_FRAME (epoch unreadable) or an error flow (posted). */
static GstFlowReturn
ensure_caps (GstDoradmaSrc * self, const GstDoradmaConsumerFrame * fr)
{
  guint32 epoch = fr->f.info.caps_epoch;
  gchar str[DORADMA_CAPS_MAX];
  GstCaps *caps;
  GstCapsFeatures *f;
  GstVideoInfo info;

  if (fr->new_segment)
    self->have_epoch = FALSE;   /* epochs are per segment */
  if (self->have_epoch && epoch == self->epoch)
    return GST_FLOW_OK;
  if (!gst_doradma_consumer_caps (self->consumer, epoch, str, sizeof (str)))
    return SKIP_FRAME;

  /* the lib checked the string; check what GStreamer makes of it */
  caps = gst_caps_from_string (str);
  if (caps == NULL || gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps)
      || !gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-raw")
      || ((f = gst_caps_get_features (caps, 0))
          && !gst_caps_features_is_equal (f,
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      || !gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The writer published caps that are not plain raw video"),
        ("caps epoch %u: \"%s\"", epoch, str));
    gst_clear_caps (&caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  self->epoch = epoch;
  self->have_epoch = TRUE;
  if (self->out.caps && gst_caps_is_equal (caps, self->out.caps)) {
    gst_caps_unref (caps);
    return GST_FLOW_OK;
  }
  return set_output_caps (self, caps, &info, str);
}

/* ---------------------------------------------------------------------- */
/* Time */

/* After a PAUSED → PLAYING that was not the first: was the frame
 * published before we resumed? (Until the first one that was not.) */
static gboolean
published_before_resume (GstDoradmaSrc * self,
    const struct doradma_frame_info *fi)
{
  GstClockTime resume;

  if (!g_atomic_int_get (&self->resync))
    return FALSE;
  GST_OBJECT_LOCK (self);
  resume = self->resume_mono;
  GST_OBJECT_UNLOCK (self);
  if (fi->publish_time < resume)
    return TRUE;
  g_atomic_int_set (&self->resync, FALSE);
  return FALSE;
}

/* Decides whether the frame goes out now, and at which PTS. Frames
 * published while we were paused never go out. Of the frames that were in
 * the ring when we joined and were captured before our base time, only the
 * newest goes out. A late joiner gets no run of PTS 0 from the frames a
 * producer with latency publishes after the join but captured before our
 * base time: `latest` drops them (the first frame goes out at 0), `next`
 * (which must not lose frames of a lossless writer) shifts its running
 * times once, by what the first frame was early, so PTS keep the capture
 * spacing. PTS never repeat nor go backwards (1 ns after the previous one
 * at worst). FALSE when the frame was dropped, or set aside for a newer
 * one. */
static gboolean
place_in_time (GstDoradmaSrc * self, GstDoradmaConsumerFrame * fr,
    GstClockTime * pts)
{
  gboolean resuming = published_before_resume (self, &fr->f.info);
  gint64 rt = 0;
  gboolean timed = gst_doradma_frame_running_time (GST_ELEMENT (self),
      &fr->f.info, &rt);

  if (resuming || (timed && rt < 0 && fr->backlog)) {
    /* stale: a newer frame, if there is one, replaces it */
    if (gst_doradma_consumer_skip_to_newest (self->consumer, fr)) {
      self->discont = TRUE;
      return FALSE;
    }
    if (resuming) {
      GST_LOG_OBJECT (self, "seq %" G_GUINT64_FORMAT " was published while "
          "we were paused: dropped", fr->f.info.seq);
      drop_frame (self, fr);
      return FALSE;
    }
  }
  if (!timed) {
    *pts = GST_CLOCK_TIME_NONE;
    return TRUE;
  }
  if (rt < 0 && self->read_mode == GST_DORADMA_READ_MODE_LATEST && self->pushed) {
    GST_LOG_OBJECT (self, "seq %" G_GUINT64_FORMAT " was captured before "
        "our base time: dropped", fr->f.info.seq);
    drop_frame (self, fr);
    return FALSE;
  }
  if (rt < 0 && !self->pushed)
    self->rebase = -rt;
  if (self->read_mode == GST_DORADMA_READ_MODE_NEXT)
    rt += self->rebase;
  *pts = MAX (rt, 0);
  if (self->pushed && *pts <= self->last_pts)
    *pts = self->last_pts + 1;
  return TRUE;
}

static void
set_timestamps (GstDoradmaSrc * self, GstBuffer * buf,
    const GstDoradmaConsumerFrame * fr, GstClockTime pts)
{
  gst_doradma_frame_set_buffer_fields (buf, &fr->f.info, pts);
  gst_buffer_add_doradma_frame_meta (buf, fr->f.info.seq, fr->f.skipped,
      fr->f.info.publish_time, fr->f.info.caps_epoch);
  if (self->discont || fr->discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  else
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  self->discont = FALSE;
  self->pushed = TRUE;
  if (GST_CLOCK_TIME_IS_VALID (pts))
    self->last_pts = pts;
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
  GstDoradmaSrc *self = GST_DORADMA_SRC (psrc);

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
            &fr.f.info)) {
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
    if (!place_in_time (self, &fr, &pts))
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
    set_timestamps (self, buf, &fr, pts);
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
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  if (self->out.out_caps)
    caps = gst_caps_ref (self->out.out_caps);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (bsrc));
  GST_OBJECT_UNLOCK (self);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

/* The caps come from the ring: until a frame told us, nothing to set; then
 * the base class follows with the ALLOCATION query for them. */
static gboolean
gst_doradma_src_negotiate (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstCaps *caps = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  if (self->out.out_caps)
    caps = gst_caps_ref (self->out.out_caps);
  GST_OBJECT_UNLOCK (self);
  if (caps) {
    ok = gst_base_src_set_caps (bsrc, caps);
    gst_caps_unref (caps);
  }
  return ok;
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
    min = producer + self->processing_deadline;
    rmode = self->read_mode;
    GST_OBJECT_UNLOCK (self);

    if (rmode == GST_DORADMA_READ_MODE_LATEST)
      max = min;
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
    if (self->played) {
      self->resume_mono = gst_doradma_monotonic_now ();
      g_atomic_int_set (&self->resync, TRUE);
    }
    self->played = TRUE;
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
  GstDoradmaConsumerSettings cs;
  struct doradma_diag diag = { 0 };
  GstDoradmaConsumer *consumer;
  int r;

  GST_OBJECT_LOCK (self);
  cs.channel = self->channel;
  cs.timeout = self->timeout;
  cs.mode = self->read_mode == GST_DORADMA_READ_MODE_LATEST ?
      DORADMA_READ_LATEST : DORADMA_READ_NEXT;
  cs.copy = self->copy;
  cs.copy_set = self->copy_set;
  cs.allowed_uid = self->allowed_uid;
  cs.spin_time = self->spin_time;
  cs.transport = self->transport;
  cs.on_writer_lost = self->on_writer_lost;
  self->out.max_leases = self->max_leases;
  self->out.copy_to = self->copy_to;
  self->out.copy_budget = self->copy_budget;
  if (cs.channel == NULL)
    goto no_channel;
  if ((r = doradma_name_validate (cs.channel, &diag)) < 0)
    goto bad_channel;
  self->started = TRUE;
  self->played = FALSE;
  g_atomic_int_set (&self->paused, FALSE);
  g_atomic_int_set (&self->resync, FALSE);
  GST_OBJECT_UNLOCK (self);

  /* the consumer copies the settings */
  consumer = gst_doradma_consumer_new (GST_ELEMENT (self), &cs,
      downstream_wants_cuda, self);
  GST_OBJECT_LOCK (self);
  self->consumer = consumer;
  GST_OBJECT_UNLOCK (self);
  if (consumer == NULL)
    return FALSE;
  self->have_epoch = FALSE;
  self->discont = TRUE;
  self->pushed = FALSE;
  self->last_pts = 0;
  self->rebase = 0;
  return TRUE;

  /* ERRORS */
no_channel:
  {
    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("No channel name set"),
        ("set the `channel` property"));
    return FALSE;
  }
bad_channel:
  {
    gchar *channel = g_strdup (cs.channel);

    GST_OBJECT_UNLOCK (self);
    GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
        ("Invalid channel name \"%s\"", channel),
        ("%s: %s", diag.msg, g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, NULL));
    g_free (channel);
    return FALSE;
  }
}

static gboolean
gst_doradma_src_stop (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstDoradmaConsumer *consumer;

  gst_doradma_src_output_reset (&self->out);
  GST_OBJECT_LOCK (self);
  consumer = self->consumer;
  self->consumer = NULL;
  gst_clear_caps (&self->out.caps);
  gst_clear_caps (&self->out.out_caps);
  self->out.cuda_out = FALSE;
  self->started = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_doradma_consumer_free (consumer);
  return TRUE;
}

static gboolean
gst_doradma_src_unlock (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

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
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  GST_OBJECT_LOCK (self);
  if (prop_id != PROP_PROCESSING_DEADLINE && self->started) {
    GST_OBJECT_UNLOCK (self);
    GST_WARNING_OBJECT (self, "cannot change %s once started: set it in "
        "NULL or READY", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_CHANNEL:
      g_free (self->channel);
      self->channel = g_value_dup_string (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_READ_MODE:
      self->read_mode = g_value_get_enum (value);
      break;
    case PROP_COPY:
      self->copy = g_value_get_boolean (value);
      self->copy_set = TRUE;
      break;
    case PROP_MAX_LEASES:
      self->max_leases = g_value_get_uint (value);
      break;
    case PROP_ON_WRITER_LOST:
      self->on_writer_lost = g_value_get_enum (value);
      break;
    case PROP_PROCESSING_DEADLINE:
      self->processing_deadline = g_value_get_uint64 (value);
      break;
    case PROP_TRANSPORT:
      self->transport = g_value_get_enum (value);
      break;
    case PROP_COPY_TO:
      self->copy_to = g_value_get_enum (value);
      break;
    case PROP_COPY_BUDGET:
      self->copy_budget = g_value_get_uint64 (value);
      break;
    case PROP_ALLOWED_UID:
      self->allowed_uid = g_value_get_int64 (value);
      break;
    case PROP_SPIN_TIME:
      self->spin_time = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_PROCESSING_DEADLINE)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_doradma_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_src_get_stats (self));
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_READ_MODE:
      g_value_set_enum (value, self->read_mode);
      break;
    case PROP_COPY:
      g_value_set_boolean (value, self->copy);
      break;
    case PROP_MAX_LEASES:
      g_value_set_uint (value, self->max_leases);
      break;
    case PROP_ON_WRITER_LOST:
      g_value_set_enum (value, self->on_writer_lost);
      break;
    case PROP_PROCESSING_DEADLINE:
      g_value_set_uint64 (value, self->processing_deadline);
      break;
    case PROP_TRANSPORT:
      g_value_set_enum (value, self->transport);
      break;
    case PROP_COPY_TO:
      g_value_set_enum (value, self->copy_to);
      break;
    case PROP_COPY_BUDGET:
      g_value_set_uint64 (value, self->copy_budget);
      break;
    case PROP_ALLOWED_UID:
      g_value_set_int64 (value, self->allowed_uid);
      break;
    case PROP_SPIN_TIME:
      g_value_set_uint64 (value, self->spin_time);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_src_finalize (GObject * object)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  g_free (self->channel);
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
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gobject_class->set_property = gst_doradma_src_set_property;
  gobject_class->get_property = gst_doradma_src_get_property;
  gobject_class->finalize = gst_doradma_src_finalize;

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_doradma_src_change_state);
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

  /**
   * GstDoradmaSrc:channel:
   *
   * Name of the channel to read (as doradmasink's `channel`).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Channel name to read ([A-Za-z0-9_.-], 1-200 bytes)", DEFAULT_CHANNEL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:timeout:
   *
   * Nanoseconds to wait for the channel to appear before posting an error.
   * 0 waits forever.
   *
   * Since: 0.1
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Nanoseconds to wait for the channel to appear (0 = forever)", 0,
      G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:read-mode:
   *
   * `next` delivers every frame in order (a lossless writer waits for this
   * reader; a latest writer may lap it: skips are counted and flagged
   * DISCONT); `latest` always delivers the newest frame.
   *
   * Since: 0.1
   */
  properties[PROP_READ_MODE] = g_param_spec_enum ("read-mode", "Read mode",
      "next: every frame in order; latest: the newest frame, skipping older "
      "ones", GST_TYPE_DORADMA_READ_MODE, DEFAULT_READ_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy:
   *
   * Copy every frame into a local buffer under the slot's seqlock instead
   * of leasing the slot (torn copies are discarded and counted). The
   * writer is never held back by this reader's buffers.
   *
   * When `copy` is left unset and the channel's control object is writable
   * by other users (group-writable, or owned by a third uid), the element
   * copies anyway and warns: such a peer could clear our lease and get a
   * frame we read zero-copy rewritten (docs/threat-model.md). Setting
   * copy=false reads zero-copy all the same.
   *
   * Since: 0.1
   */
  properties[PROP_COPY] = g_param_spec_boolean ("copy", "Copy",
      "Copy frames into local buffers instead of leasing slots (zero-copy "
      "off); unset: copy only when other users may write the channel's "
      "control object", DEFAULT_COPY,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:max-leases:
   *
   * Zero-copy buffers this element may have outstanding at once. Beyond
   * it, frames are copied into a local pool (counted in `stats`), so a
   * downstream that holds many buffers cannot pin the ring.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LEASES] = g_param_spec_uint ("max-leases",
      "Max leases", "Zero-copy buffers outstanding at once; beyond, frames "
      "are copied (0 = always copy)", 0, DORADMA_MAX_SLOTS,
      DEFAULT_MAX_LEASES,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:on-writer-lost:
   *
   * What to do when the writer process dies: warn and wait for a new writer
   * on the same channel (its caps may differ), end the stream, or error.
   *
   * Since: 0.1
   */
  properties[PROP_ON_WRITER_LOST] = g_param_spec_enum ("on-writer-lost",
      "On writer lost", "The writer died: wait for a new one, EOS, or error",
      GST_TYPE_DORADMA_WRITER_LOST, DEFAULT_ON_WRITER_LOST,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:processing-deadline:
   *
   * Added to the producer's latency in the LATENCY answer: the time this
   * pipeline needs to process a frame.
   *
   * Since: 0.1
   */
  properties[PROP_PROCESSING_DEADLINE] =
      g_param_spec_uint64 ("processing-deadline", "Processing deadline",
      "Nanoseconds added to the producer's latency in the LATENCY answer", 0,
      G_MAXUINT64, DEFAULT_PROCESSING_DEADLINE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstDoradmaSrc:transport:
   *
   * How frames reach the GPU. `shmem`: host memory only. `unified`: the
   * whole read-only data mapping is page-locked with CUDA once per process
   * and buffers carry its device alias (gst_doradma_memory_get_device_pointer
   * ()); an error names what is missing without CUDA. `auto`: `unified`
   * when downstream asks for memory:CUDAMemory and CUDA works, else `shmem`,
   * never an error ($DORADMA_TRANSPORT=shmem or unified overrides `auto`;
   * ipc there is the writer's setting). A writer whose slots live in GPU
   * memory (its transport ipc) is always read through its CUDA IPC handle,
   * whatever this says. The path taken is the stats' `cuda-path`.
   *
   * memory:CUDAMemory output needs a build with gstreamer-cuda (GStreamer
   * >= 1.22): one device copy per frame on 1.22, the slot itself (zero-copy)
   * from 1.24; none on GStreamer 1.20, whose CUDA library is not public
   * (the device-pointer accessor works on every version).
   *
   * Since: 0.1
   */
  properties[PROP_TRANSPORT] = g_param_spec_enum ("transport", "Transport",
      "auto: unified when downstream wants CUDA memory, else shmem; unified: "
      "register the ring with CUDA (device pointers); a writer with GPU slots "
      "is read through CUDA IPC. memory:CUDAMemory output needs gstreamer-cuda"
      " (GStreamer >= 1.22): one device copy per frame on 1.22, the slot "
      "itself from 1.24, none on 1.20", GST_TYPE_DORADMA_SRC_TRANSPORT,
      DEFAULT_TRANSPORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-to:
   *
   * Copy every frame into a CUDA slab of the given kind (managed "uma",
   * mapped "pinned" host memory, or "device" memory, which is not mappable)
   * and release the slot's lease at once, so downstream may keep buffers as
   * long as it likes without holding the writer back. Counted in the
   * stats' `copied-to-slab`. Applies to system-memory output. A
   * downstream that does not accept GstVideoMeta gets the default layout.
   *
   * Since: 0.1
   */
  properties[PROP_COPY_TO] = g_param_spec_enum ("copy-to", "Copy to",
      "Copy frames into CUDA slabs and release the lease at once",
      GST_TYPE_DORADMA_COPY_TO, DEFAULT_COPY_TO,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-budget:
   *
   * Byte budget of the copy-to slab allocator (0: $DORADMA_SLAB_POOL_BYTES,
   * else 512 MiB).
   *
   * Since: 0.1
   */
  properties[PROP_COPY_BUDGET] = g_param_spec_uint64 ("copy-budget",
      "Copy budget", "Bytes the copy-to slabs may hold (0: "
      "$DORADMA_SLAB_POOL_BYTES, else 512 MiB)", 0, G_MAXUINT64,
      DEFAULT_COPY_BUDGET,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:allowed-uid:
   *
   * The uid the channel's owner (the writer's user) must have, besides our
   * own: -1 accepts any owner. Sharing a channel with another user takes a
   * common group, the sink's `permissions=0660`, and this set to the
   * writer's uid (docs/threat-model.md). Objects writable by others are
   * refused whatever this says.
   *
   * Since: 0.1
   */
  properties[PROP_ALLOWED_UID] = g_param_spec_int64 ("allowed-uid",
      "Allowed uid", "The uid the channel's owner must have besides ours "
      "(-1 = any; default: our own uid)", -1, G_MAXUINT32 - 1,
      DEFAULT_ALLOWED_UID,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:spin-time:
   *
   * Nanoseconds to poll the ring (CPU pause hint, no system call) for the
   * next frame before sleeping on the futex. A frame published meanwhile is
   * handed over without a wake-up, and a writer that finds nobody asleep
   * publishes without a system call; the price is up to one core busy for
   * that long after every frame. Polling stops at once on a frame, EOS,
   * flush or stop; a lost writer is noticed after it. Counted as `spins`
   * and `sleeps` in #GstDoradmaSrc:stats. 0 sleeps at once.
   *
   * Since: 0.1
   */
  properties[PROP_SPIN_TIME] = g_param_spec_uint64 ("spin-time", "Spin time",
      "Nanoseconds to poll for the next frame before sleeping "
      "(0 = sleep at once; costs a core while polling)", 0, G_MAXUINT64,
      DEFAULT_SPIN_TIME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
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
   * - copies (guint64): frames copied locally (over max-leases, a layout
   *   downstream cannot read without GstVideoMeta, ipc downloads)
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
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, torn, skipped, copies, lease-waits, latency-p50 and "
      "latency-p99 (ns), spins, sleeps, transport, cuda-path, cuda-registrations, memory, "
      "device-copies, copied-to-slab", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES, properties);
  /* dora-rs memory pools (dora-pool=...): gstdoradmadora.h */
  gst_doradma_dora_src_class_hook (gobject_class);

  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_SRC_TRANSPORT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_COPY_TO, 0);
}

static void
gst_doradma_src_init (GstDoradmaSrc * self)
{
  self->timeout = DEFAULT_TIMEOUT;
  self->read_mode = DEFAULT_READ_MODE;
  self->copy = DEFAULT_COPY;
  self->max_leases = DEFAULT_MAX_LEASES;
  self->on_writer_lost = DEFAULT_ON_WRITER_LOST;
  self->processing_deadline = DEFAULT_PROCESSING_DEADLINE;
  self->transport = DEFAULT_TRANSPORT;
  self->copy_to = DEFAULT_COPY_TO;
  self->copy_budget = DEFAULT_COPY_BUDGET;
  self->allowed_uid = DEFAULT_ALLOWED_UID;
  self->spin_time = DEFAULT_SPIN_TIME;
  gst_doradma_src_output_init (&self->out, GST_ELEMENT (self));

  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
