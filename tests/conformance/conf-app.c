/* conf-app: the application of the conformance tests, producer or consumer.
 * It runs a pipeline given in gst-launch syntax. With `appsink name=out` in
 * it, it prints one line per frame in checksumsink's format
 * ("H:MM:SS.NNNNNNNNN <sha1>", so tests/multiproc/mp.c parses it), where
 * the SHA-1 covers only the visible bytes of each row read at the DEFAULT
 * layout of the caps
 * (offsets and strides of gst_video_info_from_caps, never a GstVideoMeta):
 * appsink does not take GstVideoMeta, so that is the layout its buffers must
 * have, and row padding (uninitialised in any decoder or pool) is left out.
 *
 * Other lines: "frame n=N pts=NS discont=0|1 latency=NS size=BYTES at=US"
 * per frame (latency: the sink's configured latency then; at: the
 * CLOCK_MONOTONIC microseconds just after that latency was read),
 * "element NAME: STRUCTURE" per element message, "latency-message" when a
 * LATENCY message arrived (the app recalculates, as gst-launch does), "paused
 * start-time=NS" (the running time it paused at) / "resumed",
 * "WARNING from=ELEMENT: MESSAGE" per warning, and "ERROR domain=D code=C
 * from=ELEMENT: MESSAGE | DEBUG" (exit 1).
 *
 * At the end, when an element is named "src" and has a "stats" property,
 * "final STRUCTURE" with its value.
 *
 * Options: --frames N (stop with exit 0 after N frames; with --hold-last,
 * the app keeps a reference on frame N's buffer, sets the pipeline to NULL,
 * prints "holding sha1=SHA1" and runs on until SIGINT/SIGTERM, then prints
 * "held sha1=SHA1" of that buffer's bytes then, and drops it), --pause-after N
 * --pause-ms MS (PAUSED after N frames for MS, then PLAYING), --timeout S
 * (exit 2 after S seconds).
 *
 * Producer side: --appsrc-frames N pushes N generated frames (content a
 * function of the frame number only, caps from the appsrc's `caps`) into
 * `appsrc name=in`; --replay, after the first EOS, sets `wait-for-readers=1`
 * on the element named "sink", prints "replay", seeks (FLUSH) back to 0,
 * prints "replaying" once the seek returned, and ends at the second EOS (a
 * looping player); --stop-ms MS plays only [0, MS] (a seek in PAUSED,
 * before PLAYING; the replay too); --set ELEMENT:PROPERTY=VALUE with
 * --set-after-ms MS sets a property MS after PLAYING (prints "set ...").
 * "sink-latency NS buffer N old-until=US" is printed
 * when buffer N (from 1) reaches the element named "sink" and its
 * configured latency changed; old-until: the CLOCK_MONOTONIC microseconds
 * just before buffer N-1's read found the old value (0 for buffer 1), so
 * the sink's latency was the old one until then.
 * SIGINT/SIGTERM stop the pipeline cleanly (exit 0).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib-unix.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>
#include <stdlib.h>

static GstElement *pipeline;
static GMainLoop *loop;
static gint64 frames_max = -1, pause_after = -1, pause_ms;
static gint64 n_frames;
static int exit_code;
static gint64 appsrc_frames = -1;
static gboolean replay, replaying;
static gint64 stop_ms, set_after_ms;
static gchar *set_what;
static gboolean hold_last;
static gboolean signalled, timed_out_already;   /* ends the hold */
static GstBuffer *held;         /* --hold-last: frame N, kept past NULL */
static GstVideoInfo held_info;

/* SHA-1 of the visible bytes of every row of every plane, at the default
 * layout of `info`. Formats whose rows are whole pixels (I420, NV12, RGBA,
 * GRAY8...): the row length is the first component's width × pixel stride. */
static gchar *
visible_sha1 (const GstVideoInfo * info, const guint8 * data, gsize size)
{
  GChecksum *ck = g_checksum_new (G_CHECKSUM_SHA1);
  gchar *hex;

  if (size < GST_VIDEO_INFO_SIZE (info)) {
    gchar *why = g_strdup_printf ("short buffer: %" G_GSIZE_FORMAT " < %"
        G_GSIZE_FORMAT, size, GST_VIDEO_INFO_SIZE (info));

    g_checksum_update (ck, (const guchar *) why, -1);
    g_printerr ("%s\n", why);
    g_free (why);
  } else {
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      gint comp[GST_VIDEO_MAX_COMPONENTS];
      guint w, h, row;

      gst_video_format_info_component (info->finfo, p, comp);
      w = GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]);
      h = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
      row = w * GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
      for (guint y = 0; y < h; y++)
        g_checksum_update (ck, data + GST_VIDEO_INFO_PLANE_OFFSET (info, p)
            + (gsize) y * GST_VIDEO_INFO_PLANE_STRIDE (info, p), row);
    }
  }
  hex = g_strdup (g_checksum_get_string (ck));
  g_checksum_free (ck);
  return hex;
}

static gboolean
quit_idle (gpointer data)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static gboolean
resume (gpointer data)
{
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  printf ("resumed\n");
  return G_SOURCE_REMOVE;
}

static gboolean
pause_now (gpointer data)
{
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  /* the running time the pipeline stopped at, where it resumes: frames
   * captured during the pause map to running times before it */
  printf ("paused start-time=%" G_GUINT64_FORMAT "\n",
      (guint64) gst_element_get_start_time (pipeline));
  g_timeout_add (pause_ms, resume, NULL);
  return G_SOURCE_REMOVE;
}

static GstFlowReturn
new_sample (GstAppSink * sink, gpointer data)
{
  GstSample *sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf;
  GstVideoInfo info;
  GstMapInfo map;
  GstClockTime pts, latency;
  gint64 at;
  gchar *hex;

  if (sample == NULL)
    return GST_FLOW_EOS;
  buf = gst_sample_get_buffer (sample);
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample)) ||
      !gst_buffer_map (buf, &map, GST_MAP_READ)) {
    printf ("ERROR domain=conf-app code=0 (map) from=out: cannot read a "
        "frame | caps %" GST_PTR_FORMAT "\n", gst_sample_get_caps (sample));
    gst_sample_unref (sample);
    exit_code = 1;
    g_idle_add (quit_idle, NULL);
    return GST_FLOW_ERROR;
  }
  hex = visible_sha1 (&info, map.data, map.size);
  pts = GST_BUFFER_PTS (buf);
  n_frames++;
  /* at is taken after the read: the latency was that value until then */
  latency = gst_base_sink_get_latency (GST_BASE_SINK (sink));
  at = g_get_monotonic_time ();
  /* one printf: the main thread's lines never fall between the two */
  printf ("frame n=%" G_GINT64_FORMAT " pts=%" G_GINT64_FORMAT " discont=%d "
      "latency=%" G_GUINT64_FORMAT " size=%" G_GSIZE_FORMAT " at=%"
      G_GINT64_FORMAT "\n%" GST_TIME_FORMAT " %s\n", n_frames,
      GST_CLOCK_TIME_IS_VALID (pts) ? (gint64) pts : (gint64) - 1,
      GST_BUFFER_IS_DISCONT (buf) ? 1 : 0, (guint64) latency, map.size, at,
      GST_TIME_ARGS (pts), hex);
  g_free (hex);
  gst_buffer_unmap (buf, &map);
  if (hold_last && n_frames == frames_max) {
    held = gst_buffer_ref (buf);
    held_info = info;
  }
  gst_sample_unref (sample);

  if (n_frames == pause_after)
    g_idle_add (pause_now, NULL);
  if (n_frames == frames_max) {
    g_idle_add (quit_idle, NULL);
    return GST_FLOW_EOS;
  }
  return GST_FLOW_OK;
}

/* "GST_CORE_ERROR_NEGOTIATION" for a core error with that code, etc. */
static const gchar *
error_name (const GError * err)
{
  GType type = G_TYPE_INVALID;
  GEnumClass *klass;
  GEnumValue *v;
  const gchar *name;

  if (err->domain == GST_CORE_ERROR)
    type = GST_TYPE_CORE_ERROR;
  else if (err->domain == GST_LIBRARY_ERROR)
    type = GST_TYPE_LIBRARY_ERROR;
  else if (err->domain == GST_RESOURCE_ERROR)
    type = GST_TYPE_RESOURCE_ERROR;
  else if (err->domain == GST_STREAM_ERROR)
    type = GST_TYPE_STREAM_ERROR;
  if (type == G_TYPE_INVALID)
    return "?";
  klass = g_type_class_ref (type);
  v = g_enum_get_value (klass, err->code);
  name = v ? v->value_name : "?";
  g_type_class_unref (klass);
  return name;
}

/* FLUSH seek to 0, stopping at --stop-ms when given */
static gboolean
seek_to_start (void)
{
  return gst_element_seek (pipeline, 1.0, GST_FORMAT_TIME,
      GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET, 0,
      stop_ms > 0 ? GST_SEEK_TYPE_SET : GST_SEEK_TYPE_NONE,
      stop_ms > 0 ? (GstClockTime) stop_ms * GST_MSECOND : GST_CLOCK_TIME_NONE);
}

static void
start_replay (void)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  /* the replay waits for a consumer that joins now */
  if (sink)
    g_object_set (sink, "wait-for-readers", 1, NULL);
  gst_clear_object (&sink);
  printf ("replay\n");
  if (!seek_to_start ()) {
    printf ("ERROR domain=conf-app code=0 (seek) from=app: the flushing seek "
        "to 0 after EOS was refused | \n");
    exit_code = 1;
    g_main_loop_quit (loop);
    return;
  }
  /* the flush went through the sink: the replay is under way */
  printf ("replaying\n");
}

/* Every buffer reaching "sink": prints its configured latency when it
 * changed (the pipeline distributes it after the live source started, so
 * the first buffers may still see 0). */
static GstPadProbeReturn
buffer_at_sink (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  static GstClockTime printed = GST_CLOCK_TIME_NONE;
  static guint64 n;
  static gint64 before_last;
  GstElement *sink = gst_pad_get_parent_element (pad);
  gint64 before = g_get_monotonic_time ();
  GstClockTime latency = gst_base_sink_get_latency (GST_BASE_SINK (sink));

  gst_object_unref (sink);
  n++;
  if (latency != printed) {
    printf ("sink-latency %" G_GUINT64_FORMAT " buffer %" G_GUINT64_FORMAT
        " old-until=%" G_GINT64_FORMAT "\n", (guint64) latency, n, before_last);
    printed = latency;
  }
  before_last = before;
  return GST_PAD_PROBE_OK;
}

/* Frame i of --appsrc-frames: every byte a function of (i, offset), so a
 * reference run of the same app makes the same frames. */
static gpointer
push_frames (gpointer data)
{
  GstAppSrc *in = data;
  GstCaps *caps = gst_app_src_get_caps (in);
  GstVideoInfo info;
  GstClockTime dur;

  if (caps == NULL || !gst_video_info_from_caps (&info, caps)) {
    g_printerr ("appsrc needs fixed video caps\n");
    exit (2);
  }
  dur = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&info),
      MAX (GST_VIDEO_INFO_FPS_N (&info), 1));
  for (gint64 i = 0; i < appsrc_frames; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstMapInfo map;
    guint32 x = 0x9e3779b9u * (guint32) (i + 1);

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (gsize o = 0; o < map.size; o++) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      map.data[o] = (guint8) x;
    }
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = i * dur;
    GST_BUFFER_DURATION (buf) = dur;
    if (gst_app_src_push_buffer (in, buf) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream (in);
  gst_caps_unref (caps);
  return NULL;
}

/* --set ELEMENT:PROPERTY=VALUE, --set-after-ms after PLAYING */
static gboolean
set_property_now (gpointer data)
{
  gchar **kv = g_strsplit_set (set_what, ":=", 3);
  GstElement *e = kv[0] && kv[1] && kv[2] ?
      gst_bin_get_by_name (GST_BIN (pipeline), kv[0]) : NULL;

  if (e == NULL) {
    printf ("ERROR domain=conf-app code=0 (set) from=app: cannot set %s | \n",
        set_what);
    exit_code = 1;
    g_main_loop_quit (loop);
  } else {
    gst_util_set_object_arg (G_OBJECT (e), kv[1], kv[2]);
    printf ("set %s\n", set_what);
    gst_object_unref (e);
  }
  g_strfreev (kv);
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer data)
{
  printf ("stopping on a signal\n");
  signalled = TRUE;
  g_main_loop_quit (loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_message (GstBus * bus, GstMessage * msg, gpointer data)
{
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ERROR:{
      GError *err = NULL;
      gchar *debug = NULL;

      gst_message_parse_error (msg, &err, &debug);
      /* one line: tests read it with the rest of the text */
      g_strdelimit (err->message, "\n", ' ');
      if (debug)
        g_strdelimit (debug, "\n", ' ');
      printf ("ERROR domain=%s code=%d (%s) from=%s: %s | %s\n",
          g_quark_to_string (err->domain), err->code, error_name (err),
          GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message,
          debug ? debug : "");
      g_clear_error (&err);
      g_free (debug);
      exit_code = 1;
      g_main_loop_quit (loop);
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *err = NULL;

      gst_message_parse_warning (msg, &err, NULL);
      g_strdelimit (err->message, "\n", ' ');
      printf ("WARNING from=%s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          err->message);
      g_clear_error (&err);
      break;
    }
    case GST_MESSAGE_EOS:
      printf ("eos\n");
      if (replay && !replaying) {
        replaying = TRUE;
        start_replay ();
      } else {
        g_main_loop_quit (loop);
      }
      break;
    case GST_MESSAGE_LATENCY:
      printf ("latency-message\n");
      gst_bin_recalculate_latency (GST_BIN (pipeline));
      break;
    case GST_MESSAGE_ELEMENT:{
      gchar *s = gst_structure_to_string (gst_message_get_structure (msg));

      printf ("element %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), s);
      g_free (s);
      break;
    }
    default:
      break;
  }
  return TRUE;
}

static gboolean
timed_out (gpointer data)
{
  printf ("ERROR domain=conf-app code=0 (timeout) from=app: timed out | \n");
  exit_code = 2;
  timed_out_already = TRUE;
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  gdouble timeout_s = 60;
  GOptionEntry entries[] = {
    {"frames", 0, 0, G_OPTION_ARG_INT64, &frames_max, "stop after N", "N"},
    {"pause-after", 0, 0, G_OPTION_ARG_INT64, &pause_after, "pause after N",
        "N"},
    {"pause-ms", 0, 0, G_OPTION_ARG_INT64, &pause_ms, "pause for MS", "MS"},
    {"timeout", 0, 0, G_OPTION_ARG_DOUBLE, &timeout_s, "give up after S", "S"},
    {"appsrc-frames", 0, 0, G_OPTION_ARG_INT64, &appsrc_frames,
        "push N generated frames into appsrc name=in", "N"},
    {"replay", 0, 0, G_OPTION_ARG_NONE, &replay, "seek to 0 after EOS", NULL},
    {"set", 0, 0, G_OPTION_ARG_STRING, &set_what,
        "set a property (with --set-after-ms)", "ELEMENT:PROPERTY=VALUE"},
    {"set-after-ms", 0, 0, G_OPTION_ARG_INT64, &set_after_ms,
        "when to --set, after PLAYING", "MS"},
    {"hold-last", 0, 0, G_OPTION_ARG_NONE, &hold_last,
        "keep frame N (--frames) past NULL until a signal", NULL},
    {"stop-ms", 0, 0, G_OPTION_ARG_INT64, &stop_ms,
        "play [0, MS] (a seek in PAUSED before PLAYING)", "MS"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("PIPELINE");
  GError *err = NULL;
  GstElement *out, *in, *sink;
  GThread *pusher = NULL;
  GstAppSinkCallbacks cb = { NULL };
  GstBus *bus;

  setvbuf (stdout, NULL, _IOLBF, 0);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc != 2) {
    g_printerr ("usage: %s [options] PIPELINE: %s\n", argv[0],
        err ? err->message : "one pipeline argument");
    return 2;
  }
  g_option_context_free (ctx);

  pipeline = gst_parse_launch (argv[1], &err);
  if (pipeline == NULL || err) {
    printf ("ERROR domain=parse code=%d (parse) from=app: %s | %s\n",
        err ? err->code : 0, err ? err->message : "no pipeline", argv[1]);
    return 1;
  }
  out = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  if (out && GST_IS_APP_SINK (out)) {
    cb.new_sample = new_sample;
    gst_app_sink_set_callbacks (GST_APP_SINK (out), &cb, NULL, NULL);
  }
  in = gst_bin_get_by_name (GST_BIN (pipeline), "in");
  if (appsrc_frames >= 0 && (in == NULL || !GST_IS_APP_SRC (in))) {
    g_printerr ("--appsrc-frames needs appsrc name=in\n");
    return 2;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (sink && GST_IS_BASE_SINK (sink)) {
    GstPad *pad = gst_element_get_static_pad (sink, "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, buffer_at_sink,
        NULL, NULL);
    gst_object_unref (pad);
  }
  g_unix_signal_add (SIGINT, on_signal, NULL);
  g_unix_signal_add (SIGTERM, on_signal, NULL);

  loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (pipeline);
  gst_bus_add_watch (bus, on_message, NULL);
  g_timeout_add ((guint) (timeout_s * 1000), timed_out, NULL);
  if (stop_ms > 0) {
    gst_element_set_state (pipeline, GST_STATE_PAUSED);
    gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND);
    if (!seek_to_start ()) {
      printf ("ERROR domain=conf-app code=0 (seek) from=app: the seek to "
          "[0, %" G_GINT64_FORMAT " ms] was refused | \n", stop_ms);
      return 1;
    }
  }
  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    printf ("state change to PLAYING failed\n");
  if (appsrc_frames >= 0)
    pusher = g_thread_new ("push", push_frames, in);
  if (set_what)
    g_timeout_add ((guint) set_after_ms, set_property_now, NULL);
  g_main_loop_run (loop);
  {
    /* the src's counters now (its own message comes only at EOS) */
    GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");

    if (src && g_object_class_find_property (G_OBJECT_GET_CLASS (src), "stats")) {
      GstStructure *st = NULL;
      gchar *s;

      g_object_get (src, "stats", &st, NULL);
      s = st ? gst_structure_to_string (st) : g_strdup ("none");
      printf ("final %s\n", s);
      g_free (s);
      if (st)
        gst_structure_free (st);
    }
    gst_clear_object (&src);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (held) {
    GstMapInfo map;
    gchar *hex;

    /* the pipeline is gone; its frame is still ours */
    gst_buffer_map (held, &map, GST_MAP_READ);
    hex = visible_sha1 (&held_info, map.data, map.size);
    printf ("holding sha1=%s\n", hex);
    g_free (hex);
    /* Only a signal (or the timeout) ends the hold: the first run may have
     * ended on frame N's quit with the EOS message's quit still queued,
     * which once ended the hold at once (the frame released and the
     * reader closed before anyone looked). */
    while (!signalled && !timed_out_already)
      g_main_loop_run (loop);
    hex = visible_sha1 (&held_info, map.data, map.size);
    printf ("held sha1=%s\n", hex);
    g_free (hex);
    gst_buffer_unmap (held, &map);
    gst_buffer_unref (held);
  }
  if (pusher)
    g_thread_join (pusher);
  printf ("frames %" G_GINT64_FORMAT "\n", n_frames);
  gst_clear_object (&out);
  gst_clear_object (&in);
  gst_clear_object (&sink);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_free (set_what);
  return exit_code;
}
