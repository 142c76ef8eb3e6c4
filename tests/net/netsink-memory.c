/* doradmanetsink and the memory its frames come from (docs/network.md,
 * "GPU memory"), the parts a machine without a GPU can check: the pad
 * template offers memory:CUDAMemory where the build has gstreamer-cuda; a
 * system-memory run over 127.0.0.1 says gpu-path=host and stages nothing;
 * memory:CUDAMemory caps with no CUDA at run time fail with an error that
 * names the cause. (The staged and device paths themselves need a GPU:
 * tests/net/gpu-run.sh.)
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#define W 64
#define H 48
#define N 5
#define CAPS "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"
#define SOURCE "videotestsrc pattern=ball motion=sweep animation-mode=frames"

static guint
t_port (void)
{
  static gint n;

  return 30000 + (getpid () % 2000) * 10 + g_atomic_int_add (&n, 1) % 10;
}

/* Runs `p` until EOS or an error (returned, or NULL at EOS); fails after
 * 60 s. */
static GstMessage *
t_run (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;

  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  fail_unless (m != NULL, "no EOS nor error in 60 s");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS) {
    gst_message_unref (m);
    return NULL;
  }
  return m;
}

static guint64
t_stat (const GstStructure * s, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

/* The frames appsink `name` of `p` got, concatenated. */
static GBytes *
t_collect (GstElement * p, const gchar * name, guint n)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), name);
  GByteArray *all = g_byte_array_new ();
  guint i;

  for (i = 0; i < n; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        60 * GST_SECOND);
    GstMapInfo map;

    fail_unless (s != NULL, "frame %u of %u did not arrive", i, n);
    fail_unless (gst_buffer_map (gst_sample_get_buffer (s), &map,
            GST_MAP_READ));
    g_byte_array_append (all, map.data, map.size);
    gst_buffer_unmap (gst_sample_get_buffer (s), &map);
    gst_sample_unref (s);
  }
  gst_object_unref (sink);
  return g_byte_array_free_to_bytes (all);
}

GST_START_TEST (test_template_offers_cuda_memory_where_built_with_it)
{
  GstElementFactory *f = gst_element_factory_find ("doradmanetsink");
  const GList *l;
  gboolean cuda = FALSE, system = FALSE;

  fail_unless (f != NULL);
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps = gst_static_caps_get (&t->static_caps);
    guint i;

    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *feat = gst_caps_get_features (caps, i);

      if (gst_caps_features_contains (feat, "memory:CUDAMemory"))
        cuda = TRUE;
      if (gst_caps_features_is_equal (feat,
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
        system = TRUE;
    }
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
  fail_unless (system, "no system-memory caps");
  fail_unless_equals_int (cuda, T_HAVE_GST_CUDA);
}

GST_END_TEST;

GST_START_TEST (test_system_memory_goes_the_host_path)
{
  guint port = t_port ();
  gchar *rx_desc = g_strdup_printf ("doradmanetsrc address=127.0.0.1 port=%u "
      "mode=lossless ! appsink name=out sync=false", port);
  gchar *tx_desc = g_strdup_printf (SOURCE " num-buffers=%d ! " CAPS " ! "
      "doradmanetsink name=tx host=127.0.0.1 port=%u mode=lossless "
      "timeout=30000000000", N, port);
  GstElement *ref =
      gst_parse_launch (SOURCE " num-buffers=" G_STRINGIFY (N) " ! " CAPS
      " ! appsink name=out sync=false", NULL);
  GstElement *rx = gst_parse_launch (rx_desc, NULL);
  GstElement *tx = gst_parse_launch (tx_desc, NULL);
  GstElement *sink;
  GstStructure *stats;
  GBytes *want, *got;
  gchar *path = NULL;

  fail_unless (ref && rx && tx);
  fail_unless (gst_element_set_state (ref, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  want = t_collect (ref, "out", N);
  fail_unless (gst_element_set_state (rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (t_run (tx) == NULL, "the sender failed");
  got = t_collect (rx, "out", N);
  fail_unless (g_bytes_equal (want, got), "received bytes differ");

  sink = gst_bin_get_by_name (GST_BIN (tx), "tx");
  g_object_get (sink, "stats", &stats, NULL);
  fail_unless (gst_structure_get (stats, "gpu-path", G_TYPE_STRING, &path,
          NULL), "no gpu-path in %" GST_PTR_FORMAT, stats);
  fail_unless_equals_string (path, "host");
  fail_unless_equals_uint64 (t_stat (stats, "frames"), N);
  fail_unless_equals_uint64 (t_stat (stats, "staged-frames"), 0);
  fail_unless_equals_uint64 (t_stat (stats, "device-frames"), 0);
  fail_unless_equals_uint64 (t_stat (stats, "staging-buffers"), 0);

  g_free (path);
  gst_structure_free (stats);
  gst_object_unref (sink);
  g_bytes_unref (want);
  g_bytes_unref (got);
  /* the receiver first: a sender stopping flushes its connection, which
   * needs a receiver that still progresses (or is gone) */
  gst_element_set_state (rx, GST_STATE_NULL);
  gst_element_set_state (tx, GST_STATE_NULL);
  gst_element_set_state (ref, GST_STATE_NULL);
  gst_object_unref (tx);
  gst_object_unref (rx);
  gst_object_unref (ref);
  g_free (rx_desc);
  g_free (tx_desc);
}

GST_END_TEST;

/* doradmanetsrc answers LATENCY (review D2: it answered live, 0, 0, and a
 * sink with a processing deadline warned "please add queues"): live,
 * nothing before its arrival timestamp, and as many frames as it can hold
 * (max-pending without a ring, slots with one) as the maximum. */
GST_START_TEST (test_receiver_answers_latency)
{
  guint port = t_port ();
  gchar *rx_desc = g_strdup_printf ("doradmanetsrc name=rx "
      "address=127.0.0.1 port=%u max-pending=10 ! appsink name=out "
      "sync=false", port);
  gchar *tx_desc = g_strdup_printf (SOURCE " num-buffers=%d ! " CAPS " ! "
      "doradmanetsink host=127.0.0.1 port=%u mode=lossless "
      "timeout=30000000000", N, port);
  GstElement *rx = gst_parse_launch (rx_desc, NULL);
  GstElement *tx = gst_parse_launch (tx_desc, NULL);
  GstElement *src;
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min, max;
  gboolean live;

  fail_unless (rx && tx);
  fail_unless (gst_element_set_state (rx, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (t_run (tx) == NULL, "the sender failed");
  g_bytes_unref (t_collect (rx, "out", N));
  src = gst_bin_get_by_name (GST_BIN (rx), "rx");
  fail_unless (gst_element_query (src, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_uint64 (min, 0);
  /* 10 frames of 30/1 */
  fail_unless_equals_uint64 (max, 10 * gst_util_uint64_scale_int (GST_SECOND,
          1, 30));

  gst_query_unref (q);
  gst_object_unref (src);
  gst_element_set_state (rx, GST_STATE_NULL);
  gst_element_set_state (tx, GST_STATE_NULL);
  gst_object_unref (tx);
  gst_object_unref (rx);
  g_free (rx_desc);
  g_free (tx_desc);
}

GST_END_TEST;

#if T_HAVE_GST_CUDA
GST_START_TEST (test_cuda_memory_without_cuda_fails_naming_the_cause)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "caps=\"video/x-raw(memory:CUDAMemory),format=RGBA,width=64,height=48,"
      "framerate=30/1\" ! doradmanetsink name=tx host=127.0.0.1 port=%u",
      t_port ());
  GstElement *p, *src, *tx;
  GstMessage *m;
  GError *err = NULL;
  gchar *debug = NULL;

  /* no CUDA driver, even on a machine with a GPU (loaded once per process:
   * this test runs in its own, check forks) */
  g_setenv ("DORADMA_CUDA_LIBRARY", "/nonexistent/libcuda-for-test.so.1", TRUE);
  p = gst_parse_launch (desc, NULL);
  fail_unless (p != NULL);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  tx = gst_bin_get_by_name (GST_BIN (p), "tx");
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
          gst_buffer_new_and_alloc (W * H * 4)), GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  m = t_run (p);
  fail_unless (m != NULL, "a memory:CUDAMemory stream ran without CUDA");
  gst_message_parse_error (m, &err, &debug);
  GST_INFO ("error: %s (%s)", err->message, debug);
  fail_unless (GST_MESSAGE_SRC (m) == GST_OBJECT (tx),
      "the error came from %s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)),
      err->message);
  fail_unless (strstr (err->message, "memory:CUDAMemory") != NULL
      && strstr (err->message, "need CUDA") != NULL, "%s", err->message);
  /* the cause: the driver library, as the loader found it */
  fail_unless (debug && strstr (debug, "libcuda-for-test.so.1") != NULL,
      "%s", debug);

  g_error_free (err);
  g_free (debug);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (tx);
  gst_object_unref (p);
  g_free (desc);
}

GST_END_TEST;
#endif

static Suite *
netsink_memory_suite (void)
{
  Suite *s = suite_create ("netsink-memory");
  TCase *tc = tcase_create ("general");

  /* loopback: no namespace needed; TCP like the namespace tests */
  g_setenv ("UCX_TLS", "tcp", FALSE);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_template_offers_cuda_memory_where_built_with_it);
  tcase_add_test (tc, test_system_memory_goes_the_host_path);
  tcase_add_test (tc, test_receiver_answers_latency);
#if T_HAVE_GST_CUDA
  tcase_add_test (tc, test_cuda_memory_without_cuda_fails_naming_the_cause);
#endif
  return s;
}

GST_CHECK_MAIN (netsink_memory);
