/* Frames as a viewer sees them, for the tests that compare what doradmasrc
 * delivers with a local reference. Header-only.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_TESTS_ELEMENTS_FRAMES_H
#define DORADMA_TESTS_ELEMENTS_FRAMES_H

#include <gst/app/gstappsink.h>

#include "common.h"

/* Bytes of a plane row that hold the pixels x0 .. x1 - 1 (never padding).
 * v210 packs 6 pixels in 16 bytes; other formats have a pixel stride. */
static inline void
t_row_span (const GstVideoFormatInfo * finfo, guint plane, guint x0, guint x1,
    gsize * from, gsize * len)
{
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  gsize a = 0, b = 0;
  guint i;

  if (GST_VIDEO_FORMAT_INFO_FORMAT (finfo) == GST_VIDEO_FORMAT_v210) {
    fail_unless (x0 == 0, "no crop of v210 in these tests");
    *from = 0;
    *len = (x1 + 5) / 6 * 16;
    return;
  }
  gst_video_format_info_component (finfo, plane, comps);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comps[i]);

    fail_unless (ps > 0, "format %s has no pixel stride",
        GST_VIDEO_FORMAT_INFO_NAME (finfo));
    a = MAX (a, (gsize) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comps[i],
            x0) * ps);
    b = MAX (b, (gsize) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comps[i],
            x1) * ps);
  }
  *from = a;
  *len = b - a;
}

/* The visible bytes of `buf` of `caps`: read through its GstVideoMeta when
 * it has one, only the rectangle of its crop meta when it has one, row by
 * row and plane by plane. */
static inline GBytes *
t_visible (GstBuffer * buf, GstCaps * caps)
{
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);
  GByteArray *out = g_byte_array_new ();
  GstVideoInfo info;
  GstVideoFrame f;
  guint p, x0 = 0, y0 = 0, w, h;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_READ),
      "cannot map %" GST_PTR_FORMAT, buf);
  w = GST_VIDEO_FRAME_WIDTH (&f);
  h = GST_VIDEO_FRAME_HEIGHT (&f);
  if (crop && crop->width && crop->height) {
    x0 = crop->x;
    y0 = crop->y;
    w = crop->width;
    h = crop->height;
  }
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    const GstVideoFormatInfo *finfo = f.info.finfo;
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    guint r, r0, r1;
    gsize from, len;

    gst_video_format_info_component (finfo, p, comps);
    r0 = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comps[0], y0);
    r1 = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comps[0], y0 + h);
    t_row_span (finfo, p, x0, x0 + w, &from, &len);
    for (r = r0; r < r1; r++)
      g_byte_array_append (out, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p)
          + (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p) + from, len);
  }
  gst_video_frame_unmap (&f);
  return g_byte_array_free_to_bytes (out);
}

/* An "<up> ! appsink" pipeline or a "doradmasrc ... ! appsink" one. */
typedef struct
{
  GstElement *pipe;
  GstAppSink *sink;
} TApp;

static inline TApp *
t_app_new (const gchar * up)
{
  gchar *desc = g_strdup_printf ("%s ! appsink name=out sync=false "
      "max-buffers=64", up);
  TApp *a = g_new0 (TApp, 1);

  a->pipe = gst_parse_launch (desc, NULL);
  fail_unless (a->pipe != NULL, "%s", desc);
  a->sink = GST_APP_SINK (gst_bin_get_by_name (GST_BIN (a->pipe), "out"));
  fail_if (gst_element_set_state (a->pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "%s", desc);
  g_free (desc);
  return a;
}

/* The next frame's visible bytes, or NULL at EOS / after 5 s (*caps_out,
 * when given, gets the sample's caps). */
static inline GBytes *
t_app_pull (TApp * a, GstCaps ** caps_out)
{
  GstSample *s = gst_app_sink_try_pull_sample (a->sink, 5 * GST_SECOND);
  GBytes *b;

  if (s == NULL)
    return NULL;
  b = t_visible (gst_sample_get_buffer (s), gst_sample_get_caps (s));
  if (caps_out)
    *caps_out = gst_caps_ref (gst_sample_get_caps (s));
  gst_sample_unref (s);
  return b;
}

static inline void
t_app_free (TApp * a)
{
  gst_element_set_state (a->pipe, GST_STATE_NULL);
  gst_object_unref (a->sink);
  gst_object_unref (a->pipe);
  g_free (a);
}

/* Every frame of "<up> ! appsink" run locally: the reference. */
static inline GPtrArray *
t_reference (const gchar * up)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  TApp *a = t_app_new (up);
  GBytes *b;

  while ((b = t_app_pull (a, NULL)))
    g_ptr_array_add (frames, b);
  fail_unless (gst_app_sink_is_eos (a->sink), "reference %s: no EOS", up);
  t_app_free (a);
  return frames;
}

/* Runs "<up> ! doradmasink channel=<channel> <props>" to EOS (an error
 * fails the test). */
static inline void
t_produce (const gchar * up, const gchar * channel, const gchar * props)
{
  gchar *desc = g_strdup_printf ("%s ! doradmasink channel=%s sync=false %s",
      up, channel, props ? props : "");
  GstElement *p = gst_parse_launch (desc, NULL);
  GstMessage *msg;

  fail_unless (p != NULL, "%s", desc);
  msg = t_run (p, 20 * GST_SECOND);
  fail_unless (msg != NULL, "producer: no EOS within 20 s");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("producer: %s (%s)", err->message, dbg);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
}

#endif
