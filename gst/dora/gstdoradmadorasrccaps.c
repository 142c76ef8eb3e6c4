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
#include "gstdoradmaformats.h"

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

/* The plan of a packed frame of `info`: each plane's rows exactly as wide
 * as its pixels (GStreamer's default layout rounds them up to 4 bytes, and
 * some formats' plane heights up to even), the planes back to back in
 * plane order, as numpy, OpenCV and dora nodes hold frames. Each plane is
 * copied into `info`'s default layout. Returns the packed frame's bytes,
 * or 0 when the format has no such layout (pixels of no whole byte count,
 * tiles, a palette). */
static gsize
packed_plan (const GstVideoInfo * info, CopyPlan * plan)
{
  const GstVideoFormatInfo *f = info->finfo;
  guint p, c;
  gsize off = 0;

  if (GST_VIDEO_FORMAT_INFO_FLAGS (f) & (GST_VIDEO_FORMAT_FLAG_COMPLEX |
          GST_VIDEO_FORMAT_FLAG_TILED | GST_VIDEO_FORMAT_FLAG_PALETTE))
    return 0;
  plan->n = GST_VIDEO_INFO_N_PLANES (info);
  for (p = 0; p < plan->n; p++) {
    struct doradma_pool_rect *q = &plan->rect[p];
    gsize row = 0, rows = 0;

    /* a plane's row holds each of its components' samples */
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
      gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);

      if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) != p)
        continue;
      if (ps <= 0)
        return 0;
      row = MAX (row, (gsize) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (f, c,
              GST_VIDEO_INFO_WIDTH (info)) * (gsize) ps);
      rows = MAX (rows, (gsize) GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (f, c,
              GST_VIDEO_INFO_FIELD_HEIGHT (info)));
    }
    if (row == 0 || rows == 0 || GST_VIDEO_INFO_PLANE_STRIDE (info, p) <= 0)
      return 0;
    q->src_offset = off;
    q->src_pitch = q->row_bytes = row;
    q->rows = rows;
    q->dst_offset = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    q->dst_pitch = (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    if (rows > (G_MAXSIZE - off) / row)
      return 0;
    off += rows * row;
  }
  return off;
}

/* Chooses caps and the copy plan for a newly opened pool. */
gboolean
gst_doradma_dora_src_setup_caps (GstBaseSrc * src, DoraSrc * s,
    const struct doradma_pool_info *pi, const gchar * name)
{
  struct doradma_diag diag = { 0 };
  GstCaps *caps = NULL;
  GstVideoInfo info;
  CopyPlan plan = { 0 };
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
    guint64 tensor = tensor_bytes (pi);
    gsize packed = packed_plan (&info, &plan);

    /* A frame of the caps must be the pool's `size` or its tensor's bytes
     * (dora's crate lets `size` round the tensor up, e.g. to a page: F7),
     * in one of two layouts; a frame of another size is not this pool's
     * frame (a smaller one would read the head of the tensor as a whole
     * picture). First GStreamer's default layout, taken as-is like
     * appsrc's; then the packed one, copied plane by plane into the
     * default layout (F7: NV12 1366x768 as uint8 [1152, 1366]). */
    if (info.size == pi->size || info.size == tensor) {
      plan.n = 1;
      plan.rect[0] = (struct doradma_pool_rect) {
        .src_pitch = info.size,.dst_pitch = info.size,.row_bytes =
            info.size,.rows = 1
      };
    } else if (packed != 0 && (packed == pi->size || packed == tensor)) {
      GST_INFO_OBJECT (src, "dora pool %s: a packed frame of %" G_GSIZE_FORMAT
          " bytes, copied into GStreamer's default layout (%" G_GSIZE_FORMAT
          " bytes)", name, packed, info.size);
    } else {
      gchar *also = packed != 0 && packed != info.size ?
          g_strdup_printf (" (%" G_GSIZE_FORMAT " packed)", packed) :
          g_strdup ("");

      GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
          ("dora pool %s holds %" G_GUINT64_FORMAT "-byte frames (a tensor "
              "of %" G_GUINT64_FORMAT " bytes), but the `caps` property "
              "describes frames of %" G_GSIZE_FORMAT " bytes%s: they do not "
              "describe this pool", name, pi->size, tensor, info.size, also),
          ("caps %" GST_PTR_FORMAT ": a frame of the pool's size or of its "
              "tensor's bytes is read in GStreamer's default layout (rows "
              "padded to 4 bytes) or packed (each plane's rows as wide as "
              "its pixels, the planes back to back); the pool's JSON: %s",
              caps, pi->json));
      g_free (also);
      goto fail;
    }
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
    plan.n = 1;
    plan.rect[0].rows = GST_VIDEO_INFO_HEIGHT (&info);
    plan.rect[0].row_bytes = plan.rect[0].src_pitch =
        (gsize) GST_VIDEO_INFO_WIDTH (&info) *
        GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
    plan.rect[0].dst_pitch = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0);
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
  /* the one bounds check of every copy (the host copy repeats it; a
   * device copy has only this one) */
  if (doradma_pool_rects_check (plan.rect, plan.n, pi->size, info.size,
          &diag) < 0) {
    GST_ELEMENT_ERROR (src, CORE, NEGOTIATION,
        ("dora pool %s: frames of caps %" GST_PTR_FORMAT " cannot be read "
            "from it: %s", name, caps, diag.msg), ("the pool's JSON: %s",
            pi->json));
    goto fail;
  }
  s->info = info;
  s->plan = plan;
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
  return gst_doradma_caps_filter (caps, filter);
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
