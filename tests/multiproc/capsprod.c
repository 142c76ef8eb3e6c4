/* A producer process for caps-change: videotestsrc -> capsfilter ->
 * doradmasink, whose caps change mid-stream: 320x240, then 160x120 (fits
 * the slots: a caps epoch in band), then 640x480 (does not fit: a new
 * segment). Prints "<pts> <sha1>" for every buffer doradmasink receives, in
 * checksumsink's format, and the sink's stats at the end.
 *
 * usage: doradma-capsprod CHANNEL
 */
#include <gst/gst.h>
#include <stdio.h>

static GstElement *capsfilter;
static guint count;

static const gchar *sizes[] = {
  "video/x-raw,format=I420,width=320,height=240,framerate=30/1",
  "video/x-raw,format=I420,width=160,height=120,framerate=30/1",
  "video/x-raw,format=I420,width=640,height=480,framerate=30/1",
};

static GstPadProbeReturn
on_src_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  count++;
  if (count == 30 || count == 60) {
    GstCaps *caps = gst_caps_from_string (sizes[count / 30]);

    g_object_set (capsfilter, "caps", caps, NULL);
    gst_caps_unref (caps);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
on_sink_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;
  gchar *sum;

  gst_buffer_map (buf, &map, GST_MAP_READ);
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  g_print ("%" GST_TIME_FORMAT " %s\n", GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
      sum);
  g_free (sum);
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *src, *sink;
  GstStructure *stats = NULL;
  GstMessage *msg;
  GstBus *bus;
  gchar *desc, *s;
  GstPad *pad;
  int ret = 1;

  gst_init (&argc, &argv);
  if (argc < 2)
    return 2;
  setvbuf (stdout, NULL, _IOLBF, 0);

  desc = g_strdup_printf ("videotestsrc name=src pattern=ball num-buffers=90 "
      "! capsfilter name=cf caps=%s ! doradmasink name=sink channel=%s "
      "mode=lossless wait-for-readers=1 sync=false", sizes[0], argv[1]);
  pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  capsfilter = gst_bin_get_by_name (GST_BIN (pipeline), "cf");

  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_src_buffer, NULL, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_buffer, NULL,
      NULL);
  gst_object_unref (pad);

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
    ret = 0;
  else if (msg) {
    GError *err;
    gchar *dbg;

    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("ERROR: %s (%s)\n", err->message, dbg);
    g_clear_error (&err);
    g_free (dbg);
  }
  g_object_get (sink, "stats", &stats, NULL);
  s = gst_structure_to_string (stats);
  g_print ("stats: %s\n", s);
  g_free (s);
  gst_structure_free (stats);
  gst_clear_message (&msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (capsfilter);
  gst_object_unref (pipeline);
  return ret;
}
