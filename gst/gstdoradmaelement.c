/* doradma GStreamer plugin — shared debug category, enum types and helpers.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "gstdoradmaelements.h"

GST_DEBUG_CATEGORY (gst_doradma_debug);

void
gst_doradma_element_init (GstPlugin * plugin)
{
  static gsize res = FALSE;

  if (g_once_init_enter (&res)) {
    GST_DEBUG_CATEGORY_INIT (gst_doradma_debug, "doradma", 0,
        "doradma shared-memory video ring");
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_TRANSPORT, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_READ_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_STALL_POLICY, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_WRITER_LOST, 0);
    g_once_init_leave (&res, TRUE);
  }
}

/* *INDENT-OFF* */
static const GEnumValue transport_values[] = {
  {GST_DORADMA_TRANSPORT_AUTO, "$DORADMA_TRANSPORT when set and not empty, else shmem", "auto"},
  {GST_DORADMA_TRANSPORT_SHMEM, "Slots in POSIX shared memory (no CUDA needed)", "shmem"},
  {GST_DORADMA_TRANSPORT_UNIFIED, "Slots in POSIX shared memory that readers register with CUDA (needs CUDA)", "unified"},
  {GST_DORADMA_TRANSPORT_IPC, "Slots in one CUDA device allocation shared through CUDA IPC (needs a discrete GPU)", "ipc"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_transport_get_type, "GstDoradmaTransport", transport_values)

static const GEnumValue mode_values[] = {
  {GST_DORADMA_MODE_LATEST, "Never wait for readers; slow readers skip frames", "latest"},
  {GST_DORADMA_MODE_LOSSLESS, "Wait until every next-mode reader consumed a frame", "lossless"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_mode_get_type, "GstDoradmaMode", mode_values)

static const GEnumValue read_mode_values[] = {
  {GST_DORADMA_READ_MODE_NEXT, "Every frame in order (lossless writers wait for us)", "next"},
  {GST_DORADMA_READ_MODE_LATEST, "Always the newest frame, skipping older ones", "latest"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_read_mode_get_type, "GstDoradmaReadMode", read_mode_values)

static const GEnumValue stall_values[] = {
  {GST_DORADMA_STALL_WAIT, "Keep waiting for the stalled reader", "wait"},
  {GST_DORADMA_STALL_EVICT, "Evict the stalled reader from back-pressure", "evict"},
  {GST_DORADMA_STALL_ERROR, "Post an error and stop", "error"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_stall_policy_get_type, "GstDoradmaStallPolicy", stall_values)

static const GEnumValue writer_lost_values[] = {
  {GST_DORADMA_WRITER_LOST_WAIT, "Warn and wait for a new writer", "wait"},
  {GST_DORADMA_WRITER_LOST_EOS, "End the stream", "eos"},
  {GST_DORADMA_WRITER_LOST_ERROR, "Post an error", "error"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_writer_lost_get_type, "GstDoradmaWriterLost", writer_lost_values)
/* *INDENT-ON* */

const gchar *
gst_doradma_transport_name (GstDoradmaTransport t)
{
  switch (t) {
    case GST_DORADMA_TRANSPORT_SHMEM:
      return "shmem";
    case GST_DORADMA_TRANSPORT_UNIFIED:
      return "unified";
    case GST_DORADMA_TRANSPORT_IPC:
      return "ipc";
    default:
      return "auto";
  }
}

gboolean
gst_doradma_transport_resolve (GstDoradmaTransport requested,
    GstDoradmaTransport * resolved, gchar ** bad_value)
{
  const gchar *env;

  *resolved = requested;
  if (requested != GST_DORADMA_TRANSPORT_AUTO)
    return TRUE;

  /* The variable overrides `auto` only: an explicit property wins. */
  *resolved = GST_DORADMA_TRANSPORT_SHMEM;
  env = g_getenv ("DORADMA_TRANSPORT");
  if (env == NULL || env[0] == '\0')
    return TRUE;
  if (g_str_equal (env, "auto") || g_str_equal (env, "shmem"))
    *resolved = GST_DORADMA_TRANSPORT_SHMEM;
  else if (g_str_equal (env, "unified"))
    *resolved = GST_DORADMA_TRANSPORT_UNIFIED;
  else if (g_str_equal (env, "ipc"))
    *resolved = GST_DORADMA_TRANSPORT_IPC;
  else {
    *bad_value = g_strdup (env);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_doradma_transport_resolve_or_error (GstElement * element,
    GstDoradmaTransport requested, GstDoradmaTransport * resolved)
{
  gchar *bad = NULL;

  if (gst_doradma_transport_resolve (requested, resolved, &bad))
    return TRUE;
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
      ("Invalid value \"%s\" in the DORADMA_TRANSPORT environment variable",
          bad), ("DORADMA_TRANSPORT must be empty, auto, shmem, unified "
          "or ipc"));
  g_free (bad);
  return FALSE;
}

gboolean
gst_doradma_channel_check_or_error (GstElement * element, const gchar * channel)
{
  struct doradma_diag diag = { 0 };
  int r;

  if (channel == NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("No channel name set"),
        ("set the `channel` property"));
    return FALSE;
  }
  if ((r = doradma_name_validate (channel, &diag)) < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, SETTINGS,
        ("Invalid channel name \"%s\"", channel),
        ("%s: %s", diag.msg, g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, NULL));
    return FALSE;
  }
  return TRUE;
}

void
gst_doradma_plane_needs (const GstVideoInfo * info, guint plane,
    guint32 * rows, guint32 * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint comps[GST_VIDEO_MAX_COMPONENTS];
  guint32 r = 0, rb = 0;
  gboolean exact = !GST_VIDEO_FORMAT_INFO_IS_TILED (finfo);
  guint i;

  gst_video_format_info_component (finfo, plane, comps);
  for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++) {
    gint c = comps[i];
    guint32 h = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c,
        GST_VIDEO_INFO_FIELD_HEIGHT (info));
    guint32 w = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c,
        GST_VIDEO_INFO_WIDTH (info));
    gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);

    r = MAX (r, h);
    if (ps <= 0)
      exact = FALSE;
    else
      rb = MAX (rb, w * (guint32) ps);
  }

  if (!exact) {
    /* Sub-byte, tiled or otherwise packed formats (v210, ...): the default
     * stride of an unpadded layout is what one row needs. */
    GstVideoInfo tight;

    gst_video_info_set_format (&tight, GST_VIDEO_INFO_FORMAT (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
    rb = GST_VIDEO_INFO_PLANE_STRIDE (&tight, plane);
    if (r == 0)
      r = GST_VIDEO_INFO_FIELD_HEIGHT (info);
  }
  *rows = r;
  *row_bytes = rb;
}

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
