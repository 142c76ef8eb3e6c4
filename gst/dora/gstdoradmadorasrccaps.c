/* doradma GStreamer plugin — doradmasrc's dora read path: caps of a pool
 * (from its tensor or the `caps` property) and the copy plan they imply.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/video/video.h>
#include <doradma/dora-pool.h>

#include "gstdoradmadorasrcprivate.h"
#include "gstdoradmasrccaps.h"

#define GST_CAT_DEFAULT gst_doradma_dora_src_debug

/* uint16 in dora's, torch's and numpy's spellings (native order is little
 * endian on every platform dora runs on). */
static gboolean
is_uint16 (const gchar * dtype)
{
  return strcmp (dtype, "uint16") == 0 || strcmp (dtype, "torch.uint16") == 0
      || strcmp (dtype, "<u2") == 0 || strcmp (dtype, "=u2") == 0
      || strcmp (dtype, ">u2") == 0;
}

/* The caps a pool's JSON implies, or NULL with *why set (g_free). */
static GstCaps *
caps_from_json (const struct doradma_pool_info *pi,
    GstDoradmaChannelOrder order, gchar ** why)
{
  GstVideoFormat fmt = GST_VIDEO_FORMAT_UNKNOWN;
  gboolean bgr = order == GST_DORADMA_CHANNEL_ORDER_BGR;
  GstVideoInfo info;

  if (is_uint16 (pi->dtype)) {
    /* what doradmasink writes for GRAY16_LE: uint16 [H, W] */
    if (pi->n_dims == 2)
      fmt = strcmp (pi->dtype, ">u2") == 0 ? GST_VIDEO_FORMAT_GRAY16_BE :
          GST_VIDEO_FORMAT_GRAY16_LE;
    else {
      *why = g_strdup ("a uint16 tensor is read as grey only: shape is not "
          "[H, W]");
      return NULL;
    }
  } else if (strcmp (pi->dtype, "uint8") != 0 && strcmp (pi->dtype, "|u1") != 0
      && strcmp (pi->dtype, "torch.uint8") != 0) {
    *why = g_strdup_printf ("dtype \"%s\" is not uint8 or uint16", pi->dtype);
    return NULL;
  } else if (pi->n_dims == 2)
    fmt = GST_VIDEO_FORMAT_GRAY8;
  else if (pi->n_dims == 3 && pi->shape[2] == 3)
    fmt = bgr ? GST_VIDEO_FORMAT_BGR : GST_VIDEO_FORMAT_RGB;
  else if (pi->n_dims == 3 && pi->shape[2] == 4)
    fmt = bgr ? GST_VIDEO_FORMAT_BGRA : GST_VIDEO_FORMAT_RGBA;
  if (fmt == GST_VIDEO_FORMAT_UNKNOWN) {
    *why = g_strdup ("shape is not [H, W, 3], [H, W, 4] or [H, W]");
    return NULL;
  }
  if (pi->shape[0] == 0 || pi->shape[1] == 0 || pi->shape[0] > G_MAXINT16
      || pi->shape[1] > G_MAXINT16) {
    *why = g_strdup ("height or width is 0 or above 32767");
    return NULL;
  }
  gst_video_info_set_format (&info, fmt, (guint) pi->shape[1],
      (guint) pi->shape[0]);
  GST_VIDEO_INFO_FPS_N (&info) = 0;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return gst_video_info_to_caps (&info);
}

/* The bytes of the tensor the JSON's dtype and shape describe, or 0 when
 * they do not say (no shape, an unknown dtype, too many dimensions, or a
 * product past the pool's size, which validation refuses anyway). */
static guint64
tensor_bytes (const struct doradma_pool_info *pi)
{
  guint64 n = pi->elem_size;
  guint i;

  if (!pi->has_shape || n == 0 || pi->n_dims > DORADMA_POOL_MAX_DIMS)
    return 0;
  for (i = 0; i < pi->n_dims; i++) {
    if (pi->shape[i] != 0 && n > pi->size / pi->shape[i])
      return 0;
    n *= pi->shape[i];
  }
  return n <= pi->size ? n : 0;
}

/* Chooses caps and the copy plan for a newly opened pool. */
gboolean
gst_doradma_dora_src_setup_caps (GstBaseSrc * src, DoraSrc * s,
    const struct doradma_pool_info *pi, const gchar * name)
{
  GstCaps *caps = NULL;
  GstVideoInfo info;
  gchar *why = NULL;

  g_mutex_lock (&s->head.lock);
  if (s->caps_prop)
    caps = gst_caps_ref (s->caps_prop);
  g_mutex_unlock (&s->head.lock);

  if (caps) {
    if (!gst_caps_is_fixed (caps) || !gst_video_info_from_caps (&info, caps)) {
      GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
          ("The `caps` property is not fixed video/x-raw caps"),
          ("caps %" GST_PTR_FORMAT, caps));
      goto fail;
    }
    /* taken as-is: a frame of another size is not this pool's frame (a
     * smaller one would read the head of the tensor as a whole picture);
     * the tensor's own bytes count too, as dora's crate lets `size` round
     * it up (a page-aligned pool: F7) */
    if (info.size != pi->size && info.size != tensor_bytes (pi)) {
      GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
          ("dora pool %s holds %" G_GUINT64_FORMAT "-byte frames (a tensor "
              "of %" G_GUINT64_FORMAT " bytes), but the `caps` property "
              "describes frames of %" G_GSIZE_FORMAT " bytes: they do not "
              "describe this pool", name, pi->size, tensor_bytes (pi),
              info.size),
          ("caps %" GST_PTR_FORMAT " in GStreamer's default layout (each "
              "plane's rows padded to 4 bytes; a packed planar tensor of a "
              "width not a multiple of 4 is not read); the pool's JSON: %s",
              caps, pi->json));
      goto fail;
    }
    /* as-is, GStreamer's default layout, like appsrc */
    s->plan.rows = 1;
    s->plan.row_bytes = s->plan.src_pitch = s->plan.dst_pitch = info.size;
  } else {
    GstDoradmaChannelOrder order;

    g_mutex_lock (&s->head.lock);
    order = s->order;
    g_mutex_unlock (&s->head.lock);
    caps = caps_from_json (pi, order, &why);
    if (caps == NULL) {
      GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
          ("dora pool %s holds no video frame doradmasrc understands: %s",
              name, why), ("the pool's JSON: %s; set the `caps` property "
              "to read it as other raw video", pi->json));
      g_free (why);
      goto fail;
    }
    gst_video_info_from_caps (&info, caps);
    /* dora tensors are tightly packed; GStreamer rows may be padded */
    s->plan.rows = GST_VIDEO_INFO_HEIGHT (&info);
    s->plan.row_bytes = s->plan.src_pitch =
        (gsize) GST_VIDEO_INFO_WIDTH (&info) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
    s->plan.dst_pitch = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
  }
  /* an ipc pool's size is only a JSON number: never allocate frames
   * beyond what any dora writer can produce */
  if (info.size > DORADMA_POOL_MAX_BYTES) {
    GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
        ("dora pool %s: frames of %" G_GSIZE_FORMAT " bytes are larger than "
            "dora's 1 GiB pool limit", name, info.size),
        ("caps %" GST_PTR_FORMAT "; the pool's JSON: %s", caps, pi->json));
    goto fail;
  }
  s->info = info;
  g_mutex_lock (&s->head.lock);
  gst_clear_caps (&s->out_caps);
  s->out_caps = caps;
  g_mutex_unlock (&s->head.lock);
  GST_INFO_OBJECT (src, "dora pool %s: %s, caps %" GST_PTR_FORMAT, name,
      pi->json, caps);
  return gst_base_src_negotiate (src);

fail:
  gst_clear_caps (&caps);       /* NULL when the JSON gave none */
  return FALSE;
}

GstCaps *
gst_doradma_dora_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);
  GstCaps *caps;

  g_mutex_lock (&s->head.lock);
  if (s->out_caps)
    caps = gst_caps_ref (s->out_caps);
  else if (s->caps_prop)
    caps = gst_caps_ref (s->caps_prop);
  else
    caps = gst_caps_new_empty_simple ("video/x-raw");
  g_mutex_unlock (&s->head.lock);
  return gst_doradma_src_caps_filter (caps, filter);
}

gboolean
gst_doradma_dora_src_negotiate (GstBaseSrc * src)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);
  GstCaps *caps = NULL;
  gboolean ok = TRUE;

  g_mutex_lock (&s->head.lock);
  if (s->out_caps)
    caps = gst_caps_ref (s->out_caps);
  g_mutex_unlock (&s->head.lock);
  /* nothing until the pool told us */
  if (caps) {
    ok = gst_base_src_set_caps (src, caps);
    gst_caps_unref (caps);
  }
  return ok;
}
