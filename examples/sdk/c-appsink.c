/* doradma SDK example: a consumer application in C.
 *
 * Runs "doradmasrc channel=CHANNEL ! appsink", pulls N frames and reads
 * each through the SDK without copying: the writer's frame number and the
 * frames missed before it (GstDoradmaFrameMeta), the slot it lives in, its
 * host address (the same address gst_buffer_map gives), its CUDA device
 * address when the transport has one, and a SHA-1 of its bytes.
 *
 * Build against the installed SDK only:
 *   cc c-appsink.c -o c-appsink \
 *      $(pkg-config --cflags --libs gstreamer-doradma-1.0 gstreamer-app-1.0)
 * Run, with a producer:
 *   gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=64,height=48 \
 *      ! doradmasink channel=cam0 &
 *   ./c-appsink cam0 10
 *
 * Prints one line per frame ("frame I seq Q skipped K ... sha1 H") and exits 0
 * when N frames were read zero-copy, 1 otherwise (with the reason).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/doradma/gstdoradma.h>

/* Reads one frame; FALSE (with the reason printed) if it is not a slot of
 * the ring or the mapping is not the slot itself. */
static gboolean
read_frame (GstBuffer * buf, guint index)
{
  GstDoradmaFrameMeta *frame = gst_buffer_get_doradma_frame_meta (buf);
  GstMemory *mem;
  GstMapInfo map;
  gpointer host;
  gchar *sha1;

  if (gst_buffer_n_memory (buf) != 1
      || !gst_is_doradma_memory (mem = gst_buffer_peek_memory (buf, 0))) {
    g_printerr ("frame %u: not doradma slot memory (doradmasrc copy=true?)\n",
        index);
    return FALSE;
  }
  if (frame == NULL) {
    g_printerr ("frame %u: no GstDoradmaFrameMeta\n", index);
    return FALSE;
  }
  host = gst_doradma_memory_get_host_pointer (mem);
  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    g_printerr ("frame %u: cannot map (device-only slot: use "
        "gst_doradma_memory_get_device_pointer)\n", index);
    return FALSE;
  }
  if (map.data != host) {
    g_printerr ("frame %u: mapped at %p, slot at %p: a copy\n", index,
        map.data, host);
    gst_buffer_unmap (buf, &map);
    return FALSE;
  }
  sha1 = g_compute_checksum_for_data (G_CHECKSUM_SHA1, map.data, map.size);
  /* publish_time is CLOCK_MONOTONIC, as g_get_monotonic_time () on Linux */
  g_print ("frame %u seq %" G_GUINT64_FORMAT " skipped %" G_GUINT64_FORMAT
      " age-us %" G_GINT64_FORMAT " slot %u bytes %" G_GSIZE_FORMAT
      " sha1 %s host %p device 0x%" G_GINT64_MODIFIER "x\n", index,
      frame->seq, frame->skipped,
      g_get_monotonic_time () - (gint64) (frame->publish_time / 1000),
      gst_doradma_memory_get_slot (mem), map.size, sha1, host,
      gst_doradma_memory_get_device_pointer (mem));
  g_free (sha1);
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

int
main (int argc, char **argv)
{
  GstElement *pipeline, *sink;
  gchar *desc;
  guint n, i;
  gboolean ok = TRUE;

  gst_init (&argc, &argv);
  if (argc != 3 || (n = (guint) g_ascii_strtoull (argv[2], NULL, 10)) == 0) {
    g_printerr ("usage: %s CHANNEL N-FRAMES\n", argv[0]);
    return 2;
  }
  /* Every buffer downstream holds a lease, appsink's queue included: past
   * doradmasrc's max-leases (4) frames arrive as copies. max-buffers=2 keeps
   * queue + the one being pushed + the one in hand within it. */
  desc = g_strdup_printf ("doradmasrc channel=%s timeout=20000000000 "
      "! appsink name=out sync=false max-buffers=2", argv[1]);
  pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  if (pipeline == NULL) {
    g_printerr ("no doradmasrc: is the plugin installed "
        "(gst-inspect-1.0 doradma)?\n");
    return 1;
  }
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "out");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  for (i = 0; i < n && ok; i++) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_SECOND);

    if (sample == NULL) {
      g_printerr ("frame %u: none within 20 s (EOS or error)\n", i);
      ok = FALSE;
      break;
    }
    ok = read_frame (gst_sample_get_buffer (sample), i);
    /* The buffer holds a ring slot: give it back now. */
    gst_sample_unref (sample);
  }

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return ok ? 0 : 1;
}
