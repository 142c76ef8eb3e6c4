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

gboolean
gst_doradma_frame_info_fill (const GstVideoInfo * info,
    const GstDoradmaPlaneNeeds * needs, const gsize * offset,
    const gint * pstride, gsize buf_size, gsize slot_size, GstBuffer * src,
    const GstVideoCropMeta * crop, guint64 mono_pts,
    struct doradma_frame_info *fi)
{
  guint64 end = 0;
  guint p;

  memset (fi, 0, sizeof (*fi));
  fi->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  fi->width = GST_VIDEO_INFO_WIDTH (info);
  fi->height = GST_VIDEO_INFO_HEIGHT (info);
  for (p = 0; p < fi->n_planes; p++) {
    struct doradma_shm_plane *pl = &fi->planes[p];

    pl->offset = offset[p];
    pl->stride = pstride[p];
    pl->rows = needs->rows[p];
    pl->row_bytes = needs->row_bytes[p];
    if (pl->rows > 0)
      end = MAX (end, pl->offset + (guint64) pl->stride * (pl->rows - 1) +
          pl->row_bytes);
  }
  if (end > slot_size)
    return FALSE;
  fi->payload_bytes = MIN (MAX (end, buf_size), slot_size);

  if (crop && crop->width > 0 && crop->height > 0) {
    fi->crop_x = crop->x;
    fi->crop_y = crop->y;
    fi->crop_width = crop->width;
    fi->crop_height = crop->height;
  }
  fi->pts = GST_BUFFER_PTS (src);
  fi->dts = GST_BUFFER_DTS (src);
  fi->duration = GST_BUFFER_DURATION (src);
  fi->offset = GST_BUFFER_OFFSET (src);
  fi->offset_end = GST_BUFFER_OFFSET_END (src);
  fi->flags = GST_BUFFER_FLAGS (src) & GST_DORADMA_CARRIED_FLAGS;
  fi->video_flags = GST_BUFFER_FLAGS (src) & ~(GST_BUFFER_FLAG_LAST - 1);
  fi->mono_pts = mono_pts;
  return TRUE;
}
