/* doradma GStreamer plugin — the raw video formats a ring carries (see
 * the header).
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaformats.h"

gboolean
gst_doradma_format_is_carried (GstVideoFormat format)
{
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (format);

  return finfo != NULL && format != GST_VIDEO_FORMAT_UNKNOWN
      && format != GST_VIDEO_FORMAT_ENCODED
      && !GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)
      && !GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo);
}

/* The carried formats as a GValue list, from GStreamer's own list (which
 * grows with each release: 1.20 to 1.26 build the right one). */
static void
carried_formats (GValue * list)
{
  GstCaps *all = gst_caps_from_string (GST_VIDEO_CAPS_MAKE
      (GST_VIDEO_FORMATS_ALL));
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (all, 0), "format");
  guint i;

  g_value_init (list, GST_TYPE_LIST);
  for (i = 0; i < gst_value_list_get_size (formats); i++) {
    const GValue *v = gst_value_list_get_value (formats, i);

    if (gst_doradma_format_is_carried (gst_video_format_from_string
            (g_value_get_string (v))))
      gst_value_list_append_value (list, v);
  }
  gst_caps_unref (all);
}

GstCaps *
gst_doradma_formats_caps (const gchar * const *features)
{
  GstCaps *caps = gst_caps_new_empty ();
  GValue formats = G_VALUE_INIT;
  guint i;

  carried_formats (&formats);
  for (i = 0; features[i] != NULL; i++) {
    GstStructure *s = gst_structure_new_empty ("video/x-raw");

    /* the fields in GST_VIDEO_CAPS_MAKE's order */
    gst_structure_set_value (s, "format", &formats);
    gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "height", GST_TYPE_INT_RANGE, 1, G_MAXINT,
        "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
    gst_caps_append_structure_full (caps, s, features[i][0] ?
        gst_caps_features_new (features[i], NULL) : NULL);
  }
  g_value_unset (&formats);
  return caps;
}

GstCaps *
gst_doradma_caps_filter (GstCaps * caps, GstCaps * filter)
{
  GstCaps *tmp;

  if (filter == NULL)
    return caps;
  tmp = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return tmp;
}
