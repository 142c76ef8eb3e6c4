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

#include <string.h>
#include <time.h>

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmanetelements.h"
#include "gstdoradmaenums.h"
#include "gstdoradmaproducer.h"
#include "gstdoradmasettings.h"
#include "gstdoradmawire.h"
#include "gstdoradmanetwire.h"
#include "gstdoradmanetcaps.h"
#include "gstdoradmanetucx.h"
#include "gstdoradmanetauth.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_net_src_debug);
#define GST_CAT_DEFAULT gst_doradma_net_src_debug

#define GST_TYPE_DORADMA_NET_SRC (gst_doradma_net_src_get_type ())
G_DECLARE_FINAL_TYPE (GstDoradmaNetSrc, gst_doradma_net_src, GST,
    DORADMA_NET_SRC, GstPushSrc);

#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_PORT 13337
#define DEFAULT_CHANNEL NULL
#define DEFAULT_SLOTS 4
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_PERMISSIONS 0
#define DEFAULT_MAX_FRAME_BYTES DORADMA_NET_MAX_FRAME_DEFAULT
#define DEFAULT_ON_PEER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_WAIT_FOR_READERS 0
#define DEFAULT_PEER_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_MAX_PENDING 128
#define DEFAULT_MAX_PENDING_BYTES (64 * 1024 * 1024)

enum
{
  PROP_0,
  PROP_ADDRESS,
  PROP_PORT,
  PROP_TRANSPORTS,
  PROP_DATA_PORTS,
  PROP_CHANNEL,
  PROP_SLOTS,
  PROP_MODE,
  PROP_PERMISSIONS,
  PROP_MAX_FRAME_BYTES,
  PROP_ON_PEER_LOST,
  PROP_WAIT_FOR_READERS,
  PROP_PEER_TIMEOUT,
  PROP_MAX_PENDING,
  PROP_MAX_PENDING_BYTES,
  PROP_KEY_FILE,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

typedef enum
{
  C_FRAMES, C_BYTES, C_DROPPED_RING_FULL, C_SENDER_DROPS, C_MALFORMED,
  C_CONNECTS, C_PEER_LOST, C_REFUSED, C_ABANDONED, C_DROPPED_PENDING,
  C_CREDIT_VIOLATIONS, C_PENDING_PEAK_BYTES, C_UNKNOWN_MESSAGES,
  C_AUTH_FAILURES, C_UNAUTHENTICATED, C_N
} Counter;

static const gchar *const counter_names[C_N] = {
  "frames", "bytes", "dropped-ring-full", "sender-drops", "malformed",
  "connects", "peer-lost", "refused",
  "abandoned", "dropped-pending", "credit-violations", "pending-peak-bytes",
  "unknown-messages", "auth-failures", "unauthenticated",
};

/* A frame announced by the sender, its payload still with UCX. */
typedef struct
{
  struct doradma_net_frame hdr;
  void *data;                   /* UCX's data or rendezvous descriptor */
  gsize length;
  gboolean rndv;
  gboolean owned;               /* data is ours (g_free) */
  gsize held;                   /* bytes held here: this and eager data */
} PendingFrame;

struct _GstDoradmaNetSrc
{
  GstPushSrc parent;

  /* properties (object lock) */
  gchar *address;
  guint port;
  gchar *transports;
  gchar *data_ports;            /* "FIRST-LAST" or NULL: ephemeral */
  gchar *channel;
  guint slots;
  GstDoradmaMode mode;
  guint permissions;
  guint64 max_frame_bytes;
  GstDoradmaWriterLost on_peer_lost;
  guint wait_for_readers_prop;
  guint wait_for_readers;       /* streaming thread's copy */
  guint64 peer_timeout, peer_timeout_prop;
  guint max_pending_prop, max_pending;  /* frames held before the ring */
  guint64 max_pending_bytes_prop, max_pending_bytes;
  gchar *key_file;

  guint64 counters[C_N];        /* atomic */

  /* streaming thread (and start/stop) */
  GstDoradmaNetUcx ucx;
  gboolean ucx_open;
  ucp_listener_h listener;
  ucp_ep_h ep;
  gboolean ep_failed;           /* error callback */
  gchar *bad_peer;              /* a malformed header's diagnostic */
  GQueue pending;               /* PendingFrame */
  guint64 pending_bytes;        /* sum of their `held` */
  gint64 credit_balance;        /* credits granted - frames received */
  GBytes *key;                  /* key-file's; NULL: unauthenticated */
  gboolean authed;              /* the sender proved the key */
  guint8 nonce[DORADMA_NET_AUTH_BYTES]; /* this connection's challenge */
  guint64 last_sender_seq;
  gboolean discont;
  GstDoradmaProducer *producer; /* NULL without a channel */
  gchar *caps_str;
  GstVideoInfo vinfo;
  GstDoradmaPlaneNeeds needs;   /* of vinfo */
  guint64 frame_duration;       /* of the caps, 0 unknown (atomic) */
  guint slots_now;              /* credits granted per connection */
  gboolean peer_eos;            /* the sender ended the stream */
  gboolean readers_joined;      /* wait-for-readers done */
  gint64 last_heard;            /* monotonic us: the sender's last frame */
  gboolean link_lost;           /* a receive closed the connection */
};

G_DEFINE_TYPE (GstDoradmaNetSrc, gst_doradma_net_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmanetsrc, "doradmanetsrc",
    GST_RANK_NONE, GST_TYPE_DORADMA_NET_SRC, gst_doradma_element_init (plugin));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw"));

#define COUNT(self, c, n) \
  __atomic_fetch_add (&(self)->counters[c], (n), __ATOMIC_RELAXED)

static guint64
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void
post_message (GstDoradmaNetSrc * self, const gchar * name, const gchar * reason)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "reason", G_TYPE_STRING, reason, NULL)));
}

/* ---------------------------------------------------------------------- */
/* Credits back to the sender */

static void
credit_sent (void *request, ucs_status_t status, void *user_data)
{
  g_free (user_data);
  /* freed here, not at the send: a freed request gets no callback */
  ucp_request_free (request);
}

static void
send_credit (GstDoradmaNetSrc * self, gboolean hello, guint credits)
{
  struct doradma_net_credit *c;
  ucp_request_param_t param = { 0 };
  void *req;

  if (self->ep == NULL || self->ep_failed)
    return;
  if (!hello)
    self->credit_balance += credits;
  c = g_new (struct doradma_net_credit, 1);
  doradma_net_credit_encode (c, hello, credits, self->last_sender_seq);
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = credit_sent;
  param.user_data = c;
  req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_CREDIT, c, sizeof (*c),
      NULL, 0, &param);
  if (req == NULL || UCS_PTR_IS_ERR (req))
    g_free (c);
  /* else credit_sent frees c and req */
}

/* ---------------------------------------------------------------------- */
/* UCX callbacks (streaming thread, inside the worker's progress) */

static void
on_ep_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  GstDoradmaNetSrc *self = arg;

  GST_DEBUG_OBJECT (self, "endpoint error: %s", ucs_status_string (status));
  if (ep == self->ep)
    self->ep_failed = TRUE;
}

/* Credits to the sender and the connected message: at once without a
 * key, after the handshake with one. */
static void
sender_admitted (GstDoradmaNetSrc * self)
{
  COUNT (self, C_CONNECTS, 1);
  send_credit (self, TRUE, self->slots_now);
  post_message (self, "doradmanetsrc-connected", "a sender connected");
}

/* A message that needs an authenticated sender: FALSE (counted, the
 * sender disconnected) when it has not proven the key. */
static gboolean
authenticated (GstDoradmaNetSrc * self, const gchar * what)
{
  if (self->key == NULL || self->authed)
    return TRUE;
  COUNT (self, C_UNAUTHENTICATED, 1);
  if (self->ep != NULL && self->bad_peer == NULL)
    self->bad_peer = g_strdup_printf ("%s before the sender authenticated "
        "(field net.auth)", what);
  return FALSE;
}

static void
on_connection (ucp_conn_request_h request, void *arg)
{
  GstDoradmaNetSrc *self = arg;
  GError *err = NULL;

  if (self->ep != NULL) {
    /* one sender at a time; a dead one is let go first (create) */
    COUNT (self, C_REFUSED, 1);
    ucp_listener_reject (self->listener, request);
    return;
  }
  self->ep = gst_doradma_net_ucx_accept (&self->ucx, request, on_ep_error,
      self, &err);
  if (self->ep == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    return;
  }
  self->ep_failed = FALSE;
  self->discont = TRUE;
  self->last_heard = g_get_monotonic_time ();
  self->credit_balance = self->slots_now;
  self->authed = FALSE;
  if (self->key) {
    struct doradma_net_auth a;

    /* no caps, frame, credit or EOS either way before the key is proven */
    if (!gst_doradma_net_auth_nonce (self->nonce)) {
      self->bad_peer = g_strdup ("no random bytes for a challenge");
      return;
    }
    doradma_net_auth_encode (&a, DORADMA_NET_AUTH_CHALLENGE, self->nonce, NULL);
    gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a,
        sizeof (a));
    return;
  }
  sender_admitted (self);
}

static void pending_release (GstDoradmaNetSrc * self, PendingFrame * pf);

/* Room for a frame holding `held` bytes (review N-2: what a sender sends
 * is queued until the streaming thread takes it, and eager sends complete
 * as soon as they are on the socket, so a sender that ignores credits, or
 * a `latest` one with small frames, would grow this queue without bound).
 * A lossless frame beyond the credits granted is the sender's fault
 * (FALSE, the reason in bad_peer); latest frames make room by dropping the
 * oldest latest frames held (dropped-pending), as a full ring would. */
static gboolean
make_room (GstDoradmaNetSrc * self, const PendingFrame * pf)
{
  if (pf->hdr.wire_flags & DORADMA_NET_FLAG_LOSSLESS) {
    if (self->credit_balance <= 0) {
      COUNT (self, C_CREDIT_VIOLATIONS, 1);
      self->bad_peer = g_strdup_printf ("lossless frame %" G_GUINT64_FORMAT
          " beyond the credits granted (field net.credits)",
          pf->hdr.sender_seq);
      return FALSE;
    }
  }
  while (self->pending.length >= self->max_pending
      || self->pending_bytes + pf->held > self->max_pending_bytes) {
    PendingFrame *old = g_queue_peek_head (&self->pending);

    /* a lossless frame is never dropped; a rendezvous one holds no data
     * here and an honest sender has at most max-in-flight of them */
    if (old == NULL || old->rndv
        || (old->hdr.wire_flags & DORADMA_NET_FLAG_LOSSLESS)) {
      self->bad_peer = g_strdup_printf ("more than %u frames or %"
          G_GUINT64_FORMAT " bytes announced and not yet taken (field "
          "net.pending)", self->max_pending, self->max_pending_bytes);
      return FALSE;
    }
    g_queue_pop_head (&self->pending);
    self->pending_bytes -= old->held;
    /* handled, in order: not a gap in the sender's numbering */
    self->last_sender_seq = old->hdr.sender_seq;
    self->discont = TRUE;
    COUNT (self, C_DROPPED_PENDING, 1);
    pending_release (self, old);
  }
  return TRUE;
}

static ucs_status_t
on_frame (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;
  gboolean rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  struct doradma_diag diag = { 0 };
  PendingFrame *pf = g_new0 (PendingFrame, 1);
  int r;

  r = doradma_net_frame_decode (header, header_length, length,
      self->max_frame_bytes, &pf->hdr, &diag);
  if (r < 0 && self->bad_peer == NULL) {
    COUNT (self, C_MALFORMED, 1);
    self->bad_peer = g_strdup_printf ("%s (field %s)", diag.msg,
        diag.field ? diag.field : "?");
  }
  pf->held = sizeof (*pf) + (rndv ? 0 : length);
  if (r < 0 || self->ep == NULL || !authenticated (self, "a frame")
      || self->bad_peer || !make_room (self, pf)) {
    g_free (pf);
    /* eager data goes back to UCX at once; a rendezvous is refused */
    return rndv ? UCS_ERR_INVALID_PARAM : UCS_OK;
  }
  self->credit_balance--;
  self->last_heard = g_get_monotonic_time ();
  pf->length = length;
  pf->rndv = rndv;
  self->pending_bytes += pf->held;
  if (self->pending_bytes > self->counters[C_PENDING_PEAK_BYTES])
    __atomic_store_n (&self->counters[C_PENDING_PEAK_BYTES],
        self->pending_bytes, __ATOMIC_RELAXED);
  if (rndv) {
    pf->data = data;
    g_queue_push_tail (&self->pending, pf);
    return UCS_INPROGRESS;
  }
  /* eager data is copied and given back to UCX at once: kept, it would pin
   * one of UCX's receive buffers (up to its 64 KiB segment) per frame,
   * far more than max-pending-bytes counts */
  pf->data = g_memdup2 (data, length);
  pf->owned = TRUE;
  g_queue_push_tail (&self->pending, pf);
  return UCS_OK;
}

static ucs_status_t
on_eos (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;

  if (self->ep != NULL && authenticated (self, "an EOS"))
    self->peer_eos = TRUE;
  return UCS_OK;
}

/* The handshake (gstdoradmanetwire.h): the sender's RESPONSE. */
static ucs_status_t
on_auth (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;
  struct doradma_diag diag = { 0 };
  struct doradma_net_auth a;
  const gchar *why = NULL;
  guint8 mac[DORADMA_NET_AUTH_BYTES];

  if (self->ep == NULL || self->bad_peer)
    return UCS_OK;
  if (doradma_net_auth_decode (header, header_length, &a, &diag) < 0)
    why = diag.msg;
  else if (self->key == NULL)
    why = "an authentication message, but this receiver has no key-file";
  else if (self->authed || a.kind != DORADMA_NET_AUTH_RESPONSE)
    why = "an authentication message out of turn";
  else if (!gst_doradma_net_auth_check (self->key, TRUE, self->nonce,
          a.nonce, a.mac))
    why = "the sender does not have the key (wrong key-file or replayed "
        "answer)";
  if (why) {
    COUNT (self, C_AUTH_FAILURES, 1);
    self->bad_peer = g_strdup_printf ("%s (field net.auth)", why);
    return UCS_OK;
  }
  self->authed = TRUE;
  /* the receiver's proof, over the sender's nonce first */
  gst_doradma_net_auth_mac (self->key, FALSE, a.nonce, self->nonce, mac);
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_PROOF, NULL, mac);
  gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a, sizeof (a));
  sender_admitted (self);
  return UCS_OK;
}

/* Any active message id but the wire's: counted, dropped, and its sender
 * disconnected (gst_doradma_net_ucx_set_unknown_am_handler). */
static ucs_status_t
on_unknown (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;

  COUNT (self, C_UNKNOWN_MESSAGES, 1);
  if (self->ep != NULL && self->bad_peer == NULL)
    self->bad_peer = g_strdup ("an active message of an id the wire does "
        "not use (field net.am-id)");
  return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ?
      UCS_ERR_INVALID_PARAM : UCS_OK;
}

static void
pending_release (GstDoradmaNetSrc * self, PendingFrame * pf)
{
  /* a rendezvous descriptor not received is dropped with its endpoint */
  if (pf->owned)
    g_free (pf->data);
  g_free (pf);
}

static void
drop_sender (GstDoradmaNetSrc * self)
{
  PendingFrame *pf;

  while ((pf = g_queue_pop_head (&self->pending)) != NULL) {
    COUNT (self, C_ABANDONED, 1);
    pending_release (self, pf);
  }
  self->pending_bytes = 0;
  gst_doradma_net_ucx_close_ep (&self->ucx, self->ep, TRUE, 0);
  self->ep = NULL;
  self->ep_failed = FALSE;
}

/* ---------------------------------------------------------------------- */
/* Frames */

static GstFlowReturn
apply_caps (GstDoradmaNetSrc * self, const PendingFrame * pf)
{
  GstDoradmaPlaneNeeds needs;
  const gchar *why;
  GstVideoInfo info;
  GstCaps *caps;

  if (self->caps_str && strcmp (self->caps_str, pf->hdr.caps) == 0)
    return GST_FLOW_OK;
  caps = gst_doradma_net_caps_parse (pf->hdr.caps, &info, &needs, &why);
  if (caps == NULL) {
    /* passed the ring's caps rule but not GStreamer's */
    g_free (self->bad_peer);
    self->bad_peer = g_strdup_printf ("caps \"%.80s\" %s (field caps)",
        pf->hdr.caps, why);
    COUNT (self, C_MALFORMED, 1);
    return GST_FLOW_CUSTOM_SUCCESS;
  }
  if (!gst_base_src_set_caps (GST_BASE_SRC (self), caps)) {
    gst_caps_unref (caps);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream refused %s", pf->hdr.caps));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  gst_caps_unref (caps);
  self->vinfo = info;
  self->needs = needs;
  __atomic_store_n (&self->frame_duration, GST_VIDEO_INFO_FPS_N (&info) > 0 ?
      gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&info),
          GST_VIDEO_INFO_FPS_N (&info)) : 0, __ATOMIC_RELAXED);
  if (self->producer)
    gst_doradma_producer_set_caps (self->producer, pf->hdr.caps,
        pf->hdr.info.payload_bytes);
  g_free (self->caps_str);
  self->caps_str = g_strdup (pf->hdr.caps);
  return GST_FLOW_OK;
}

/* The frame's geometry covers its caps (the check doradmasrc makes on a
 * ring's records): what goes downstream in a GstVideoMeta and into the
 * ring is read by converters as the caps say. A frame that does not is
 * malformed: dropped, counted, and its sender disconnected. */
static gboolean
frame_fits_caps (GstDoradmaNetSrc * self, const PendingFrame * pf)
{
  const struct doradma_frame_info *fi = &pf->hdr.info;

  if (gst_doradma_frame_fits (&self->vinfo, &self->needs, fi))
    return TRUE;
  g_free (self->bad_peer);
  self->bad_peer = g_strdup_printf ("frame geometry %ux%u, %u planes (plane "
      "0 stride %u, %u rows of %u bytes) does not cover caps %.80s (field "
      "planes)", fi->width, fi->height, fi->n_planes, fi->planes[0].stride,
      fi->planes[0].rows, fi->planes[0].row_bytes, pf->hdr.caps);
  COUNT (self, C_MALFORMED, 1);
  return FALSE;
}

/* Where the payload goes: a ring slot, or system memory without a ring.
 * OK with *mem NULL: the ring is full (latest). */
static GstFlowReturn
frame_memory (GstDoradmaNetSrc * self, gsize size, GstMemory ** mem)
{
  GstFlowReturn ret;

  if (self->producer == NULL) {
    *mem = gst_allocator_alloc (NULL, size, NULL);
    return GST_FLOW_OK;
  }
  if (self->wait_for_readers > 0 && !self->readers_joined) {
    /* the ring exists once prepared; hold the first frame until the
     * readers joined it */
    ret = gst_doradma_producer_prepare (self->producer, size);
    if (ret == GST_FLOW_OK)
      ret = gst_doradma_producer_wait_readers (self->producer,
          self->wait_for_readers);
    if (ret != GST_FLOW_OK)
      return ret;
    self->readers_joined = TRUE;
  }
  return gst_doradma_producer_acquire (self->producer, size,
      self->mode == GST_DORADMA_MODE_LATEST, NULL, mem);
}

/* Waits for a rendezvous receive into the slot. A payload that stops
 * coming (link cut) or an unlock closes the connection, which fails the
 * request: UCX must be done writing the slot before it is given back. */
static ucs_status_t
finish_receive (GstDoradmaNetSrc * self, void *req, gboolean * keep_slot)
{
  gint64 deadline = g_get_monotonic_time () + self->peer_timeout / 1000;
  gint64 hard = 0;
  ucs_status_t st;

  *keep_slot = FALSE;
  if (req == NULL || UCS_PTR_IS_ERR (req))
    return UCS_PTR_STATUS (req);
  while ((st = ucp_request_check_status (req)) == UCS_INPROGRESS) {
    gboolean go_on = gst_doradma_net_ucx_wait (&self->ucx, 100);
    gint64 now = g_get_monotonic_time ();

    if (hard == 0 && (!go_on || (self->peer_timeout && now > deadline))) {
      GST_DEBUG_OBJECT (self, "payload %s; closing the connection",
          go_on ? "stopped coming" : "interrupted");
      gst_doradma_net_ucx_close_ep (&self->ucx, self->ep, TRUE, 0);
      self->ep = NULL;
      self->link_lost = TRUE;
      hard = now + G_USEC_PER_SEC;
    } else if (hard && now > hard) {
      /* never seen: keep the slot WRITING for good rather than let a late
       * write land in a frame readers lease */
      GST_WARNING_OBJECT (self, "a receive outlived its connection");
      *keep_slot = TRUE;
      return UCS_ERR_TIMED_OUT;
    }
  }
  ucp_request_free (req);
  return st;
}

static gboolean
receive_payload (GstDoradmaNetSrc * self, PendingFrame * pf, GstMemory * mem)
{
  ucp_request_param_t param = { 0 };
  gboolean keep_slot = FALSE;
  GstMapInfo map;
  ucs_status_t st = UCS_OK;

  if (!gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    pending_release (self, pf);
    return FALSE;
  }
  if (pf->rndv) {
    /* UCX writes the slot itself */
    param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type = UCS_MEMORY_TYPE_HOST;
    st = finish_receive (self, ucp_am_recv_data_nbx (self->ucx.worker,
            pf->data, map.data, pf->length, &param), &keep_slot);
    g_free (pf);
  } else {
    memcpy (map.data, pf->data, pf->length);
    pending_release (self, pf);
  }
  gst_memory_unmap (mem, &map);
  if (keep_slot)
    gst_memory_ref (mem);       /* leaked on purpose, see finish_receive */
  if (st != UCS_OK)
    GST_DEBUG_OBJECT (self, "receive: %s", ucs_status_string (st));
  return st == UCS_OK;
}

static GstBuffer *
frame_buffer (GstDoradmaNetSrc * self, GstMemory * mem,
    const struct doradma_frame_info *fi)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  guint p;

  gst_buffer_append_memory (buf, gst_memory_ref (mem));
  for (p = 0; p < fi->n_planes; p++) {
    offset[p] = fi->planes[p].offset;
    stride[p] = fi->planes[p].stride;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->vinfo), fi->width, fi->height,
      fi->n_planes, offset, stride);
  if (fi->crop_width) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = fi->crop_x;
    crop->y = fi->crop_y;
    crop->width = fi->crop_width;
    crop->height = fi->crop_height;
  }
  GST_BUFFER_DURATION (buf) = fi->duration;
  GST_BUFFER_OFFSET (buf) = fi->offset;
  GST_BUFFER_OFFSET_END (buf) = fi->offset_end;
  GST_BUFFER_FLAGS (buf) |= fi->flags & GST_DORADMA_CARRIED_FLAGS;
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  }
  return buf;
}

/* One pending frame into the ring (and *out for downstream, or NULL when
 * it was dropped). */
static GstFlowReturn
handle_frame (GstDoradmaNetSrc * self, PendingFrame * pf, GstBuffer ** out)
{
  struct doradma_frame_info fi = pf->hdr.info;
  guint64 sender_seq = pf->hdr.sender_seq;
  GstMemory *mem = NULL;
  GstFlowReturn ret;
  guint p;

  *out = NULL;
  ret = apply_caps (self, pf);
  if (ret == GST_FLOW_OK && !frame_fits_caps (self, pf))
    ret = GST_FLOW_CUSTOM_SUCCESS;
  if (ret == GST_FLOW_OK)
    ret = frame_memory (self, fi.payload_bytes, &mem);
  if (ret != GST_FLOW_OK || mem == NULL) {
    pending_release (self, pf);
    if (ret == GST_FLOW_OK) {
      COUNT (self, C_DROPPED_RING_FULL, 1);
      self->discont = TRUE;
      self->last_sender_seq = sender_seq;
      send_credit (self, FALSE, 1);
    }
    return ret == GST_FLOW_CUSTOM_SUCCESS ? GST_FLOW_OK : ret;
  }
  if (!receive_payload (self, pf, mem)) {
    /* the sender went away mid-frame: the slot is abandoned, never read */
    COUNT (self, C_ABANDONED, 1);
    gst_memory_unref (mem);
    return GST_FLOW_OK;
  }

  if (self->last_sender_seq && sender_seq > self->last_sender_seq + 1) {
    COUNT (self, C_SENDER_DROPS, sender_seq - self->last_sender_seq - 1);
    self->discont = TRUE;
  }
  self->last_sender_seq = sender_seq;
  /* the record's offsets count from the slot's first byte */
  for (p = 0; p < fi.n_planes; p++)
    fi.planes[p].offset += mem->offset;
  fi.mono_pts = monotonic_ns ();        /* arrival, on this host's clock */
  if (self->producer) {
    ret = gst_doradma_producer_publish (self->producer, mem, &fi);
    if (ret != GST_FLOW_OK) {
      gst_memory_unref (mem);
      return ret == GST_FLOW_CUSTOM_SUCCESS ? GST_FLOW_OK : ret;
    }
  }
  COUNT (self, C_FRAMES, 1);
  COUNT (self, C_BYTES, fi.payload_bytes);
  send_credit (self, FALSE, 1);
  *out = frame_buffer (self, mem, &fi);
  gst_memory_unref (mem);
  return GST_FLOW_OK;
}

/* ---------------------------------------------------------------------- */
/* GstPushSrc */

static GstStructure *get_stats (GstDoradmaNetSrc * self);

/* The sender left, broke the link or misbehaved. */
static GstFlowReturn
peer_lost (GstDoradmaNetSrc * self, const gchar * reason)
{
  GstDoradmaWriterLost policy;

  drop_sender (self);
  COUNT (self, C_PEER_LOST, 1);
  self->discont = TRUE;
  post_message (self, "doradmanetsrc-peer-lost", reason);
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
    if (self->bad_peer) {
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
    if ((pf = g_queue_pop_head (&self->pending)) != NULL) {
      self->pending_bytes -= pf->held;
      ret = handle_frame (self, pf, out);
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
          gst_message_new_element (GST_OBJECT (self), get_stats (self)));
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
  /* the caps come with the first frame (apply_caps) */
  return TRUE;
}

static gboolean
gst_doradma_net_src_start (GstBaseSrc * bsrc)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (bsrc);
  GstDoradmaProducerSettings ps = { 0 };
  GError *err = NULL;
  gchar *transports, *address, *channel, *key_file, *device, *data_ports;
  guint port, c;

  for (c = 0; c < C_N; c++)
    self->counters[c] = 0;
  GST_OBJECT_LOCK (self);
  transports = g_strdup (self->transports);
  data_ports = g_strdup (self->data_ports);
  address = g_strdup (self->address);
  channel = g_strdup (self->channel);
  port = self->port;
  ps.slots = self->slots;
  ps.mode = self->mode;
  ps.permissions = self->permissions;
  self->wait_for_readers = self->wait_for_readers_prop;
  self->peer_timeout = self->peer_timeout_prop;
  self->max_pending = self->max_pending_prop;
  self->max_pending_bytes = self->max_pending_bytes_prop;
  key_file = g_strdup (self->key_file);
  GST_OBJECT_UNLOCK (self);

  if (key_file && key_file[0]) {
    self->key = gst_doradma_net_auth_load_key (key_file, &err);
    g_free (key_file);
    if (self->key == NULL) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
          (NULL));
      g_clear_error (&err);
      goto failed;
    }
  } else {
    g_free (key_file);
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("No key-file: this stream is unauthenticated"), ("any host that "
            "reaches port %u can send frames, caps and EOS into it "
            "(docs/network.md, \"Authentication\")", port));
  }

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
  self->ucx_open = gst_doradma_net_ucx_open (&self->ucx, transports, device,
      data_ports, &err);
  g_free (device);
  if (!self->ucx_open
      || !gst_doradma_net_ucx_set_unknown_am_handler (&self->ucx, on_unknown,
          self, &err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_FRAME, on_frame, self, &err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_EOS, on_eos, self, &err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_AUTH, on_auth, self, &err))
    goto ucx_failed;
  self->listener = gst_doradma_net_ucx_listen (&self->ucx, address, port,
      on_connection, self, &err);
  if (self->listener == NULL)
    goto ucx_failed;
  GST_INFO_OBJECT (self, "listening on %s:%u, UCX memory types %s", address,
      port, gst_doradma_net_ucx_memory_types (&self->ucx));
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

  if (self->ucx_open) {
    drop_sender (self);
    if (self->listener)
      ucp_listener_destroy (self->listener);
    self->listener = NULL;
    gst_doradma_net_ucx_close (&self->ucx);
    self->ucx_open = FALSE;
  }
  g_clear_pointer (&self->bad_peer, g_free);
  g_clear_pointer (&self->key, g_bytes_unref);
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

static GstStructure *
get_stats (GstDoradmaNetSrc * self)
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
gst_doradma_net_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_free (self->address);
      self->address = g_value_dup_string (value);
      break;
    case PROP_PORT:
      self->port = g_value_get_uint (value);
      break;
    case PROP_TRANSPORTS:
      g_free (self->transports);
      self->transports = g_value_dup_string (value);
      break;
    case PROP_DATA_PORTS:
      g_free (self->data_ports);
      self->data_ports = g_value_dup_string (value);
      break;
    case PROP_CHANNEL:
      g_free (self->channel);
      self->channel = g_value_dup_string (value);
      break;
    case PROP_SLOTS:
      self->slots = g_value_get_uint (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_PERMISSIONS:
      self->permissions = g_value_get_uint (value);
      break;
    case PROP_MAX_FRAME_BYTES:
      self->max_frame_bytes = g_value_get_uint64 (value);
      break;
    case PROP_ON_PEER_LOST:
      self->on_peer_lost = g_value_get_enum (value);
      break;
    case PROP_WAIT_FOR_READERS:
      self->wait_for_readers_prop = g_value_get_uint (value);
      break;
    case PROP_PEER_TIMEOUT:
      self->peer_timeout_prop = g_value_get_uint64 (value);
      break;
    case PROP_MAX_PENDING:
      self->max_pending_prop = g_value_get_uint (value);
      break;
    case PROP_MAX_PENDING_BYTES:
      self->max_pending_bytes_prop = g_value_get_uint64 (value);
      break;
    case PROP_KEY_FILE:
      g_free (self->key_file);
      self->key_file = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_net_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_value_set_string (value, self->address);
      break;
    case PROP_PORT:
      g_value_set_uint (value, self->port);
      break;
    case PROP_TRANSPORTS:
      g_value_set_string (value, self->transports);
      break;
    case PROP_DATA_PORTS:
      g_value_set_string (value, self->data_ports);
      break;
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_SLOTS:
      g_value_set_uint (value, self->slots);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_PERMISSIONS:
      g_value_set_uint (value, self->permissions);
      break;
    case PROP_MAX_FRAME_BYTES:
      g_value_set_uint64 (value, self->max_frame_bytes);
      break;
    case PROP_ON_PEER_LOST:
      g_value_set_enum (value, self->on_peer_lost);
      break;
    case PROP_WAIT_FOR_READERS:
      g_value_set_uint (value, self->wait_for_readers_prop);
      break;
    case PROP_PEER_TIMEOUT:
      g_value_set_uint64 (value, self->peer_timeout_prop);
      break;
    case PROP_MAX_PENDING:
      g_value_set_uint (value, self->max_pending_prop);
      break;
    case PROP_MAX_PENDING_BYTES:
      g_value_set_uint64 (value, self->max_pending_bytes_prop);
      break;
    case PROP_KEY_FILE:
      g_value_set_string (value, self->key_file);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_net_src_finalize (GObject * object)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  g_free (self->address);
  g_free (self->transports);
  g_free (self->data_ports);
  g_free (self->channel);
  g_free (self->key_file);
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

  gobject_class->set_property = gst_doradma_net_src_set_property;
  gobject_class->get_property = gst_doradma_net_src_get_property;
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

  /**
   * GstDoradmaNetSrc:address:
   *
   * Local address to listen on (0.0.0.0: every IPv4 address). UCX then
   * uses the interface that holds it and no other (docs/network.md,
   * "Transports").
   */
  properties[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Local address to listen on; UCX uses only its interface",
      DEFAULT_ADDRESS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:port:
   *
   * TCP port to listen on for a doradmanetsink.
   */
  properties[PROP_PORT] = g_param_spec_uint ("port", "Port",
      "Port to listen on for a doradmanetsink", 1, 65535, DEFAULT_PORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:transports:
   *
   * UCX transports, as UCX_TLS takes them ("tcp", "rc", "all"...). Empty
   * (the default): UCX chooses, honouring UCX_TLS.
   */
  properties[PROP_TRANSPORTS] = g_param_spec_string ("transports",
      "Transports", "UCX transports as UCX_TLS takes them (e.g. tcp, rc); "
      "empty: UCX_TLS or UCX's own choice", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:data-ports:
   *
   * The TCP ports UCX's tcp transport listens on for the data,
   * "FIRST-LAST" (UCX's TCP_PORT_RANGE, set in its configuration object):
   * what a firewall must let through besides `port`. Empty (the
   * default): UCX_TCP_PORT_RANGE, else an ephemeral port.
   */
  properties[PROP_DATA_PORTS] = g_param_spec_string ("data-ports",
      "Data ports", "TCP ports UCX listens on for the data, FIRST-LAST "
      "(empty: UCX_TCP_PORT_RANGE, else ephemeral)", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:channel:
   *
   * The ring on this host the frames are written into (as doradmasink's
   * channel); local doradmasrc elements read it zero-copy. Empty: no ring,
   * frames only go downstream.
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Ring on this host to write the frames into (empty: none, downstream "
      "only)", DEFAULT_CHANNEL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:slots:
   *
   * Frame slots of the ring; the sender gets slots - 1 credits.
   */
  properties[PROP_SLOTS] = g_param_spec_uint ("slots", "Slots",
      "Frame slots in the ring (the sender gets slots - 1 credits)", 2,
      DORADMA_MAX_SLOTS, DEFAULT_SLOTS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:mode:
   *
   * The ring's mode: `latest` drops a frame when every slot is busy
   * (dropped-ring-full); `lossless` waits for the ring's `next`-mode
   * readers, and so holds back a lossless sender through its credits.
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "Ring mode: latest drops when the ring is full; lossless waits for "
      "next-mode readers (and so holds back the sender)",
      GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:permissions:
   *
   * File mode of the ring's objects, as doradmasink's permissions (0 =
   * 0600; o+w is refused).
   */
  properties[PROP_PERMISSIONS] = g_param_spec_uint ("permissions",
      "Permissions", "File mode of the ring's shared-memory objects (0 = "
      "0600; o+w is refused)", 0, 0777, DEFAULT_PERMISSIONS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-frame-bytes:
   *
   * The largest frame accepted from the sender; a larger one is a
   * malformed header (the sender is disconnected).
   */
  properties[PROP_MAX_FRAME_BYTES] = g_param_spec_uint64 ("max-frame-bytes",
      "Max frame bytes", "Largest frame accepted from the sender", 4096,
      G_MAXUINT32, DEFAULT_MAX_FRAME_BYTES,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:on-peer-lost:
   *
   * When the sender goes away (killed, link cut) or sends a malformed
   * header: `wait` for the next sender, `eos` (the ring gets EOS too) or
   * `error`. Each loss posts a "doradmanetsrc-peer-lost" element message.
   */
  properties[PROP_ON_PEER_LOST] = g_param_spec_enum ("on-peer-lost",
      "On peer lost", "What to do when the sender goes away: wait (for the "
      "next one), eos or error", GST_TYPE_DORADMA_WRITER_LOST,
      DEFAULT_ON_PEER_LOST, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:wait-for-readers:
   *
   * Holds the first frame until this many readers joined the ring (the
   * sender waits meanwhile in lossless mode, drops in latest mode).
   */
  properties[PROP_WAIT_FOR_READERS] = g_param_spec_uint ("wait-for-readers",
      "Wait for readers", "Hold the first frame until this many readers "
      "joined the ring", 0, 64, DEFAULT_WAIT_FOR_READERS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:peer-timeout:
   *
   * Nanoseconds without a frame from the connected sender after which it
   * counts as lost (a link cut: TCP alone may take minutes), so that it
   * can connect again. A sender idle for longer (paused) is disconnected
   * too and reconnects with its next frame. 0 never.
   */
  properties[PROP_PEER_TIMEOUT] = g_param_spec_uint64 ("peer-timeout",
      "Peer timeout", "Nanoseconds without a frame from the sender before "
      "it counts as lost (0 = never)", 0, G_MAXUINT64, DEFAULT_PEER_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-pending:
   *
   * Frames received and not yet written into the ring that are held at
   * most (at least slots, so that a lossless sender's credits fit). Beyond
   * it, the oldest latest-mode frames are dropped (dropped-pending); a
   * lossless sender never gets there unless it ignores its credits, and is
   * then disconnected (credit-violations).
   */
  properties[PROP_MAX_PENDING] = g_param_spec_uint ("max-pending",
      "Max pending", "Frames received but not yet written held at most "
      "(beyond: the oldest latest-mode ones are dropped)", 2, 4096,
      DEFAULT_MAX_PENDING, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-pending-bytes:
   *
   * Bytes of those frames held at most (their headers and eager data,
   * copied out of UCX; a rendezvous frame's data stays with the sender
   * until it is written), as max-pending.
   */
  properties[PROP_MAX_PENDING_BYTES] = g_param_spec_uint64
      ("max-pending-bytes", "Max pending bytes", "Bytes of frames received "
      "but not yet written held at most", 65536, G_MAXUINT32,
      DEFAULT_MAX_PENDING_BYTES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:key-file:
   *
   * A file holding the key shared with the sender (16 to 4096 bytes, not
   * readable by group or others). With it, a sender must prove it has the
   * key (HMAC-SHA-256 over fresh nonces of both sides, and this receiver
   * proves it in turn) before any caps, frame, credit or EOS is accepted
   * either way; one that does not is disconnected and counted
   * (auth-failures, unauthenticated). Without it the stream is
   * unauthenticated (warned at start). The key itself is never a property.
   */
  properties[PROP_KEY_FILE] = g_param_spec_string ("key-file", "Key file",
      "File with the key shared with the sender (none: unauthenticated)",
      NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:stats:
   *
   * "doradmanetsrc-stats": frames and bytes written, dropped-ring-full
   * (latest: no free slot), sender-drops (gaps in the sender's sequence:
   * frames it dropped), malformed (headers refused), connects, peer-lost,
   * refused (second senders), abandoned (frames cut by a lost connection),
   * dropped-pending (latest frames dropped beyond max-pending or
   * max-pending-bytes), credit-violations (lossless senders that sent
   * beyond their credits: disconnected), pending-peak-bytes (the most
   * bytes held at once), unknown-messages (active messages of ids the wire
   * does not use: their sender is disconnected), auth-failures (senders
   * that failed the key handshake), unauthenticated (frames or EOS before
   * it), memory-path ("host") and ucx-memory-types.
   */
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, bytes, dropped-ring-full, sender-drops, malformed, "
      "connects, peer-lost, refused, abandoned, dropped-pending, "
      "credit-violations, pending-peak-bytes, unknown-messages, "
      "auth-failures, unauthenticated, memory-path, ucx-memory-types",
      GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES, properties);
}

static void
gst_doradma_net_src_init (GstDoradmaNetSrc * self)
{
  self->address = g_strdup (DEFAULT_ADDRESS);
  self->port = DEFAULT_PORT;
  self->channel = g_strdup (DEFAULT_CHANNEL);
  self->slots = DEFAULT_SLOTS;
  self->mode = DEFAULT_MODE;
  self->permissions = DEFAULT_PERMISSIONS;
  self->max_frame_bytes = DEFAULT_MAX_FRAME_BYTES;
  self->on_peer_lost = DEFAULT_ON_PEER_LOST;
  self->peer_timeout_prop = DEFAULT_PEER_TIMEOUT;
  self->max_pending_prop = DEFAULT_MAX_PENDING;
  self->max_pending_bytes_prop = DEFAULT_MAX_PENDING_BYTES;
  self->ucx.worker_fd = self->ucx.cancel_fd = -1;
  g_queue_init (&self->pending);
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), TRUE);
}
