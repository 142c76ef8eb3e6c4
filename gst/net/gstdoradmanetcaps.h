/* doradma network plugin — what doradmanetsrc accepts of a sender's caps,
 * besides the wire decoder's rules (gstdoradmanetwire.h); a frame's
 * geometry is then checked against them by the core's
 * gst_doradma_frame_fits (gstdoradmasrcframe.h), as doradmasrc checks a
 * ring's records. A leaf: tests/fuzz/fuzz-netwire.c calls both on decoded
 * frames.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_CAPS_H__
#define __GST_DORADMA_NET_CAPS_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmawire.h"
#include "gstdoradmasrcframe.h"

G_BEGIN_DECLS
/* Caps a sender may announce: fixed video/x-raw that GStreamer parses, a
 * raw format, a positive size (the ring's caps rule lets through what its
 * readers then refuse). Fills `info` and `needs`; NULL with the reason in
 * `why` otherwise. */
    GstCaps * gst_doradma_net_caps_parse (const gchar * str,
    GstVideoInfo * info, GstDoradmaPlaneNeeds * needs, const gchar ** why);

G_END_DECLS
#endif /* __GST_DORADMA_NET_CAPS_H__ */
