/* doradma GStreamer plugin — doradmasink
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-doradmasink
 * @title: doradmasink
 *
 * Publishes raw video frames into a doradma channel: a ring of frame slots in
 * POSIX shared memory (`/dev/shm/doradma.<channel>`) that any number of
 * doradmasrc elements in other processes on the same host read without
 * copying.
 *
 * The sink proposes a buffer pool whose buffers ARE ring slots, so
 * videotestsrc, videoconvert, videoscale and decoders write frames in place
 * and publishing is a few stores. With transport=ipc the slots are GPU
 * memory: on GStreamer >= 1.24, memory:CUDAMemory producers (cudaupload,
 * cudaconvert, decoders) get them as a CUDA buffer pool (slots wrapped as
 * GstCudaMemory) and write in place too; the frame is published once the
 * GPU work on it is done. Buffers from elsewhere are copied into a slot (on
 * the GPU for transport=ipc), counted in the `stats` property. In `latest` mode the sink never
 * waits for readers; in `lossless` mode it waits until every `next`-mode
 * reader consumed a frame before reusing its slot.
 *
 * The channel is created when caps and allocation are known and removed from
 * /dev/shm on a clean stop; a channel held by another live writer is refused
 * with an error naming its pid. After EOS, a flushing seek or a new stream
 * start makes the next frame open a new segment that readers follow.
 *
 * The properties (but wait-for-readers) are read once when the element
 * leaves the NULL state; later changes are refused until it is back in
 * NULL.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=I420,width=1280,height=720 ! doradmasink channel=cam0
 * gst-launch-1.0 doradmasrc channel=cam0 ! videoconvert ! autovideosink
 * ]|
 * Two processes: the first publishes a test pattern on channel "cam0", the
 * second displays it.
 * |[
 * gst-launch-1.0 filesrc location=in.mkv ! decodebin ! doradmasink channel=rec mode=lossless
 * gst-launch-1.0 doradmasrc channel=rec read-mode=next ! x264enc ! matroskamux ! filesink location=out.mkv
 * ]|
 * Lossless: the decoder waits for the recorder, no frame is skipped.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmaformats.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"
#include "gstdoradmadora.h"
#include "gstdoradmapool.h"
#include "gstdoradmacuda.h"
#include "gstdoradmasinkrender.h"
#include "gstdoradmasinkcudapool.h"
#include "gstdoradmasinksettings.h"

GST_DEBUG_CATEGORY (gst_doradma_sink_debug);
#define GST_CAT_DEFAULT gst_doradma_sink_debug

G_DECLARE_FINAL_TYPE (GstDoradmaSink, gst_doradma_sink, GST, DORADMA_SINK,
    GstBaseSink);

struct _GstDoradmaSink
{
  GstBaseSink parent;

  /* properties but stats, under the object lock */
  GstDoradmaSinkSettings s;

  /* the channel: segment, slots, counters (its own lock); init to finalize */
  GstDoradmaProducer *producer;

  /* the dora path (pool-name set): decided at start, where it is read once
   * (it changes only in NULL/READY), not looked up again per frame */
  gboolean dora;

  /* streaming thread only */
  GstDoradmaSinkRender render;  /* the caps, the ipc copier (freed at stop) */
  gboolean readers_reached;     /* wait-for-readers was satisfied once */
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda_ctx;     /* under the object lock */
#endif
};

G_DEFINE_TYPE (GstDoradmaSink, gst_doradma_sink, GST_TYPE_BASE_SINK);
/* The helpers' categories too (the elements register theirs at class init):
 * listed by --gst-debug-help before any frame. */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmasink, "doradmasink",
    GST_RANK_NONE, gst_doradma_sink_get_type (),
    gst_doradma_element_init (plugin); gst_doradma_producer_debug_init ();
    gst_doradma_pool_debug_init (); gst_doradma_sink_cuda_pool_debug_init ());

/* The settings' ids come first (gstdoradmasinksettings.h). */
enum
{
  PROP_STATS = GST_DORADMA_SINK_SETTINGS_N_PROPS,
  NUM_PROPERTIES
};


/* The pad template: every carried format (gstdoradmaformats.h), in system
 * memory and, with gstreamer-cuda, in CUDA memory. */
static const gchar *const sink_features[] = { "",
#ifdef HAVE_GST_CUDA
  GST_DORADMA_CUDA_FEATURE,
#endif
  NULL
};

/* ---------------------------------------------------------------------- */
/* Rendering (the paths themselves: gstdoradmasinkrender.c) */

static GstFlowReturn
wait_for_readers (GstDoradmaSink * self, guint n)
{
  GstFlowReturn ret;

  /* unlock () interrupts the wait: flushing, or paused (wait, retry) */
  while ((ret = gst_doradma_producer_wait_readers (self->producer, n))
      == GST_FLOW_FLUSHING) {
    if ((ret = gst_base_sink_wait_preroll (GST_BASE_SINK (self)))
        != GST_FLOW_OK)
      break;
  }
  return ret;
}

static GstFlowReturn
gst_doradma_sink_render (GstBaseSink * bsink, GstBuffer * buf)
{
  /* the vfunc's own instance: no checked cast per frame */
  GstDoradmaSink *self = (GstDoradmaSink *) bsink;
  GstFlowReturn ret;
  guint n_readers;

  if (self->dora)
    return gst_doradma_dora_sink_render (bsink, buf);
  ret = gst_doradma_producer_prepare (self->producer, self->render.info.size);
  if (ret != GST_FLOW_OK)
    return ret;

  /* a latch: readers that leave later do not stop publishing, and once it
   * is set the property is not read again (no lock per frame) */
  if (!self->readers_reached) {
    GST_OBJECT_LOCK (self);
    n_readers = self->s.wait_for_readers;
    GST_OBJECT_UNLOCK (self);
    if (n_readers > 0) {
      if ((ret = wait_for_readers (self, n_readers)) != GST_FLOW_OK)
        return ret;
      self->readers_reached = TRUE;
    }
  }
  return gst_doradma_sink_render_frame (&self->render, buf);
}

/* ---------------------------------------------------------------------- */
/* Negotiation and allocation */

/* Until the pipeline configures its latency (the LATENCY event, at
 * PLAYING), readers get what a live upstream reports now: its latency is
 * known once it has caps, and the segment (created with the pool, before
 * the first frame) carries it from the start. */
static void
publish_upstream_latency (GstDoradmaSink * self)
{
  GstQuery *q;
  GstClockTime min = 0;
  gboolean live = FALSE;

  if (GST_CLOCK_TIME_IS_VALID (gst_doradma_producer_get_latency
          (self->producer)))
    return;
  q = gst_query_new_latency ();
  if (gst_pad_peer_query (GST_BASE_SINK_PAD (self), q)) {
    gst_query_parse_latency (q, &live, &min, NULL);
    if (live && GST_CLOCK_TIME_IS_VALID (min))
      gst_doradma_producer_set_latency (self->producer, min);
  }
  gst_query_unref (q);
}

static gboolean
gst_doradma_sink_set_caps (GstBaseSink * bsink, GstCaps * caps)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  GstVideoInfo info;
  gchar *str;

  if (gst_doradma_dora_enabled (bsink))
    return gst_doradma_dora_sink_set_caps (bsink, caps);
  if (!gst_video_info_from_caps (&info, caps))
    goto invalid_caps;
  {
    /* the ring records plain video/x-raw: memory:CUDAMemory is how frames
     * reach us, not what readers get */
    GstCaps *plain = gst_caps_copy (caps);

    gst_caps_set_features (plain, 0, NULL);
    str = gst_caps_to_string (plain);
    gst_caps_unref (plain);
  }
  if (strlen (str) >= DORADMA_CAPS_MAX) {
    g_free (str);
    goto caps_too_long;
  }

  gst_doradma_sink_render_set_info (&self->render, &info);
  gst_doradma_producer_set_caps (self->producer, str, info.size);
  g_free (str);
  publish_upstream_latency (self);
  return TRUE;

  /* ERRORS */
  /* a refusal, not a fatal error: upstream (an autoplugger) may try other
   * caps; without any, the stream ends in not-negotiated */
invalid_caps:
  {
    GST_ERROR_OBJECT (self, "invalid video caps %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
caps_too_long:
  {
    GST_ERROR_OBJECT (self, "caps string longer than %u bytes: %"
        GST_PTR_FORMAT, DORADMA_CAPS_MAX - 1, caps);
    return FALSE;
  }
}

#ifdef HAVE_GST_CUDA
/* transport=ipc, memory:CUDAMemory: the device slots as a CUDA buffer pool
 * in the context we shared upstream, so the producer writes the frame in
 * place. Without one (GStreamer < 1.24, another context), or when upstream
 * keeps its own pool, render copies on the device. */
static void
offer_cuda_slot_pool (GstDoradmaSink * self, GstQuery * query, GstCaps * caps)
{
  GstBufferPool *pool = NULL;
  GstCudaContext *ctx;
  gchar *reason = NULL;
  guint size = 0;

  ctx = gst_doradma_cuda_element_context (GST_ELEMENT (self), &self->cuda_ctx,
      &reason);
  if (ctx) {
    pool = gst_doradma_sink_cuda_pool_new (self->producer, ctx, caps, &size,
        &reason);
    gst_object_unref (ctx);
  }
  if (pool == NULL) {
    GST_INFO_OBJECT (self, "no CUDA slot pool (%s): CUDA frames are copied "
        "into the slots on the device", reason);
    g_free (reason);
    return;
  }
  GST_INFO_OBJECT (self, "offering the device slots as a CUDA buffer pool "
      "(%u bytes a frame)", size);
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
}
#endif

static gboolean
gst_doradma_sink_propose_allocation (GstBaseSink * bsink, GstQuery * query)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean need_pool;

  if (gst_doradma_dora_enabled (bsink))
    return gst_doradma_dora_sink_propose_allocation (bsink, query);
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps)) {
    GST_DEBUG_OBJECT (self, "no video caps in the allocation query");
    return FALSE;
  }
  {
    GstCapsFeatures *f = gst_caps_get_features (caps, 0);
    gboolean device = gst_doradma_producer_settings (self->producer)->transport
        == GST_DORADMA_TRANSPORT_IPC;
    gboolean cuda = f && gst_caps_features_contains (f,
        GST_DORADMA_CUDA_FEATURE);

    if (device || cuda) {
      /* slots in GPU memory cannot be written by the CPU; CUDA memory
       * upstream writes into device slots only (transport=ipc) */
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
#ifdef HAVE_GST_CUDA
      if (device && cuda && need_pool)
        offer_cuda_slot_pool (self, query, caps);
#endif
      return TRUE;
    }
  }

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  if (!need_pool)
    return TRUE;

  pool = gst_doradma_pool_new (self->producer);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (self, "pool refused its own config");
    gst_object_unref (pool);
    return FALSE;
  }
  /* max 0: decoders replace a pool whose max is below what they need by
   * one of their own */
  gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Events, states */

static gboolean
gst_doradma_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      gst_doradma_producer_eos (self->producer);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self),
              gst_doradma_producer_get_stats (self->producer)));
      break;
    case GST_EVENT_FLUSH_STOP:
    case GST_EVENT_STREAM_START:
      /* after EOS (a seek, a loop, a restart from READY): a new segment */
      gst_doradma_producer_new_stream (self->producer);
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS (gst_doradma_sink_parent_class)->event (bsink,
      event);
}

/* The pipeline's latency arrives as an upstream LATENCY event that the bin
 * sends to the sink element (basesink stores it): publish it at once, not
 * at the next frame. */
static gboolean
gst_doradma_sink_send_event (GstElement * element, GstEvent * event)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);
  gboolean latency = GST_EVENT_TYPE (event) == GST_EVENT_LATENCY;
  gboolean ret;

  ret = GST_ELEMENT_CLASS (gst_doradma_sink_parent_class)->send_event
      (element, event);
  if (latency)
    gst_doradma_producer_set_latency (self->producer,
        gst_base_sink_get_latency (GST_BASE_SINK (self)));
  return ret;
}

/* The pipeline clock, as the pipeline hands it out (PLAYING): whether
 * running times map to CLOCK_MONOTONIC without reading a clock. */
static gboolean
gst_doradma_sink_set_clock (GstElement * element, GstClock * clock)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  gst_doradma_clock_map_set_clock (&self->render.clock_map, element, clock);
  return GST_ELEMENT_CLASS (gst_doradma_sink_parent_class)->set_clock
      (element, clock);
}

#ifdef HAVE_GST_CUDA
/* transport=ipc only (the slot area is on device 0): share device 0's
 * primary context with a CUDA neighbour (cudaupload). Other transports use
 * no GPU here and leave the choice of device to the neighbours. */
static gboolean
gst_doradma_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  gboolean started;

  GST_OBJECT_LOCK (self);
  started = self->s.started;
  GST_OBJECT_UNLOCK (self);
  if (started && gst_doradma_producer_settings (self->producer)->transport ==
      GST_DORADMA_TRANSPORT_IPC
      && gst_doradma_cuda_element_query (GST_ELEMENT (self), &self->cuda_ctx,
          query))
    return TRUE;
  return GST_BASE_SINK_CLASS (gst_doradma_sink_parent_class)->query (bsink,
      query);
}

static void
gst_doradma_sink_set_context (GstElement * element, GstContext * context)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  gst_doradma_cuda_element_set_context (element, &self->cuda_ctx, context);
  GST_ELEMENT_CLASS (gst_doradma_sink_parent_class)->set_context (element,
      context);
}
#endif

static gboolean
gst_doradma_sink_start (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  GstDoradmaProducerSettings ps = { 0 };
  GstDoradmaTransport transport;
  gchar *channel, *reason = NULL;

  if ((self->dora = gst_doradma_dora_enabled (bsink)))
    return gst_doradma_dora_sink_start (bsink);
  /* every setting is read here, once: later changes are refused */
  GST_OBJECT_LOCK (self);
  channel = g_strdup (self->s.channel);
  transport = self->s.transport;
  ps.slots = self->s.slots;
  ps.mode = self->s.mode;
  ps.permissions = self->s.permissions;
  ps.timeout = self->s.timeout ? self->s.timeout : GST_CLOCK_TIME_NONE;
  ps.on_stall = self->s.on_stall;
  ps.spin_time = self->s.spin_time;
  GST_OBJECT_UNLOCK (self);

  if (!gst_doradma_channel_check_or_error (GST_ELEMENT (self), channel)
      || !gst_doradma_channel_free_or_error (GST_ELEMENT (self), channel))
    goto failed;
  if (ps.permissions & S_IWOTH)
    goto world_writable;
  /* readers need read-write on ~ctl: read alone (0640, 0644) lets nobody
   * else join; say so rather than leave them to find -EACCES (R4-C2) */
  if ((ps.permissions & S_IRGRP && !(ps.permissions & S_IWGRP))
      || ps.permissions & S_IROTH)
    GST_ELEMENT_WARNING_WITH_DETAILS (self, RESOURCE, SETTINGS,
        ("Permissions %04o for channel \"%s\" let no other user join it",
            ps.permissions, channel),
        ("readers need read-write on the control object; share with a "
            "group through 0660 (and the readers' allowed-uid)"),
        ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING,
            "permissions", NULL));
  if (!gst_doradma_transport_resolve_or_error (GST_ELEMENT (self), transport,
          &transport))
    goto failed;
  if ((transport == GST_DORADMA_TRANSPORT_UNIFIED
          || transport == GST_DORADMA_TRANSPORT_IPC)
      && !gst_doradma_cuda_available (&reason))
    goto no_cuda;
  GST_INFO_OBJECT (self, "transport %s",
      gst_doradma_transport_name (transport));

  ps.channel = channel;
  ps.transport = transport;
  gst_doradma_producer_start (self->producer, &ps);
  self->readers_reached = FALSE;
  GST_OBJECT_LOCK (self);
  self->s.started = TRUE;
  GST_OBJECT_UNLOCK (self);
  g_free (channel);
  return TRUE;

  /* ERRORS */
failed:
  {
    g_free (channel);
    return FALSE;
  }
world_writable:
  {
    /* every reader refuses such objects, the writer's own user included */
    GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
        ("Invalid permissions %04o for channel \"%s\": writable by others",
            ps.permissions, channel),
        ("readers refuse objects others may write; share with a group "
            "instead (0660) and set the readers' allowed-uid"),
        ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING,
            "permissions", NULL));
    g_free (channel);
    return FALSE;
  }
no_cuda:
  {
    /* names what is missing: the build, libcuda.so.1, or a device */
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Transport \"%s\" needs CUDA: %s",
            gst_doradma_transport_name (transport), reason),
        ("channel \"%s\": use transport=shmem (or auto) on this machine",
            channel));
    g_free (reason);
    g_free (channel);
    return FALSE;
  }
}

static gboolean
gst_doradma_sink_stop (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  if (gst_doradma_dora_enabled (bsink))
    return gst_doradma_dora_sink_stop (bsink);
  gst_doradma_producer_stop (self->producer);
  gst_doradma_sink_render_reset (&self->render);
  GST_OBJECT_LOCK (self);
  self->s.started = FALSE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_doradma_sink_unlock (GstBaseSink * bsink)
{
  gst_doradma_producer_unlock (GST_DORADMA_SINK (bsink)->producer);
  return TRUE;
}

static gboolean
gst_doradma_sink_unlock_stop (GstBaseSink * bsink)
{
  gst_doradma_producer_unlock_stop (GST_DORADMA_SINK (bsink)->producer);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GObject */

static void
gst_doradma_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  if (gst_doradma_dora_set_property (object, prop_id, value, pspec))
    return;
  gst_doradma_sink_settings_set_property (&self->s, object, prop_id, value,
      pspec, gst_doradma_dora_enabled (object));
}

static void
gst_doradma_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  if (gst_doradma_dora_get_property (object, prop_id, value, pspec))
    return;
  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_producer_get_stats (self->producer));
    return;
  }
  gst_doradma_sink_settings_get_property (&self->s, object, prop_id, value,
      pspec);
}

static void
gst_doradma_sink_finalize (GObject * object)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  gst_doradma_producer_detach (self->producer);
  gst_doradma_producer_unref (self->producer);
  gst_doradma_sink_settings_finalize (&self->s);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&self->cuda_ctx);
#endif
  G_OBJECT_CLASS (gst_doradma_sink_parent_class)->finalize (object);
}

static void
gst_doradma_sink_class_init (GstDoradmaSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_sink_debug, "doradmasink", 0,
      "doradma shared-memory ring writer");
  /* registers the "doradmapool" debug category the copy path logs to */
  g_type_ensure (GST_TYPE_DORADMA_POOL);

  gst_element_class_set_static_metadata (element_class,
      "doradma ring sink", "Sink/Video",
      "Publishes raw video frames into a shared-memory ring that doradmasrc "
      "elements in other processes read without copying",
      "doradma authors <https://github.com/doradma/doradma>");
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
          gst_doradma_formats_caps (sink_features)));

  gobject_class->set_property = gst_doradma_sink_set_property;
  gobject_class->get_property = gst_doradma_sink_get_property;
  gobject_class->finalize = gst_doradma_sink_finalize;

  element_class->send_event = GST_DEBUG_FUNCPTR (gst_doradma_sink_send_event);
  element_class->set_clock = GST_DEBUG_FUNCPTR (gst_doradma_sink_set_clock);
  bsink_class->start = GST_DEBUG_FUNCPTR (gst_doradma_sink_start);
  bsink_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_sink_stop);
  bsink_class->set_caps = GST_DEBUG_FUNCPTR (gst_doradma_sink_set_caps);
  bsink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_doradma_sink_propose_allocation);
  bsink_class->render = GST_DEBUG_FUNCPTR (gst_doradma_sink_render);
  bsink_class->event = GST_DEBUG_FUNCPTR (gst_doradma_sink_event);
  bsink_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_sink_unlock);
  bsink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_doradma_sink_unlock_stop);
#ifdef HAVE_GST_CUDA
  bsink_class->query = GST_DEBUG_FUNCPTR (gst_doradma_sink_query);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_doradma_sink_set_context);
#endif

  /* channel, slots, transport, mode, permissions, timeout, spin-time,
   * wait-for-readers, on-reader-stall: gstdoradmasinksettings.c */
  gst_doradma_sink_settings_install (gobject_class);
  /**
   * GstDoradmaSink:stats:
   *
   * Counters since start, as a "doradmasink-stats" structure (also posted
   * as an element message at EOS):
   *
   * - frames (guint64): frames published
   * - copies (guint64): frames copied into a slot (not written in place,
   *   e.g. below GStreamer 1.24 for memory:CUDAMemory with transport ipc)
   * - drops (guint64): frames dropped in latest mode, no slot free
   * - fallback-buffers (guint64): buffers not in a slot (system memory, or
   *   CUDA memory from the CUDA slot pool) lent upstream when no slot was
   *   free
   * - full-ring-waits (guint64): slot acquisitions that had to wait
   * - spins, sleeps (guint64): lossless waits for a slot that ended while
   *   polling (#GstDoradmaSink:spin-time) / that slept (current segment)
   * - transport (string): the transport in use (auto resolved at start)
   * - uploads (guint64): transport ipc, frames copied host to device
   * - device-copies (guint64): transport ipc, frames copied device to
   *   device (memory:CUDAMemory upstream that did not write into the CUDA
   *   slot pool; 0 when it did)
   * - readers (guint): readers joined now
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters: frames, copies, drops, fallback-buffers, full-ring-waits, "
          "spins, sleeps, transport, uploads, device-copies, readers",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /* dora-rs memory pools (dora-pool=...): gstdoradmadora.h; each vfunc
   * above runs the dora path first when `dora-pool` is set */
  gst_doradma_dora_sink_class_init (gobject_class);
}

static void
gst_doradma_sink_init (GstDoradmaSink * self)
{
  gst_doradma_dora_state (self);        /* created here, in one thread */
  self->producer = gst_doradma_producer_new (GST_ELEMENT (self));
  self->render.sink = GST_BASE_SINK (self);
  self->render.producer = self->producer;
  gst_doradma_sink_settings_init (&self->s);
  /* a last sample would keep the previous frame's slot out of the ring
   * until the next frame, and return it inside the next chain call */
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
}
