/* doradma network plugin — a sender's caps (gstdoradmanetcaps.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetcaps.h"

GstCaps *
gst_doradma_net_caps_parse (const gchar * str, GstVideoInfo * info,
    GstDoradmaPlaneNeeds * needs, const gchar ** why)
{
  GstCaps *caps = gst_caps_from_string (str);

  *why = NULL;
  /* not fixed: gst_video_info_from_caps would print a critical */
  if (caps == NULL || !gst_caps_is_fixed (caps))
    *why = "are not fixed video caps";
  else if (!gst_video_info_from_caps (info, caps))
    *why = "do not parse as video caps";
  else if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_UNKNOWN
      || GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_ENCODED)
    *why = "have no raw format";
  else if (GST_VIDEO_INFO_WIDTH (info) <= 0
      || GST_VIDEO_INFO_HEIGHT (info) <= 0)
    *why = "have no positive width and height";
  if (*why) {
    if (caps)
      gst_caps_unref (caps);
    return NULL;
  }
  gst_doradma_plane_needs_all (info, needs);
  return caps;
}
