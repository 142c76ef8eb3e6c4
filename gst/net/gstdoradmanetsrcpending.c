/* doradma network plugin — doradmanetsrc's pending frames (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetsrcpending.h"

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
    gst_doradma_net_src_pending_release (self, old);
  }
  return TRUE;
}

/* encrypt (gstdoradmanetcrypt.h): the header's tag over its 0x500 bytes as
 * received, under this connection's key and the frame's sender_seq, which
 * must be above the last one authenticated (a replayed or reordered frame
 * is refused). Nothing of a header is acted on before this. FALSE (the
 * reason in bad_peer) otherwise; a frame in clear on an encrypted stream,
 * or an encrypted one on a clear stream, is malformed. */
static gboolean
frame_authentic (GstDoradmaNetSrc * self, const PendingFrame * pf,
    const void *header)
{
  gboolean encrypted = (pf->hdr.wire_flags & DORADMA_NET_FLAG_ENCRYPTED) != 0;
  guint64 seq = pf->hdr.sender_seq;

  if (encrypted != self->encrypt) {
    COUNT (self, C_MALFORMED, 1);
    self->bad_peer = g_strdup_printf ("an %s frame, but encrypt=%s here "
        "(field net.wire_flags)", encrypted ? "encrypted" : "unencrypted",
        self->encrypt ? "true" : "false");
    return FALSE;
  }
  if (!self->encrypt)
    return TRUE;
  if (seq <= self->crypt_seq) {
    COUNT (self, C_DECRYPT_FAILURES, 1);
    self->bad_peer_forged = TRUE;
    self->bad_peer = g_strdup_printf ("frame %" G_GUINT64_FORMAT " replayed "
        "or out of order (the last authenticated was %" G_GUINT64_FORMAT
        "; field net.sender_seq)", seq, self->crypt_seq);
    return FALSE;
  }
  if (!gst_doradma_net_crypt_open (&self->to_receiver,
          GST_DORADMA_NET_CRYPT_HEADER, seq, header,
          sizeof (struct doradma_net_frame_header), NULL, 0,
          pf->hdr.tags.header)) {
    COUNT (self, C_DECRYPT_FAILURES, 1);
    self->bad_peer_forged = TRUE;
    self->bad_peer = g_strdup_printf ("frame %" G_GUINT64_FORMAT ": its "
        "header failed authentication (field net.tags.header)", seq);
    return FALSE;
  }
  self->crypt_seq = seq;
  return TRUE;
}

ucs_status_t
gst_doradma_net_src_on_frame (void *arg, const void *header,
    size_t header_length, void *data, size_t length,
    const ucp_am_recv_param_t * param)
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
  if (r < 0 || self->ep == NULL
      || !gst_doradma_net_src_authenticated (self, "a frame")
      || self->bad_peer || !frame_authentic (self, pf, header)
      || !make_room (self, pf)) {
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

PendingFrame *
gst_doradma_net_src_pending_pop (GstDoradmaNetSrc * self)
{
  PendingFrame *pf = g_queue_pop_head (&self->pending);

  if (pf != NULL)
    self->pending_bytes -= pf->held;
  return pf;
}

void
gst_doradma_net_src_pending_release (GstDoradmaNetSrc * self, PendingFrame * pf)
{
  /* a rendezvous descriptor not received is dropped with its endpoint */
  if (pf->owned)
    g_free (pf->data);
  g_free (pf);
}

void
gst_doradma_net_src_pending_abandon_all (GstDoradmaNetSrc * self)
{
  PendingFrame *pf;

  while ((pf = g_queue_pop_head (&self->pending)) != NULL) {
    COUNT (self, C_ABANDONED, 1);
    gst_doradma_net_src_pending_release (self, pf);
  }
  self->pending_bytes = 0;
}
