/* doradmasrc's frame timing (gstdoradmasrctime.c) driven step by step,
 * without a pipeline: each sequence the streaming thread can meet is
 * forced here, in the order the test writes, whatever the load.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/check/gstcheck.h>

#include "gstdoradmasrctime.h"

#define PERIOD (GST_SECOND / 30)
#define FIRST (100 * GST_MSECOND)       /* frame 0's running time */

typedef struct
{
  GstElement *element;
  GstClock *clock;
  GstClockTime base;
  GstDoradmaSrcTime t;
} Timing;

/* A source in `next` mode that has just started playing, on the monotonic
 * system clock (running time = writer's CLOCK_MONOTONIC - base time). */
static void
timing_start (Timing * tm)
{
  tm->element = gst_object_ref_sink (gst_bin_new (NULL));
  tm->clock = gst_system_clock_obtain ();
  fail_unless (gst_element_set_clock (tm->element, tm->clock));
  tm->base = gst_doradma_monotonic_now ();
  gst_element_set_base_time (tm->element, tm->base);
  gst_doradma_src_time_init (&tm->t, tm->element);
  gst_doradma_clock_map_set_clock (&tm->t.clock_map, tm->element, tm->clock);
  GST_OBJECT_LOCK (tm->element);
  gst_doradma_src_time_start (&tm->t, GST_DORADMA_READ_MODE_NEXT);
  gst_doradma_src_time_playing (&tm->t);
  GST_OBJECT_UNLOCK (tm->element);
}

static void
timing_free (Timing * tm)
{
  gst_object_unref (tm->clock);
  gst_object_unref (tm->element);
}

/* A frame of the writer, captured `mono` (CLOCK_MONOTONIC), published
 * `published`. */
static GstDoradmaConsumerFrame
frame (guint64 seq, GstClockTime mono, GstClockTime published)
{
  GstDoradmaConsumerFrame fr = { 0 };

  fr.f.info.seq = seq;
  fr.f.info.mono_pts = mono;
  fr.f.info.pts = DORADMA_TIME_NONE;
  fr.f.info.dts = DORADMA_TIME_NONE;
  fr.f.info.duration = PERIOD;
  fr.f.info.publish_time = published;
  return fr;
}

/* Places the frame captured `mono`; pushes it when `push` (stamps a
 * buffer, as create() does), else leaves it as create() does when it was
 * paused meanwhile. Returns its PTS. */
static GstClockTime
place_captured (Timing * tm, guint64 seq, GstClockTime mono, gboolean push)
{
  GstDoradmaConsumerFrame fr = frame (seq, mono,
      gst_doradma_monotonic_now () + GST_SECOND);
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstBuffer *buf;

  fail_unless (gst_doradma_src_time_place (&tm->t, NULL, &fr, &pts),
      "seq %" G_GUINT64_FORMAT " was not placed", seq);
  fail_unless (GST_CLOCK_TIME_IS_VALID (pts),
      "seq %" G_GUINT64_FORMAT ": no PTS", seq);
  if (push) {
    buf = gst_buffer_new ();
    gst_doradma_src_time_stamp (&tm->t, buf, &fr, pts);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
    gst_buffer_unref (buf);
  }
  return pts;
}

/* Frame k of a 30 fps writer that started with our base time. */
static GstClockTime
place (Timing * tm, guint k, gboolean push)
{
  return place_captured (tm, k + 1, tm->base + FIRST + k * PERIOD, push);
}

/* PAUSED for 1 s, then PLAYING again: the base time moves on by the
 * pause (`paused` seconds of pause so far, this one included). */
static void
pause_one_second (Timing * tm, guint paused)
{
  gst_element_set_base_time (tm->element, tm->base + paused * GST_SECOND);
  GST_OBJECT_LOCK (tm->element);
  gst_doradma_src_time_playing (&tm->t);
  GST_OBJECT_UNLOCK (tm->element);
}

/* The race lossless-pause-pts met on a busy machine: create() placed
 * frame 15, then saw the element paused meanwhile and dropped it. After a
 * 1 s pause, the first frame that goes out (23, captured during the pause,
 * so mapped before the previous PTS) must keep the capture spacing from
 * frame 14, the last one pushed: 9 periods, not 8 (from the dropped 15). */
GST_START_TEST (test_a_frame_placed_but_not_pushed_leaves_the_spacing_alone)
{
  Timing tm = { 0 };
  GstClockTime pts14 = 0, pts23, pts24;
  guint k;

  timing_start (&tm);
  for (k = 0; k <= 14; k++) {
    pts14 = place (&tm, k, TRUE);
    fail_unless_equals_uint64 (pts14, FIRST + k * PERIOD);
  }
  place (&tm, 15, FALSE);
  pause_one_second (&tm, 1);

  pts23 = place (&tm, 23, TRUE);
  pts24 = place (&tm, 24, TRUE);
  fail_unless_equals_int64 ((gint64) (pts23 - pts14), 9 * PERIOD);
  fail_unless_equals_int64 ((gint64) (pts24 - pts23), PERIOD);
  timing_free (&tm);
}

GST_END_TEST;

/* A late joiner's first frame, captured 50 ms before our base time, is
 * shifted to PTS 0, but create() saw the element paused and dropped it.
 * The first frame that goes out after the resume was captured after the
 * (new) base time: it keeps its own running time, without the dropped
 * frame's 50 ms shift. */
GST_START_TEST (test_a_first_frame_placed_but_not_pushed_leaves_no_shift)
{
  Timing tm = { 0 };
  GstClockTime early = 50 * GST_MSECOND;

  timing_start (&tm);
  fail_unless_equals_uint64 (place_captured (&tm, 1, tm.base - early, FALSE),
      0);
  pause_one_second (&tm, 1);

  fail_unless_equals_uint64 (place_captured (&tm, 2,
          tm.base + GST_SECOND + FIRST, TRUE), FIRST);
  fail_unless_equals_uint64 (place_captured (&tm, 3,
          tm.base + GST_SECOND + FIRST + PERIOD, TRUE), FIRST + PERIOD);
  timing_free (&tm);
}

GST_END_TEST;

/* A late joiner's first frame, captured 50 ms before our base time, goes
 * out at PTS 0; the shift stays: the next one, captured 100 ms later,
 * goes out 100 ms later, not at its own running time (50 ms). */
GST_START_TEST (test_a_late_joiners_shift_stays_after_its_first_frame)
{
  Timing tm = { 0 };
  GstClockTime early = 50 * GST_MSECOND;

  timing_start (&tm);
  fail_unless_equals_uint64 (place_captured (&tm, 1, tm.base - early, TRUE), 0);
  fail_unless_equals_uint64 (place_captured (&tm, 2,
          tm.base - early + 100 * GST_MSECOND, TRUE), 100 * GST_MSECOND);
  timing_free (&tm);
}

GST_END_TEST;

/* After a first pause, frame 23 (captured during it) is placed with a
 * shift that keeps the capture spacing from frame 14, then dropped: paused
 * again. After the second pause, frame 54 (captured during it, so mapped
 * before frame 14's PTS without the dropped frame's shift) keeps the
 * capture spacing from frame 14, the last one pushed: 40 periods. With
 * the dropped frame's 1 s shift kept, it would map after frame 14's PTS
 * and go out about 10 periods after it. */
GST_START_TEST (test_a_frame_placed_but_not_pushed_leaves_the_shift_alone)
{
  Timing tm = { 0 };
  GstClockTime pts14 = 0, pts54;
  guint k;

  timing_start (&tm);
  for (k = 0; k <= 14; k++)
    pts14 = place (&tm, k, TRUE);
  pause_one_second (&tm, 1);
  fail_unless_equals_int64 ((gint64) (place (&tm, 23, FALSE) - pts14),
      9 * PERIOD);
  pause_one_second (&tm, 2);

  pts54 = place (&tm, 54, TRUE);
  fail_unless_equals_int64 ((gint64) (pts54 - pts14), 40 * PERIOD);
  fail_unless_equals_int64 ((gint64) (place (&tm, 55, TRUE) - pts54), PERIOD);
  timing_free (&tm);
}

GST_END_TEST;

static Suite *
srctime_suite (void)
{
  Suite *s = suite_create ("srctime");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc,
      test_a_frame_placed_but_not_pushed_leaves_the_spacing_alone);
  tcase_add_test (tc, test_a_late_joiners_shift_stays_after_its_first_frame);
  tcase_add_test (tc, test_a_first_frame_placed_but_not_pushed_leaves_no_shift);
  tcase_add_test (tc,
      test_a_frame_placed_but_not_pushed_leaves_the_shift_alone);
  return s;
}

GST_CHECK_MAIN (srctime);
