/* doradmasrc element tests (gst-check, GstHarness). The writer side is a
 * doradmasink harness in the same process.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <grp.h>
#include <fcntl.h>
#include <sys/mman.h>

#include <gst/base/gstbasesrc.h>

#include "common.h"
#include "libwriter.h"
#include "gstdoradmaallocator.h"
#include "gstdoradmaframemeta.h"
#include "gstdoradmamemoryprivate.h"

static GstHarness *
src_new (const gchar * channel, const gchar * props)
{
  gchar *desc = g_strdup_printf ("doradmasrc channel=%s %s", channel,
      props ? props : "");
  GstElement *e = gst_parse_launch (desc, NULL);
  GstHarness *h;

  fail_unless (e != NULL);
  h = gst_harness_new_with_element (e, NULL, "src");
  gst_harness_use_systemclock (h);
  /* the harness does not start sources by itself */
  fail_if (gst_element_set_state (h->element, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  gst_object_unref (e);
  g_free (desc);
  return h;
}


/* ---------------------------------------------------------------------- */
/* Producers and consumers the tests drive by hand */

/* A pipeline "doradmasrc name=src <props> ! <down>" whose pushed buffers
 * (src pad probe) land in a queue, with the time each was pushed. */
typedef struct
{
  GstElement *pipe, *src;
  GAsyncQueue *q;
  GstPad *probed;
  gulong probe;
} TPipe;

typedef struct
{
  GstBuffer *buf;
  GstClockTime pushed;          /* CLOCK_MONOTONIC */
} TPushed;

static GstPadProbeReturn
pushed_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  TPushed *p = g_new0 (TPushed, 1);

  p->buf = gst_buffer_ref (GST_PAD_PROBE_INFO_BUFFER (info));
  p->pushed = t_monotonic_now ();
  g_async_queue_push (data, p);
  return GST_PAD_PROBE_OK;
}

static TPipe *
t_pipe_new (const gchar * channel, const gchar * props, const gchar * down)
{
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s %s ! %s",
      channel, props ? props : "", down ? down : "fakesink sync=false");
  TPipe *t = g_new0 (TPipe, 1);

  t->pipe = gst_parse_launch (desc, NULL);
  fail_unless (t->pipe != NULL, "%s", desc);
  t->src = gst_bin_get_by_name (GST_BIN (t->pipe), "src");
  t->q = g_async_queue_new ();
  t->probed = gst_element_get_static_pad (t->src, "src");
  t->probe = gst_pad_add_probe (t->probed, GST_PAD_PROBE_TYPE_BUFFER,
      pushed_probe, t->q, NULL);
  g_free (desc);
  return t;
}

/* Collects what reaches the sink pad of element `name` instead. */
static void
t_pipe_probe_at (TPipe * t, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (t->pipe), name);

  gst_pad_remove_probe (t->probed, t->probe);
  gst_object_unref (t->probed);
  t->probed = gst_element_get_static_pad (e, "sink");
  t->probe = gst_pad_add_probe (t->probed, GST_PAD_PROBE_TYPE_BUFFER,
      pushed_probe, t->q, NULL);
  gst_object_unref (e);
}

static TPushed *
t_pipe_pull (TPipe * t)
{
  TPushed *p = g_async_queue_timeout_pop (t->q, 5 * G_USEC_PER_SEC);

  fail_unless (p != NULL, "no buffer within 5 s");
  return p;
}

static void
t_pushed_free (TPushed * p)
{
  gst_buffer_unref (p->buf);
  g_free (p);
}

static guint8
t_first_byte (GstBuffer * buf)
{
  guint8 v = 0;

  fail_unless_equals_int (gst_buffer_extract (buf, 0, &v, 1), 1);
  return v;
}

static void
t_pipe_free (TPipe * t)
{
  TPushed *p;

  gst_element_set_state (t->pipe, GST_STATE_NULL);
  while ((p = g_async_queue_try_pop (t->q)))
    t_pushed_free (p);
  g_async_queue_unref (t->q);
  gst_object_unref (t->probed);
  gst_object_unref (t->src);
  gst_object_unref (t->pipe);
  g_free (t);
}

/* Stops the pipeline and the writer; nothing of the channel is left. */
static void
t_finish (TPipe * t, struct doradma_writer *w, gchar * ch)
{
  t_pipe_free (t);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

/* A LATENCY message from `src` waiting on the bus (the others popped). */
static gboolean
t_latency_posted (GstElement * pipe, GstElement * src)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  gboolean found = FALSE;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_LATENCY))) {
    found |= GST_MESSAGE_SRC (m) == GST_OBJECT (src);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return found;
}

/* The LATENCY answer's min from the src. */
static GstClockTime
t_src_latency (GstElement * src)
{
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min = 0, max;
  gboolean live;

  fail_unless (gst_element_query (src, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  gst_query_unref (q);
  return min;
}

/* Pixel value of the pattern the padded producer writes. */
static guint8
pattern (guint p, guint y, guint x)
{
  return (guint8) (p * 71 + y * 3 + x);
}

/* Pushes `n` frames of `caps` through the sink harness `w`, written
 * upstream-style into its pool with `pad_right` bytes of padding per row
 * (0xee), so they are published in a padded layout. */
static void
push_padded (GstHarness * w, const gchar * caps, guint pad_right, guint n)
{
  GstVideoAlignment align;
  GstBufferPool *pool;
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  guint i, p, y, x;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  gst_video_alignment_reset (&align);
  align.padding_right = pad_right;
  pool = t_sink_pool (w, caps, &align);
  for (i = 0; i < n; i++) {
    GstBuffer *buf = NULL;
    GstVideoFrame f;

    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
            NULL), GST_FLOW_OK);
    fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
      guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, p);
      gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);

      fail_unless (stride > GST_VIDEO_FRAME_COMP_WIDTH (&f, p),
          "the pool did not pad plane %u (stride %d)", p, stride);
      for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++) {
        memset (d + y * stride, 0xee, stride);
        for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (&f, p); x++)
          d[y * stride + x] = pattern (p, y, x);
      }
    }
    gst_video_frame_unmap (&f);
    fail_unless_equals_int (gst_harness_push (w, buf), GST_FLOW_OK);
  }
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* The buffer's bytes, read as the DEFAULT layout of `caps` (what an
 * element that ignores GstVideoMeta reads), carry the pattern. */
static void
assert_default_layout_pattern (GstBuffer * buf, const gchar * caps)
{
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  GstMapInfo map;
  guint p, y, x;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  for (p = 0; meta && p < meta->n_planes; p++) {
    fail_unless_equals_uint64 (meta->offset[p], info.offset[p]);
    fail_unless_equals_int (meta->stride[p], info.stride[p]);
  }
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (map.size >= info.size, "%" G_GSIZE_FORMAT " bytes < %"
      G_GSIZE_FORMAT, map.size, info.size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
    for (y = 0; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (&info, p); y++)
      for (x = 0; x < (guint) GST_VIDEO_INFO_COMP_WIDTH (&info, p); x++)
        fail_unless_equals_int (map.data[info.offset[p] + y * info.stride[p]
                + x], pattern (p, y, x));
  gst_buffer_unmap (buf, &map);
}

/* The common end of a src test: both harnesses torn down, nothing of
 * `channel` left in the shm directory. */
static void
src_teardown (GstHarness * h, GstHarness * w, gchar * channel)
{
  gst_harness_teardown (h);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (channel), "leftovers of %s", channel);
  g_free (channel);
}

/* The nick of value `v` of enum property `prop` of `e`. */
static const gchar *
enum_nick (GstElement * e, const gchar * prop, gint v)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      prop);
  GEnumValue *ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);

  return ev ? ev->value_nick : "?";
}

GST_START_TEST (test_properties_have_documented_defaults)
{
  GstElement *e = gst_element_factory_make ("doradmasrc", NULL);
  guint64 timeout, deadline;
  guint max_leases;
  gboolean copy;
  gint read_mode, lost;
  GstStructure *stats;

  g_object_get (e, "timeout", &timeout, "max-leases", &max_leases, "copy",
      &copy, "read-mode", &read_mode, "on-writer-lost", &lost,
      "processing-deadline", &deadline, "stats", &stats, NULL);
  fail_unless_equals_uint64 (timeout, 0);
  fail_unless_equals_int (max_leases, 4);
  fail_unless (!copy);
  fail_unless (gst_base_src_is_live (GST_BASE_SRC (e)));
  fail_unless_equals_string (enum_nick (e, "read-mode", read_mode), "next");
  fail_unless_equals_string (enum_nick (e, "on-writer-lost", lost), "wait");
  fail_unless_equals_uint64 (deadline, 20 * GST_MSECOND);
  for (const gchar ** f = (const gchar *[]) {
        "frames", "torn", "skipped", "copies", "lease-waits", "latency-p50",
        "latency-p99", NULL
      }; *f; f++)
    fail_unless (gst_structure_has_field (stats, *f), "stats lacks %s", *f);
  gst_structure_free (stats);
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_missing_channel_times_out_with_not_found)
{
  gchar *ch = t_channel ("nochan"), *desc;
  GstElement *p;
  GstMessage *msg;

  desc = g_strdup_printf ("doradmasrc channel=%s timeout=100000000 ! "
      "fakesink", ch);
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, ch);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* no channel, or a name the format refuses: a settings error naming it,
 * at start, before any wait */
GST_START_TEST (test_unset_or_invalid_channel_is_a_settings_error)
{
  const gchar *descs[] = { "doradmasrc ! fakesink",
    "doradmasrc channel=../etc ! fakesink"
  };
  const gchar *named[] = { "channel", "../etc" };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (descs); i++) {
    GstElement *p = gst_parse_launch (descs[i], NULL);
    GstMessage *msg = t_run (p, 5 * GST_SECOND);

    t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        named[i]);
    gst_message_unref (msg);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
  }
}

GST_END_TEST;

GST_START_TEST (test_stopping_while_waiting_for_the_channel_is_prompt)
{
  gchar *ch = t_channel ("unlock"), *desc;
  GstElement *p;
  gint64 start;

  GstElement *src;
  GstBus *bus;
  GstMessage *err;
  GstState state, pending;

  desc = g_strdup_printf ("doradmasrc name=src channel=%s ! fakesink", ch);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_usleep (100 * 1000);
  /* it is waiting (playing, no error), not failed */
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  gst_element_get_state (src, &state, &pending, 0);
  fail_unless (state == GST_STATE_PLAYING || pending == GST_STATE_PLAYING,
      "the source is %s", gst_element_state_get_name (state));
  gst_object_unref (src);
  bus = gst_element_get_bus (p);
  err = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (err == NULL, "the source failed instead of waiting");
  gst_object_unref (bus);
  start = g_get_monotonic_time ();
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless (g_get_monotonic_time () - start < G_USEC_PER_SEC);
  gst_object_unref (p);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_buffers_are_readonly_zero_copy_memory_with_ring_caps)
{
  gchar *ch = t_channel ("zc");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstCaps *caps, *want;
  GstMemory *mem;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 7)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (gst_is_doradma_memory (mem));
  fail_unless (GST_MEMORY_IS_READONLY (mem));
  fail_unless (gst_doradma_memory_get_host_pointer (mem) != NULL);
  fail_unless_equals_uint64 (gst_doradma_memory_get_device_pointer (mem), 0);
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 7);
  gst_buffer_unmap (buf, &map);
  fail_if (gst_memory_map (mem, &map, GST_MAP_WRITE));
  fail_unless (gst_buffer_get_video_meta (buf) != NULL);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DISCONT));

  caps = gst_pad_get_current_caps (h->sinkpad);
  want = gst_caps_from_string (T_CAPS);
  fail_unless (gst_caps_is_subset (caps, want));
  gst_caps_unref (caps);
  gst_caps_unref (want);
  gst_buffer_unref (buf);

  src_teardown (h, w, ch);
}

GST_END_TEST;

/* lib review #3: a peer that may write the control object can clear a
 * lease bit and get a zero-copy frame rewritten; with `copy` unset the src
 * copies when the control object is writable by others, and copy=false
 * still reads zero-copy. */
GST_START_TEST (test_group_writable_control_object_is_read_by_copy)
{
  gchar *ch = t_channel ("ctlgw");
  GstHarness *w = t_sink_new (ch, T_CAPS, "permissions=0660");
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 3)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 3);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);

  h = src_new (ch, "copy=false");
  buf = gst_harness_pull (h);
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  gst_buffer_unref (buf);

  src_teardown (h, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_beyond_max_leases_frames_are_copied_and_counted)
{
  gchar *ch = t_channel ("quota");
  GstHarness *w = t_sink_new (ch, T_CAPS, "slots=8");
  GstHarness *h;
  GstBuffer *bufs[3];
  guint i;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  h = src_new (ch, "max-leases=2");
  for (i = 0; i < 3; i++) {
    if (i > 0)
      fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS,
                  i)), GST_FLOW_OK);
    bufs[i] = gst_harness_pull (h);
  }
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[0], 0)));
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[1], 0)));
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (bufs[2], 0)));
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 1);
  for (i = 0; i < 3; i++) {
    GstMapInfo map;

    gst_buffer_map (bufs[i], &map, GST_MAP_READ);
    fail_unless_equals_int (map.data[0], i);
    gst_buffer_unmap (bufs[i], &map);
    gst_buffer_unref (bufs[i]);
  }

  src_teardown (h, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_copy_mode_delivers_local_memory)
{
  gchar *ch = t_channel ("copymode");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 5)),
      GST_FLOW_OK);
  h = src_new (ch, "copy=true");
  buf = gst_harness_pull (h);
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  gst_buffer_map (buf, &map, GST_MAP_READ);
  fail_unless_equals_int (map.data[0], 5);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);

  src_teardown (h, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_buffer_fields_and_crop_meta_are_carried)
{
  gchar *ch = t_channel ("fields");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *in = t_sysmem_frame (T_CAPS, 1), *buf;
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (in);

  crop->x = 2;
  crop->y = 4;
  crop->width = 32;
  crop->height = 16;
  GST_BUFFER_DURATION (in) = 33 * GST_MSECOND;
  GST_BUFFER_OFFSET (in) = 12;
  GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DELTA_UNIT);
  fail_unless_equals_int (gst_harness_push (w, in), GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (buf), 33 * GST_MSECOND);
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), 12);
  fail_unless (GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT));
  crop = gst_buffer_get_video_crop_meta (buf);
  fail_unless (crop != NULL);
  fail_unless_equals_int (crop->x, 2);
  fail_unless_equals_int (crop->width, 32);
  fail_unless_equals_int (crop->height, 16);
  gst_buffer_unref (buf);

  src_teardown (h, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_latency_answer_is_live_with_producer_latency_added)
{
  gchar *ch = t_channel ("latency");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstQuery *q;
  gboolean live;
  GstClockTime min, max;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  h = src_new (ch, "processing-deadline=5000000");
  buf = gst_harness_pull (h);
  gst_buffer_unref (buf);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  /* the harness writer has no latency: min = our deadline */
  fail_unless_equals_uint64 (min, 5 * GST_MSECOND);
  fail_unless (max >= min);
  gst_query_unref (q);

  src_teardown (h, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_eos_after_the_final_frame)
{
  gchar *ch = t_channel ("eos");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstEvent *ev;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (gst_harness_push_event (w, gst_event_new_eos ()));
  while ((ev = gst_harness_pull_event (h))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL, "no EOS");

  src_teardown (h, w, ch);
}

GST_END_TEST;

static GstPadProbeReturn
note_blocked (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_set ((gint *) data, 1);
  return GST_PAD_PROBE_OK;
}

/* latest mode: frames published while the src could not read (its thread
 * held downstream) are skipped; the next frame is the newest. (A next
 * reader would deliver 1 here.) */
GST_START_TEST (test_latest_mode_delivers_the_newest_frame)
{
  gchar *ch = t_channel ("newest");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 8, 0);
  TPipe *t = t_pipe_new (ch, "read-mode=latest", NULL);
  gint blocked = 0;
  gulong block;
  TPushed *p;
  guint i;

  lib_publish (w, T_CAPS, 0, t_monotonic_now ());
  /* holds the streaming thread on its first buffer */
  block = gst_pad_add_probe (t->probed, GST_PAD_PROBE_TYPE_BLOCK
      | GST_PAD_PROBE_TYPE_BUFFER, note_blocked, &blocked, NULL);
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  for (i = 0; i < 500 && !g_atomic_int_get (&blocked); i++)
    g_usleep (10 * 1000);
  fail_unless (g_atomic_int_get (&blocked), "the first frame never came");
  for (i = 1; i <= 4; i++)
    lib_publish (w, T_CAPS, i, t_monotonic_now ());
  gst_pad_remove_probe (t->probed, block);
  p = t_pipe_pull (t);
  fail_unless_equals_int (t_first_byte (p->buf), 0);
  t_pushed_free (p);
  p = t_pipe_pull (t);
  fail_unless_equals_int (t_first_byte (p->buf), 4);
  fail_unless (GST_BUFFER_FLAG_IS_SET (p->buf, GST_BUFFER_FLAG_DISCONT));
  t_pushed_free (p);
  fail_unless_equals_uint64 (t_stat (t->src, "frames"), 2);
  fail_unless_equals_uint64 (t_stat (t->src, "skipped"), 3);
  t_finish (t, w, ch);
}

GST_END_TEST;

GST_START_TEST (test_mapping_outlives_the_element_while_buffers_are_held)
{
  gchar *ch = t_channel ("outlive");
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  GstHarness *h;
  GstBuffer *buf;
  GstMapInfo map;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 3)),
      GST_FLOW_OK);
  h = src_new (ch, NULL);
  buf = gst_harness_pull (h);
  gst_harness_teardown (h);     /* element gone, buffer still held */
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (map.data[0], 3);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);       /* releases the lease, closes the reader */

  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;


/* How many metas of `api` `buf` carries. */
static guint
n_metas (GstBuffer * buf, GType api)
{
  gpointer state = NULL;
  GstMeta *m;
  guint n = 0;

  while ((m = gst_buffer_iterate_meta (buf, &state)))
    n += m->info->api == api;
  return n;
}

/* Issue 14: buffers and lease memories are recycled, but never a memory
 * that is still referenced: one kept beyond its buffer keeps its lease
 * (the writer never rewrites its slot) and its slot while the next frames
 * go through recycled shells, each with one video meta and one frame meta
 * of its own (published <= received <= delivered); once let go, its slot
 * is written again. */
GST_START_TEST (test_a_memory_kept_beyond_its_buffer_keeps_its_lease)
{
  gchar *ch = t_channel ("keep");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  GstHarness *h = src_new (ch, "read-mode=next");
  GstMemory *kept;
  GstBuffer *buf;
  GstMapInfo map;
  guint32 slot;
  gboolean reused = FALSE;
  guint i, j;

  lib_publish (w, T_CAPS, 1, t_monotonic_now ());
  buf = gst_harness_pull (h);
  kept = gst_memory_ref (gst_buffer_peek_memory (buf, 0));
  slot = gst_doradma_memory_get_slot (kept);
  gst_buffer_unref (buf);
  for (i = 2; i < 12; i++) {
    GstDoradmaFrameMeta *fm;
    GstMemory *mem;

    lib_publish (w, T_CAPS, i, t_monotonic_now ());
    buf = gst_harness_pull (h);
    mem = gst_buffer_peek_memory (buf, 0);
    fail_if (mem == kept, "frame %u re-used the kept memory", i);
    fail_if (gst_doradma_memory_get_slot (mem) == slot,
        "frame %u was written into the kept memory's slot", i);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    fail_unless_equals_int (map.data[0], i);
    fail_unless_equals_int (map.data[map.size - 1], i);
    gst_buffer_unmap (buf, &map);
    fail_unless_equals_int (n_metas (buf, GST_VIDEO_META_API_TYPE), 1);
    fail_unless_equals_int (n_metas (buf, GST_DORADMA_FRAME_META_API_TYPE), 1);
    fm = gst_buffer_get_doradma_frame_meta (buf);
    fail_unless_equals_uint64 (fm->seq, i);
    /* the stages the transport benchmark splits its latency into */
    fail_unless (fm->publish_time <= fm->receive_time
        && fm->receive_time <= fm->delivery_time
        && fm->delivery_time <= t_monotonic_now (), "frame %u: published %"
        G_GUINT64_FORMAT ", received %" G_GUINT64_FORMAT ", delivered %"
        G_GUINT64_FORMAT, i, fm->publish_time, fm->receive_time,
        fm->delivery_time);
    gst_buffer_unref (buf);
  }
  fail_unless_equals_int (gst_doradma_memory_get_slot (kept), slot);
  fail_unless (gst_memory_map (kept, &map, GST_MAP_READ));
  for (j = 0; j < map.size; j++)
    fail_unless (map.data[j] == 1, "byte %u of the kept frame is %u", j,
        map.data[j]);
  gst_memory_unmap (kept, &map);
  gst_memory_unref (kept);      /* the lease ends */
  for (i = 0; i < 8 && !reused; i++) {
    lib_publish (w, T_CAPS, 100 + i, t_monotonic_now ());
    buf = gst_harness_pull (h);
    reused = gst_doradma_memory_get_slot (gst_buffer_peek_memory (buf, 0))
        == slot;
    gst_buffer_unref (buf);
  }
  fail_unless (reused, "slot %u was not written again once let go", slot);
  gst_harness_teardown (h);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* The PTS of a frame captured at CLOCK_MONOTONIC `mono` and read on
 * `clock` (taken) at base time 0. */
static GstClockTime
pts_on (GstHarness * h, struct doradma_writer *w, GstClock * clock,
    guint8 v, GstClockTime mono)
{
  GstBuffer *buf;
  GstClockTime pts;

  gst_element_set_clock (h->element, clock);
  gst_object_unref (clock);
  gst_element_set_base_time (h->element, 0);
  lib_publish (w, T_CAPS, v, mono);
  buf = gst_harness_pull (h);
  pts = GST_BUFFER_PTS (buf);
  gst_buffer_unref (buf);
  return pts;
}

/* The writer's mono_pts become running times through our pipeline clock:
 * exactly on GStreamer's system clock on CLOCK_MONOTONIC (no clock read),
 * with the clocks' difference on one that is calibrated or on
 * CLOCK_REALTIME (in that order: PTS never go back). */
GST_START_TEST (test_pts_follow_the_pipeline_clock)
{
  gchar *ch = t_channel ("clock");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  GstHarness *h = src_new (ch, "read-mode=next");
  GstClockTime mono = t_monotonic_now (), pts, real_now;
  GstClock *real;

  fail_unless_equals_uint64 (pts_on (h, w,
          t_system_clock (GST_CLOCK_TYPE_MONOTONIC, 0), 1, mono), mono);
  /* 1 s ahead of CLOCK_MONOTONIC */
  mono = t_monotonic_now ();
  pts = pts_on (h, w, t_system_clock (GST_CLOCK_TYPE_MONOTONIC, GST_SECOND), 2,
      mono);
  fail_unless (ABS (GST_CLOCK_DIFF (mono + GST_SECOND, pts)) <
      50 * GST_MSECOND, "PTS %" GST_TIME_FORMAT " of a frame at %"
      GST_TIME_FORMAT " on a clock 1 s ahead", GST_TIME_ARGS (pts),
      GST_TIME_ARGS (mono));
  /* the wall clock: a frame captured now is at its now */
  real = t_system_clock (GST_CLOCK_TYPE_REALTIME, 0);
  real_now = gst_clock_get_time (real);
  pts = pts_on (h, w, real, 3, t_monotonic_now ());
  fail_unless (ABS (GST_CLOCK_DIFF (real_now, pts)) < GST_SECOND,
      "PTS %" GST_TIME_FORMAT " on CLOCK_REALTIME, whose now is %"
      GST_TIME_FORMAT, GST_TIME_ARGS (pts), GST_TIME_ARGS (real_now));
  gst_harness_teardown (h);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* A shell is re-pointed only when it is free: one that an owner still
 * has, or that another party references, is refused (the lease path then
 * makes a new memory) and keeps its slot and size. */
GST_START_TEST (test_a_memory_in_use_is_never_reused)
{
  static guint8 bytes[64];
  static const GstDoradmaMemoryOwner no_returns = { NULL, NULL, NULL, NULL };
  GstMemory *mem = gst_doradma_memory_new (GST_MEMORY_FLAG_READONLY, bytes,
      sizeof bytes, 3, 0, NULL, NULL);
  GstMemory *owned = gst_doradma_memory_new (GST_MEMORY_FLAG_READONLY, bytes,
      sizeof bytes, 5, 0, &no_returns, NULL);
  GLogLevelFlags fatal;
  gboolean ok = TRUE;

  gst_memory_ref (mem);
  /* the suite runs with G_DEBUG=fatal-criticals: these are expected */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  ASSERT_CRITICAL (ok = gst_doradma_memory_reuse (mem, 0, bytes + 8, 8, 7, 0,
          NULL, NULL));
  fail_if (ok, "a memory referenced twice was re-pointed");
  ok = TRUE;
  ASSERT_CRITICAL (ok = gst_doradma_memory_reuse (owned, 0, bytes + 8, 8, 7,
          0, NULL, NULL));
  fail_if (ok, "a memory that has an owner was re-pointed");
  g_log_set_always_fatal (fatal);
  fail_unless_equals_int (gst_doradma_memory_get_slot (mem), 3);
  fail_unless_equals_int (mem->size, sizeof bytes);
  fail_unless_equals_int (gst_doradma_memory_get_slot (owned), 5);
  gst_memory_unref (mem);
  /* a free shell (one reference, no owner) is re-pointed */
  fail_unless (gst_doradma_memory_reuse (mem, 0, bytes + 8, 8, 7, 0, NULL,
          NULL));
  fail_unless_equals_int (gst_doradma_memory_get_slot (mem), 7);
  fail_unless_equals_int (mem->size, 8);
  gst_memory_unref (mem);
  gst_memory_unref (owned);
}

GST_END_TEST;

/* the SDK's setter updates a meta in place: never on a buffer that others
 * hold (they would see it change) */
GST_START_TEST (test_frame_meta_setter_needs_a_writable_buffer)
{
  GstBuffer *buf = gst_buffer_new (), *other;
  GLogLevelFlags fatal;

  fail_unless (gst_buffer_add_doradma_frame_meta (buf, 1, 0, 10, 1) != NULL);
  other = gst_buffer_ref (buf);
  /* the suite runs with G_DEBUG=fatal-criticals: this one is expected */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  ASSERT_CRITICAL (gst_buffer_add_doradma_frame_meta (buf, 2, 0, 20, 1));
  g_log_set_always_fatal (fatal);
  fail_unless_equals_uint64 (gst_buffer_get_doradma_frame_meta (other)->seq, 1);
  gst_buffer_unref (other);
  fail_unless_equals_uint64 (gst_buffer_add_doradma_frame_meta (buf, 3, 0,
          30, 1)->seq, 3);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static gboolean
replaced_map (GstVideoMeta * meta, guint plane, GstMapInfo * info,
    gpointer * data, gint * stride, GstMapFlags flags)
{
  return FALSE;
}

/* A downstream element may change the video meta of a buffer it got (its
 * alignment, its map function): the recycled shell's next frame gets a
 * meta as new, never the previous holder's changes. */
GST_START_TEST (test_a_recycled_buffer_gets_a_fresh_video_meta)
{
  gchar *ch = t_channel ("vmeta");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  GstHarness *h = src_new (ch, "read-mode=next");
  GstCaps *caps = gst_caps_from_string (T_CAPS);
  GstVideoFrame f;
  GstVideoInfo info;
  GstVideoMeta *vm;
  GstBuffer *buf;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  for (i = 1; i < 8; i++) {
    lib_publish (w, T_CAPS, i, t_monotonic_now ());
    buf = gst_harness_pull (h);
    vm = gst_buffer_get_video_meta (buf);
    fail_unless (vm != NULL);
    fail_unless_equals_int (vm->alignment.padding_top, 0);
    fail_if (vm->map == replaced_map, "frame %u: a previous holder's map", i);
    fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_READ));
    fail_unless_equals_int (((guint8 *) f.data[0])[0], i);
    gst_video_frame_unmap (&f);
    /* what a downstream element may do to the meta of its buffer */
    vm->alignment.padding_top = 8;
    vm->map = replaced_map;
    gst_buffer_unref (buf);
  }
  gst_harness_teardown (h);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

#define T_PAD "video/x-raw,format=I420,width=330,height=250,framerate=30/1"
#define T_GRAY "video/x-raw,format=GRAY8,width=330,height=25,framerate=30/1"

/* Finding 1: copy=true (like the zero-copy path) hands a downstream that
 * did not accept GstVideoMeta the default layout, never the writer's
 * padded one. */
GST_START_TEST (test_without_video_meta_every_mode_pushes_the_default_layout)
{
  const gchar *modes[] = { "", "copy=true", "max-leases=0" };
  /* T_GRAY: one plane, so a padded frame has the default offset (0) and
   * only its stride tells it from the default layout */
  const gchar *caps[] = { T_PAD, T_GRAY };
  guint i, c;

  for (c = 0; c < G_N_ELEMENTS (caps); c++)
    for (i = 0; i < G_N_ELEMENTS (modes); i++) {
      gchar *ch = t_channel ("layout");
      GstHarness *w = t_sink_harness (ch, caps[c]);
      GstHarness *h;
      GstBuffer *buf;

      push_padded (w, caps[c], 54, 1);
      h = src_new (ch, modes[i]);
      buf = gst_harness_pull (h);
      assert_default_layout_pattern (buf, caps[c]);
      gst_buffer_unref (buf);
      src_teardown (h, w, ch);
    }
}

GST_END_TEST;

/* A frame whose rows are shorter than the caps' width does not cover the
 * caps: skipped, the next one delivered. */
GST_START_TEST (test_frame_with_short_rows_is_skipped)
{
  gchar *ch = t_channel ("shortrows");
  struct doradma_writer *w = lib_writer (ch, T_GRAY, 4, 0);
  struct doradma_frame_info fi;
  GstHarness *h;
  GstBuffer *buf;
  gsize size;

  h = src_new (ch, NULL);
  /* joined before the first frame: a late joiner would start at frame 2 */
  fail_unless_equals_int (doradma_writer_wait_readers (w, 1, 5 * GST_SECOND,
          NULL), 0);
  lib_frame_info (T_GRAY, GST_CLOCK_TIME_NONE, &fi, &size);
  fi.planes[0].row_bytes -= 1;
  fail_unless_equals_int (lib_publish_info (w, DORADMA_POLICY_LATEST, &fi,
          size, 1), 0);
  lib_publish (w, T_GRAY, 2, GST_CLOCK_TIME_NONE);
  buf = gst_harness_pull (h);
  fail_unless_equals_int (t_first_byte (buf), 2);
  gst_buffer_unref (buf);
  gst_harness_teardown (h);
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* Finding 2: the ALLOCATION query runs with the real caps, so padded
 * frames go zero-copy to an element that takes GstVideoMeta. */
GST_START_TEST (test_padded_frames_go_zero_copy_into_videoconvert)
{
  gchar *ch = t_channel ("meta");
  GstHarness *w = t_sink_new (ch, T_PAD, "wait-for-readers=1");
  TPipe *t = t_pipe_new (ch, NULL,
      "videoconvert ! video/x-raw,format=RGBA ! fakesink sync=false");
  guint i;

  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  push_padded (w, T_PAD, 54, 3);
  for (i = 0; i < 3; i++) {
    TPushed *p = t_pipe_pull (t);

    fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (p->buf, 0)),
        "frame %u was copied", i);
    t_pushed_free (p);
  }
  fail_unless_equals_uint64 (t_stat (t->src, "copies"), 0);
  t_pipe_free (t);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

static gboolean
have_elements (const gchar * const *names)
{
  for (; *names; names++) {
    GstElementFactory *f = gst_element_factory_find (*names);

    if (f == NULL)
      return FALSE;
    gst_object_unref (f);
  }
  return TRUE;
}

/* The visible pixels of an I420 T_PAD frame, read through its meta. */
static gchar *
visible_checksum (GstBuffer * buf, gboolean ignore_meta)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA1);
  GstCaps *c = gst_caps_from_string (T_PAD);
  GstVideoInfo info;
  GstVideoFrame f;
  GstBuffer *b = buf;
  gchar *out;
  guint p, y;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  if (ignore_meta) {
    /* as an element that ignores GstVideoMeta reads it */
    b = gst_buffer_copy_deep (buf);
    while (gst_buffer_get_video_meta (b))
      gst_buffer_remove_meta (b, (GstMeta *) gst_buffer_get_video_meta (b));
  }
  fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++)
    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++)
      g_checksum_update (sum, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p) +
          y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, p),
          GST_VIDEO_FRAME_COMP_WIDTH (&f, p));
  gst_video_frame_unmap (&f);
  if (b != buf)
    gst_buffer_unref (b);
  out = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return out;
}

#define DECODE "videotestsrc pattern=ball num-buffers=8 ! " T_PAD \
    " ! openh264enc ! h264parse ! avdec_h264"

/* Finding 1 with a real decoder: avdec_h264 at 330x250 writes padded rows
 * (stride 384) into the ring; copy=true into an element that ignores
 * GstVideoMeta reads the same pixels as a local decode. */
GST_START_TEST (test_copy_mode_after_avdec_h264_gives_the_decoded_pixels)
{
  static const gchar *needed[] = { "openh264enc", "h264parse", "avdec_h264",
    NULL
  };
  gchar *ch, *desc, *ref[8], *got;
  GstElement *prod;
  TPipe *t;
  guint i;

  if (!have_elements (needed)) {
    g_print ("SKIP: needs openh264enc, h264parse and avdec_h264\n");
    return;
  }
  /* the reference: a local decode, through a probe before a fakesink */
  {
    GstElement *p = gst_parse_launch (DECODE " name=dec ! fakesink", NULL);
    GstElement *dec = gst_bin_get_by_name (GST_BIN (p), "dec");
    GstPad *pad = gst_element_get_static_pad (dec, "src");
    GAsyncQueue *q = g_async_queue_new ();

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pushed_probe, q, NULL);
    gst_message_unref (t_run (p, 20 * GST_SECOND));
    for (i = 0; i < 8; i++) {
      TPushed *pb = g_async_queue_timeout_pop (q, G_USEC_PER_SEC);

      fail_unless (pb != NULL, "reference frame %u", i);
      ref[i] = visible_checksum (pb->buf, FALSE);
      t_pushed_free (pb);
    }
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (pad);
    gst_object_unref (dec);
    gst_object_unref (p);
    g_async_queue_unref (q);
  }

  ch = t_channel ("avdec");
  t = t_pipe_new (ch, "copy=true", NULL);
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  desc = g_strdup_printf (DECODE " ! doradmasink channel=%s mode=lossless "
      "wait-for-readers=1 sync=false", ch);
  prod = gst_parse_launch (desc, NULL);
  gst_element_set_state (prod, GST_STATE_PLAYING);
  for (i = 0; i < 8; i++) {
    TPushed *p = t_pipe_pull (t);

    got = visible_checksum (p->buf, TRUE);
    fail_unless_equals_string (got, ref[i]);
    g_free (got);
    g_free (ref[i]);
    t_pushed_free (p);
  }
  gst_element_set_state (prod, GST_STATE_NULL);
  gst_object_unref (prod);
  t_pipe_free (t);
  fail_unless (t_shm_clean (ch));
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;


/* Finding 1, GPU paths: copy-to (managed and pinned slabs, mappable) and
 * memory:CUDAMemory output through cudadownload give a downstream without
 * GstVideoMeta the default layout. Skips without CUDA (runs on the GPU
 * machine). */
GST_START_TEST (test_gpu_paths_without_video_meta_push_the_default_layout)
{
  const gchar *modes[] = { "copy-to=uma", "copy-to=pinned", NULL };
  GstAllocator *slabs;
  GError *err = NULL;
  GstElementFactory *dl;
  guint i;

  /* CUDA works here exactly when a slab allocator can be made */
  slabs = gst_doradma_slab_allocator_new (GST_DORADMA_SLAB_KIND_MANAGED, 0,
      &err);
  if (slabs == NULL) {
    g_print ("SKIP: %s\n", err->message);
    g_clear_error (&err);
    return;
  }
  gst_object_unref (slabs);
  if ((dl = gst_element_factory_find ("cudadownload"))) {
    modes[G_N_ELEMENTS (modes) - 1] = "! cudadownload";
    gst_object_unref (dl);
  }
  for (i = 0; i < G_N_ELEMENTS (modes) && modes[i]; i++) {
    gchar *ch = t_channel ("gpulayout");
    GstHarness *w = t_sink_new (ch, T_PAD, "wait-for-readers=1");
    gboolean down = modes[i][0] == '!';
    TPipe *t = t_pipe_new (ch, down ? NULL : modes[i], down ?
        "cudadownload ! capsfilter caps=video/x-raw ! fakesink name=out "
        "sync=false" : NULL);
    TPushed *p;

    if (down)                   /* the system-memory side of cudadownload */
      t_pipe_probe_at (t, "out");
    gst_element_set_state (t->pipe, GST_STATE_PLAYING);
    push_padded (w, T_PAD, 54, 1);
    p = t_pipe_pull (t);
    assert_default_layout_pattern (p->buf, T_PAD);
    t_pushed_free (p);
    t_pipe_free (t);
    gst_harness_teardown (w);
    fail_unless (t_shm_clean (ch));
    g_free (ch);
  }
}

GST_END_TEST;

/* Finding 3: when the producer's latency in the ring changes (here: a
 * restarted producer that learns its latency after we joined), the src
 * posts LATENCY and answers with the new value. */
GST_START_TEST (test_producer_latency_change_is_announced)
{
  gchar *ch = t_channel ("lat");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  TPipe *t = t_pipe_new (ch, "processing-deadline=5000000", NULL);

  doradma_writer_set_latency (w, 10 * GST_MSECOND);
  lib_publish (w, T_CAPS, 1, t_monotonic_now ());
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  t_pushed_free (t_pipe_pull (t));
  fail_unless_equals_uint64 (t_src_latency (t->src), 15 * GST_MSECOND);

  /* the producer restarts; its latency is known only from its first frame */
  doradma_writer_close (w);
  w = lib_writer (ch, T_CAPS, 4, 0);
  fail_unless_equals_int (doradma_writer_wait_readers (w, 1, 5 * GST_SECOND,
          NULL), 0);
  g_usleep (200 * 1000);        /* what the (re)join announces */
  t_latency_posted (t->pipe, t->src);
  doradma_writer_set_latency (w, 100 * GST_MSECOND);
  lib_publish (w, T_CAPS, 2, t_monotonic_now ());
  t_pushed_free (t_pipe_pull (t));
  fail_unless (t_latency_posted (t->pipe, t->src),
      "no LATENCY message after the producer's latency changed");
  fail_unless_equals_uint64 (t_src_latency (t->src), 105 * GST_MSECOND);

  t_finish (t, w, ch);
}

GST_END_TEST;

typedef struct
{
  struct doradma_writer *w;
  GstClockTime published[256];  /* by first byte: the latest such frame */
  guint n;
  gint stop;
} TTicker;

/* Publishes frame n (bytes = n mod 256) every 10 ms, captured "now". */
static gpointer
ticker (gpointer data)
{
  TTicker *tk = data;

  /* until stopped, however long the pipeline took to start (a byte value
   * comes back after 2.56 s, far longer than a frame stays in the ring) */
  while (!g_atomic_int_get (&tk->stop)) {
    guint8 v = (guint8) tk->n;

    tk->published[v] = t_monotonic_now ();
    lib_publish (tk->w, T_CAPS, v, tk->published[v]);
    tk->n++;
    g_usleep (10 * 1000);
  }
  return NULL;
}

/* Finding 5: frames published while the consumer was PAUSED are not pushed
 * after it resumes, and PTS never go backwards. (A frame published before
 * the pause may be held over it, as in every live source.) */
GST_START_TEST (test_frames_published_while_paused_are_not_pushed)
{
  gchar *ch = t_channel ("pause");
  TTicker tk = { 0 };
  TPipe *t;
  GThread *th;
  GstClockTime paused, resumed, last_pts = 0;
  TPushed *p;
  guint after = 0, i;

  tk.w = lib_writer (ch, T_CAPS, 16, 0);
  t = t_pipe_new (ch, NULL, NULL);
  th = g_thread_new ("ticker", ticker, &tk);
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  for (i = 0; i < 500 && g_async_queue_length (t->q) < 5; i++)
    g_usleep (10 * 1000);
  fail_unless (g_async_queue_length (t->q) >= 5, "no frames before the pause");
  paused = t_monotonic_now ();
  gst_element_set_state (t->pipe, GST_STATE_PAUSED);
  g_usleep (300 * 1000);
  resumed = t_monotonic_now ();
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  g_usleep (300 * 1000);
  g_atomic_int_set (&tk.stop, 1);
  g_thread_join (th);
  gst_element_set_state (t->pipe, GST_STATE_NULL);

  /* everything pushed, in order */
  {
    GQueue all = G_QUEUE_INIT;

    while ((p = g_async_queue_try_pop (t->q)))
      g_queue_push_tail (&all, p);
    while ((p = g_queue_pop_head (&all))) {
      guint8 v = t_first_byte (p->buf);

      if (GST_BUFFER_PTS_IS_VALID (p->buf)) {
        fail_unless (GST_BUFFER_PTS (p->buf) >= last_pts, "PTS went back: %"
            GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
            GST_TIME_ARGS (GST_BUFFER_PTS (p->buf)), GST_TIME_ARGS (last_pts));
        last_pts = GST_BUFFER_PTS (p->buf);
      }
      if (p->pushed > resumed) {
        after++;
        fail_unless (tk.published[v] < paused || tk.published[v] >= resumed,
            "frame %u was published %" G_GINT64_FORMAT " ms before the "
            "resume, while paused, and pushed after it", v,
            (gint64) (resumed - tk.published[v]) / 1000000);
      }
      t_pushed_free (p);
    }
  }
  fail_unless (after > 0, "nothing pushed after the resume");
  t_pipe_free (t);
  doradma_writer_close (tk.w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

static void
assert_negotiation_error (GstMessage * msg, const gchar * in_message,
    const gchar * in_debug)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "no error");
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (err->domain == GST_CORE_ERROR
      && err->code == GST_CORE_ERROR_NEGOTIATION, "error %s %d: %s (%s)",
      g_quark_to_string (err->domain), err->code, err->message, dbg);
  fail_unless (strstr (err->message, in_message), "\"%s\" not in \"%s\"",
      in_message, err->message);
  fail_unless (dbg && strstr (dbg, in_debug), "\"%s\" not in \"%s\"",
      in_debug, dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
}

static GstMessage *
run_consumer (const gchar * channel, const gchar * rest)
{
  gchar *desc = g_strdup_printf ("doradmasrc channel=%s %s", channel, rest);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstMessage *msg;

  fail_unless (p != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "");
  msg = t_run (p, 5 * GST_SECOND);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return msg;
}

/* Finding 6: caps downstream refuses give CORE/NEGOTIATION naming the
 * writer's caps and what downstream accepts. */
GST_START_TEST (test_refused_caps_are_a_negotiation_error_naming_both_sides)
{
  gchar *ch = t_channel ("neg");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);

  lib_publish (w, T_CAPS, 1, t_monotonic_now ());
  assert_negotiation_error (run_consumer (ch,
          "! video/x-raw,format=RGBA ! fakesink"), "I420", "RGBA");
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* Whether this build's doradmasrc offers memory:CUDAMemory at all (it
 * needs gstreamer-cuda). */
static gboolean
src_template_has_cuda (void)
{
  GstElementFactory *f = gst_element_factory_find ("doradmasrc");
  GstCaps *caps = NULL;
  gboolean has = FALSE;
  const GList *l;

  fail_unless (f != NULL);
  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;

    if (t->direction != GST_PAD_SRC)
      continue;
    caps = gst_static_caps_get (&t->static_caps);
    for (guint i = 0; i < gst_caps_get_size (caps); i++)
      has |= gst_caps_features_contains (gst_caps_get_features (caps, i),
          "memory:CUDAMemory");
    gst_caps_unref (caps);
  }
  gst_object_unref (f);
  return has;
}

/* Finding 6: a downstream that asks for memory:CUDAMemory gets system
 * memory when it also takes it and CUDA memory is not available, and a
 * negotiation error saying so when it does not (where CUDA memory works,
 * the stream simply runs). */
GST_START_TEST (test_cuda_downstream_without_cuda_falls_back_or_says_why)
{
  gchar *ch = t_channel ("cudaneg");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  GstMessage *msg;

  lib_publish (w, T_CAPS, 1, t_monotonic_now ());
  msg = run_consumer (ch, "num-buffers=1 ! capsfilter "
      "caps=\"video/x-raw(memory:CUDAMemory);video/x-raw\" ! fakesink");
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "the fallback to system memory did not run");
  gst_message_unref (msg);
  if (!src_template_has_cuda ()) {
    /* a build without gstreamer-cuda offers no CUDA caps at all: the
     * CUDA-only downstream cannot even link (nothing to say at run time) */
    doradma_writer_close (w);
    fail_unless (t_shm_clean (ch));
    g_free (ch);
    return;
  }
  msg = run_consumer (ch, "num-buffers=1 ! capsfilter "
      "caps=\"video/x-raw(memory:CUDAMemory)\" ! fakesink");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
    gst_message_unref (msg);
  else
    assert_negotiation_error (msg, "I420", "memory:CUDAMemory");
  doradma_writer_close (w);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

#define OWNER_UID 65533
#define SHARED_GID 65530

/* Finding 7: allowed-uid makes a channel of another user readable (the
 * documented 0660 recipe); the default (our own uid) refuses it with a
 * message naming the owner. Needs root to run the writer as another uid. */
GST_START_TEST (test_allowed_uid_admits_the_channel_owner)
{
  GstElement *e = gst_element_factory_make ("doradmasrc", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "allowed-uid");
  gchar *ch = t_channel ("uid");
  int go[2], ready[2];
  pid_t pid;
  gchar c;
  GstMessage *msg;
  const gchar *ok[] = { "allowed-uid=65533", "allowed-uid=-1" };
  guint i;

  fail_unless (ps != NULL, "doradmasrc has no allowed-uid property");
  fail_unless_equals_int64 (((GParamSpecInt64 *) ps)->default_value, getuid ());
  fail_unless_equals_int64 (((GParamSpecInt64 *) ps)->minimum, -1);
  gst_object_unref (e);
  if (getuid () != 0) {
    g_print ("SKIP: needs root to run a writer as another uid\n");
    g_free (ch);
    return;
  }

  fail_unless (pipe (go) == 0 && pipe (ready) == 0);
  pid = fork ();
  if (pid == 0) {
    struct doradma_writer *w;
    gid_t none[1] = { 0 };

    if (setgroups (0, none) != 0 || setresgid (SHARED_GID, SHARED_GID,
            SHARED_GID) != 0 || setresuid (OWNER_UID, OWNER_UID,
            OWNER_UID) != 0)
      _exit (2);
    w = lib_writer (ch, T_CAPS, 4, 0660);
    lib_publish (w, T_CAPS, 9, t_monotonic_now ());
    if (write (ready[1], "r", 1) != 1 || read (go[0], &c, 1) != 1)
      _exit (3);
    doradma_writer_close (w);
    _exit (0);
  }
  /* only the child writes "ready": a child that failed gives EOF, not a
   * read that waits forever */
  close (ready[1]);
  close (go[0]);
  fail_unless (read (ready[0], &c, 1) == 1, "the owner did not start");

  msg = run_consumer (ch, "timeout=2000000000 ! fakesink");
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_AUTHORIZED,
      "65533");
  gst_message_unref (msg);
  for (i = 0; i < G_N_ELEMENTS (ok); i++) {
    gchar *rest = g_strdup_printf ("%s num-buffers=1 ! fakesink", ok[i]);

    msg = run_consumer (ch, rest);
    fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "%s did not read the channel", ok[i]);
    gst_message_unref (msg);
    g_free (rest);
  }
  fail_unless (write (go[1], "g", 1) == 1);
  {
    int status;

    fail_unless (waitpid (pid, &status, 0) == pid && WIFEXITED (status)
        && WEXITSTATUS (status) == 0);
  }
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* Finding 9: a late joiner gets the newest of the frames captured before
 * it started at PTS 0, and frames captured before it started but published
 * after it joined (the producer's latency) do not repeat PTS 0: PTS always
 * increase, and nothing is lost. */
GST_START_TEST (test_late_joiner_gets_no_run_of_pts_0)
{
  gchar *ch = t_channel ("late");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 8, 0);
  TPipe *t = t_pipe_new (ch, NULL, NULL);
  GstClockTime before_start, last = 0;
  TPushed *p;
  guint i, zeros = 0;

  for (i = 1; i <= 3; i++)
    lib_publish (w, T_CAPS, i,
        t_monotonic_now () - (4 - i) * 100 * GST_MSECOND);
  before_start = t_monotonic_now ();
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  fail_unless_equals_int (doradma_writer_wait_readers (w, 1, 5 * GST_SECOND,
          NULL), 0);
  for (i = 3; i <= 8; i++) {
    /* one frame at a time, each published once the src pushed the one
     * before: a stale frame (captured before our base time) with a newer
     * one behind it is skipped for the newest, by design
     * (gstdoradmasrctime.c), so under load a src still reading 3 when 4
     * arrived started at 4. 4, 5: captured before we started, published
     * after we joined. */
    if (i > 3)
      lib_publish (w, T_CAPS, i, i <= 5 ? before_start - 1 :
          t_monotonic_now ());
    p = t_pipe_pull (t);
    fail_unless_equals_int (t_first_byte (p->buf), i);
    if (i == 3) {
      fail_unless (GST_BUFFER_FLAG_IS_SET (p->buf, GST_BUFFER_FLAG_DISCONT));
    } else {
      fail_unless (GST_BUFFER_PTS (p->buf) > last, "frame %u at %"
          GST_TIME_FORMAT " after %" GST_TIME_FORMAT, i,
          GST_TIME_ARGS (GST_BUFFER_PTS (p->buf)), GST_TIME_ARGS (last));
    }
    zeros += GST_BUFFER_PTS (p->buf) == 0;
    last = GST_BUFFER_PTS (p->buf);
    t_pushed_free (p);
  }
  fail_unless_equals_int (zeros, 1);
  t_finish (t, w, ch);
}

GST_END_TEST;


/* Ring review finding 1, src side: a writer killed and replaced at once by
 * a new writer on its stale channel (sequence numbers start over): the src
 * goes on with the new writer's frames, the first one DISCONT, instead of
 * waiting for the new sequence to pass the old one. */
/* Review round 4, R4-1: a control object whose identity line a peer
 * overwrote. A zeroed magic is an error naming ctl.magic at once (the src
 * used to wait for ever without a word); a token of another segment that
 * stays (not a replace in progress) is waited for, with one warning that
 * says why after a few seconds. */
GST_START_TEST (test_corrupt_control_object_is_named)
{
  gchar *ch = t_channel ("ctlbad"), *path, *desc;
  GstHarness *w = t_sink_harness (ch, T_CAPS);
  struct doradma_shm_ctl *ctl;
  GstElement *p;
  GstMessage *msg;
  GstBus *bus;
  guint64 magic;
  int fd;

  fail_unless_equals_int (gst_harness_push (w, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  path = g_strdup_printf ("%s/doradma.%s~ctl", doradma_shm_dir (NULL), ch);
  fd = open (path, O_RDWR);
  fail_unless (fd >= 0, "open %s", path);
  ctl = mmap (NULL, sizeof *ctl, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  fail_unless (ctl != MAP_FAILED);
  close (fd);
  desc = g_strdup_printf ("doradmasrc channel=%s ! fakesink", ch);

  magic = ctl->magic;
  ctl->magic = 0;
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 10 * GST_SECOND);
  t_assert_error (msg, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "ctl.magic");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  ctl->magic = magic;

  ctl->token ^= 1;
  p = gst_parse_launch (desc, NULL);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no warning in 20 s");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_WARNING);
  {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_warning (msg, &err, &dbg);
    fail_unless (strstr (err->message, ch) && strstr (err->message,
            "control object") && dbg && strstr (dbg, "writer lock is held"),
        "warning: %s / %s", err->message, dbg);
    g_clear_error (&err);
    g_free (dbg);
  }
  gst_message_unref (msg);
  /* once: no second warning while it goes on waiting */
  msg = gst_bus_timed_pop_filtered (bus, 4 * GST_SECOND,
      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "a second message: %" GST_PTR_FORMAT, msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  ctl->token ^= 1;

  munmap (ctl, sizeof *ctl);
  g_free (desc);
  g_free (path);
  gst_harness_teardown (w);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_stale_takeover_goes_on_with_the_new_writer)
{
  gchar *ch = t_channel ("takeover");
  struct doradma_writer *w;
  int ready[2];
  pid_t pid;
  gchar c;
  TPipe *t;
  TPushed *p;
  guint i;

  fail_unless (pipe (ready) == 0);
  pid = fork ();
  if (pid == 0) {
    w = lib_writer (ch, T_CAPS, 4, 0);
    for (i = 1; i <= 20; i++)
      lib_publish (w, T_CAPS, i, t_monotonic_now ());
    if (write (ready[1], "r", 1) != 1)
      _exit (1);
    for (;;)
      pause ();
  }
  fail_unless (read (ready[0], &c, 1) == 1, "the first writer did not start");
  t = t_pipe_new (ch, NULL, NULL);
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  p = t_pipe_pull (t);
  fail_unless_equals_int (t_first_byte (p->buf), 20);
  t_pushed_free (p);

  /* the writer dies; a new one takes the channel over before the reader
   * notices (its wait slice is 100 ms) */
  kill (pid, SIGKILL);
  fail_unless (waitpid (pid, NULL, 0) == pid);
  w = lib_writer (ch, T_CAPS, 4, 0);
  for (i = 101; i <= 103; i++) {
    lib_publish (w, T_CAPS, i, t_monotonic_now ());
    g_usleep (20 * 1000);
  }
  p = t_pipe_pull (t);
  fail_unless (t_first_byte (p->buf) > 100, "frame %u", t_first_byte (p->buf));
  fail_unless (GST_BUFFER_FLAG_IS_SET (p->buf, GST_BUFFER_FLAG_DISCONT));
  t_pushed_free (p);
  t_finish (t, w, ch);
}

GST_END_TEST;

/* Finding 20: the stats blurb names every field of the structure. */
GST_START_TEST (test_stats_blurb_lists_every_field)
{
  GstElement *e = gst_element_factory_make ("doradmasrc", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "stats");
  const gchar *blurb = g_param_spec_get_blurb (ps);
  GstStructure *s;
  guint i;

  g_object_get (e, "stats", &s, NULL);
  for (i = 0; i < (guint) gst_structure_n_fields (s); i++)
    fail_unless (strstr (blurb, gst_structure_nth_field_name (s, i)),
        "the stats blurb lacks %s", gst_structure_nth_field_name (s, i));
  gst_structure_free (s);
  gst_object_unref (e);
}

GST_END_TEST;

/* Finding 21: the src's transport values are the src's own: no `ipc`
 * (that is the writer's choice), and `auto` says what it does here. */
GST_START_TEST (test_transport_enum_is_the_srcs_own)
{
  GstElement *e = gst_element_factory_make ("doradmasrc", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "transport");
  GEnumClass *ec = g_type_class_ref (ps->value_type);
  GEnumValue *v;

  fail_if (g_enum_get_value_by_nick (ec, "ipc") != NULL);
  v = g_enum_get_value_by_nick (ec, "auto");
  fail_unless (v != NULL && strstr (v->value_name, "memory:CUDAMemory"),
      "auto: %s", v ? v->value_name : "missing");
  fail_unless (g_enum_get_value_by_nick (ec, "shmem") != NULL);
  fail_unless (g_enum_get_value_by_nick (ec, "unified") != NULL);
  g_type_class_unref (ec);
  gst_object_unref (e);
}

GST_END_TEST;

/* Settings are refused once the element started: what it runs with is
 * what get_property says. */
GST_START_TEST (test_settings_are_refused_once_started)
{
  gchar *ch = t_channel ("started");
  struct doradma_writer *w = lib_writer (ch, T_CAPS, 4, 0);
  TPipe *t = t_pipe_new (ch, NULL, NULL);
  gboolean copy;
  gchar *got;

  lib_publish (w, T_CAPS, 1, t_monotonic_now ());
  gst_element_set_state (t->pipe, GST_STATE_PLAYING);
  t_pushed_free (t_pipe_pull (t));
  g_object_set (t->src, "copy", TRUE, "channel", "other", NULL);
  g_object_get (t->src, "copy", &copy, "channel", &got, NULL);
  fail_if (copy);
  fail_unless_equals_string (got, ch);
  g_free (got);
  lib_publish (w, T_CAPS, 2, t_monotonic_now ());
  {
    TPushed *p = t_pipe_pull (t);

    fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (p->buf, 0)));
    t_pushed_free (p);
  }
  t_finish (t, w, ch);
}

GST_END_TEST;

static Suite *
doradmasrc_suite (void)
{
  Suite *s = suite_create ("doradmasrc");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_have_documented_defaults);
  tcase_add_test (tc, test_missing_channel_times_out_with_not_found);
  tcase_add_test (tc, test_unset_or_invalid_channel_is_a_settings_error);
  tcase_add_test (tc, test_stopping_while_waiting_for_the_channel_is_prompt);
  tcase_add_test (tc,
      test_buffers_are_readonly_zero_copy_memory_with_ring_caps);
  tcase_add_test (tc, test_group_writable_control_object_is_read_by_copy);
  tcase_add_test (tc, test_beyond_max_leases_frames_are_copied_and_counted);
  tcase_add_test (tc, test_copy_mode_delivers_local_memory);
  tcase_add_test (tc, test_buffer_fields_and_crop_meta_are_carried);
  tcase_add_test (tc, test_latency_answer_is_live_with_producer_latency_added);
  tcase_add_test (tc, test_eos_after_the_final_frame);
  tcase_add_test (tc, test_latest_mode_delivers_the_newest_frame);
  tcase_add_test (tc, test_mapping_outlives_the_element_while_buffers_are_held);
  tcase_add_test (tc, test_a_memory_kept_beyond_its_buffer_keeps_its_lease);
  tcase_add_test (tc, test_a_memory_in_use_is_never_reused);
  tcase_add_test (tc, test_pts_follow_the_pipeline_clock);
  tcase_add_test (tc, test_a_recycled_buffer_gets_a_fresh_video_meta);
  tcase_add_test (tc, test_frame_meta_setter_needs_a_writable_buffer);
  tcase_add_test (tc, test_frame_with_short_rows_is_skipped);
  tcase_add_test (tc,
      test_without_video_meta_every_mode_pushes_the_default_layout);
  tcase_add_test (tc, test_padded_frames_go_zero_copy_into_videoconvert);
  tcase_add_test (tc, test_copy_mode_after_avdec_h264_gives_the_decoded_pixels);
  tcase_add_test (tc,
      test_gpu_paths_without_video_meta_push_the_default_layout);
  tcase_add_test (tc, test_producer_latency_change_is_announced);
  tcase_add_test (tc, test_frames_published_while_paused_are_not_pushed);
  tcase_add_test (tc,
      test_refused_caps_are_a_negotiation_error_naming_both_sides);
  tcase_add_test (tc, test_cuda_downstream_without_cuda_falls_back_or_says_why);
  tcase_add_test (tc, test_allowed_uid_admits_the_channel_owner);
  tcase_add_test (tc, test_late_joiner_gets_no_run_of_pts_0);
  tcase_add_test (tc, test_stale_takeover_goes_on_with_the_new_writer);
  tcase_add_test (tc, test_corrupt_control_object_is_named);
  tcase_add_test (tc, test_stats_blurb_lists_every_field);
  tcase_add_test (tc, test_transport_enum_is_the_srcs_own);
  tcase_add_test (tc, test_settings_are_refused_once_started);
  return s;
}

GST_CHECK_MAIN (doradmasrc);
