/* The slot buffer pool doradmasink proposes upstream (gst-check).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <sys/resource.h>

#include "common.h"

GST_START_TEST (test_proposed_pool_offers_meta_alignment_and_max_zero)
{
  gchar *ch = t_channel ("offer");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstCaps *caps = gst_caps_from_string (T_CAPS);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool;
  guint size, min, max;

  fail_unless (gst_pad_peer_query (h->srcpad, q));
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  fail_unless_equals_int (max, 0);
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_META));
  fail_unless (gst_buffer_pool_has_option (pool,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT));
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  fail_unless (gst_query_find_allocation_meta (q,
          GST_VIDEO_CROP_META_API_TYPE, NULL));
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_caps_unref (caps);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_pool_buffers_are_distinct_writable_slots)
{
  gchar *ch = t_channel ("distinct");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstBuffer *a, *b;
  GstMemory *ma, *mb;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
      GST_FLOW_OK);
  ma = gst_buffer_peek_memory (a, 0);
  mb = gst_buffer_peek_memory (b, 0);
  fail_unless (gst_is_doradma_memory (ma) && gst_is_doradma_memory (mb));
  fail_unless (gst_doradma_memory_get_host_pointer (ma) !=
      gst_doradma_memory_get_host_pointer (mb));
  fail_unless (gst_buffer_is_all_memory_writable (a));
  fail_unless (gst_buffer_get_video_meta (a) != NULL);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* A decoder keeps reference frames in pool buffers after pushing them: the
 * ring must never hand out (or erase) a slot whose memory is still
 * referenced upstream, however old its frame. */
GST_START_TEST (test_slot_held_upstream_is_never_reused_nor_erased)
{
  gchar *ch = t_channel ("held");
  GstHarness *h = t_sink_new (ch, T_CAPS, "slots=3");
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r = t_reader (ch, FALSE);
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *held, *buf;
  gpointer held_ptr;
  guint i;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &held, NULL),
      GST_FLOW_OK);
  held_ptr = gst_doradma_memory_get_host_pointer (gst_buffer_peek_memory
      (held, 0));
  gst_buffer_memset (held, 0, 0x11, gst_buffer_get_size (held));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (held)),
      GST_FLOW_OK);
  /* frame 1 is the oldest from now on, and its buffer is still ours */
  for (i = 0; i < 10; i++) {
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
        GST_FLOW_OK);
    if (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)))
      fail_if (gst_doradma_memory_get_host_pointer (gst_buffer_peek_memory
              (buf, 0)) == held_ptr, "round %u lent the held slot", i);
    gst_buffer_memset (buf, 0, 0x22 + i, gst_buffer_get_size (buf));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  /* the reader joined before frame 1: it is still there, intact */
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_uint64 (frame.info.seq, 1);
  fail_unless_equals_int (frame.data[0], 0x11);
  doradma_reader_release (r, frame.slot);

  gst_buffer_unref (held);
  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_alignment_padding_is_published_as_frame_geometry)
{
  gchar *ch = t_channel ("align");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstVideoAlignment align;
  GstBufferPool *pool;
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *buf;
  GstVideoMeta *meta;

  gst_video_alignment_reset (&align);
  align.padding_right = 64;     /* Y stride 128 instead of 64 */
  pool = t_sink_pool (h, T_CAPS, &align);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->stride[0], 128);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_int (frame.info.planes[0].stride, 128);
  fail_unless_equals_int (frame.info.planes[0].row_bytes, 64);
  fail_unless_equals_int (frame.info.planes[0].rows, 48);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 0);

  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* basesink's last sample would hold the previous frame's slot out of the
 * ring until the next frame came (issue 14: and return it in the next
 * frame's chain call) */
GST_START_TEST (test_no_slot_is_kept_as_last_sample)
{
  gchar *ch = t_channel ("lastsample");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstSample *last = NULL;
  gboolean enabled = TRUE;
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  g_object_get (h->element, "enable-last-sample", &enabled,
      "last-sample", &last, NULL);
  fail_if (enabled);
  fail_unless (last == NULL, "the sink keeps %" GST_PTR_FORMAT, last);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 0);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* A slot published in place is described by its video meta, without a
 * map: a meta whose planes run past the slot is a format error, and
 * nothing is published. */
GST_START_TEST (test_slot_whose_video_meta_overruns_it_is_refused)
{
  gchar *ch = t_channel ("overrun");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r = NULL;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstVideoMeta *meta;
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  meta = gst_buffer_get_video_meta (buf);
  fail_unless (meta != NULL);
  meta->stride[0] = 1 << 20;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 0);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          10 * GST_MSECOND, &frame, &diag), -ETIMEDOUT);

  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_writable_map_of_a_published_slot_makes_a_private_copy)
{
  gchar *ch = t_channel ("cow");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  gst_buffer_memset (buf, 0, 0x10, 16);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  /* upstream still holds it and writes: readers must not see that */
  buf = gst_buffer_make_writable (buf);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  map.data[0] = 0x99;
  gst_buffer_unmap (buf, &map);
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_int (frame.data[frame.info.planes[0].offset], 0x10);
  doradma_reader_release (r, frame.slot);
  gst_buffer_unref (buf);

  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

static gpointer
flush_later (gpointer pool)
{
  g_usleep (100 * 1000);
  gst_buffer_pool_set_flushing (pool, TRUE);
  return NULL;
}

GST_START_TEST (test_lossless_acquire_waits_and_honours_flushing)
{
  gchar *ch = t_channel ("flush");
  GstHarness *h = t_sink_new (ch, T_CAPS, "slots=2 mode=lossless timeout=0");
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstBuffer *a, *b, *c;
  GThread *t;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
      GST_FLOW_OK);
  /* both slots held upstream: lossless waits until flushed */
  t = g_thread_new ("flush", flush_later, pool);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &c, NULL),
      GST_FLOW_FLUSHING);
  g_thread_join (t);
  gst_buffer_pool_set_flushing (pool, FALSE);
  gst_buffer_unref (a);
  /* a slot came back: acquire succeeds again */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &c, NULL),
      GST_FLOW_OK);
  gst_buffer_unref (b);
  gst_buffer_unref (c);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* The sink's pool as an allocation query returns it (not configured by
 * us yet). */
static GstBufferPool *
proposed_pool (GstHarness * h, gboolean need_pool, GstQuery ** query)
{
  GstCaps *caps = gst_caps_from_string (T_CAPS);
  GstQuery *q = gst_query_new_allocation (caps, need_pool);
  GstBufferPool *pool = NULL;

  fail_unless (gst_pad_peer_query (h->srcpad, q));
  if (gst_query_get_n_allocation_pools (q) > 0)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  gst_caps_unref (caps);
  if (query)
    *query = q;
  else
    gst_query_unref (q);
  return pool;
}

/* Finding 10: GstBufferPool's contract: set_config returns FALSE when the
 * pool changed the config, and the changed config validates. */
GST_START_TEST (test_set_config_returns_false_when_it_changed_the_config)
{
  gchar *ch = t_channel ("setconfig");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = proposed_pool (h, TRUE, NULL);
  GstCaps *caps = gst_caps_from_string (T_CAPS), *got;
  GstStructure *config;
  GstVideoInfo info;
  guint size, min, max;

  gst_video_info_from_caps (&info, caps);
  /* a maximum: the ring's slots are not counted here (max 0) */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 2, 5);
  fail_if (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_params (config, &got, &size, &min,
          &max));
  fail_unless_equals_int (max, 0);
  fail_unless_equals_int (min, 2);
  fail_unless (gst_buffer_pool_config_validate_params (config, caps,
          info.size, 2, 5));
  fail_unless (gst_buffer_pool_set_config (pool, config));

  /* a size too small for a frame of the caps: grown */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, 100, 0, 0);
  fail_if (gst_buffer_pool_set_config (pool, config));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_params (config, NULL, &size, NULL,
          NULL));
  fail_unless_equals_int (size, info.size);
  gst_structure_free (config);

  /* growth that the caller's own VIDEO_ALIGNMENT needs is no change: a
   * decoder (avdec_h264) that got FALSE here dropped its alignment */
  {
    GstVideoAlignment align;
    GstVideoInfo padded = info;

    gst_video_alignment_reset (&align);
    align.padding_right = 64;
    align.padding_bottom = 32;
    fail_unless (gst_video_info_align (&padded, &align));
    fail_unless (padded.size > info.size);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment (config, &align);
    fail_unless (gst_buffer_pool_set_config (pool, config));
    config = gst_buffer_pool_get_config (pool);
    fail_unless (gst_buffer_pool_config_get_params (config, NULL, &size, NULL,
            NULL));
    fail_unless_equals_int (size, padded.size);
    gst_structure_free (config);
  }

  gst_caps_unref (caps);
  gst_object_unref (pool);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 11: an allocation query that does not need a pool gets the
 * metas only. */
GST_START_TEST (test_query_without_need_pool_gets_metas_and_no_pool)
{
  gchar *ch = t_channel ("needpool");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstQuery *q = NULL;
  GstBufferPool *pool = proposed_pool (h, FALSE, &q);

  fail_unless (pool == NULL);
  fail_unless_equals_int (gst_query_get_n_allocation_pools (q), 0);
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  fail_unless (gst_query_find_allocation_meta (q,
          GST_VIDEO_CROP_META_API_TYPE, NULL));
  gst_query_unref (q);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* The CUDA slot pool exists for transport=ipc only (device slots): CUDA
 * memory upstream of a host transport gets the video meta and no pool,
 * and the query still succeeds (upstream keeps its own CUDA pool and the
 * frames are copied). Holds on every build, CUDA or not. */
GST_START_TEST (test_cuda_caps_on_a_host_transport_get_no_pool)
{
  gchar *ch = t_channel ("cudacaps");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory),"
      "format=I420,width=64,height=48,framerate=30/1");
  GstQuery *q = gst_query_new_allocation (caps, TRUE);

  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless_equals_int (gst_query_get_n_allocation_pools (q), 0);
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  gst_query_unref (q);
  gst_caps_unref (caps);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

static gpointer
acquire_in_thread (gpointer pool)
{
  GstBuffer *buf = NULL;
  GstFlowReturn ret = gst_buffer_pool_acquire_buffer (pool, &buf, NULL);

  if (buf)
    gst_buffer_unref (buf);
  return GINT_TO_POINTER (ret);
}

static glong
voluntary_switches (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_nvcsw;
}

/* Finding 18: while the sink is unlocked (between unlock and unlock_stop)
 * a pool acquisition waiting for space sleeps; it does not poll. */
GST_START_TEST (test_waiting_acquire_does_not_poll_while_the_sink_is_unlocked)
{
  gchar *ch = t_channel ("nopoll");
  GstHarness *h = t_sink_new (ch, T_CAPS, "slots=2 mode=lossless timeout=0");
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstBaseSinkClass *klass = GST_BASE_SINK_GET_CLASS (h->element);
  GstBuffer *a, *b;
  GThread *t;
  glong before, switches;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
      GST_FLOW_OK);
  t = g_thread_new ("acquire", acquire_in_thread, pool);
  g_usleep (50 * 1000);
  klass->unlock (GST_BASE_SINK (h->element));
  before = voluntary_switches ();
  g_usleep (300 * 1000);
  switches = voluntary_switches () - before;
  /* sleeping in wait slices of tens of ms: a handful; a 1 ms poll: ~300 */
  fail_unless (switches < 60, "%ld context switches in 300 ms", switches);
  klass->unlock_stop (GST_BASE_SINK (h->element));
  /* a slot comes back: the waiting acquisition gets it */
  gst_buffer_unref (a);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (t)), GST_FLOW_OK);
  gst_buffer_unref (b);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* Finding 19: two pieces of one slot, back to back, are a span (merging
 * buffers takes the slot instead of copying). */
GST_START_TEST (test_adjacent_shares_of_a_slot_are_a_span)
{
  gchar *ch = t_channel ("span");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstMemory *mem, *x, *y, *z;
  GstBuffer *buf;
  gsize offset = 99;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  mem = gst_buffer_peek_memory (buf, 0);
  x = gst_memory_share (mem, 0, 100);
  y = gst_memory_share (mem, 100, 100);
  z = gst_memory_share (mem, 300, 100);
  fail_unless (gst_memory_is_span (x, y, &offset));
  fail_unless_equals_int (offset, 0);
  fail_if (gst_memory_is_span (x, z, NULL));
  gst_memory_unref (x);
  gst_memory_unref (y);
  gst_memory_unref (z);
  gst_buffer_unref (buf);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

static Suite *
pool_suite (void)
{
  Suite *s = suite_create ("doradmapool");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_proposed_pool_offers_meta_alignment_and_max_zero);
  tcase_add_test (tc, test_pool_buffers_are_distinct_writable_slots);
  tcase_add_test (tc, test_slot_held_upstream_is_never_reused_nor_erased);
  tcase_add_test (tc, test_alignment_padding_is_published_as_frame_geometry);
  tcase_add_test (tc,
      test_writable_map_of_a_published_slot_makes_a_private_copy);
  tcase_add_test (tc, test_lossless_acquire_waits_and_honours_flushing);
  tcase_add_test (tc, test_set_config_returns_false_when_it_changed_the_config);
  tcase_add_test (tc, test_query_without_need_pool_gets_metas_and_no_pool);
  tcase_add_test (tc, test_cuda_caps_on_a_host_transport_get_no_pool);
  tcase_add_test (tc,
      test_waiting_acquire_does_not_poll_while_the_sink_is_unlocked);
  tcase_add_test (tc, test_adjacent_shares_of_a_slot_are_a_span);
  tcase_add_test (tc, test_no_slot_is_kept_as_last_sample);
  tcase_add_test (tc, test_slot_whose_video_meta_overruns_it_is_refused);
  return s;
}

GST_CHECK_MAIN (pool);
