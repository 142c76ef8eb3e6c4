/* doradma network plugin — doradmanetsink's sends (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetsinksend.h"
#include "gstdoradmanetsinkconn.h"

/* One frame on its way: its bytes (the mapped buffer, the device frame or
 * the pinned staging buffer) are held until UCX is done. */
typedef struct
{
  GstDoradmaNetSink *self;
  GstDoradmaNetGpuFrame frame;
  /* the header, and right after it the tags of an encrypted frame */
  struct doradma_net_frame_header header;
  struct doradma_net_frame_tags tags;
  guint8 *cipher;               /* encrypt: the payload's ciphertext */
} SendCtx;

_Static_assert (G_STRUCT_OFFSET (SendCtx, tags) -
    G_STRUCT_OFFSET (SendCtx, header) == sizeof (struct
        doradma_net_frame_header), "the tags follow the header");

static void
send_ctx_free (SendCtx * ctx)
{
  gst_doradma_net_gpu_frame_close (&ctx->frame);
  g_free (ctx->cipher);
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

/* encrypt: the header's tag (its 0x500 bytes as they go), then the
 * payload encrypted into ctx->cipher, its tag bound to the header's; the
 * nonces are the frame's sender_seq, never repeated on a connection */
static gboolean
seal_frame (GstDoradmaNetSink * self, SendCtx * ctx, gsize len)
{
  guint64 seq = ctx->header.sender_seq;

  if (ctx->frame.path == GST_DORADMA_NET_GPU_PATH_DEVICE)
    return FALSE;
  ctx->header.header_bytes = sizeof (ctx->header) + sizeof (ctx->tags);
  ctx->cipher = g_malloc (len + DORADMA_NET_TAG_BYTES);
  return gst_doradma_net_crypt_seal (&self->to_receiver,
      GST_DORADMA_NET_CRYPT_HEADER, seq, &ctx->header, sizeof (ctx->header),
      NULL, 0, NULL, ctx->tags.header)
      && gst_doradma_net_crypt_seal (&self->to_receiver,
      GST_DORADMA_NET_CRYPT_PAYLOAD, seq, ctx->tags.header,
      sizeof (ctx->tags.header), ctx->frame.data, len, ctx->cipher,
      ctx->tags.payload);
}

GstFlowReturn
gst_doradma_net_sink_render_locked (GstDoradmaNetSink * self, GstBuffer * buf)
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
    ret = gst_doradma_net_sink_wait_for_credit (self);
    if (ret != GST_FLOW_OK)
      return ret;
  } else if (!gst_doradma_net_sink_ensure_connected (self, &ret)) {
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
      (self->mode == GST_DORADMA_MODE_LOSSLESS ? DORADMA_NET_FLAG_LOSSLESS : 0)
      | (self->encrypt ? DORADMA_NET_FLAG_ENCRYPTED : 0));
  if (self->encrypt && !seal_frame (self, ctx, fi.payload_bytes)) {
    /* not in flight yet: not send_ctx_free */
    gst_doradma_net_gpu_frame_close (&ctx->frame);
    g_free (ctx->cipher);
    g_free (ctx);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not encrypt a frame"),
        ("%s", path == GST_DORADMA_NET_GPU_PATH_DEVICE ? "a device frame "
            "(encrypt stages device frames to host memory)" :
            "GnuTLS AES-256-GCM failed"));
    return GST_FLOW_ERROR;
  }
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
  /* host path: the frame's own bytes, no staging copy (encrypt: the
   * ciphertext, which replaces that copy) */
  req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_FRAME, &ctx->header,
      ctx->header.header_bytes, ctx->cipher ? ctx->cipher : ctx->frame.data,
      fi.payload_bytes, &param);
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
  self->last_sent_seq = self->sender_seq;
  GST_LOG_OBJECT (self, "frame %" G_GUINT64_FORMAT " sent", self->sender_seq);
  COUNT (self, C_FRAMES, 1);
  COUNT (self, C_BYTES, fi.payload_bytes);
  return GST_FLOW_OK;
}

static void
eos_sent (void *request, ucs_status_t status, void *user_data)
{
  GstDoradmaNetSink *self = user_data;

  self->eos_sent = TRUE;
  self->eos_failed = status != UCS_OK;
  ucp_request_free (request);
}

/* EOS: what was sent is delivered, then the receiver is told (it ends its
 * ring's stream and its own). Bounded by peer-timeout. FALSE: the
 * connection failed (before or at the EOS) or the EOS could not be sent. */
gboolean
gst_doradma_net_sink_send_eos (GstDoradmaNetSink * self)
{
  gboolean ok = TRUE;
  ucp_request_param_t param = { 0 };
  gint64 deadline = g_get_monotonic_time () + (self->peer_timeout ?
      self->peer_timeout / 1000 : 5 * G_USEC_PER_SEC);
  void *req;

  g_mutex_lock (&self->ucx.lock);
  /* a stream that ended while its connection was still being made (latest
   * drops frames until it is up, so a short stream ends first): the
   * connection is finished, so that the receiver is told */
  while (self->ep && !self->unlocked && g_get_monotonic_time () < deadline) {
    GstFlowReturn flow;

    if (gst_doradma_net_sink_ensure_connected (self, &flow)
        || flow != GST_FLOW_OK)
      break;
    gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
  }
  while (self->in_flight > 0 && self->ep && !self->ep_failed
      && !self->unlocked && g_get_monotonic_time () < deadline)
    gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
  if (self->ep && !self->ep_failed && self->connected && !self->unlocked) {
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
        UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = eos_sent;
    param.user_data = self;
    self->eos_sent = FALSE;
    /* encrypt: the EOS is its seal (a forged or replayed one ends
     * nothing); it lives in self until the send is done */
    if (self->encrypt
        && !gst_doradma_net_crypt_seal_message (&self->to_receiver,
            GST_DORADMA_NET_CRYPT_EOS, &self->eos_counter, NULL, 0,
            &self->eos_seal)) {
      COUNT (self, C_SEND_ERRORS, 1);
      g_mutex_unlock (&self->ucx.lock);
      return FALSE;
    }
    req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_EOS,
        self->encrypt ? &self->eos_seal : NULL,
        self->encrypt ? sizeof (self->eos_seal) : 0, NULL, 0, &param);
    self->eos_failed = FALSE;
    if (UCS_PTR_IS_ERR (req)) {
      COUNT (self, C_SEND_ERRORS, 1);
      ok = FALSE;
    } else if (req != NULL) {
      while (!self->eos_sent && !self->unlocked
          && g_get_monotonic_time () < deadline)
        gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
      /* not sent within peer-timeout (a flush is no failure) */
      ok = !self->eos_failed && (self->eos_sent || self->unlocked);
    }
  }
  ok = ok && !self->ep_failed;
  g_mutex_unlock (&self->ucx.lock);
  return ok;
}
