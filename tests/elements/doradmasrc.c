/* doradmasrc element tests (gst-check, GstHarness). The writer side is a
 * doradmasink harness in the same process.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/base/gstbasesrc.h>

#include "common.h"

static GstHarness *
src_new (const gchar * channel, const gchar * props)
{
  gchar *desc = g_strdup_printf ("doradmasrc channel=%s %s", channel,
      props ? props : "");
  GstElement *e = gst_parse_launch (desc, NULL);
  GstHarness *h;

  fail_unless (e != NULL);
  h = gst_harness_new_with_element (e, NULL, "src");
  gst_harness_use_systemclock (h);
  /* the harness does not start sources by itself */
  fail_if (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gst_object_unref (e);
  g_free (desc);
  return h;
}

GST_START_TEST (test_properties_have_documented_defaults)
{
  GstElement *e = gst_element_factory_make ("doradmasrc", NULL);
  guint64 timeout, deadline;
  guint max_leases;
  gboolean copy;
  gint read_mode, lost;
  GstStructure *stats;

  g_object_get (e, "timeout", &timeout, "max-leases", &max_leases, "copy",
      &copy, "read-mode", &read_mode, "on-writer-lost", &lost,
      "processing-deadline", &deadline, "stats", &stats, NULL);
  fail_unless_equals_uint64 (timeout, 0);
  fail_unless_equals_int (max_leases, 4);
  fail_unless (!copy);
  fail_unless (gst_base_src_is_live (GST_BASE_SRC (e)));
  fail_unless_equals_int (read_mode, 0);        /* next */
  fail_unless_equals_int (lost, 0);     /* wait */
  fail_unless_equals_uint64 (deadline, 20 * GST_MSECOND);
  for (const gchar ** f = (const gchar *[]) {
  "frames", "torn", "skipped", "copies", "lease-waits", "latency-p50",
          "latency-p99", NULL}; *f; f++)
    fail_unless (gst_structure_has_field (stats, *f), "stats lacks %s", *f);
  gst_structure_free (stats);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_missing_channel_times_out_with_not_found)
{
  gchar *ch = t_channel ("nochan"), *desc;
  GstElement *p;
  GstMessage *msg;

  desc = g_strdup_printf ("doradmasrc channel=%s timeout=100000000 ! "
      "fakesink", ch);
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, ch);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_stopping_while_waiting_for_the_channel_is_prompt)
{
  gchar *ch = t_channel ("unlock"), *desc;
  GstElement *p;
  gint64 start;

  desc = g_strdup_printf ("doradmasrc channel=%s ! fakesink", ch);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_usleep (100 * 1000);
  start = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless (g_get_monotonic_time () - start < G_USEC_PER_SEC);
  gst_object_unref (p);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_buffers_are_readonly_zero_copy_memory_with_ring_caps)
{
  gchar *ch = t_channel ("zc");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstCaps *caps, *want;
  GstMemory *mem;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 7)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (gst_is_doradma_memory (mem));
  fail_unless (GST_MEMORY_IS_READONLY (mem));
  fail_unless (gst_doradma_memory_get_host_pointer (mem) != NULL);
  fail_unless_equals_uint64 (gst_doradma_memory_get_device_pointer (mem), 0);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 7);
  gst_buffer_unmap (buf, &map);
  fail_if (gst_memory_map (mem, &map, GST_MAP_WRITE));
  fail_unless (gst_buffer_get_video_meta (buf) != NULL);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT));

  caps = gst_pad_get_current_caps (h->sinkpad);
  want = gst_caps_from_string (T_CAPS);
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (caps);
  gst_caps_unref (want);
  gst_buffer_unref (buf);

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_beyond_max_leases_frames_are_copied_and_counted)
{
  gchar *ch = t_channel ("quota");
  GstHarness *w = t_sink_new (ch, T_CAPS, "slots=8");
  GstHarness *h;
  GstBuffer *bufs[3];
  guint i;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  h = src_new (ch, "max-leases=2");
  for (i = 0; i < 3; i++) {
    if (i > 0)
      fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS,
                  i)), GST_FLOW_OK);
    bufs[i] = gst_harness_pull (h);
  }
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[0], 0)));
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[1], 0)));
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[2], 0)));
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 1);
  for (i = 0; i < 3; i++) {
    GstMapInfo map;

    gst_buffer_map (bufs[i], &map, GST_MAP_READ);
    fail_unless_equals_int (map.data[0], i);
    gst_buffer_unmap (bufs[i], &map);
    gst_buffer_unref (bufs[i]);
  }

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_copy_mode_delivers_local_memory)
{
  gchar *ch = t_channel ("copymode");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 5)),
      GST_FLOW_OK);
  h = src_new (ch, "copy=true");
  buf = gst_harness_pull (h);
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless_equals_int (map.data[0], 5);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_buffer_fields_and_crop_meta_are_carried)
{
  gchar *ch = t_channel ("fields");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *in = t_sysmem_frame (T_CAPS, 1), *buf;
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (in);

  crop->x = 2;
  crop->y = 4;
  crop->width = 32;
  crop->height = 16;
  GST_BUFFER_DURATION (in) = 33 * GST_MSECOND;
  GST_BUFFER_OFFSET (in) = 12;
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DELTA_UNIT);
  fail_unless_equals_int (gst_harness_push (w, in), GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 33 * GST_MSECOND);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 12);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT));
  crop = gst_buffer_get_video_crop_meta (buf);
  fail_unless (crop != NULL);
  fail_unless_equals_int (crop->x, 2);
  fail_unless_equals_int (crop->width, 32);
  fail_unless_equals_int (crop->height, 16);
  gst_buffer_unref (buf);

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_latency_answer_is_live_with_producer_latency_added)
{
  gchar *ch = t_channel ("latency");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstQuery *q;
  gboolean live;
  GstClockTime min, max;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  h = src_new (ch, "processing-deadline=5000000");
  buf = gst_harness_pull (h);
  gst_buffer_unref (buf);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  /* the harness writer has no latency: min = our deadline */
  fail_unless_equals_uint64 (min, 5 * GST_MSECOND);
  fail_unless (max >= min);
  gst_query_unref (q);

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_eos_after_the_final_frame)
{
  gchar *ch = t_channel ("eos");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstEvent *ev;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (gst_harness_push_event (w, gst_event_new_eos ()));
  while ((ev = gst_harness_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL, "no EOS");

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_latest_mode_delivers_the_newest_frame)
{
  gchar *ch = t_channel ("newest");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;
  guint i;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  h = src_new (ch, "read-mode=latest");
  gst_buffer_unref (gst_harness_pull (h));
  for (i = 1; i <= 4; i++)
    fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, i)),
        GST_FLOW_OK);
  /* the src may already be waiting for frame 1; pull until 4 */
  do {
    buf = gst_harness_pull (h);
    gst_buffer_map (buf, &map, GST_MAP_READ);
    i = map.data[0];
    gst_buffer_unmap (buf, &map);
    gst_buffer_unref (buf);
  } while (i < 4);
  fail_unless_equals_int (i, 4);
  /* every frame is either delivered or counted as skipped */
  fail_unless_equals_uint64 (t_stat (h->element, "frames") +
      t_stat (h->element, "skipped"), 5);

  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_mapping_outlives_the_element_while_buffers_are_held)
{
  gchar *ch = t_channel ("outlive");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 3)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  gst_harness_teardown (h);     /* element gone, buffer still held */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 3);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);       /* releases the lease, closes the reader */

  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

static Suite *
doradmasrc_suite (void)
{
  Suite *s = suite_create ("doradmasrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_have_documented_defaults);
  tcase_add_test (tc, test_missing_channel_times_out_with_not_found);
  tcase_add_test (tc, test_stopping_while_waiting_for_the_channel_is_prompt);
  tcase_add_test (tc,
      test_buffers_are_readonly_zero_copy_memory_with_ring_caps);
  tcase_add_test (tc, test_beyond_max_leases_frames_are_copied_and_counted);
  tcase_add_test (tc, test_copy_mode_delivers_local_memory);
  tcase_add_test (tc, test_buffer_fields_and_crop_meta_are_carried);
  tcase_add_test (tc, test_latency_answer_is_live_with_producer_latency_added);
  tcase_add_test (tc, test_eos_after_the_final_frame);
  tcase_add_test (tc, test_latest_mode_delivers_the_newest_frame);
  tcase_add_test (tc, test_mapping_outlives_the_element_while_buffers_are_held);
  return s;
}

GST_CHECK_MAIN (doradmasrc);
