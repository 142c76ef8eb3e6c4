/* doradma network plugin — doradmanetsrc's frames (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "gstdoradmanetsrcframe.h"
#include "gstdoradmanetsrcconn.h"
#include "gstdoradmanetcaps.h"

static guint64
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

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

/* encrypt: the payload decrypted in place, in the slot it landed in; a
 * payload that fails authentication is never published (the stream is
 * hostile: the sender is disconnected) */
static gboolean
decrypt_payload (GstDoradmaNetSrc * self, guint64 seq,
    const struct doradma_net_frame_tags *tags, guint8 * data, gsize len)
{
  if (gst_doradma_net_crypt_open (&self->to_receiver,
          GST_DORADMA_NET_CRYPT_PAYLOAD, seq, tags->header,
          sizeof (tags->header), data, len, tags->payload))
    return TRUE;
  COUNT (self, C_DECRYPT_FAILURES, 1);
  if (self->bad_peer == NULL) {
    self->bad_peer_forged = TRUE;
    self->bad_peer = g_strdup_printf ("frame %" G_GUINT64_FORMAT ": its "
        "payload failed authentication (field net.tags.payload)", seq);
  }
  return FALSE;
}

/* The payload into `mem`: FALSE when the sender went away mid-frame or,
 * encrypted, the payload is not authentic (*forged). */
static gboolean
receive_payload (GstDoradmaNetSrc * self, PendingFrame * pf, GstMemory * mem,
    gboolean * forged)
{
  ucp_request_param_t param = { 0 };
  gboolean keep_slot = FALSE;
  GstMapInfo map;
  ucs_status_t st = UCS_OK;
  struct doradma_net_frame_tags tags = pf->hdr.tags;
  guint64 seq = pf->hdr.sender_seq;
  gsize len = pf->length;

  *forged = FALSE;
  if (!gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    gst_doradma_net_src_pending_release (self, pf);
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
    gst_doradma_net_src_pending_release (self, pf);
  }
  if (st == UCS_OK && self->encrypt && !keep_slot)
    *forged = !decrypt_payload (self, seq, &tags, map.data, len);
  gst_memory_unmap (mem, &map);
  if (keep_slot)
    gst_memory_ref (mem);       /* leaked on purpose, see finish_receive */
  if (st != UCS_OK)
    GST_DEBUG_OBJECT (self, "receive: %s", ucs_status_string (st));
  return st == UCS_OK && !*forged;
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
GstFlowReturn
gst_doradma_net_src_handle_frame (GstDoradmaNetSrc * self, PendingFrame * pf,
    GstBuffer ** out)
{
  struct doradma_frame_info fi = pf->hdr.info;
  guint64 sender_seq = pf->hdr.sender_seq;
  GstMemory *mem = NULL;
  gboolean forged;
  GstFlowReturn ret;
  guint p;

  *out = NULL;
  ret = apply_caps (self, pf);
  if (ret == GST_FLOW_OK && !frame_fits_caps (self, pf))
    ret = GST_FLOW_CUSTOM_SUCCESS;
  if (ret == GST_FLOW_OK)
    ret = frame_memory (self, fi.payload_bytes, &mem);
  if (ret != GST_FLOW_OK || mem == NULL) {
    gst_doradma_net_src_pending_release (self, pf);
    if (ret == GST_FLOW_OK) {
      COUNT (self, C_DROPPED_RING_FULL, 1);
      self->discont = TRUE;
      self->last_sender_seq = sender_seq;
      gst_doradma_net_src_send_credit (self, FALSE, 1);
    }
    return ret == GST_FLOW_CUSTOM_SUCCESS ? GST_FLOW_OK : ret;
  }
  if (!receive_payload (self, pf, mem, &forged)) {
    /* the sender went away mid-frame, or the payload is forged: the slot
     * is abandoned, never read (a forged one counted in decrypt-failures) */
    if (!forged)
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
  gst_doradma_net_src_send_credit (self, FALSE, 1);
  *out = frame_buffer (self, mem, &fi);
  gst_memory_unref (mem);
  return GST_FLOW_OK;
}
