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
 * stream. At EOS the sink waits until what it sent is delivered, tells the
 * receiver (which ends its stream and its ring's) and posts its stats as a
 * "doradmanetsink-stats" element message.
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

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmanetelements.h"
#include "gstdoradmaenums.h"
#include "gstdoradmawire.h"
#include "gstdoradmanetwire.h"
#include "gstdoradmanetucx.h"
#include "gstdoradmanetgpu.h"
#include "gstdoradmanetauth.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_net_sink_debug);
#define GST_CAT_DEFAULT gst_doradma_net_sink_debug

#define GST_TYPE_DORADMA_NET_SINK (gst_doradma_net_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstDoradmaNetSink, gst_doradma_net_sink, GST,
    DORADMA_NET_SINK, GstBaseSink);

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 13337
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_MAX_IN_FLIGHT 2
#define DEFAULT_TIMEOUT 0
#define DEFAULT_RETRY_INTERVAL (200 * GST_MSECOND)
#define DEFAULT_ON_PEER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_PEER_TIMEOUT (5 * GST_SECOND)
/* A connection that brings no hello from the receiver in this time is
 * abandoned and tried again. */
#define HELLO_TIMEOUT_US (2 * G_USEC_PER_SEC)

enum
{
  PROP_0,
  PROP_HOST,
  PROP_PORT,
  PROP_TRANSPORTS,
  PROP_DATA_PORTS,
  PROP_MODE,
  PROP_MAX_IN_FLIGHT,
  PROP_TIMEOUT,
  PROP_RETRY_INTERVAL,
  PROP_ON_PEER_LOST,
  PROP_PEER_TIMEOUT,
  PROP_KEY_FILE,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

typedef enum
{
  C_FRAMES, C_BYTES, C_DROPPED_BUSY, C_DROPPED_DISCONNECTED, C_CONNECTS,
  C_PEER_LOST, C_SEND_ERRORS, C_BAD_CREDITS, C_STAGED_FRAMES,
  C_DEVICE_FRAMES, C_STAGING_BUFFERS, C_UNKNOWN_MESSAGES,
  C_AUTH_FAILURES, C_REFUSED, C_N
} Counter;

static const gchar *const counter_names[C_N] = {
  "frames", "bytes", "dropped-busy", "dropped-disconnected", "connects",
  "peer-lost", "send-errors", "bad-credits", "staged-frames",
  "device-frames", "staging-buffers", "unknown-messages",
  "auth-failures", "refused",
};

struct _GstDoradmaNetSink
{
  GstBaseSink parent;

  /* properties (object lock) */
  gchar *host;
  guint port;
  gchar *transports;
  gchar *data_ports;            /* "FIRST-LAST" or NULL: ephemeral */
  GstDoradmaMode mode;
  guint max_in_flight;
  guint64 timeout;
  guint64 retry_interval;
  GstDoradmaWriterLost on_peer_lost;
  guint64 peer_timeout;
  gchar *key_file;

  guint64 counters[C_N];        /* atomic */
  gint gpu_path;                /* GstDoradmaNetGpuPath of the last frame
                                 * sent (atomic) */

  /* under ucx.lock (the streaming thread and the UCX progress thread) */
  GstDoradmaNetUcx ucx;
  gboolean unlocked;            /* unlock: waits end with FLUSHING */
  gboolean eos_sent;
  gboolean ucx_open;
  ucp_ep_h ep;
  gboolean ep_failed;           /* set by the error callback */
  gboolean connected;           /* the receiver's hello arrived */
  GBytes *key;                  /* key-file's; NULL: unauthenticated */
  gboolean answered;            /* this connection's challenge answered */
  gboolean proven;              /* the receiver proved the key */
  guint8 nonce_r[DORADMA_NET_AUTH_BYTES], nonce_s[DORADMA_NET_AUTH_BYTES];
  gboolean was_connected;       /* for the peer-lost message */
  gboolean rejected;            /* this attempt was refused by the receiver */
  gboolean told_refused;        /* the refused message of this streak */
  gint64 attempt_start, next_attempt;   /* monotonic us */
  guint credits;
  guint in_flight;
  gint64 last_heard;            /* monotonic us of the last message */
  gboolean sent_since_heard;    /* frames sent after it */
  guint64 sender_seq;
  GstVideoInfo vinfo;
  gchar *caps_str;
  GstDoradmaNetGpu gpu;         /* device frames: staged or sent as such */
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda_ctx;     /* under the object lock */
#endif
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

#define COUNT(self, c, n) \
  __atomic_fetch_add (&(self)->counters[c], (n), __ATOMIC_RELAXED)

/* One frame on its way: its bytes (the mapped buffer, the device frame or
 * the pinned staging buffer) are held until UCX is done. */
typedef struct
{
  GstDoradmaNetSink *self;
  GstDoradmaNetGpuFrame frame;
  struct doradma_net_frame_header header;
} SendCtx;

static void
send_ctx_free (SendCtx * ctx)
{
  gst_doradma_net_gpu_frame_close (&ctx->frame);
  ctx->self->in_flight--;
  g_free (ctx);
}

static void
send_done (void *request, ucs_status_t status, void *user_data)
{
  SendCtx *ctx = user_data;

  if (status != UCS_OK) {
    GST_DEBUG_OBJECT (ctx->self, "send failed: %s", ucs_status_string (status));
    COUNT (ctx->self, C_SEND_ERRORS, 1);
  }
  send_ctx_free (ctx);
  /* freed here, not at the send: a freed request gets no callback */
  ucp_request_free (request);
}

static void
on_ep_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  GstDoradmaNetSink *self = arg;

  GST_DEBUG_OBJECT (self, "endpoint error: %s", ucs_status_string (status));
  if (ep == self->ep) {
    self->ep_failed = TRUE;
    /* the receiver's listener said no: it serves another sender */
    if (status == UCS_ERR_REJECTED)
      self->rejected = TRUE;
  }
}

static ucs_status_t
on_credit (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;
  struct doradma_net_credit c;
  struct doradma_diag diag = { 0 };

  if (doradma_net_credit_decode (header, header_length, &c, &diag) < 0) {
    COUNT (self, C_BAD_CREDITS, 1);
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Malformed credit message from the receiver"), ("%s", diag.msg));
    self->ep_failed = self->ep != NULL;
    return UCS_OK;
  }
  if (self->key && !self->proven) {
    /* a receiver without the key (or one skipping the handshake) */
    COUNT (self, C_AUTH_FAILURES, 1);
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("The receiver did not authenticate: does it have the key-file?"),
        ("credits before the receiver proved the key"));
    self->ep_failed = self->ep != NULL;
    return UCS_OK;
  }
  self->last_heard = g_get_monotonic_time ();
  self->sent_since_heard = FALSE;
  if (c.hello) {
    self->connected = TRUE;
    self->credits = c.credits;
  } else {
    self->credits = MIN (self->credits + c.credits, 64);
  }
  return UCS_OK;
}

static void
auth_failed (GstDoradmaNetSink * self, const gchar * why)
{
  COUNT (self, C_AUTH_FAILURES, 1);
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
      ("Authentication with the receiver failed; disconnecting"), ("%s", why));
  self->ep_failed = self->ep != NULL;
}

/* The handshake (gstdoradmanetwire.h): the receiver's CHALLENGE, answered
 * with this side's nonce and proof, then its PROOF. */
static ucs_status_t
on_auth (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;
  struct doradma_diag diag = { 0 };
  struct doradma_net_auth a;
  guint8 mac[DORADMA_NET_AUTH_BYTES];

  if (self->ep == NULL || self->ep_failed)
    return UCS_OK;
  if (doradma_net_auth_decode (header, header_length, &a, &diag) < 0) {
    auth_failed (self, diag.msg);
  } else if (self->key == NULL) {
    auth_failed (self, "the receiver requires a key: set key-file");
  } else if (a.kind == DORADMA_NET_AUTH_CHALLENGE && !self->answered) {
    memcpy (self->nonce_r, a.nonce, sizeof (self->nonce_r));
    if (!gst_doradma_net_auth_nonce (self->nonce_s)) {
      auth_failed (self, "no random bytes for a nonce");
      return UCS_OK;
    }
    self->answered = TRUE;
    gst_doradma_net_auth_mac (self->key, TRUE, self->nonce_r, self->nonce_s,
        mac);
    doradma_net_auth_encode (&a, DORADMA_NET_AUTH_RESPONSE, self->nonce_s, mac);
    gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a,
        sizeof (a));
  } else if (a.kind == DORADMA_NET_AUTH_PROOF && self->answered
      && !self->proven) {
    if (gst_doradma_net_auth_check (self->key, FALSE, self->nonce_s,
            self->nonce_r, a.mac))
      self->proven = TRUE;
    else
      auth_failed (self, "the receiver does not have the key (wrong "
          "key-file or a replayed proof)");
  } else {
    auth_failed (self, "an authentication message out of turn");
  }
  return UCS_OK;
}

/* Any active message id but the credit's: counted, dropped, and the
 * receiver disconnected (gst_doradma_net_ucx_set_unknown_am_handler). */
static ucs_status_t
on_unknown (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;

  COUNT (self, C_UNKNOWN_MESSAGES, 1);
  self->ep_failed = self->ep != NULL;
  return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ?
      UCS_ERR_INVALID_PARAM : UCS_OK;
}

static void
post_message (GstDoradmaNetSink * self, const gchar * name,
    const gchar * reason)
{
  gchar *host;
  guint port;

  GST_OBJECT_LOCK (self);
  host = g_strdup (self->host);
  port = self->port;
  GST_OBJECT_UNLOCK (self);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "host", G_TYPE_STRING, host, "port",
              G_TYPE_UINT, port, "reason", G_TYPE_STRING, reason, NULL)));
  g_free (host);
}

static void
drop_connection (GstDoradmaNetSink * self, gboolean force)
{
  /* a flush waits at most what makes a silent peer lost */
  gint64 grace = (gint64) ((self->peer_timeout ? self->peer_timeout :
          DEFAULT_PEER_TIMEOUT) / 1000);

  if (!gst_doradma_net_ucx_close_ep (&self->ucx, self->ep, force, grace))
    GST_WARNING_OBJECT (self, "the receiver took nothing for %" G_GINT64_FORMAT
        " ms: connection closed without its last frames", grace / 1000);
  self->ep = NULL;
  self->ep_failed = FALSE;
  self->connected = FALSE;
  self->answered = self->proven = self->rejected = FALSE;
  self->credits = 0;
}

/* TRUE when connected; else starts or follows a connection attempt.
 * *ret is set (not OK) when the peer-lost policy ends the stream. */
static gboolean
ensure_connected (GstDoradmaNetSink * self, GstFlowReturn * ret)
{
  gint64 now = g_get_monotonic_time ();
  GError *err = NULL;
  gchar *host;
  guint port;

  *ret = GST_FLOW_OK;
  if (self->ep && self->ep_failed) {
    gboolean lost = self->was_connected;

    if (self->rejected) {
      /* said once per streak of refusals (review N-13) */
      COUNT (self, C_REFUSED, 1);
      if (!self->told_refused) {
        self->told_refused = TRUE;
        post_message (self, "doradmanetsink-refused",
            "the receiver refused the connection: it serves another sender");
        GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
            ("The receiver refused the connection: it serves another "
                "sender (one at a time); retrying"), (NULL));
      }
    }
    /* the receiver closed after our answer: it refused our key */
    if (self->key && self->answered && !self->proven)
      auth_failed (self, "the receiver closed the connection after our "
          "answer to its challenge: not the same key-file?");

    drop_connection (self, TRUE);
    self->next_attempt = now + self->retry_interval / 1000;
    if (lost) {
      GstDoradmaWriterLost policy;

      self->was_connected = FALSE;
      COUNT (self, C_PEER_LOST, 1);
      post_message (self, "doradmanetsink-peer-lost",
          "the receiver went away or the link broke");
      GST_OBJECT_LOCK (self);
      policy = self->on_peer_lost;
      GST_OBJECT_UNLOCK (self);
      if (policy == GST_DORADMA_WRITER_LOST_ERROR) {
        GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
            ("The receiver went away (on-peer-lost=error)"), (NULL));
        *ret = GST_FLOW_ERROR;
        return FALSE;
      }
      if (policy == GST_DORADMA_WRITER_LOST_EOS) {
        *ret = GST_FLOW_EOS;
        return FALSE;
      }
    }
  }
  /* frames went out and nothing came back for peer-timeout: a link cut
   * with data in flight, which TCP itself reports after many minutes */
  if (self->connected && self->sent_since_heard && self->peer_timeout
      && now - self->last_heard > (gint64) (self->peer_timeout / 1000)) {
    GST_DEBUG_OBJECT (self, "nothing from the receiver for %" GST_TIME_FORMAT,
        GST_TIME_ARGS (self->peer_timeout));
    self->ep_failed = TRUE;
    return ensure_connected (self, ret);
  }
  if (self->connected) {
    if (!self->was_connected) {
      self->was_connected = TRUE;
      self->told_refused = FALSE;
      COUNT (self, C_CONNECTS, 1);
      post_message (self, "doradmanetsink-connected", "hello received");
    }
    return TRUE;
  }
  if (self->ep == NULL) {
    if (now < self->next_attempt)
      return FALSE;
    GST_OBJECT_LOCK (self);
    host = g_strdup (self->host);
    port = self->port;
    GST_OBJECT_UNLOCK (self);
    self->ep = gst_doradma_net_ucx_connect (&self->ucx, host, port,
        on_ep_error, self, &err);
    g_free (host);
    self->attempt_start = now;
    self->next_attempt = now + self->retry_interval / 1000;
    self->sent_since_heard = FALSE;
    if (self->ep == NULL) {
      GST_DEBUG_OBJECT (self, "%s", err->message);
      g_clear_error (&err);
    }
    return FALSE;
  }
  if (now - self->attempt_start > HELLO_TIMEOUT_US) {
    GST_DEBUG_OBJECT (self, "no hello from the receiver; retrying");
    drop_connection (self, TRUE);
  }
  return FALSE;
}

/* Lossless: waits until connected with a credit. Returns OK, FLUSHING
 * (unlock) or an error after `timeout`. */
static GstFlowReturn
wait_for_credit (GstDoradmaNetSink * self)
{
  gint64 deadline = 0;
  GstFlowReturn ret;

  if (self->timeout)
    deadline = g_get_monotonic_time () + self->timeout / 1000;
  for (;;) {
    if (ensure_connected (self, &ret) && self->credits > 0)
      return GST_FLOW_OK;
    if (ret != GST_FLOW_OK)
      return ret;
    if (self->unlocked)
      return GST_FLOW_FLUSHING;
    gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
    if (deadline && g_get_monotonic_time () > deadline) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
          ("No credit from the receiver in %" GST_TIME_FORMAT,
              GST_TIME_ARGS (self->timeout)),
          ("%s", self->connected ? "connected; the receiver's ring is full" :
              "not connected"));
      return GST_FLOW_ERROR;
    }
  }
}

/* The record of the frame's bytes `f` (their layout) and of `buf`'s
 * timestamps, flags and crop. */
static gboolean
fill_record (GstDoradmaNetSink * self, GstBuffer * buf,
    const GstDoradmaNetGpuFrame * f, struct doradma_frame_info *fi)
{
  const GstVideoInfo *info = &self->vinfo;
  GstDoradmaPlaneNeeds needs;

  /* the receiver sets the CLOCK_MONOTONIC pts of its own host */
  gst_doradma_plane_needs_all (info, &needs);
  return gst_doradma_frame_info_fill (info, &needs, f->offset, f->stride,
      f->size, f->size, buf, gst_buffer_get_video_crop_meta (buf),
      DORADMA_TIME_NONE, fi);
}

static GstFlowReturn
render_locked (GstDoradmaNetSink * self, GstBuffer * buf)
{
  struct doradma_frame_info fi;
  ucp_request_param_t param = { 0 };
  GstDoradmaNetGpuPath path;
  GstFlowReturn ret;
  gchar *err = NULL;
  SendCtx *ctx;
  void *req;

  /* every frame gets a number, sent or not: the receiver sees drops as gaps */
  self->sender_seq++;
  if (self->mode == GST_DORADMA_MODE_LOSSLESS) {
    ret = wait_for_credit (self);
    if (ret != GST_FLOW_OK)
      return ret;
  } else if (!ensure_connected (self, &ret)) {
    if (ret != GST_FLOW_OK)
      return ret;
    COUNT (self, C_DROPPED_DISCONNECTED, 1);
    return GST_FLOW_OK;
  } else if (self->in_flight >= self->max_in_flight) {
    COUNT (self, C_DROPPED_BUSY, 1);
    return GST_FLOW_OK;
  }

  ctx = g_new0 (SendCtx, 1);
  ctx->self = self;
  if (!gst_doradma_net_gpu_frame_open (&self->gpu, &self->vinfo, buf,
          &ctx->frame, &err)) {
    g_free (ctx);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not read a frame"),
        ("%s (buffer %" GST_PTR_FORMAT ")", err, buf));
    g_free (err);
    return GST_FLOW_ERROR;
  }
  if (!fill_record (self, buf, &ctx->frame, &fi)) {
    gst_doradma_net_gpu_frame_close (&ctx->frame);
    g_free (ctx);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not map a video frame"),
        ("buffer %" GST_PTR_FORMAT " does not match the caps", buf));
    return GST_FLOW_ERROR;
  }
  path = ctx->frame.path;
  if (path == GST_DORADMA_NET_GPU_PATH_STAGED_PINNED) {
    COUNT (self, C_STAGED_FRAMES, 1);
    __atomic_store_n (&self->counters[C_STAGING_BUFFERS],
        gst_doradma_net_gpu_staging_buffers (&self->gpu), __ATOMIC_RELAXED);
  }
  fi.seq = self->sender_seq;
  doradma_net_frame_encode (&ctx->header, &fi, self->caps_str,
      self->sender_seq, g_get_real_time () * 1000,
      self->mode == GST_DORADMA_MODE_LOSSLESS ? DORADMA_NET_FLAG_LOSSLESS : 0);
  self->in_flight++;
  self->sent_since_heard = TRUE;
  if (self->mode == GST_DORADMA_MODE_LOSSLESS)
    self->credits--;

  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
      UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = 0;
  param.cb.send = send_done;
  param.user_data = ctx;
  if (path == GST_DORADMA_NET_GPU_PATH_DEVICE) {
    /* the probe said UCX reads CUDA memory: no guessing on its side */
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type = UCS_MEMORY_TYPE_CUDA;
  }
  /* host path: the frame's own bytes, no staging copy */
  req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_FRAME, &ctx->header,
      sizeof (ctx->header), ctx->frame.data, fi.payload_bytes, &param);
  if (req == NULL) {
    send_ctx_free (ctx);
  } else if (UCS_PTR_IS_ERR (req)) {
    GST_DEBUG_OBJECT (self, "send: %s",
        ucs_status_string (UCS_PTR_STATUS (req)));
    COUNT (self, C_SEND_ERRORS, 1);
    send_ctx_free (ctx);
    return GST_FLOW_OK;
  }
  /* else send_done frees ctx and req */
  if (path == GST_DORADMA_NET_GPU_PATH_DEVICE)
    COUNT (self, C_DEVICE_FRAMES, 1);
  g_atomic_int_set (&self->gpu_path, path);
  COUNT (self, C_FRAMES, 1);
  COUNT (self, C_BYTES, fi.payload_bytes);
  return GST_FLOW_OK;
}

/* The progress thread moves the frame on after we return. */
static GstFlowReturn
gst_doradma_net_sink_render (GstBaseSink * bsink, GstBuffer * buf)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  GstFlowReturn ret;

  g_mutex_lock (&self->ucx.lock);
  ret = render_locked (self, buf);
  g_mutex_unlock (&self->ucx.lock);
  return ret;
}

static GstStructure *get_stats (GstDoradmaNetSink * self);

static void
eos_sent (void *request, ucs_status_t status, void *user_data)
{
  GstDoradmaNetSink *self = user_data;

  self->eos_sent = TRUE;
  ucp_request_free (request);
}

/* EOS: what was sent is delivered, then the receiver is told (it ends its
 * ring's stream and its own). Bounded by peer-timeout. */
static void
send_eos (GstDoradmaNetSink * self)
{
  ucp_request_param_t param = { 0 };
  gint64 deadline = g_get_monotonic_time () + (self->peer_timeout ?
      self->peer_timeout / 1000 : 5 * G_USEC_PER_SEC);
  void *req;

  g_mutex_lock (&self->ucx.lock);
  while (self->in_flight > 0 && self->ep && !self->ep_failed
      && !self->unlocked && g_get_monotonic_time () < deadline)
    gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
  if (self->ep && !self->ep_failed && self->connected && !self->unlocked) {
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
        UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = eos_sent;
    param.user_data = self;
    self->eos_sent = FALSE;
    req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_EOS, NULL, 0, NULL, 0,
        &param);
    if (UCS_PTR_IS_ERR (req))
      COUNT (self, C_SEND_ERRORS, 1);
    else if (req != NULL)
      while (!self->eos_sent && !self->unlocked
          && g_get_monotonic_time () < deadline)
        gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
  }
  g_mutex_unlock (&self->ucx.lock);
}

static gboolean
gst_doradma_net_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    send_eos (self);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), get_stats (self)));
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
  gchar *transports, *key_file, *host, *device, *data_ports;
  guint c, port;

  for (c = 0; c < C_N; c++)
    self->counters[c] = 0;
  GST_OBJECT_LOCK (self);
  transports = g_strdup (self->transports);
  data_ports = g_strdup (self->data_ports);
  host = g_strdup (self->host);
  key_file = g_strdup (self->key_file);
  port = self->port;
  GST_OBJECT_UNLOCK (self);
  if (key_file && key_file[0]) {
    self->key = gst_doradma_net_auth_load_key (key_file, &err);
    g_free (key_file);
    if (self->key == NULL) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", err->message),
          (NULL));
      g_clear_error (&err);
      g_free (transports);
      g_free (data_ports);
      g_free (host);
      return FALSE;
    }
  } else {
    g_free (key_file);
    GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS,
        ("No key-file: this stream is unauthenticated"), ("whoever answers "
            "at port %u gets the frames (docs/network.md, "
            "\"Authentication\")", port));
  }
  /* UCX kept to the interface of the route to the receiver (review N-10);
   * none yet (no route at start): every interface */
  device = gst_doradma_net_ucx_route_interface (host, port);
  GST_INFO_OBJECT (self, "UCX kept to interface %s (the route to %s)",
      device && device[0] ? device : "(every one)", host);
  self->ucx_open = gst_doradma_net_ucx_open (&self->ucx, transports, device,
      data_ports, &err);
  g_free (transports);
  g_free (data_ports);
  g_free (device);
  g_free (host);
  if (!self->ucx_open
      || !gst_doradma_net_ucx_set_unknown_am_handler (&self->ucx, on_unknown,
          self, &err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_CREDIT, on_credit, self, &err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_AUTH, on_auth, self, &err)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "UCX memory types: %s (device frames: %s)",
      gst_doradma_net_ucx_memory_types (&self->ucx),
      gst_doradma_net_ucx_has_cuda (&self->ucx) ? "sent from the device" :
      "staged once through pinned memory");
  gst_doradma_net_gpu_init (&self->gpu,
      gst_doradma_net_ucx_has_cuda (&self->ucx));
  g_atomic_int_set (&self->gpu_path, GST_DORADMA_NET_GPU_PATH_NONE);
  self->ep = NULL;
  self->ep_failed = self->connected = self->was_connected = FALSE;
  self->next_attempt = 0;
  self->in_flight = self->credits = 0;
  self->sender_seq = 0;
  self->unlocked = FALSE;
  gst_doradma_net_ucx_start_thread (&self->ucx);
  return TRUE;
}

static gboolean
gst_doradma_net_sink_stop (GstBaseSink * bsink)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (bsink);
  gint64 deadline;

  if (self->ucx_open) {
    gst_doradma_net_ucx_stop_thread (&self->ucx);
    /* a live peer gets what was sent (flush); a dead one is not waited for */
    drop_connection (self, self->ep_failed || !self->connected);
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

static GstStructure *
get_stats (GstDoradmaNetSink * self)
{
  GstStructure *s = gst_doradma_net_ucx_stats_new (&self->ucx,
      self->ucx_open, "doradmanetsink-stats", counter_names, self->counters,
      C_N);

  gst_structure_set (s, "gpu-path", G_TYPE_STRING,
      gst_doradma_net_gpu_path_name (g_atomic_int_get (&self->gpu_path)), NULL);
  return s;
}

static void
gst_doradma_net_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      g_free (self->host);
      self->host = g_value_dup_string (value);
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
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_RETRY_INTERVAL:
      self->retry_interval = g_value_get_uint64 (value);
      break;
    case PROP_ON_PEER_LOST:
      self->on_peer_lost = g_value_get_enum (value);
      break;
    case PROP_PEER_TIMEOUT:
      self->peer_timeout = g_value_get_uint64 (value);
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
gst_doradma_net_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      g_value_set_string (value, self->host);
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
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_RETRY_INTERVAL:
      g_value_set_uint64 (value, self->retry_interval);
      break;
    case PROP_ON_PEER_LOST:
      g_value_set_enum (value, self->on_peer_lost);
      break;
    case PROP_PEER_TIMEOUT:
      g_value_set_uint64 (value, self->peer_timeout);
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
gst_doradma_net_sink_finalize (GObject * object)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  g_free (self->host);
  g_free (self->transports);
  g_free (self->data_ports);
  g_free (self->key_file);
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

  gobject_class->set_property = gst_doradma_net_sink_set_property;
  gobject_class->get_property = gst_doradma_net_sink_get_property;
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

  /**
   * GstDoradmaNetSink:host:
   *
   * Address or name of the host where doradmanetsrc listens.
   */
  properties[PROP_HOST] = g_param_spec_string ("host", "Host",
      "Address or name of the receiving doradmanetsrc's host", DEFAULT_HOST,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:port:
   *
   * TCP port doradmanetsrc listens on (UCX connects through it; with RDMA
   * transports the data then moves over the NIC).
   */
  properties[PROP_PORT] = g_param_spec_uint ("port", "Port",
      "Port the receiving doradmanetsrc listens on", 1, 65535, DEFAULT_PORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:transports:
   *
   * UCX transports, as UCX_TLS takes them ("tcp", "rc,cuda_copy",
   * "all"...). Empty (the default): UCX chooses, honouring UCX_TLS.
   */
  properties[PROP_TRANSPORTS] = g_param_spec_string ("transports",
      "Transports", "UCX transports as UCX_TLS takes them (e.g. tcp, rc); "
      "empty: UCX_TLS or UCX's own choice", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:data-ports:
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
   * GstDoradmaNetSink:mode:
   *
   * `latest`: never wait; a frame the wire cannot take now, or sent while
   * disconnected, is dropped and counted. `lossless`: wait for the
   * receiver's credits (one per frame it wrote into its ring) and for the
   * connection.
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "latest: drop what the wire cannot take (counted); lossless: wait for "
      "the receiver's credits", GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:max-in-flight:
   *
   * Latest mode: frames being sent at once; beyond, frames are dropped
   * (dropped-busy).
   */
  properties[PROP_MAX_IN_FLIGHT] = g_param_spec_uint ("max-in-flight",
      "Max in flight", "Latest mode: frames being sent at once before "
      "dropping", 1, 64, DEFAULT_MAX_IN_FLIGHT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:timeout:
   *
   * Lossless mode: nanoseconds to wait for a connection and a credit before
   * failing with an error. 0 waits forever.
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Lossless: nanoseconds to wait for the receiver's credit before an "
      "error (0 = forever)", 0, G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:retry-interval:
   *
   * Nanoseconds between connection attempts while the receiver is away.
   */
  properties[PROP_RETRY_INTERVAL] = g_param_spec_uint64 ("retry-interval",
      "Retry interval", "Nanoseconds between connection attempts",
      GST_MSECOND, 60 * GST_SECOND, DEFAULT_RETRY_INTERVAL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:on-peer-lost:
   *
   * When the receiver goes away (killed, link cut: found by UCX's error
   * handling and keepalive): `wait` reconnects every retry-interval,
   * `eos` ends the stream, `error` posts an error. Each loss posts a
   * "doradmanetsink-peer-lost" element message.
   */
  properties[PROP_ON_PEER_LOST] = g_param_spec_enum ("on-peer-lost",
      "On peer lost", "What to do when the receiver goes away: wait "
      "(reconnect), eos or error", GST_TYPE_DORADMA_WRITER_LOST,
      DEFAULT_ON_PEER_LOST, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:peer-timeout:
   *
   * Nanoseconds without any message from the receiver, while frames were
   * sent, after which it counts as lost (a link cut with data in flight,
   * which TCP itself reports only after minutes). The receiver answers
   * every frame it handles; in lossless mode a receiver whose own ring
   * stalls longer than this (a slow local reader) is taken for lost and
   * reconnected to: raise it there. 0 never.
   */
  properties[PROP_PEER_TIMEOUT] = g_param_spec_uint64 ("peer-timeout",
      "Peer timeout", "Nanoseconds without a message from the receiver, "
      "frames sent, before it counts as lost (0 = never)", 0, G_MAXUINT64,
      DEFAULT_PEER_TIMEOUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:stats:
   *
   * "doradmanetsink-stats": frames and bytes sent, dropped-busy (latest:
   * the wire was busy), dropped-disconnected (latest: no receiver),
   * connects, peer-lost, send-errors, bad-credits (malformed messages
   * from the receiver), unknown-messages (active messages of ids the wire
   * does not use: the receiver is disconnected), auth-failures (key
   * handshakes that failed), refused (connections the receiver refused:
   * it serves another sender; the first of a streak also posts a
   * "doradmanetsink-refused" element message and a warning), staged-frames (device frames copied once into
   * pinned memory and sent from there), device-frames (sent from device
   * memory by a UCX with CUDA), staging-buffers (pinned buffers allocated:
   * the rest were reused), gpu-path (the path of the last frame sent:
   * "host" from the mapped host buffer, "staged-pinned", "device"; "none"
   * before the first) and ucx-memory-types (what this UCX can send from:
   * "cuda" there means device frames go as such).
   */
  /**
   * GstDoradmaNetSink:key-file:
   *
   * A file holding the key shared with the receiver (16 to 4096 bytes,
   * not readable by group or others). With it, the receiver must prove it
   * has the key (HMAC-SHA-256 over fresh nonces of both sides) before its
   * credits are taken and any caps or frame is sent; one that does not is
   * disconnected (auth-failures). Without it the stream is
   * unauthenticated (warned at start).
   */
  properties[PROP_KEY_FILE] = g_param_spec_string ("key-file", "Key file",
      "File with the key shared with the receiver (none: unauthenticated)",
      NULL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, bytes, dropped-busy, dropped-disconnected, "
      "connects, peer-lost, send-errors, bad-credits, unknown-messages, "
      "auth-failures, refused, staged-frames, "
      "device-frames, staging-buffers; gpu-path (host, staged-pinned, "
      "device: the last frame's), ucx-memory-types", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES, properties);
}

static void
gst_doradma_net_sink_init (GstDoradmaNetSink * self)
{
  self->host = g_strdup (DEFAULT_HOST);
  self->port = DEFAULT_PORT;
  self->mode = DEFAULT_MODE;
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  self->timeout = DEFAULT_TIMEOUT;
  self->retry_interval = DEFAULT_RETRY_INTERVAL;
  self->on_peer_lost = DEFAULT_ON_PEER_LOST;
  self->peer_timeout = DEFAULT_PEER_TIMEOUT;
  self->ucx.worker_fd = self->ucx.cancel_fd = -1;
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}
