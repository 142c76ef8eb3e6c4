/* doradma — shims for stacks older than GStreamer 1.22 / GLib 2.74.
 *
 * meson.build force-includes this file (-include) into every C file, and
 * only when the stack is older than that: JetPack 6 (GStreamer 1.20,
 * GLib 2.72, the oldest supported) and Debian 11 (GStreamer 1.18, GLib
 * 2.66, a CPU-only test leg below the supported minimum). Each shim is
 * guarded by the version that brought the real API, so on a newer stack
 * this file defines nothing.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_COMPAT_H
#define DORADMA_COMPAT_H

/* sysconf: newer GLib/GStreamer headers pull it in for every file */
#include <unistd.h>

#if defined(__has_include) && __has_include(<glib.h>)
#include <glib.h>

#if !GLIB_CHECK_VERSION (2, 68, 0)
/* g_memdup2 takes a gsize; every call in the tree copies far below 4 GiB */
#define g_memdup2(mem, n) g_memdup ((mem), (guint) (n))
#endif

#if !GLIB_CHECK_VERSION (2, 70, 0)
/* the same check under its pre-2.70 name */
#define g_spawn_check_wait_status g_spawn_check_exit_status
#endif
#endif /* glib.h */

#if defined(__has_include) && __has_include(<gst/gst.h>)
#include <gst/gst.h>

#if !GST_CHECK_VERSION (1, 20, 0)
/* GStreamer 1.20's element registration macros (gst/gstelement.h) */
#define GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(e, e_n, r, t, _c_) \
  gboolean G_PASTE (gst_element_register_, e) (GstPlugin * plugin) \
  { \
    { _c_; } \
    return gst_element_register (plugin, e_n, r, t); \
  }
#define GST_ELEMENT_REGISTER_DEFINE(e, e_n, r, t) \
  GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (e, e_n, r, t, {})
#define GST_ELEMENT_REGISTER_DECLARE(e) \
  gboolean G_PASTE (gst_element_register_, e) (GstPlugin * plugin)
#define GST_ELEMENT_REGISTER(e, plugin) G_PASTE (gst_element_register_, e) (plugin)
#endif
#endif /* gst/gst.h */

#if defined(__has_include) && __has_include(<gst/video/video.h>)
#include <gst/video/video.h>

#if !GST_CHECK_VERSION (1, 22, 0)
/* older prototypes take a non-const GstVideoInfo (the function reads it
 * only); the tree passes const ones. Declared above, so this macro does not
 * touch the prototype. */
#define gst_video_frame_map(frame, info, buffer, flags) \
  (gst_video_frame_map) ((frame), (GstVideoInfo *) (info), (buffer), (flags))
#endif
#endif /* gst/video/video.h */

#endif /* DORADMA_COMPAT_H */
