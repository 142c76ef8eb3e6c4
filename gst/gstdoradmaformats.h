/* doradma GStreamer plugin — the raw video formats a ring carries.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_FORMATS_H__
#define __GST_DORADMA_FORMATS_H__

#include <gst/video/video.h>

G_BEGIN_DECLS
/* TRUE for a format whose frames a slot record can describe: planes of
 * rows (a tiled layout is not rows of pixels) and no palette (a record has
 * no place for one). */
    gboolean gst_doradma_format_is_carried (GstVideoFormat format);

/* "video/x-raw" with every carried format of this GStreamer
 * (GST_VIDEO_FORMATS_ALL less the others), once per feature in
 * `features` (NULL-terminated; NULL entry order kept, "" = system memory),
 * as the elements' pad templates. */
GstCaps *gst_doradma_formats_caps (const gchar * const *features);

/* A CAPS query's answer: `caps` (taken) intersected with the query's
 * `filter` (may be NULL), the filter's order first. Both sources use it,
 * on a ring and on a dora pool. */
GstCaps *gst_doradma_caps_filter (GstCaps * caps, GstCaps * filter);

G_END_DECLS
#endif /* __GST_DORADMA_FORMATS_H__ */
