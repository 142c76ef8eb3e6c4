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

/* Frame k of a 30 fps writer that started with our base time, published
 * `published` (CLOCK_MONOTONIC). */
static GstDoradmaConsumerFrame
frame (const Timing * tm, guint k, GstClockTime published)
{
  GstDoradmaConsumerFrame fr = { 0 };

  fr.f.info.seq = k + 1;
  fr.f.info.mono_pts = tm->base + FIRST + k * PERIOD;
  fr.f.info.pts = DORADMA_TIME_NONE;
  fr.f.info.dts = DORADMA_TIME_NONE;
  fr.f.info.duration = PERIOD;
  fr.f.info.publish_time = published;
  return fr;
}

/* Places frame k; pushes it when `push` (stamps a buffer, as create()
 * does), else leaves it as create() does when it was paused meanwhile.
 * Returns its PTS. */
static GstClockTime
place (Timing * tm, guint k, gboolean push)
{
  GstDoradmaConsumerFrame fr = frame (tm, k,
      gst_doradma_monotonic_now () + GST_SECOND);
  GstClockTime pts = GST_CLOCK_TIME_NONE;
  GstBuffer *buf;

  fail_unless (gst_doradma_src_time_place (&tm->t, NULL, &fr, &pts),
      "frame %u was not placed", k);
  fail_unless (GST_CLOCK_TIME_IS_VALID (pts), "frame %u: no PTS", k);
  if (push) {
    buf = gst_buffer_new ();
    gst_doradma_src_time_stamp (&tm->t, buf, &fr, pts);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), pts);
    gst_buffer_unref (buf);
  }
  return pts;
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

  /* PAUSED for 1 s, PLAYING again: the base time moves on by the pause */
  gst_element_set_base_time (tm.element, tm.base + GST_SECOND);
  GST_OBJECT_LOCK (tm.element);
  gst_doradma_src_time_playing (&tm.t);
  GST_OBJECT_UNLOCK (tm.element);

  pts23 = place (&tm, 23, TRUE);
  pts24 = place (&tm, 24, TRUE);
  fail_unless_equals_int64 ((gint64) (pts23 - pts14), 9 * PERIOD);
  fail_unless_equals_int64 ((gint64) (pts24 - pts23), PERIOD);
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
  return s;
}

GST_CHECK_MAIN (srctime);
