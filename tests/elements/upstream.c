/* What doradmasink publishes, doradmasrc takes: real elements around the
 * pair (videocrop upstream, a syncing sink downstream, producers stopping),
 * each frame compared with the same chain run locally.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frames.h"

#define CROP_CHAIN "videotestsrc num-buffers=8 pattern=smpte ! " \
  "video/x-raw,format=%s,width=320,height=240,framerate=30/1 ! " \
  "videocrop left=10 top=20 right=30 bottom=40"

/* Runs "<up> ! doradmasink channel=<channel> <props>" to EOS (an error
 * fails the test). */
static void
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

/* The consumer "doradmasrc channel=<channel> <props> ! appsink" gets every
 * frame of `up` as the local reference has it, with caps `want_caps`. */
static void
check_delivered_like_local (const gchar * up, const gchar * props,
    const gchar * want_caps)
{
  gchar *channel = t_channel ("up");
  gchar *src =
      g_strdup_printf ("doradmasrc name=src channel=%s timeout=5000000000 %s",
      channel, props ? props : "");
  GPtrArray *ref = t_reference (up);
  TApp *cons = t_app_new (src);
  GstCaps *caps = NULL, *want = gst_caps_from_string (want_caps);
  GstElement *e;
  guint i;

  fail_unless (ref->len > 0);
  t_produce (up, channel, "mode=lossless wait-for-readers=1 "
      "timeout=3000000000");
  for (i = 0; i < ref->len; i++) {
    GBytes *got = t_app_pull (cons, i == 0 ? &caps : NULL);

    fail_unless (got != NULL, "frame %u of %u not delivered", i, ref->len);
    if (i == 0)
      fail_unless (gst_caps_is_subset (caps, want), "caps %" GST_PTR_FORMAT
          ", want %" GST_PTR_FORMAT, caps, want);
    fail_unless (g_bytes_equal (got, g_ptr_array_index (ref, i)),
        "frame %u differs from the local reference", i);
    g_bytes_unref (got);
  }
  fail_unless (t_app_pull (cons, NULL) == NULL, "more frames than sent");
  fail_unless (gst_app_sink_is_eos (cons->sink));
  e = gst_bin_get_by_name (GST_BIN (cons->pipe), "src");
  fail_unless_equals_uint64 (t_stat (e, "skipped"), 0);
  gst_object_unref (e);
  t_app_free (cons);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  g_ptr_array_unref (ref);
  fail_unless (t_shm_clean (channel), "leftovers of %s", channel);
  g_free (src);
  g_free (channel);
}

/* NF1: videocrop crops by meta before doradmasink (which announces the
 * crop meta): the consumer gets the cropped picture, 280x180. Before, the
 * record said a 280x180 frame with a crop at (10,20) and the reader
 * refused every frame. */
GST_START_TEST (test_videocrop_upstream_delivers_the_cropped_picture)
{
  const gchar *formats[] = { "I420", "NV12", "YUY2", "RGBA", "GRAY8" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *up = g_strdup_printf (CROP_CHAIN, formats[i]);
    gchar *want = g_strdup_printf ("video/x-raw,format=%s,width=280,"
        "height=180", formats[i]);

    check_delivered_like_local (up, NULL, want);
    g_free (want);
    g_free (up);
  }
}

GST_END_TEST;

static Suite *
upstream_suite (void)
{
  Suite *s = suite_create ("upstream");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_videocrop_upstream_delivers_the_cropped_picture);
  return s;
}

GST_CHECK_MAIN (upstream);
