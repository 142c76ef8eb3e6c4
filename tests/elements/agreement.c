/* What doradmasink publishes, doradmasrc takes: real elements around the
 * pair (videocrop upstream, a syncing sink downstream, producers stopping),
 * each frame compared with the same chain run locally; and what the reader
 * does with a record it refuses.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/app/gstappsrc.h>

#include "frames.h"
#include "libwriter.h"

#define CROP_CHAIN "videotestsrc num-buffers=8 pattern=smpte ! " \
  "video/x-raw,format=%s,width=320,height=240,framerate=30/1 ! " \
  "videocrop left=10 top=20 right=30 bottom=40"

/* The consumer "doradmasrc channel=<channel> <props> ! appsink" gets every
 * frame of `up` as the local reference has it, with caps `want_caps`. */
static void
check_delivered_like_local (const gchar * up, const gchar * props,
    const gchar * want_caps)
{
  gchar *channel = t_channel ("up");
  gchar *src =
      g_strdup_printf ("doradmasrc name=src channel=%s timeout=5000000000 %s",
      channel, props ? props : "");
  GPtrArray *ref = t_reference (up);
  TApp *cons = t_app_new (src);
  GstCaps *caps = NULL, *want = gst_caps_from_string (want_caps);
  GstElement *e;
  guint i;

  fail_unless (ref->len > 0);
  t_produce (up, channel, "mode=lossless wait-for-readers=1 "
      "timeout=3000000000");
  for (i = 0; i < ref->len; i++) {
    GBytes *got = t_app_pull (cons, i == 0 ? &caps : NULL);

    fail_unless (got != NULL, "frame %u of %u not delivered", i, ref->len);
    if (i == 0)
      fail_unless (gst_caps_is_subset (caps, want), "caps %" GST_PTR_FORMAT
          ", want %" GST_PTR_FORMAT, caps, want);
    fail_unless (g_bytes_equal (got, g_ptr_array_index (ref, i)),
        "frame %u differs from the local reference", i);
    g_bytes_unref (got);
  }
  fail_unless (t_app_pull (cons, NULL) == NULL, "more frames than sent");
  fail_unless (gst_app_sink_is_eos (cons->sink));
  e = gst_bin_get_by_name (GST_BIN (cons->pipe), "src");
  fail_unless_equals_uint64 (t_stat (e, "skipped"), 0);
  gst_object_unref (e);
  t_app_free (cons);
  gst_caps_unref (caps);
  gst_caps_unref (want);
  g_ptr_array_unref (ref);
  fail_unless (t_shm_clean (channel), "leftovers of %s", channel);
  g_free (src);
  g_free (channel);
}

/* NF1: videocrop crops by meta before doradmasink (which announces the
 * crop meta): the consumer gets the cropped picture, 280x180. Before, the
 * record said a 280x180 frame with a crop at (10,20) and the reader
 * refused every frame. */
GST_START_TEST (test_videocrop_upstream_delivers_the_cropped_picture)
{
  const gchar *formats[] = { "I420", "NV12", "YUY2", "RGBA", "GRAY8" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    gchar *up = g_strdup_printf (CROP_CHAIN, formats[i]);
    gchar *want = g_strdup_printf ("video/x-raw,format=%s,width=280,"
        "height=180", formats[i]);

    check_delivered_like_local (up, NULL, want);
    g_free (want);
    g_free (up);
  }
}

GST_END_TEST;

/* R4-E2: an odd crop origin on subsampled chroma (videocrop left=11
 * top=21) is applied as videocrop applies it (each plane starts at the
 * sample that covers the origin): the consumer gets what videocrop copies
 * into a sink without crop meta (the local reference). One format per
 * subsampling. Before, the producer failed with "the crop's origin is not
 * a whole pixel of every plane". */
GST_START_TEST (test_an_odd_crop_origin_is_applied_as_videocrop_does)
{
  /* 4:2:0 planar and semi-planar, 4:2:2, 4:1:1, 4:4:4, 10-bit 4:2:0 and
   * no chroma: the subsamplings videocrop takes */
  const gchar *formats[] = { "I420", "YV12", "NV12", "NV21", "Y42B", "Y41B",
    "Y444", "I420_10LE", "GRAY8"
  };
  GstElementFactory *crop = gst_element_factory_find ("videocrop");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, formats[i], NULL);
    gboolean takes = gst_element_factory_can_sink_any_caps (crop, caps);
    gchar *up, *want;

    gst_caps_unref (caps);
    /* videocrop took 10-bit formats only from 1.20 on; the 8-bit ones
     * are in every version we support and must not be skipped */
    if (!takes) {
      fail_unless (g_str_has_prefix (formats[i], "I420_10"),
          "videocrop does not take %s", formats[i]);
      g_print ("this videocrop does not take %s: not checked\n", formats[i]);
      continue;
    }
    up = g_strdup_printf ("videotestsrc num-buffers=4 pattern=smpte ! "
        "video/x-raw,format=%s,width=320,height=240,framerate=30/1 ! "
        "videocrop left=11 top=21 right=30 bottom=40", formats[i]);
    want = g_strdup_printf ("video/x-raw,format=%s,width=279,"
        "height=179", formats[i]);

    check_delivered_like_local (up, NULL, want);
    g_free (want);
    g_free (up);
  }
  gst_object_unref (crop);
}

GST_END_TEST;

/* NF2: a record the reader refuses is consumed and counted as skipped, so
 * a lossless writer goes on. Before, it was neither: with 3 slots the
 * writer's lossless acquisition of its slot waited for it forever. */
GST_START_TEST (test_a_refused_record_is_skipped_and_consumed)
{
  gchar *ch = t_channel ("bad");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 3, 0);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "read-mode=next", ch);
  TApp *cons = t_app_new (desc);
  struct doradma_frame_info fi;
  GstElement *src;
  gsize size;
  guint8 v;
  int r;

  r = doradma_writer_wait_readers (w, 1, 5 * GST_SECOND, NULL);
  fail_unless (r == 0, "no reader joined: %s", g_strerror (-r));
  /* 4 records with a crop outside the frame (slot.crop refuses them) in 3
   * slots: the 4th acquisition needs the 1st refused record consumed */
  lib_frame_info (T_CAPS, t_monotonic_now (), &fi, &size);
  fi.crop_x = 60;
  fi.crop_width = 8;
  fi.crop_height = 8;
  for (v = 1; v <= 4; v++) {
    r = lib_publish_info (w, DORADMA_POLICY_LOSSLESS, &fi, size, v);
    fail_unless (r == 0, "lossless refused record %u: %s (the refused "
        "records were never consumed)", v, g_strerror (-r));
  }
  lib_frame_info (T_CAPS, t_monotonic_now (), &fi, &size);
  for (v = 5; v <= 9; v++) {
    GstSample *s;
    guint8 got = 0;

    r = lib_publish_info (w, DORADMA_POLICY_LOSSLESS, &fi, size, v);
    fail_unless (r == 0, "lossless frame %u: %s (the refused record was "
        "never consumed)", v, g_strerror (-r));
    s = gst_app_sink_try_pull_sample (cons->sink, 5 * GST_SECOND);
    fail_unless (s != NULL, "frame %u not delivered", v);
    gst_buffer_extract (gst_sample_get_buffer (s), 0, &got, 1);
    fail_unless_equals_int (got, v);
    gst_sample_unref (s);
  }
  src = gst_bin_get_by_name (GST_BIN (cons->pipe), "src");
  fail_unless_equals_uint64 (t_stat (src, "skipped"), 4);
  fail_unless_equals_uint64 (t_stat (src, "frames"), 5);
  gst_object_unref (src);
  t_app_free (cons);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* Pops the consumer's next bus message among ERROR, WARNING and element
 * messages named `name` within `timeout`, or NULL. */
static GstMessage *
t_bus_pop (GstElement * pipe, const gchar * name, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstClockTime end = t_monotonic_now () + timeout;
  GstMessage *msg = NULL;

  while (t_monotonic_now () < end) {
    msg = gst_bus_timed_pop_filtered (bus, end - t_monotonic_now (),
        GST_MESSAGE_ERROR | GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT);
    if (msg == NULL || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT
        || gst_message_has_name (msg, name))
      break;
    gst_clear_message (&msg);
  }
  gst_object_unref (bus);
  return msg;
}

#define LIVE_PRODUCER "videotestsrc is-live=true ! " \
  "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! " \
  "doradmasink channel=%s"

/* NF4: a producer app that stops without EOS (set_state NULL, as
 * gst-launch on Ctrl-C) is "the writer stopped", not a death: with
 * on-writer-lost=error the consumer posts no error and no warning, tells
 * the application with an element message, and takes the next producer.
 * Before, it posted "The writer of channel ... died" as an ERROR. */
GST_START_TEST (test_a_producer_stopped_cleanly_is_not_a_death)
{
  gchar *ch = t_channel ("stop");
  gchar *desc = g_strdup_printf ("doradmasrc channel=%s timeout=5000000000 "
      "on-writer-lost=error", ch);
  gchar *prod_desc = g_strdup_printf (LIVE_PRODUCER, ch);
  TApp *cons = t_app_new (desc);
  GstElement *prod;
  GstMessage *msg;
  const GstStructure *st;
  guint round;

  for (round = 0; round < 2; round++) {
    GstSample *s;

    prod = gst_parse_launch (prod_desc, NULL);
    fail_unless (prod != NULL);
    fail_if (gst_element_set_state (prod, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    s = gst_app_sink_try_pull_sample (cons->sink, 5 * GST_SECOND);
    fail_unless (s != NULL, "round %u: no frame", round);
    gst_sample_unref (s);
    /* a clean stop without EOS */
    gst_element_set_state (prod, GST_STATE_NULL);
    gst_object_unref (prod);
    msg = t_bus_pop (cons->pipe, "doradmasrc-writer-stopped", 3 * GST_SECOND);
    fail_unless (msg != NULL, "round %u: the consumer said nothing", round);
    if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT) {
      GError *err = NULL;

      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
        gst_message_parse_error (msg, &err, NULL);
      else
        gst_message_parse_warning (msg, &err, NULL);
      fail ("round %u: a clean stop reported as %s: %s", round,
          GST_MESSAGE_TYPE_NAME (msg), err->message);
    }
    st = gst_message_get_structure (msg);
    fail_unless_equals_string (gst_structure_get_string (st, "channel"), ch);
    gst_message_unref (msg);
    /* flush what was delivered before the stop */
    while ((s = gst_app_sink_try_pull_sample (cons->sink, 0)))
      gst_sample_unref (s);
  }
  fail_unless (t_bus_pop (cons->pipe, "none", 200 * GST_MSECOND) == NULL);
  t_app_free (cons);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (prod_desc);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* NF3 and R4-E3: read-mode=latest answers LATENCY with room for a frame
 * period and for downstream's default processing deadline (20 ms), so a
 * syncing sink keeps its deadline and posts no "add queues" warning (the
 * pipelines/latest-preview.sh recipe) at 30 fps and at 60 fps. Before, max
 * was min (NF3), then min + one frame, 16.7 ms at 60 fps (R4-E3): fakesink
 * sync=true warned. */
static void
check_latest_latency (guint fps)
{
  gchar *ch = t_channel ("lat");
  gchar *prod_desc = g_strdup_printf ("videotestsrc is-live=true ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=%u/1 ! "
      "doradmasink channel=%s", fps, ch);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "timeout=5000000000 read-mode=latest ! videoconvert ! "
      "fakesink name=out sync=true", ch);
  GstElement *prod = gst_parse_launch (prod_desc, NULL);
  GstElement *cons = gst_parse_launch (desc, NULL);
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min, max;
  GstElement *src;
  GstMessage *msg;
  gboolean live;

  fail_unless (prod != NULL && cons != NULL);
  fail_if (gst_element_set_state (prod, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  fail_if (gst_element_set_state (cons, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  /* the sinks query the latency when the pipeline goes to PLAYING */
  fail_unless (gst_element_get_state (cons, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  if ((msg = t_bus_pop (cons, "none", GST_SECOND))) {
    const GstStructure *st = gst_message_get_structure (msg);
    gchar *text = st ? gst_structure_to_string (st) : NULL;

    fail ("%u fps: the consumer posted a %s: %s", fps,
        GST_MESSAGE_TYPE_NAME (msg), text);
  }
  src = gst_bin_get_by_name (GST_BIN (cons), "src");
  fail_unless (gst_element_query (src, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  fail_unless (max >= min + GST_SECOND / fps && max >= min + 20 * GST_MSECOND,
      "%u fps: max %" GST_TIME_FORMAT " < min %" GST_TIME_FORMAT
      " + a frame or + 20 ms", fps, GST_TIME_ARGS (max), GST_TIME_ARGS (min));
  gst_object_unref (src);
  gst_query_unref (q);
  gst_element_set_state (cons, GST_STATE_NULL);
  gst_element_set_state (prod, GST_STATE_NULL);
  gst_object_unref (cons);
  gst_object_unref (prod);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (desc);
  g_free (prod_desc);
  g_free (ch);
}

GST_START_TEST (test_latest_mode_latency_leaves_a_syncing_sink_its_deadline)
{
  check_latest_latency (30);
  check_latest_latency (60);
}

GST_END_TEST;

/* NF5: the producer's DISCONT reaches the consumer (an appsrc producer
 * marking its 3rd buffer, as a producer restarting PLAYING→READY→PLAYING
 * does); frames without it carry none past the first. Before, the reader
 * cleared the carried flag unless it had a reason of its own. */
GST_START_TEST (test_the_producers_discont_reaches_the_consumer)
{
  gchar *ch = t_channel ("disc");
  gchar *desc = g_strdup_printf ("doradmasrc channel=%s timeout=5000000000",
      ch);
  gchar *prod_desc = g_strdup_printf ("appsrc name=in format=time caps=\""
      T_CAPS "\" ! doradmasink channel=%s sync=false mode=lossless "
      "wait-for-readers=1", ch);
  TApp *cons = t_app_new (desc);
  GstElement *prod = gst_parse_launch (prod_desc, NULL), *in;
  GstMessage *msg;
  guint i;

  fail_unless (prod != NULL);
  in = gst_bin_get_by_name (GST_BIN (prod), "in");
  fail_if (gst_element_set_state (prod, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < 4; i++) {
    GstBuffer *b = t_sysmem_frame (T_CAPS, i);

    GST_BUFFER_PTS (b) = i * 33 * GST_MSECOND;
    if (i == 2)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (in), b),
        GST_FLOW_OK);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (in));
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (prod), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  for (i = 0; i < 4; i++) {
    GstSample *s = gst_app_sink_try_pull_sample (cons->sink, 5 * GST_SECOND);
    GstBuffer *b;
    guint8 v = 0xff;

    fail_unless (s != NULL, "frame %u not delivered", i);
    b = gst_sample_get_buffer (s);
    gst_buffer_extract (b, 0, &v, 1);
    fail_unless_equals_int (v, i);
    /* the first: the reader's own (a join) */
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), i == 0 || i == 2);
    gst_sample_unref (s);
  }
  gst_element_set_state (prod, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (prod);
  t_app_free (cons);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (prod_desc);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* A crop meta outside the frame is never published (the reader would
 * refuse the record): the sink posts STREAM/FORMAT naming the crop. */
GST_START_TEST (test_a_crop_outside_the_frame_is_an_error_not_a_record)
{
  gchar *ch = t_channel ("cropbad");
  GstHarness *h = t_sink_new (ch, T_CAPS, NULL);
  GstBuffer *b = t_sysmem_frame (T_CAPS, 7);
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (b);
  GstMessage *msg;
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  crop->x = 60;
  crop->width = 8;
  crop->height = 8;
  fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  t_assert_error (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "crop meta is not inside");
  gst_message_unref (msg);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 0);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* NF6: doradmasink starts at NULL→READY: setting `dora-pool` in READY
 * after that is refused (the ring runs, every frame is published), as the
 * ring's own properties are. Before, the frames went to a dora path that
 * never started and were silently discarded (frames=0, EOS, no error). */
GST_START_TEST (test_dora_pool_is_refused_once_the_sink_started)
{
  gchar *ch = t_channel ("dorapool");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=10 ! " T_CAPS
      " ! doradmasink name=sink channel=%s sync=false", ch);
  GstElement *p = gst_parse_launch (desc, NULL), *sink;
  GstMessage *msg;
  gchar *pool = NULL;

  fail_unless (p != NULL);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (sink, "dora-pool", "dora_pool_el_n_p", NULL);
  g_object_get (sink, "dora-pool", &pool, NULL);
  fail_unless (pool == NULL, "dora-pool changed to %s after start", pool);
  msg = t_run (p, 10 * GST_SECOND);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_uint64 (t_stat (sink, "frames"), 10);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

static gpointer
acquire_thread (gpointer pool)
{
  GstBuffer *b = NULL;
  GstFlowReturn ret = gst_buffer_pool_acquire_buffer (pool, &b, NULL);

  gst_clear_buffer (&b);
  return GINT_TO_POINTER (ret);
}

/* NF11: one stall, one error: two upstream threads (a decoder's) time out
 * on the same full lossless ring; the sink posts its "No free frame slot"
 * ERROR once. Before, once per thread. */
GST_START_TEST (test_one_stall_posts_one_error)
{
  gchar *ch = t_channel ("stall");
  GstHarness *h = t_sink_new (ch, T_CAPS, "slots=2 mode=lossless "
      "timeout=300000000 on-reader-stall=error");
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstBuffer *held[2] = { NULL, NULL };
  GstBus *bus = gst_bus_new ();
  GThread *t[2];
  GstMessage *msg;
  guint i, errors = 0;

  gst_element_set_bus (h->element, bus);
  /* upstream keeps both slots */
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &held[i],
            NULL), GST_FLOW_OK);
  for (i = 0; i < 2; i++)
    t[i] = g_thread_new ("acquire", acquire_thread, pool);
  for (i = 0; i < 2; i++)
    fail_if (GPOINTER_TO_INT (g_thread_join (t[i])) == GST_FLOW_OK);
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR))) {
    t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
        "No free frame slot");
    gst_message_unref (msg);
    errors++;
  }
  fail_unless_equals_int (errors, 1);
  for (i = 0; i < 2; i++)
    gst_buffer_unref (held[i]);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

typedef struct
{
  GMutex lock;
  GObject *consumer, *producer;
  guint consumer_lines, producer_lines, wrong;
  gchar *first_wrong;
} TLogCheck;

static void
log_check (GstDebugCategory * cat, GstDebugLevel level, const gchar * file,
    const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  TLogCheck *lc = data;
  const gchar *want_cat = NULL;
  GObject *want_obj = NULL;
  guint *count = NULL;

  if (g_str_has_suffix (file, "gstdoradmaconsumer.c")) {
    want_cat = "doradmasrc";
    want_obj = lc->consumer;
    count = &lc->consumer_lines;
  } else if (g_str_has_suffix (file, "gstdoradmaproducer.c")) {
    want_cat = "doradmaproducer";
    want_obj = lc->producer;
    count = &lc->producer_lines;
  } else {
    return;
  }
  g_mutex_lock (&lc->lock);
  (*count)++;
  if (strcmp (gst_debug_category_get_name (cat), want_cat) != 0
      || object != want_obj) {
    if (lc->wrong++ == 0)
      lc->first_wrong = g_strdup_printf ("%s:%d (%s): category %s, object %p "
          "(want %s, %p): %s", file, line, function,
          gst_debug_category_get_name (cat), object, want_cat, want_obj,
          gst_debug_message_get (message));
  }
  g_mutex_unlock (&lc->lock);
}

/* NF9: the consumer side logs in doradmasrc's category and the producer
 * with its sink as the object, so GST_DEBUG=doradmasrc:5 shows the join,
 * and two sinks in a process can be told apart. Before, the consumer used
 * the generic "doradma" category and the producer logged no object. */
GST_START_TEST (test_each_side_logs_in_its_category_with_its_element)
{
  gchar *ch = t_channel ("log");
  gchar *prod_desc = g_strdup_printf (LIVE_PRODUCER " name=sink", ch);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "timeout=5000000000", ch);
  TLogCheck lc = { 0 };
  GstElement *prod = gst_parse_launch (prod_desc, NULL);
  TApp *cons;
  GstSample *s;

  g_mutex_init (&lc.lock);
  gst_debug_set_threshold_for_name ("doradmasrc", GST_LEVEL_DEBUG);
  gst_debug_set_threshold_for_name ("doradmaproducer", GST_LEVEL_DEBUG);
  gst_debug_set_threshold_for_name ("doradma", GST_LEVEL_DEBUG);
  gst_debug_add_log_function (log_check, &lc, NULL);
  gst_debug_set_active (TRUE);
  lc.producer = G_OBJECT (gst_bin_get_by_name (GST_BIN (prod), "sink"));
  cons = t_app_new (desc);
  lc.consumer = G_OBJECT (gst_bin_get_by_name (GST_BIN (cons->pipe), "src"));
  fail_if (gst_element_set_state (prod, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  s = gst_app_sink_try_pull_sample (cons->sink, 5 * GST_SECOND);
  fail_unless (s != NULL);
  gst_sample_unref (s);
  gst_element_set_state (prod, GST_STATE_NULL);
  t_app_free (cons);
  gst_debug_remove_log_function (log_check);
  gst_debug_set_threshold_for_name ("doradmasrc", GST_LEVEL_NONE);
  gst_debug_set_threshold_for_name ("doradmaproducer", GST_LEVEL_NONE);
  gst_debug_set_threshold_for_name ("doradma", GST_LEVEL_NONE);
  fail_unless (lc.consumer_lines > 0 && lc.producer_lines > 0,
      "consumer %u lines, producer %u", lc.consumer_lines, lc.producer_lines);
  fail_unless (lc.wrong == 0, "%u lines logged wrongly, first %s", lc.wrong,
      lc.first_wrong);
  gst_object_unref (lc.consumer);
  gst_object_unref (lc.producer);
  gst_object_unref (prod);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_mutex_clear (&lc.lock);
  g_free (desc);
  g_free (prod_desc);
  g_free (ch);
}

GST_END_TEST;

/* NF9: the helpers' categories exist once the plugin is loaded, before any
 * element or frame: `gst-inspect-1.0 --gst-debug-help` lists them, and
 * gst_debug_set_threshold_for_name finds them. Before, doradmamemory,
 * doradmapool, doradmaproducer (and doradmacudapool) appeared only when
 * their first object was made. */
GST_START_TEST (test_every_category_is_registered_when_the_plugin_loads)
{
  const gchar *want[] = { "doradma", "doradmaallocator", "doradmamemory",
    "doradmapool", "doradmaproducer", NULL
  };
  GstPlugin *plugin = gst_plugin_load_by_name ("doradma");
  GSList *cats, *l;

  fail_unless (plugin != NULL);
  cats = gst_debug_get_all_categories ();
  for (const gchar ** w = want; *w; w++) {
    for (l = cats; l; l = l->next)
      if (g_strcmp0 (gst_debug_category_get_name (l->data), *w) == 0)
        break;
    fail_unless (l != NULL, "no debug category %s after loading the plugin",
        *w);
  }
  g_slist_free (cats);
  gst_object_unref (plugin);
}

GST_END_TEST;

/* The nick of `copy-mode` as `src` reads it. */
static const gchar *
copy_mode_nick (GstElement * src)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (src),
      "copy-mode");
  gint v = -1;
  GEnumValue *ev;

  fail_unless (ps != NULL, "doradmasrc has no copy-mode property");
  g_object_get (src, "copy-mode", &v, NULL);
  ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);
  fail_unless (ev != NULL);
  return ev->value_nick;
}

/* NF7: `copy` had three states behind a boolean (unset, true, false).
 * copy-mode names them (auto, always, never); the boolean stays a
 * shorthand: true = always, false = never. Before: no copy-mode. */
GST_START_TEST (test_copy_mode_names_the_three_states)
{
  GstElement *src = gst_element_factory_make ("doradmasrc", NULL);
  gboolean copy = TRUE;

  fail_unless (src != NULL);
  fail_unless_equals_string (copy_mode_nick (src), "auto");
  g_object_get (src, "copy", &copy, NULL);
  fail_if (copy);
  g_object_set (src, "copy", TRUE, NULL);
  fail_unless_equals_string (copy_mode_nick (src), "always");
  g_object_set (src, "copy", FALSE, NULL);
  fail_unless_equals_string (copy_mode_nick (src), "never");
  gst_util_set_object_arg (G_OBJECT (src), "copy-mode", "always");
  g_object_get (src, "copy", &copy, NULL);
  fail_unless (copy);
  gst_util_set_object_arg (G_OBJECT (src), "copy-mode", "auto");
  g_object_get (src, "copy", &copy, NULL);
  fail_if (copy);
  gst_object_unref (src);
}

GST_END_TEST;

/* What the src does on a channel whose control object others may write
 * (the sink's permissions=0660) with copy-mode `mode` (NULL: left unset):
 * whether it copies (the buffer, `copy`, the copies stat agree) and whether
 * it warns (only auto copies without being asked). */
static void
check_copy_mode_on_a_shared_channel (const gchar * mode, gboolean copies,
    gboolean warns)
{
  gchar *ch = t_channel ("copym");
  GstHarness *w = t_sink_new (ch, T_CAPS, "permissions=0660");
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "timeout=5000000000%s%s", ch, mode ? " copy-mode=" : "",
      mode ? mode : "");
  TApp *cons;
  GstElement *src;
  GstSample *s;
  GstMessage *msg;
  gboolean copy;
  const gchar *name = mode ? mode : "unset";

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 3)),
      GST_FLOW_OK);
  cons = t_app_new (desc);
  s = gst_app_sink_try_pull_sample (cons->sink, 5 * GST_SECOND);
  fail_unless (s != NULL);
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory
          (gst_sample_get_buffer (s), 0)) == !copies, "copy-mode %s: %s",
      name, copies ? "a lease, not a copy" : "a copy, not a lease");
  gst_sample_unref (s);
  src = gst_bin_get_by_name (GST_BIN (cons->pipe), "src");
  g_object_get (src, "copy", &copy, NULL);
  fail_unless (copy == copies, "copy-mode %s: copy reads %d while frames "
      "are %s", name, copy, copies ? "copied" : "leased");
  fail_unless_equals_string (copy_mode_nick (src), mode ? mode : "auto");
  fail_unless ((t_stat (src, "copies") >= 1) == copies);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (cons->pipe),
      GST_MESSAGE_WARNING);
  fail_unless ((msg != NULL) == warns, "copy-mode %s: %s", name,
      warns ? "no warning that every frame is copied" : "a warning");
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (src);
  t_app_free (cons);
  t_teardown (w, NULL, ch);
  g_free (desc);
}

/* NF7: `copy` left unset on a channel whose control object others may
 * write: the consumer copies every frame and says so (a WARNING on the
 * bus), `copy` reads TRUE while it does, and the copies are counted.
 * Before: copy read FALSE, no message, copies 0. */
GST_START_TEST (test_copy_reads_what_the_consumer_does)
{
  check_copy_mode_on_a_shared_channel (NULL, TRUE, TRUE);
}

GST_END_TEST;

/* copy-mode=never leases, always copies; neither warns. */
GST_START_TEST (test_copy_mode_never_and_always_do_what_they_say)
{
  check_copy_mode_on_a_shared_channel ("never", FALSE, FALSE);
  check_copy_mode_on_a_shared_channel ("always", TRUE, FALSE);
}

GST_END_TEST;

static Suite *
agreement_suite (void)
{
  Suite *s = suite_create ("agreement");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_videocrop_upstream_delivers_the_cropped_picture);
  tcase_add_test (tc, test_an_odd_crop_origin_is_applied_as_videocrop_does);
  tcase_add_test (tc, test_a_refused_record_is_skipped_and_consumed);
  tcase_add_test (tc, test_a_producer_stopped_cleanly_is_not_a_death);
  tcase_add_test (tc,
      test_latest_mode_latency_leaves_a_syncing_sink_its_deadline);
  tcase_add_test (tc, test_the_producers_discont_reaches_the_consumer);
  tcase_add_test (tc, test_a_crop_outside_the_frame_is_an_error_not_a_record);
  tcase_add_test (tc, test_dora_pool_is_refused_once_the_sink_started);
  tcase_add_test (tc, test_one_stall_posts_one_error);
  tcase_add_test (tc, test_each_side_logs_in_its_category_with_its_element);
  tcase_add_test (tc, test_every_category_is_registered_when_the_plugin_loads);
  tcase_add_test (tc, test_copy_reads_what_the_consumer_does);
  tcase_add_test (tc, test_copy_mode_names_the_three_states);
  tcase_add_test (tc, test_copy_mode_never_and_always_do_what_they_say);
  return s;
}

GST_CHECK_MAIN (agreement);
