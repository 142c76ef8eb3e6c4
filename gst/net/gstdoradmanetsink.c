/* doradma GStreamer plugin — doradmanetsink: raw video frames to a
 * doradmanetsrc on another host, over UCX active messages.
 *
 * SECTION:element-doradmanetsink
 * @title: doradmanetsink
 * @see_also: doradmanetsrc, doradmasink, doradmasrc
 *
 * Sends each frame as one UCX active message: a versioned header (caps,
 * the frame record: geometry, crop, timestamps, flags; docs/network.md)
 * and the frame's bytes, sent from the mapped buffer itself (no staging
 * copy on the host path; the buffer is kept until UCX is done with it).
 * Upstream may be a `doradmasrc`, whose buffers are the slots of a local
 * ring: their bytes then go straight from the ring to the network.
 *
 * Device frames (`video/x-raw(memory:CUDAMemory)`, in builds with
 * gstreamer-cuda, or doradma's device memory: an ipc ring's slot, a device
 * slab) go from the device where the UCX memory-type probe finds CUDA
 * (a UCX built with CUDA); elsewhere each is copied once into a pinned
 * host buffer, reused frame after frame, and sent from there. The stats
 * say which path ran (`gpu-path`: host, staged-pinned, device) and count
 * `staged-frames`. memory:CUDAMemory caps without CUDA at run time are an
 * error that names what is missing.
 *
 * `mode=latest` never waits: a frame the wire cannot take now (more than
 * `max-in-flight` frames still being sent) or sent while no receiver is
 * connected is dropped and counted. `mode=lossless` waits for credits from
 * the receiver, which returns one per frame it has written into its ring:
 * back-pressure end to end (the receiver's ring waits in turn for its
 * `next`-mode readers when it is lossless too).
 *
 * The sink connects to `host`:`port` and reconnects every `retry-interval`
 * when the connection fails or the receiver goes away (posting
 * "doradmanetsink-peer-lost" and, once back, "doradmanetsink-connected"
 * element messages). `on-peer-lost=error` stops instead, `eos` ends the
 * stream. At EOS the sink finishes a connection under way (a short stream
 * in `latest` mode can end before it is up), waits until what it sent is
 * delivered, tells the receiver (which ends its stream and its ring's) and
 * posts its stats as a "doradmanetsink-stats" element message; all within
 * `peer-timeout`.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,format=NV12,width=1920,height=1080 ! doradmanetsink host=10.250.0.2 port=13337 transports=tcp
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudaupload ! "video/x-raw(memory:CUDAMemory)" ! doradmanetsink host=10.250.0.2
 * ]|
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmaelements.h"
#include "gstdoradmanetelements.h"
#include "gstdoradmanetsinksettings.h"
#include "gstdoradmanetsinkconn.h"
#include "gstdoradmanetsinksend.h"
#include "gstdoradmanetsecurity.h"

GST_DEBUG_CATEGORY (gst_doradma_net_sink_debug);

static const gchar *const counter_names[C_N] = {
  "frames", "bytes", "dropped-busy", "dropped-disconnected", "connects",
  "peer-lost", "send-errors", "bad-credits", "staged-frames",
  "device-frames", "staging-buffers", "unknown-messages",
  "auth-failures", "refused", "lost-in-flight",
};

G_DEFINE_TYPE (GstDoradmaNetSink, gst_doradma_net_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmanetsink, "doradmanetsink",
    GST_RANK_NONE, GST_TYPE_DORADMA_NET_SINK,
    gst_doradma_element_init (plugin));

/* memory:CUDAMemory frames are staged through pinned memory, or sent from
 * the device where UCX has CUDA (gstdoradmanetgpu.h) */
#ifdef HAVE_GST_CUDA
#define SINK_CAPS "video/x-raw; video/x-raw(" GST_DORADMA_CUDA_FEATURE ")"
#else
#define SINK_CAPS "video/x-raw"
#endif

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SINK_CAPS));

/* The progress thread moves the frame on after we return. */
static GstFlowReturn
gst_doradma_net_sink_render (GstBaseSink * bsink, GstBuffer * buf)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  GstFlowReturn ret;

  g_mutex_lock (&self->ucx.lock);
  ret = gst_doradma_net_sink_render_locked (self, buf);
  g_mutex_unlock (&self->ucx.lock);
  return ret;
}

static gboolean
gst_doradma_net_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    gboolean delivered = gst_doradma_net_sink_send_eos (self);

    g_mutex_lock (&self->ucx.lock);
    /* a connection lost after the last frame (no render since to drop it)
     * or whose EOS failed: what it did not confirm is lost, no new
     * connection coming to say otherwise */
    if (!delivered && self->ep)
      gst_doradma_net_sink_note_unconfirmed (self);
    gst_doradma_net_sink_count_lost (self, FALSE, 0);
    g_mutex_unlock (&self->ucx.lock);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self),
            gst_doradma_net_sink_get_stats (self)));
  }
  return GST_BASE_SINK_CLASS (gst_doradma_net_sink_parent_class)->event (bsink,
      event);
}

static gboolean
gst_doradma_net_sink_set_caps (GstBaseSink * bsink, GstCaps * caps)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);
  struct doradma_diag diag = { 0 };
  gchar *reason = NULL, *str;
  GstCaps *plain;

  if (!gst_video_info_from_caps (&self->vinfo, caps))
    return FALSE;
  if (features && gst_caps_features_contains (features,
          GST_DORADMA_CUDA_FEATURE)) {
    gboolean ok;

    g_mutex_lock (&self->ucx.lock);
    ok = gst_doradma_net_gpu_prepare (&self->gpu, &reason);
    g_mutex_unlock (&self->ucx.lock);
    if (!ok) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("%s frames need CUDA at run time, which is not available here",
              GST_DORADMA_CUDA_FEATURE), ("%s", reason));
      g_free (reason);
      return FALSE;
    }
  }
  /* the frame arrives in host memory (a ring, system memory): the caps
   * that cross the wire say so */
  plain = gst_caps_copy (caps);
  gst_caps_set_features (plain, 0, NULL);
  str = gst_caps_to_string (plain);
  gst_caps_unref (plain);
  if (strlen (str) >= DORADMA_CAPS_MAX
      || doradma_caps_validate (str, strlen (str) + 1, &diag) < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Caps cannot cross the wire"),
        ("%s: %s", str, diag.msg[0] ? diag.msg : "longer than 959 bytes"));
    g_free (str);
    return FALSE;
  }
  g_free (self->caps_str);
  self->caps_str = str;
  return TRUE;
}

static gboolean
gst_doradma_net_sink_start (GstBaseSink * bsink)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  GError *err = NULL;
  gchar *transports, *key_file, *host, *device, *data_ports, *allowed;
  GPtrArray *gate;
  gboolean secure;
  guint c, port;

  for (c = 0; c < C_N; c++)
    self->counters[c] = 0;
  GST_OBJECT_LOCK (self);
  transports = g_strdup (self->transports);
  data_ports = g_strdup (self->data_ports);
  host = g_strdup (self->host);
  key_file = g_strdup (self->key_file);
  self->encrypt = self->encrypt_prop;
  allowed = g_strdup (self->allowed_peers);
  port = self->port;
  GST_OBJECT_UNLOCK (self);
  secure = gst_doradma_net_security_start (GST_ELEMENT (self), TRUE,
      self->encrypt, key_file, allowed, &self->allow, &self->key);
  g_free (key_file);
  g_free (allowed);
  if (!secure) {
    g_free (transports);
    g_free (data_ports);
    g_free (host);
    return FALSE;
  }
  if (self->key == NULL)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("No key-file: this stream is unauthenticated"), ("whoever answers "
            "at port %u gets the frames (docs/network.md, "
            "\"Authentication\")", port));
  /* UCX kept to the interface of the route to the receiver (review N-10);
   * none yet (no route at start): every interface */
  device = gst_doradma_net_ucx_route_interface (host, port);
  GST_INFO_OBJECT (self, "UCX kept to interface %s (the route to %s)",
      device && device[0] ? device : "(every one)", host);
  /* key-file: this sender's UCX listeners closed to every host until the
   * receiver proves the key at its door (gstdoradmanetdoor.h) */
  gate = self->key ? g_ptr_array_new () : (self->allow ?
      g_ptr_array_ref (self->allow) : NULL);
  self->ucx_open = gst_doradma_net_ucx_open (&self->ucx, transports, device,
      data_ports, gate, &err);
  g_clear_pointer (&gate, g_ptr_array_unref);
  g_free (transports);
  g_free (data_ports);
  g_free (device);
  g_free (host);
  if (!self->ucx_open || !gst_doradma_net_sink_set_handlers (self, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    /* basesink calls no stop after a failed start */
    if (self->ucx_open)
      gst_doradma_net_ucx_close (&self->ucx);
    self->ucx_open = FALSE;
    g_clear_pointer (&self->key, g_bytes_unref);
    g_clear_pointer (&self->allow, g_ptr_array_unref);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "UCX memory types: %s (device frames: %s)",
      gst_doradma_net_ucx_memory_types (&self->ucx),
      gst_doradma_net_ucx_has_cuda (&self->ucx) ? "sent from the device" :
      "staged once through pinned memory");
  /* encrypt: device frames are staged to host memory, where they are
   * encrypted (GnuTLS works on host memory) */
  gst_doradma_net_gpu_init (&self->gpu,
      gst_doradma_net_ucx_has_cuda (&self->ucx) && !self->encrypt);
  g_atomic_int_set (&self->gpu_path, GST_DORADMA_NET_GPU_PATH_NONE);
  self->ep = NULL;
  self->ep_failed = self->connected = self->was_connected = FALSE;
  self->told_door = NULL;
  self->told_closed = FALSE;
  self->next_attempt = 0;
  self->in_flight = self->credits = 0;
  self->sender_seq = self->last_sent_seq = self->confirmed_seq = 0;
  self->lost_from = self->lost_to = 0;
  self->unlocked = FALSE;
  gst_doradma_net_ucx_start_thread (&self->ucx);
  return TRUE;
}

static gboolean
gst_doradma_net_sink_stop (GstBaseSink * bsink)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  gint64 deadline;

  gst_doradma_net_door_talk_clear (&self->door);
  if (self->ucx_open) {
    gst_doradma_net_ucx_stop_thread (&self->ucx);
    /* a live peer gets what was sent (flush); a dead one is not waited for */
    gst_doradma_net_sink_drop_connection (self, self->ep_failed
        || !self->connected);
    /* the close ended every send, flushed or forced; bounded all the same:
     * a stop never waits on the network for ever */
    deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
    while (self->in_flight > 0 && g_get_monotonic_time () < deadline)
      gst_doradma_net_ucx_progress (&self->ucx);
    if (self->in_flight > 0)
      GST_WARNING_OBJECT (self, "%u sends still unfinished at stop",
          (guint) self->in_flight);
    gst_doradma_net_ucx_close (&self->ucx);
    gst_doradma_net_gpu_clear (&self->gpu);
    self->ucx_open = FALSE;
  }
  g_clear_pointer (&self->caps_str, g_free);
  g_clear_pointer (&self->key, g_bytes_unref);
  gst_doradma_net_crypt_clear (&self->to_receiver);
  gst_doradma_net_crypt_clear (&self->to_sender);
  g_clear_pointer (&self->allow, g_ptr_array_unref);
  g_clear_pointer (&self->told_not_allowed, g_free);
  return TRUE;
}

/* unlock (on) / unlock_stop (off): waits end with FLUSHING while on. */
static void
set_unlocked (GstDoradmaNetSink * self, gboolean on)
{
  if (!self->ucx_open)
    return;
  g_mutex_lock (&self->ucx.lock);
  self->unlocked = on;
  g_cond_broadcast (&self->ucx.cond);
  g_mutex_unlock (&self->ucx.lock);
}

static gboolean
gst_doradma_net_sink_unlock (GstBaseSink * bsink)
{
  set_unlocked (GST_DORADMA_NET_SINK (bsink), TRUE);
  return TRUE;
}

static gboolean
gst_doradma_net_sink_unlock_stop (GstBaseSink * bsink)
{
  set_unlocked (GST_DORADMA_NET_SINK (bsink), FALSE);
  return TRUE;
}

#ifdef HAVE_GST_CUDA
/* Device 0's primary context for a CUDA neighbour (cudaupload): its
 * memory and our staging copies then share one context. */
static gboolean
gst_doradma_net_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  if (gst_doradma_cuda_element_query (GST_ELEMENT (bsink),
          &GST_DORADMA_NET_SINK (bsink)->cuda_ctx, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (gst_doradma_net_sink_parent_class)->query
      (bsink, query);
}

static void
gst_doradma_net_sink_set_context (GstElement * element, GstContext * context)
{
  gst_doradma_cuda_element_set_context (element,
      &GST_DORADMA_NET_SINK (element)->cuda_ctx, context);
  GST_ELEMENT_CLASS (gst_doradma_net_sink_parent_class)->set_context
      (element, context);
}
#endif

GstStructure *
gst_doradma_net_sink_get_stats (GstDoradmaNetSink * self)
{
  GstStructure *s = gst_doradma_net_ucx_stats_new (&self->ucx,
      self->ucx_open, "doradmanetsink-stats", counter_names, self->counters,
      C_N);

  gst_structure_set (s, "gpu-path", G_TYPE_STRING,
      gst_doradma_net_gpu_path_name (g_atomic_int_get (&self->gpu_path)), NULL);
  return s;
}

static void
gst_doradma_net_sink_finalize (GObject * object)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  gst_doradma_net_sink_settings_clear (self);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&self->cuda_ctx);
#endif
  G_OBJECT_CLASS (gst_doradma_net_sink_parent_class)->finalize (object);
}

static void
gst_doradma_net_sink_class_init (GstDoradmaNetSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_net_sink_debug, "doradmanetsink", 0,
      "doradma network sink (UCX)");

  gobject_class->finalize = gst_doradma_net_sink_finalize;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "doradma network sink", "Sink/Network/Video",
      "Sends raw video frames to a doradmanetsrc over UCX active messages "
      "(TCP, RDMA verbs, shared memory)", "the doradma authors");

  bsink_class->start = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_start);
  bsink_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_stop);
  bsink_class->set_caps = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_set_caps);
  bsink_class->render = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_render);
  bsink_class->event = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_event);
  bsink_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_unlock);
  bsink_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_doradma_net_sink_unlock_stop);
#ifdef HAVE_GST_CUDA
  bsink_class->query = GST_DEBUG_FUNCPTR (gst_doradma_net_sink_query);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_doradma_net_sink_set_context);
#endif

  gst_doradma_net_sink_settings_install (gobject_class);
}

static void
gst_doradma_net_sink_init (GstDoradmaNetSink * self)
{
  gst_doradma_net_sink_settings_init (self);
  self->ucx.worker_fd = self->ucx.cancel_fd = -1;
  self->door.fd = -1;
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}
