/* doradma GStreamer plugin — doradmasrc's frame timing (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmasrctime.h"
#include "gstdoradmasrcframe.h"

/* the element's own category (gstdoradmasrc.c) */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

void
gst_doradma_src_time_init (GstDoradmaSrcTime * t, GstElement * element)
{
  memset (t, 0, sizeof (*t));
  t->element = element;
}

void
gst_doradma_src_time_start (GstDoradmaSrcTime * t, GstDoradmaReadMode read_mode)
{
  t->played = FALSE;
  g_atomic_int_set (&t->resync, FALSE);
  t->read_mode = read_mode;
  t->discont = TRUE;
  t->pushed = FALSE;
  t->last_pts = 0;
  t->rebase = 0;
  t->placed_rebase = 0;
  t->last_mono_pts = DORADMA_TIME_NONE;
}

void
gst_doradma_src_time_playing (GstDoradmaSrcTime * t)
{
  if (t->played) {
    t->resume_mono = gst_doradma_monotonic_now ();
    g_atomic_int_set (&t->resync, TRUE);
  }
  t->played = TRUE;
}

void
gst_doradma_src_time_drop (GstDoradmaSrcTime * t,
    GstDoradmaConsumer * consumer, GstDoradmaConsumerFrame * fr)
{
  gst_doradma_consumer_drop (consumer, fr);
  t->discont = TRUE;
}

/* The frame's capture time in our running time (negative when before our
 * base time); FALSE without a clock. A writer that gave no mono_pts
 * (dora) captured it now. */
static gboolean
capture_running_time (GstDoradmaSrcTime * t,
    const struct doradma_frame_info *fi, gint64 * rt)
{
  GstClock *clock;
  gint64 offset;

  if (fi->mono_pts != DORADMA_TIME_NONE) {
    if (!gst_doradma_clock_map_offset (&t->clock_map, t->element, &offset))
      return FALSE;
    *rt = (gint64) fi->mono_pts - offset;
    return TRUE;
  }
  clock = gst_element_get_clock (t->element);
  if (clock == NULL)
    return FALSE;
  *rt = (gint64) gst_clock_get_time (clock) -
      (gint64) gst_element_get_base_time (t->element);
  gst_object_unref (clock);
  return TRUE;
}

/* After a PAUSED → PLAYING that was not the first: was the frame
 * published before we resumed? (Until the first one that was not.) */
static gboolean
published_before_resume (GstDoradmaSrcTime * t,
    const struct doradma_frame_info *fi)
{
  GstClockTime resume;

  if (!g_atomic_int_get (&t->resync))
    return FALSE;
  GST_OBJECT_LOCK (t->element);
  resume = t->resume_mono;
  GST_OBJECT_UNLOCK (t->element);
  if (fi->publish_time < resume)
    return TRUE;
  g_atomic_int_set (&t->resync, FALSE);
  return FALSE;
}

/* A late joiner gets no run of PTS 0 from the frames a producer with
 * latency publishes after the join but captured before our base time:
 * `latest` drops them (the first frame goes out at 0), `next` (which must
 * not lose frames of a lossless writer) shifts its running times once, by
 * what the first frame was early, so PTS keep the capture spacing. The
 * same after a pause: a lossless writer waited for us, so frames captured
 * during the pause come after the resume, mapped before it; `next` shifts
 * again, so that they keep the capture spacing instead of a run 1 ns
 * apart. PTS never repeat nor go backwards (1 ns after the previous one
 * at worst: capture times that do not advance). */
gboolean
gst_doradma_src_time_place (GstDoradmaSrcTime * t,
    GstDoradmaConsumer * consumer, GstDoradmaConsumerFrame * fr,
    GstClockTime * pts)
{
  gboolean resuming = published_before_resume (t, &fr->f.info);
  gint64 rt = 0;
  gboolean timed = capture_running_time (t, &fr->f.info, &rt);
  /* the shift becomes ours only when the frame goes out (stamp()) */
  GstClockTime rebase = t->rebase;

  if (resuming || (timed && rt < 0 && fr->backlog)) {
    /* stale: a newer frame, if there is one, replaces it */
    if (gst_doradma_consumer_skip_to_newest (consumer, fr)) {
      t->discont = TRUE;
      return FALSE;
    }
    if (resuming) {
      GST_LOG_OBJECT (t->element, "seq %" G_GUINT64_FORMAT " was published "
          "while we were paused: dropped", fr->f.info.seq);
      gst_doradma_src_time_drop (t, consumer, fr);
      return FALSE;
    }
  }
  if (!timed) {
    *pts = GST_CLOCK_TIME_NONE;
    return TRUE;
  }
  if (rt < 0 && t->read_mode == GST_DORADMA_READ_MODE_LATEST && t->pushed) {
    GST_LOG_OBJECT (t->element, "seq %" G_GUINT64_FORMAT " was captured "
        "before our base time: dropped", fr->f.info.seq);
    gst_doradma_src_time_drop (t, consumer, fr);
    return FALSE;
  }
  if (rt < 0 && !t->pushed)
    rebase = -rt;
  if (t->read_mode == GST_DORADMA_READ_MODE_NEXT) {
    guint64 mono = fr->f.info.mono_pts;

    rt += rebase;
    /* capture times compared on the writer's clock: our running time
     * jumped at the resume */
    if (t->pushed && rt <= (gint64) t->last_pts && mono != DORADMA_TIME_NONE
        && t->last_mono_pts != DORADMA_TIME_NONE && mono > t->last_mono_pts) {
      gint64 spaced = (gint64) t->last_pts + (gint64) (mono - t->last_mono_pts);

      GST_LOG_OBJECT (t->element, "seq %" G_GUINT64_FORMAT " was captured "
          "%" G_GINT64_FORMAT " ns before the previous frame's PTS: "
          "running times shifted to keep the capture spacing",
          fr->f.info.seq, (gint64) t->last_pts - rt);
      rebase += spaced - rt;
      rt = spaced;
    }
  }
  t->placed_rebase = rebase;
  *pts = MAX (rt, 0);
  if (t->pushed && *pts <= t->last_pts)
    *pts = t->last_pts + 1;
  return TRUE;
}

void
gst_doradma_src_time_stamp (GstDoradmaSrcTime * t, GstBuffer * buf,
    const GstDoradmaConsumerFrame * fr, GstClockTime pts)
{
  /* the frame meta is the output's (gst_doradma_src_output_frame) */
  gst_doradma_frame_set_buffer_fields (buf, &fr->f.info, pts);
  /* the writer's DISCONT (restored with the carried flags) stays; ours
   * (a skip, a join, a new writer) is added */
  if (t->discont || fr->discont || (fr->f.info.flags & GST_BUFFER_FLAG_DISCONT))
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  else
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  t->discont = FALSE;
  t->pushed = TRUE;
  /* the spacing and the shift are kept from the last frame that went
   * out: one placed and then dropped (paused while we waited) must not
   * move them */
  if (GST_CLOCK_TIME_IS_VALID (pts)) {
    t->last_pts = pts;
    t->last_mono_pts = fr->f.info.mono_pts;
    t->rebase = t->placed_rebase;
  }
}
