/* doradma GStreamer plugin — CLOCK_MONOTONIC (the clock of publish_time and
 * mono_pts) and how an element maps its running times to it.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_CLOCK_H__
#define __GST_DORADMA_CLOCK_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Nanoseconds of CLOCK_MONOTONIC, the clock of publish_time and mono_pts. */
GstClockTime gst_doradma_monotonic_now (void);

/* How an element maps its running times to CLOCK_MONOTONIC (the clock of
 * mono_pts): base time + (monotonic − pipeline clock), sampled per frame,
 * except on GStreamer's system clock on CLOCK_MONOTONIC (the default
 * pipeline clock) with its calibration untouched: its time is
 * CLOCK_MONOTONIC's, so no clock is read. */
typedef struct
{
  GstClock *monotonic;          /* the element's clock, when it is such a
                                 * clock; compared, never dereferenced */
} GstDoradmaClockMap;

/* From the element's set_clock, before chaining up. A clock's clock-type
 * changed while it is set is seen when it is set again (next PLAYING). */
void gst_doradma_clock_map_set_clock (GstDoradmaClockMap * map,
    GstElement * element, GstClock * clock);
/* CLOCK_MONOTONIC at `element`'s running time 0; FALSE without a clock. */
gboolean gst_doradma_clock_map_offset (GstDoradmaClockMap * map,
    GstElement * element, gint64 * offset);

G_END_DECLS
#endif /* __GST_DORADMA_CLOCK_H__ */
