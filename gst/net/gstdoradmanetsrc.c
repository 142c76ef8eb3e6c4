/* doradma GStreamer plugin — doradmanetsrc: raw video frames from a
 * doradmanetsink on another host, written into a doradma ring on this one.
 *
 * SECTION:element-doradmanetsrc
 * @title: doradmanetsrc
 * @see_also: doradmanetsink, doradmasrc, doradmasink
 *
 * Listens on `address`:`port` for one doradmanetsink at a time (UCX; a
 * second sender is refused while one is connected). Each frame's header
 * is validated by the rules of a ring's slot record (geometry inside the
 * payload, crop inside the frame, caps video/x-raw without features,
 * bounded by `max-frame-bytes`); the payload is received straight into a
 * slot of the ring `channel` on this host (rendezvous: UCX writes the
 * slot; eager: one copy out of UCX's buffer), and published: every
 * `doradmasrc channel=...` on this host reads it zero-copy. The same slot
 * is also pushed downstream (link a fakesink when only the ring is
 * wanted). With no `channel`, frames go downstream only, in system memory.
 *
 * A frame whose connection breaks before all of it arrived is abandoned:
 * its slot is never readable. `mode=lossless` makes the ring wait for its
 * `next`-mode readers and returns a credit to the sender per frame written,
 * so a lossless sender is held back end to end; `latest` drops (counted)
 * when every slot is busy.
 *
 * When the sender goes away (killed, link cut, found by UCX's error
 * handling and keepalive) the element posts a "doradmanetsrc-peer-lost"
 * element message and, with `on-peer-lost=wait`, waits for the next
 * sender ("doradmanetsrc-connected"). A malformed header gets a warning
 * naming the field, and that sender is disconnected. The sender's EOS
 * ends the ring's stream (its readers drain it and end) and this
 * element's, which then posts its stats as a "doradmanetsrc-stats" element
 * message.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 doradmanetsrc address=10.250.0.2 port=13337 transports=tcp channel=cam0 ! fakesink
 * gst-launch-1.0 doradmasrc channel=cam0 ! videoconvert ! autovideosink
 * ]|
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaelements.h"
#include "gstdoradmanetelements.h"
#include "gstdoradmasettings.h"
#include "gstdoradmanetsrcsettings.h"
#include "gstdoradmanetsrcconn.h"
#include "gstdoradmanetsrcpending.h"
#include "gstdoradmanetsrcframe.h"
#include "gstdoradmanetsecurity.h"

GST_DEBUG_CATEGORY (gst_doradma_net_src_debug);

static const gchar *const counter_names[C_N] = {
  "frames", "bytes", "dropped-ring-full", "sender-drops", "malformed",
  "connects", "peer-lost", "refused",
  "abandoned", "dropped-pending", "credit-violations", "pending-peak-bytes",
  "unknown-messages", "auth-failures", "unauthenticated", "decrypt-failures",
  "stuck-connections-reset", "door-refused",
};

G_DEFINE_TYPE (GstDoradmaNetSrc, gst_doradma_net_src, GST_TYPE_PUSH_SRC);
/* the ring producer it writes with logs in its own category */
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmanetsrc, "doradmanetsrc",
    GST_RANK_NONE, GST_TYPE_DORADMA_NET_SRC, gst_doradma_element_init (plugin);
    gst_doradma_producer_debug_init ());

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw"));

/* Shared by the connection (EOS) and the pending frames (a frame), so it
 * lives here rather than in either. */
gboolean
gst_doradma_net_src_authenticated (GstDoradmaNetSrc * self, const gchar * what)
{
  if (self->key == NULL || self->authed)
    return TRUE;
  COUNT (self, C_UNAUTHENTICATED, 1);
  if (self->ep != NULL && self->bad_peer == NULL)
    self->bad_peer = g_strdup_printf ("%s before the sender authenticated "
        "(field net.auth)", what);
  return FALSE;
}

void
gst_doradma_net_src_post_message (GstDoradmaNetSrc * self, const gchar * name,
    const gchar * reason)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "reason", G_TYPE_STRING, reason, NULL)));
}

/* ---------------------------------------------------------------------- */
/* GstPushSrc */

/* The sender left, broke the link or misbehaved. */
static GstFlowReturn
peer_lost (GstDoradmaNetSrc * self, const gchar * reason)
{
  GstDoradmaWriterLost policy;

  gst_doradma_net_src_drop_sender (self);
  COUNT (self, C_PEER_LOST, 1);
  self->discont = TRUE;
  gst_doradma_net_src_post_message (self, "doradmanetsrc-peer-lost", reason);
  GST_OBJECT_LOCK (self);
  policy = self->on_peer_lost;
  GST_OBJECT_UNLOCK (self);
  if (policy == GST_DORADMA_WRITER_LOST_ERROR) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ,
        ("The sender went away (on-peer-lost=error)"), ("%s", reason));
    return GST_FLOW_ERROR;
  }
  if (policy == GST_DORADMA_WRITER_LOST_EOS) {
    if (self->producer)
      gst_doradma_producer_eos (self->producer);
    return GST_FLOW_EOS;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_doradma_net_src_create (GstPushSrc * psrc, GstBuffer ** out)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (psrc);
  GstFlowReturn ret;
  PendingFrame *pf;

  *out = NULL;
  for (;;) {
    gst_doradma_net_ucx_progress (&self->ucx);
    /* connections UCX would keep forever (review N-5) */
    COUNT (self, C_STUCK_RESET, gst_doradma_net_ucx_reset_stuck (&self->ucx));
    if (self->bad_peer && self->bad_peer_forged) {
      /* encrypt: altered, forged or replayed on the path, or a hostile
       * sender: nothing of it was published */
      GST_ELEMENT_WARNING (self, STREAM, DECRYPT,
          ("A message from the sender failed authentication (encrypt); "
              "disconnecting it"), ("%s", self->bad_peer));
      g_clear_pointer (&self->bad_peer, g_free);
      self->bad_peer_forged = FALSE;
      ret = peer_lost (self, "a message failed authentication");
      if (ret != GST_FLOW_OK)
        return ret;
    } else if (self->bad_peer) {
      GST_ELEMENT_WARNING (self, STREAM, DECODE,
          ("Malformed frame from the sender; disconnecting it"), ("%s",
              self->bad_peer));
      g_clear_pointer (&self->bad_peer, g_free);
      ret = peer_lost (self, "malformed frame header");
      if (ret != GST_FLOW_OK)
        return ret;
    } else if ((self->ep && self->ep_failed) || self->link_lost) {
      self->link_lost = FALSE;
      ret = peer_lost (self, "the sender went away or the link broke");
      if (ret != GST_FLOW_OK)
        return ret;
    } else if (self->ep && self->peer_timeout && g_get_monotonic_time () -
        self->last_heard > (gint64) (self->peer_timeout / 1000)) {
      ret = peer_lost (self, "nothing from the sender for peer-timeout");
      if (ret != GST_FLOW_OK)
        return ret;
    }
    if ((pf = gst_doradma_net_src_pending_pop (self)) != NULL) {
      ret = gst_doradma_net_src_handle_frame (self, pf, out);
      /* time spent here (a full lossless ring) is not the sender's silence */
      self->last_heard = g_get_monotonic_time ();
      if (ret != GST_FLOW_OK || *out != NULL)
        return ret;
      continue;
    }
    if (self->peer_eos) {
      if (self->producer)
        gst_doradma_producer_eos (self->producer);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self),
              gst_doradma_net_src_get_stats (self)));
      return GST_FLOW_EOS;
    }
    if (!gst_doradma_net_ucx_wait (&self->ucx, 100))
      return GST_FLOW_FLUSHING;
  }
}

/* LATENCY (review D2: basesrc's default, live 0/0, made a sink with a
 * processing deadline warn "please add queues"): buffers are timestamped
 * on arrival (do-timestamp), so nothing before that is ours to add; the
 * most it can hold is the ring's slots, or max-pending frames without a
 * ring, of the caps' frame duration (unknown: no maximum). */
static gboolean
gst_doradma_net_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    guint64 dur = __atomic_load_n (&self->frame_duration, __ATOMIC_RELAXED);
    guint frames;

    GST_OBJECT_LOCK (self);
    frames = self->channel && self->channel[0] ? self->slots :
        self->max_pending_prop;
    GST_OBJECT_UNLOCK (self);
    gst_query_set_latency (query, TRUE, 0, dur ? dur * frames :
        GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (gst_doradma_net_src_parent_class)->query (bsrc,
      query);
}

static gboolean
gst_doradma_net_src_negotiate (GstBaseSrc * bsrc)
{
  /* the caps come with the first frame (apply_caps,
   * gstdoradmanetsrcframe.c) */
  return TRUE;
}

static gboolean gst_doradma_net_src_stop (GstBaseSrc * bsrc);

/* FALSE, with the element's error, when `port` lies in data-ports' range:
 * UCX's data listeners bind there first and may take it (a malformed
 * range is left to gst_doradma_net_ucx_open, which names it) */
static gboolean
ports_outside_data_ports (GstDoradmaNetSrc * self, const gchar * name,
    guint port, const gchar * data_ports)
{
  guint first, last;

  if (!gst_doradma_net_ucx_port_range (data_ports, &first, &last)
      || port < first || port > last)
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("%s=%u is inside data-ports=%s, where UCX's data listeners bind "
          "first and may take it", name, port, data_ports),
      ("choose a %s outside data-ports", name));
  return FALSE;
}

static gboolean
gst_doradma_net_src_start (GstBaseSrc * bsrc)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);
  GstDoradmaProducerSettings ps = { 0 };
  GError *err = NULL;
  gchar *transports, *address, *channel, *key_file, *device, *data_ports;
  gchar *allowed;
  GPtrArray *gate;
  gboolean secure;
  guint port, ucx_port, c;

  for (c = 0; c < C_N; c++)
    self->counters[c] = 0;
  GST_OBJECT_LOCK (self);
  transports = g_strdup (self->transports);
  data_ports = g_strdup (self->data_ports);
  address = g_strdup (self->address);
  channel = g_strdup (self->channel);
  port = self->port;
  ucx_port = self->ucx_port;
  ps.slots = self->slots;
  ps.mode = self->mode;
  ps.permissions = self->permissions;
  self->wait_for_readers = self->wait_for_readers_prop;
  self->peer_timeout = self->peer_timeout_prop;
  self->max_pending = self->max_pending_prop;
  self->max_pending_bytes = self->max_pending_bytes_prop;
  key_file = g_strdup (self->key_file);
  self->encrypt = self->encrypt_prop;
  allowed = g_strdup (self->allowed_peers);
  GST_OBJECT_UNLOCK (self);

  secure = gst_doradma_net_security_start (GST_ELEMENT (self), FALSE,
      self->encrypt, key_file, allowed, &self->allow, &self->key);
  g_free (key_file);
  g_free (allowed);
  if (!secure)
    goto failed;
  if (self->key == NULL)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("No key-file: this stream is unauthenticated"), ("any host that "
            "reaches port %u can send frames, caps and EOS into it "
            "(docs/network.md, \"Authentication\")", port));
  if (self->key == NULL && ucx_port != 0)
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("ucx-port=%u is not used without key-file: UCX listens on port %u",
            ucx_port, port), (NULL));
  if (!ports_outside_data_ports (self, "port", port, data_ports)
      || (self->key != NULL && ucx_port != 0
          && !ports_outside_data_ports (self, "ucx-port", ucx_port,
              data_ports)))
    goto failed;
  if (self->key != NULL && ucx_port == port) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("ucx-port and port are both %u: with key-file, port is the door "
            "and UCX listens on a port of its own", port),
        ("set ucx-port to another port, or 0 for an ephemeral one"));
    goto failed;
  }
  self->refused_peers = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);

  if (channel && channel[0]) {
    if (!gst_doradma_channel_check_or_error (GST_ELEMENT (self), channel))
      goto failed;
    ps.channel = channel;
    ps.transport = GST_DORADMA_TRANSPORT_SHMEM;
    ps.timeout = GST_CLOCK_TIME_NONE;
    ps.on_stall = GST_DORADMA_STALL_WAIT;
    self->producer = gst_doradma_producer_new (GST_ELEMENT (self));
    gst_doradma_producer_start (self->producer, &ps);
  }
  /* credits: as many frames as the ring has slots but the newest */
  self->slots_now = MAX (ps.slots - 1, 1);
  /* an honest lossless sender never has more than its credits queued */
  self->max_pending = MAX (self->max_pending, self->slots_now + 1);

  /* UCX kept to the interface of `address` (review N-10, N-6) */
  device = gst_doradma_net_ucx_interface_of (address, &err);
  if (device == NULL)
    goto ucx_failed;
  if (device[0]) {
    GST_INFO_OBJECT (self, "UCX kept to interface %s (address %s)", device,
        address);
  } else {
    gchar **ifs = gst_doradma_net_ucx_interfaces ();

    /* UCX then offers the sender every interface and may move the data
     * over one the sender cannot reach: no frame, no error (review N-6) */
    if (g_strv_length (ifs) > 1) {
      gchar *list = g_strjoinv (", ", ifs);

      GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
          ("address=%s on a host with several interfaces (%s): a sender "
              "that cannot reach all of them may get no frame through",
              address, list), ("set address to the address of the "
              "interface the senders reach (docs/network.md, "
              "\"Transports\")"));
      g_free (list);
    }
    g_strfreev (ifs);
  }
  /* key-file: UCX's listeners closed to every host until one proves the
   * key at the door (gstdoradmanetdoor.h) */
  gate = self->key ? g_ptr_array_new () : self->allow;
  self->ucx_open = gst_doradma_net_ucx_open (&self->ucx, transports, device,
      data_ports, gate, &err);
  g_free (device);
  if (self->key)
    g_ptr_array_unref (gate);   /* ucx holds its own reference */
  if (!self->ucx_open
      || !gst_doradma_net_src_listen (self, address,
          self->key ? ucx_port : port, &err)
      || (self->key && !gst_doradma_net_src_open_door (self, address, port,
              &err)))
    goto ucx_failed;
  GST_INFO_OBJECT (self, "listening on %s:%u%s, UCX memory types %s", address,
      port, self->key ? " (the door; UCX on the port it tells)" : "",
      gst_doradma_net_ucx_memory_types (&self->ucx));
  if (self->ucx.sweep_dir == NULL)
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("No sweep of stuck connections: /proc/self/fd cannot be read"),
        ("a peer's garbage connections keep their descriptors in UCX "
            "(docs/network.md, \"Not defended\")"));
  self->ep = NULL;
  self->ep_failed = FALSE;
  self->last_sender_seq = 0;
  self->discont = TRUE;
  self->peer_eos = self->readers_joined = self->link_lost = FALSE;
  g_free (transports);
  g_free (data_ports);
  g_free (address);
  g_free (channel);
  return TRUE;

ucx_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, ("%s", err->message), (NULL));
  g_clear_error (&err);
failed:
  /* basesrc calls no stop after a failed start: undo what it made (the
   * key, the lists, the producer, UCX) as a stop does */
  gst_doradma_net_src_stop (bsrc);
  g_free (transports);
  g_free (data_ports);
  g_free (address);
  g_free (channel);
  return FALSE;
}

static gboolean
gst_doradma_net_src_stop (GstBaseSrc * bsrc)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);

  /* no sender let in while the listeners go */
  g_clear_pointer (&self->door, gst_doradma_net_door_close);
  self->told_door = 0;
  if (self->ucx_open) {
    gst_doradma_net_src_drop_sender (self);
    if (self->listener)
      ucp_listener_destroy (self->listener);
    self->listener = NULL;
    gst_doradma_net_ucx_close (&self->ucx);
    self->ucx_open = FALSE;
  }
  g_clear_pointer (&self->bad_peer, g_free);
  self->bad_peer_forged = FALSE;
  g_clear_pointer (&self->key, g_bytes_unref);
  gst_doradma_net_crypt_clear (&self->to_receiver);
  gst_doradma_net_crypt_clear (&self->to_sender);
  g_clear_pointer (&self->allow, g_ptr_array_unref);
  g_clear_pointer (&self->refused_peers, g_hash_table_unref);
  if (self->producer) {
    gst_doradma_producer_stop (self->producer);
    gst_doradma_producer_detach (self->producer);
    g_clear_pointer (&self->producer, gst_doradma_producer_unref);
  }
  g_clear_pointer (&self->caps_str, g_free);
  __atomic_store_n (&self->frame_duration, 0, __ATOMIC_RELAXED);
  return TRUE;
}

static gboolean
gst_doradma_net_src_unlock (GstBaseSrc * bsrc)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);

  gst_doradma_net_ucx_interrupt (&self->ucx, TRUE);
  if (self->producer)
    gst_doradma_producer_unlock (self->producer);
  return TRUE;
}

static gboolean
gst_doradma_net_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);

  gst_doradma_net_ucx_interrupt (&self->ucx, FALSE);
  if (self->producer)
    gst_doradma_producer_unlock_stop (self->producer);
  return TRUE;
}

GstStructure *
gst_doradma_net_src_get_stats (GstDoradmaNetSrc * self)
{
  GstStructure *s = gst_doradma_net_ucx_stats_new (&self->ucx,
      self->ucx_open, "doradmanetsrc-stats", counter_names, self->counters,
      C_N);

  /* frames are received into host memory: the ring's slots, or system
   * memory downstream (doradmasrc gives CUDAMemory from the ring) */
  gst_structure_set (s, "memory-path", G_TYPE_STRING, "host", NULL);
  return s;
}

static void
gst_doradma_net_src_finalize (GObject * object)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  gst_doradma_net_src_settings_clear (self);
  G_OBJECT_CLASS (gst_doradma_net_src_parent_class)->finalize (object);
}

static void
gst_doradma_net_src_class_init (GstDoradmaNetSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_net_src_debug, "doradmanetsrc", 0,
      "doradma network source (UCX)");

  gobject_class->finalize = gst_doradma_net_src_finalize;

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "doradma network source", "Source/Network/Video",
      "Receives raw video frames from a doradmanetsink over UCX into a "
      "doradma ring on this host", "the doradma authors");

  bsrc_class->start = GST_DEBUG_FUNCPTR (gst_doradma_net_src_start);
  bsrc_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_net_src_stop);
  bsrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_doradma_net_src_negotiate);
  bsrc_class->query = GST_DEBUG_FUNCPTR (gst_doradma_net_src_query);
  bsrc_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_net_src_unlock);
  bsrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_doradma_net_src_unlock_stop);
  psrc_class->create = GST_DEBUG_FUNCPTR (gst_doradma_net_src_create);

  gst_doradma_net_src_settings_install (gobject_class);
}

static void
gst_doradma_net_src_init (GstDoradmaNetSrc * self)
{
  gst_doradma_net_src_settings_init (self);
  self->ucx.worker_fd = self->ucx.cancel_fd = -1;
  g_queue_init (&self->pending);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}
