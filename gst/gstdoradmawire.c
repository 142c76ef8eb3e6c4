/* doradma GStreamer plugin — what writer and reader agree on for every frame.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmawire.h"

void
gst_doradma_plane_needs (const GstVideoInfo * info, guint plane,
    guint32 * rows, guint32 * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  guint32 r = 0, rb = 0;
  gboolean exact = !GST_VIDEO_FORMAT_INFO_IS_TILED (finfo);
  guint i;

  gst_video_format_info_component (finfo, plane, comps);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    gint c = comps[i];
    guint32 h = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c,
        GST_VIDEO_INFO_FIELD_HEIGHT (info));
    guint32 w = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c,
        GST_VIDEO_INFO_WIDTH (info));
    gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);

    r = MAX (r, h);
    if (ps <= 0)
      exact = FALSE;
    else
      rb = MAX (rb, w * (guint32) ps);
  }

  if (!exact) {
    /* Sub-byte, tiled or otherwise packed formats (v210, ...): the default
     * stride of an unpadded layout is what one row needs. */
    GstVideoInfo tight;

    gst_video_info_set_format (&tight, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
    rb = GST_VIDEO_INFO_PLANE_STRIDE (&tight, plane);
    if (r == 0)
      r = GST_VIDEO_INFO_FIELD_HEIGHT (info);
  }
  *rows = r;
  *row_bytes = rb;
}

void
gst_doradma_plane_needs_all (const GstVideoInfo * info,
    GstDoradmaPlaneNeeds * needs)
{
  guint p;

  memset (needs, 0, sizeof (*needs));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++)
    gst_doradma_plane_needs (info, p, &needs->rows[p], &needs->row_bytes[p]);
}

void
gst_doradma_frame_copy (GstVideoFrame * dst, const GstVideoFrame * src,
    const GstVideoInfo * info)
{
  guint p, r;

  if (GST_VIDEO_FORMAT_INFO_IS_TILED (info->finfo)) {
    gst_video_frame_copy (dst, src);
    return;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (dst, p);
    gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (src, p);
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (dst, p);
    const guint8 *s = GST_VIDEO_FRAME_PLANE_DATA (src, p);
    guint32 rows, row_bytes;

    gst_doradma_plane_needs (info, p, &rows, &row_bytes);
    row_bytes = MIN (row_bytes, (guint32) MIN (ABS (ds), ABS (ss)));
    for (r = 0; r < rows; r++)
      memcpy (d + (gssize) r * ds, s + (gssize) r * ss, row_bytes);
  }
}
