/* doradma GStreamer plugin — CLOCK_MONOTONIC and the elements' clock map.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <time.h>

#include "gstdoradmaclock.h"

GstClockTime
gst_doradma_monotonic_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (GstClockTime) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

/* Monotonic minus pipeline clock, sampled back to back (as unixfdsink). */
static GstClockTimeDiff
gst_doradma_clock_diff (GstClock * clock)
{
  GstClockTime c = gst_clock_get_time (clock);
  GstClockTime m = gst_doradma_monotonic_now ();

  return GST_CLOCK_DIFF (c, m);
}

void
gst_doradma_clock_map_set_clock (GstDoradmaClockMap * map,
    GstElement * element, GstClock * clock)
{
  GstClockType type = GST_CLOCK_TYPE_REALTIME;

  /* exactly the system clock: a subclass may have a time of its own */
  if (clock && G_OBJECT_TYPE (clock) == GST_TYPE_SYSTEM_CLOCK)
    g_object_get (clock, "clock-type", &type, NULL);
  GST_OBJECT_LOCK (element);
  map->monotonic = type == GST_CLOCK_TYPE_MONOTONIC ? clock : NULL;
  GST_OBJECT_UNLOCK (element);
}

gboolean
gst_doradma_clock_map_offset (GstDoradmaClockMap * map,
    GstElement * element, gint64 * offset)
{
  GstClockTime internal, external, num, denom;
  GstClock *clock;
  GstClockTime base;
  gboolean monotonic;

  GST_OBJECT_LOCK (element);
  clock = GST_ELEMENT_CLOCK (element) ?
      gst_object_ref (GST_ELEMENT_CLOCK (element)) : NULL;
  base = GST_ELEMENT_CAST (element)->base_time;
  monotonic = clock != NULL && clock == map->monotonic;
  GST_OBJECT_UNLOCK (element);
  if (clock == NULL)
    return FALSE;
  if (monotonic) {
    gst_clock_get_calibration (clock, &internal, &external, &num, &denom);
    monotonic = internal == external && num == denom;
  }
  *offset = (gint64) base + (monotonic ? 0 : gst_doradma_clock_diff (clock));
  gst_object_unref (clock);
  return TRUE;
}
