/* doradmasink, lossless: a segment is replaced only once every `next`
 * reader has reached it (docs/elements.md "Caps changes"). A reader still
 * in segment A while new caps replace A by B and B by C would otherwise
 * reopen the name, find C and lose B's frames; the sink waits for it like
 * for a full ring: `timeout`, then `on-reader-stall`.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "common.h"

/* Frames of B do not fit A's slots, nor C's B's: each is a replace. */
#define CAPS_B "video/x-raw,format=I420,width=128,height=96,framerate=30/1"
#define CAPS_C "video/x-raw,format=I420,width=256,height=192,framerate=30/1"

/* A harness whose sink has a bus, frames 0..1 published in segment A, and
 * a back-pressure reader that joined A and reads nothing. */
static GstHarness *
sink_with_reader_in_a (const gchar * ch, const gchar * stall, GstBus ** bus,
    struct doradma_reader **r)
{
  gchar *props = g_strdup_printf ("mode=lossless timeout=100000000 "
      "on-reader-stall=%s", stall);
  GstHarness *h = t_sink_new (ch, T_CAPS, props);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  *r = t_reader (ch, TRUE);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  /* A -> B: the reader, still in A, is carried into B */
  gst_harness_set_src_caps_str (h, CAPS_B);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (CAPS_B, 2)),
      GST_FLOW_OK);
  gst_harness_set_src_caps_str (h, CAPS_C);
  g_free (props);
  return h;
}

GST_START_TEST (test_replace_over_a_reader_behind_errors_after_timeout)
{
  gchar *ch = t_channel ("rpl-err");
  struct doradma_reader *r;
  GstMessage *msg;
  GstBus *bus;
  GstHarness *h = sink_with_reader_in_a (ch, "error", &bus, &r);

  /* B -> C would lose B's frame 2 for the reader still in A */
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (CAPS_C, 3)),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
      "has not reached the segment being replaced");
  gst_message_unref (msg);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 3);

  doradma_reader_close (r);
  gst_object_unref (bus);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_replace_over_a_reader_behind_evicts_it_on_request)
{
  gchar *ch = t_channel ("rpl-evict");
  struct doradma_reader *r;
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstBus *bus;
  GstHarness *h = sink_with_reader_in_a (ch, "evict", &bus, &r);

  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (CAPS_C, 3)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 4);
  /* the loss is announced, naming the reader */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning");
  gst_message_parse_warning (msg, &err, &dbg);
  fail_unless (strstr (err->message, "still in an older segment") != NULL,
      "%s", err->message);
  fail_unless (dbg != NULL && strstr (dbg, "pid") != NULL, "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);

  doradma_reader_close (r);
  gst_object_unref (bus);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

static Suite *
replace_suite (void)
{
  Suite *s = suite_create ("replace");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_replace_over_a_reader_behind_errors_after_timeout);
  tcase_add_test (tc, test_replace_over_a_reader_behind_evicts_it_on_request);
  return s;
}

GST_CHECK_MAIN (replace);
