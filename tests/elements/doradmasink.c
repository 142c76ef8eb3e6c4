/* doradmasink element tests (gst-check, GstHarness).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>

#include <sys/stat.h>

#include "common.h"
#include "gstdoradmacuda.h"

/* The nick of value `v` of enum property `prop`. */
static const gchar *
enum_nick (GstElement * e, const gchar * prop, gint v)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      prop);
  GEnumValue *ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);

  fail_unless (ev != NULL, "%s has no value %d", prop, v);
  return ev->value_nick;
}

GST_START_TEST (test_properties_have_documented_defaults)
{
  GstElement *e = gst_element_factory_make ("doradmasink", NULL);
  gchar *channel;
  gint mode, transport, stall;
  guint slots, perms, wfr;
  guint64 timeout;
  GstStructure *stats;

  fail_unless (e != NULL);
  g_object_get (e, "channel", &channel, "slots", &slots, "permissions",
      &perms, "timeout", &timeout, "wait-for-readers", &wfr, "stats", &stats,
      NULL);
  fail_unless (channel == NULL);
  fail_unless_equals_int (slots, 8);
  fail_unless_equals_int (perms, 0600);
  fail_unless_equals_uint64 (timeout, 5 * GST_SECOND);
  fail_unless_equals_int (wfr, 0);
  for (const gchar ** f = (const gchar *[]) {
        "frames", "copies", "drops", "fallback-buffers", "full-ring-waits",
        "readers", NULL
      }; *f; f++)
    fail_unless (gst_structure_has_field (stats, *f), "stats lacks %s", *f);
  gst_structure_free (stats);

  g_object_get (e, "mode", &mode, "transport", &transport,
      "on-reader-stall", &stall, NULL);
  fail_unless_equals_string (enum_nick (e, "mode", mode), "latest");
  fail_unless_equals_string (enum_nick (e, "transport", transport), "auto");
  fail_unless_equals_string (enum_nick (e, "on-reader-stall", stall), "error");
  gst_object_unref (e);
}

GST_END_TEST;

GST_START_TEST (test_missing_channel_is_a_settings_error)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "doradmasink", NULL);
  GstMessage *msg = t_run (p, 5 * GST_SECOND);

  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "channel");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_invalid_channel_name_is_refused_before_any_syscall)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "doradmasink channel=../etc", NULL);
  GstMessage *msg = t_run (p, 5 * GST_SECOND);

  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "../etc");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static GstMessage *
run_with_transport_env (const gchar * env, const gchar * transport,
    gchar ** channel)
{
  GstElement *p;
  GstMessage *msg;
  gchar *desc;

  *channel = t_channel ("env");
  if (env)
    g_setenv ("DORADMA_TRANSPORT", env, TRUE);
  desc = g_strdup_printf ("videotestsrc num-buffers=2 ! " T_CAPS " ! "
      "doradmasink channel=%s transport=%s sync=false", *channel, transport);
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_unsetenv ("DORADMA_TRANSPORT");
  return msg;
}

GST_START_TEST (test_unknown_transport_env_is_an_error_naming_the_variable)
{
  gchar *ch;
  GstMessage *msg = run_with_transport_env ("bogus", "auto", &ch);

  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "DORADMA_TRANSPORT");
  gst_message_unref (msg);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_empty_transport_env_means_unset)
{
  gchar *ch;
  GstMessage *msg = run_with_transport_env ("", "auto", &ch);

  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_transport_env_does_not_override_an_explicit_transport)
{
  gchar *ch;
  GstMessage *msg = run_with_transport_env ("bogus", "shmem", &ch);

  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* Without CUDA (not built, no libcuda.so.1, no device) the CUDA
 * transports fail at start naming what is missing; where CUDA works,
 * unified runs (ipc also needs a discrete GPU: not checked here). */
GST_START_TEST (test_cuda_transports_fail_clearly_without_cuda)
{
  gboolean cuda = gst_doradma_cuda_available (NULL);
  gchar *ch;
  GstMessage *msg = run_with_transport_env (NULL, "unified", &ch);

  if (cuda) {
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    gst_message_unref (msg);
    fail_unless (t_shm_clean (ch));
    g_free (ch);
    return;
  }
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "unified");
  gst_message_unref (msg);
  g_free (ch);
  msg = run_with_transport_env ("ipc", "auto", &ch);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "ipc");
  gst_message_unref (msg);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

/* R4-E4: a name the writer would refuse (a FIFO, a symbolic link, a live
 * writer's channel) fails the state change itself, synchronously, with
 * the error naming the cause first. Before, the error came from upstream's
 * streaming thread at the ALLOCATION query, with upstream's not-negotiated
 * after it, while set_state had returned ASYNC: gst-launch-1.0 hung when
 * both came before its main loop ran (gdb: main in g_main_loop_run). */
static void
check_refused_at_start (const gchar * ch, GQuark domain, gint code,
    const gchar * in_text)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! " T_CAPS
      " ! doradmasink channel=%s sync=false", ch);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;

  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  /* posted before set_state returned */
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  t_assert_error (msg, domain, code, in_text);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
}

GST_START_TEST (test_a_squatted_name_fails_the_state_change_at_once)
{
  gchar *ch = t_channel ("squat");
  gchar *path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL), ch);

  fail_unless (mkfifo (path, 0600) == 0, "mkfifo %s: %s", path,
      g_strerror (errno));
  check_refused_at_start (ch, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "is a FIFO");
  fail_unless (unlink (path) == 0);
  fail_unless (symlink ("/nonexistent", path) == 0);
  check_refused_at_start (ch, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "symbolic link");
  fail_unless (unlink (path) == 0);
  g_free (path);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_a_live_writers_channel_fails_the_state_change_at_once)
{
  gchar *ch = t_channel ("busy0");
  GstHarness *h1 = t_sink_harness (ch, T_CAPS);
  gchar *pid = g_strdup_printf ("process %d", (int) getpid ());

  fail_unless_equals_int (gst_harness_push (h1, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  check_refused_at_start (ch, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY, pid);
  gst_harness_teardown (h1);
  fail_unless (t_shm_clean (ch));
  g_free (pid);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_second_live_writer_is_refused_naming_its_pid)
{
  gchar *ch = t_channel ("busy");
  GstHarness *h1 = t_sink_harness (ch, T_CAPS);
  GstElement *p;
  GstMessage *msg;
  gchar *desc, *pid;

  fail_unless_equals_int (gst_harness_push (h1, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  desc = g_strdup_printf ("videotestsrc num-buffers=1 ! " T_CAPS " ! "
      "doradmasink channel=%s sync=false", ch);
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  pid = g_strdup_printf ("%d", (int) getpid ());
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY, pid);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  gst_harness_teardown (h1);
  fail_unless (t_shm_clean (ch));
  g_free (pid);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_inplace_buffers_are_published_without_copy)
{
  gchar *ch = t_channel ("inplace");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r = t_reader (ch, FALSE);
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  gst_buffer_memset (buf, 0, 0x5a, gst_buffer_get_size (buf));
  GST_BUFFER_PTS (buf) = 5 * GST_SECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);

  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_int (frame.data[0], 0x5a);
  fail_unless_equals_int (frame.info.width, 64);
  fail_unless_equals_uint64 (frame.info.pts, 5 * GST_SECOND);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 1);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 0);

  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_slot_memory_with_an_offset_is_published_byte_exact)
{
  gchar *ch = t_channel ("memoffset");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r = t_reader (ch, FALSE);
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstVideoFrame vf;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (T_CAPS);
  GstBuffer *buf;
  GstMemory *mem;
  guint p, x, y;

  /* upstream trimmed the slot's memory: the frame starts 64 bytes into
   * the slot (a resized or shared memory has mem->offset != 0) */
  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_unless (mem->maxsize >= info.size + 64);
  gst_buffer_memset (buf, 0, 0xee, gst_buffer_get_size (buf));
  gst_buffer_resize (buf, 64, info.size);
  fail_unless (gst_buffer_peek_memory (buf, 0)->offset == 64);
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));

  fail_unless (gst_video_frame_map (&vf, &info, buf, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    for (y = 0; y < (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&vf, p); y++)
      for (x = 0; x < (guint) GST_VIDEO_FRAME_COMP_WIDTH (&vf, p); x++)
        d[y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p) + x] =
            (guint8) (p * 89 + y * 7 + x);
  }
  gst_video_frame_unmap (&vf);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);

  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 0);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    const struct doradma_shm_plane *pl = &frame.info.planes[p];
    for (y = 0; y < (guint) GST_VIDEO_INFO_COMP_HEIGHT (&info, p); y++)
      for (x = 0; x < (guint) GST_VIDEO_INFO_COMP_WIDTH (&info, p); x++)
        fail_unless_equals_int (frame.data[pl->offset + y * pl->stride + x],
            (guint8) (p * 89 + y * 7 + x));
  }
  doradma_reader_release (r, frame.slot);

  doradma_reader_close (r);
  gst_caps_unref (caps);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

/* A slot buffer without video meta that is shorter than the caps' frame
 * (upstream trimmed it) is refused, never published with the rest of the
 * frame left over from an older one. */
GST_START_TEST (test_short_slot_buffer_without_meta_is_refused)
{
  gchar *ch = t_channel ("shortslot");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstVideoMeta *meta;
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  if ((meta = gst_buffer_get_video_meta (buf)) != NULL)
    gst_buffer_remove_meta (buf, (GstMeta *) meta);
  gst_buffer_resize (buf, 0, gst_buffer_get_size (buf) - 1);
  fail_unless (gst_is_doradma_memory (gst_buffer_peek_memory (buf, 0)));
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 0);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_system_memory_is_copied_honouring_strides_and_counted)
{
  gchar *ch = t_channel ("copy");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (T_CAPS);
  GstBuffer *buf;
  gsize offset[4] = { 0 };
  gint stride[4] = { 0 };
  guint8 *p;

  /* a padded source layout: Y stride 128 instead of 64 */
  gst_video_info_from_caps (&info, caps);
  stride[0] = 128;
  stride[1] = stride[2] = 32;
  offset[1] = 128 * 48;
  offset[2] = offset[1] + 32 * 24;
  buf = gst_buffer_new_allocate (NULL, offset[2] + 32 * 24, NULL);
  gst_buffer_memset (buf, 0, 0xee, gst_buffer_get_size (buf));
  gst_buffer_add_video_meta_full (buf, 0, GST_VIDEO_FORMAT_I420, 64, 48, 3,
      offset, stride);
  p = g_malloc (64);
  memset (p, 0x11, 64);
  gst_buffer_fill (buf, 128, p, 64);    /* row 1 of Y */
  g_free (p);

  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  /* the slot has the default layout: row 1 starts at 64 */
  fail_unless_equals_int (frame.info.planes[0].stride, 64);
  fail_unless_equals_int (frame.data[frame.info.planes[0].offset + 64], 0x11);
  fail_unless_equals_int (frame.data[frame.info.planes[0].offset + 63], 0xee);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 1);

  doradma_reader_close (r);
  gst_caps_unref (caps);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_published_slot_becomes_readonly_and_second_render_copies)
{
  gchar *ch = t_channel ("twice");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  GstBuffer *buf;
  GstMemory *mem;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  mem = gst_buffer_peek_memory (buf, 0);
  fail_if (GST_MEMORY_IS_READONLY (mem));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  fail_unless (GST_MEMORY_IS_READONLY (mem));
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 0);
  /* videorate/tee push the same buffer again */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (buf)),
      GST_FLOW_OK);
  fail_unless_equals_uint64 (t_stat (h->element, "copies"), 1);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 2);
  gst_buffer_unref (buf);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_buffer_dropped_without_render_is_abandoned)
{
  gchar *ch = t_channel ("abandon");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstBufferPool *pool = t_sink_pool (h, T_CAPS, NULL);
  struct doradma_reader *r = t_reader (ch, FALSE);
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *buf;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  gst_buffer_memset (buf, 0, 0x77, gst_buffer_get_size (buf));
  gst_buffer_unref (buf);       /* a QoS drop, a flush... */
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT, 0,
          &frame, &diag), -EAGAIN);
  /* and the slot is reusable */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_uint64 (frame.info.seq, 1);
  doradma_reader_release (r, frame.slot);

  doradma_reader_close (r);
  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_latest_mode_never_blocks_and_counts_fallbacks)
{
  gchar *ch = t_channel ("fallback");
  GstHarness *h;
  GstBufferPool *pool;
  GstBuffer *held[4], *extra;
  guint i;

  h = t_sink_new (ch, T_CAPS, "slots=4");
  pool = t_sink_pool (h, T_CAPS, NULL);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &held[i],
            NULL), GST_FLOW_OK);
  /* every slot held upstream: a system-memory buffer, at once */
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &extra,
          NULL), GST_FLOW_OK);
  fail_if (gst_is_doradma_memory (gst_buffer_peek_memory (extra, 0)));
  fail_unless_equals_uint64 (t_stat (h->element, "fallback-buffers"), 1);
  /* its render finds no free slot either: dropped, counted */
  fail_unless_equals_int (gst_harness_push (h, extra), GST_FLOW_OK);
  fail_unless_equals_uint64 (t_stat (h->element, "drops"), 1);
  for (i = 0; i < 4; i++)
    gst_buffer_unref (held[i]);

  t_teardown (h, pool, ch);
}

GST_END_TEST;

GST_START_TEST (test_lossless_stalled_reader_errors_after_timeout)
{
  gchar *ch = t_channel ("stall");
  GstHarness *h;
  struct doradma_reader *r;
  GstFlowReturn ret = GST_FLOW_OK;
  GstMessage *msg;
  GstBus *bus;
  guint i;

  h = t_sink_new (ch, T_CAPS,
      "slots=3 timeout=100000000 mode=lossless on-reader-stall=error");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  r = t_reader (ch, TRUE);      /* joins, never consumes */
  for (i = 0; i < 6 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, t_sysmem_frame (T_CAPS, i));
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  fail_unless (t_stat (h->element, "full-ring-waits") > 0);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY, "slot");
  gst_message_unref (msg);

  doradma_reader_close (r);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  fail_unless (t_shm_clean (ch));
  g_free (ch);
}

GST_END_TEST;

GST_START_TEST (test_lossless_stalled_reader_is_evicted_on_request)
{
  gchar *ch = t_channel ("evict");
  GstHarness *h;
  struct doradma_reader *r;
  guint i;

  h = t_sink_new (ch, T_CAPS,
      "slots=3 timeout=50000000 mode=lossless on-reader-stall=evict");
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 0)),
      GST_FLOW_OK);
  r = t_reader (ch, TRUE);
  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, i)),
        GST_FLOW_OK);
  fail_unless_equals_uint64 (t_stat (h->element, "frames"), 7);

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_timestamps_and_flags_are_carried_with_monotonic_pts)
{
  gchar *ch = t_channel ("ts");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GstBuffer *buf = t_sysmem_frame (T_CAPS, 3);

  GST_BUFFER_PTS (buf) = 2 * GST_SECOND;
  GST_BUFFER_DTS (buf) = GST_SECOND;
  GST_BUFFER_DURATION (buf) = 33 * GST_MSECOND;
  GST_BUFFER_OFFSET (buf) = 42;
  GST_BUFFER_OFFSET_END (buf) = 43;
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_uint64 (frame.info.pts, 2 * GST_SECOND);
  fail_unless_equals_uint64 (frame.info.dts, GST_SECOND);
  fail_unless_equals_uint64 (frame.info.duration, 33 * GST_MSECOND);
  fail_unless_equals_uint64 (frame.info.offset, 42);
  fail_unless_equals_uint64 (frame.info.offset_end, 43);
  fail_unless (frame.info.flags & GST_BUFFER_FLAG_DELTA_UNIT);
  fail_unless (frame.info.mono_pts != DORADMA_TIME_NONE);
  fail_unless (frame.info.publish_time > 0);
  doradma_reader_release (r, frame.slot);

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_eos_ends_the_ring_after_the_last_frame)
{
  gchar *ch = t_channel ("eos");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;

  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), -EPIPE);

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_caps_that_fit_change_in_band_and_larger_caps_replace)
{
  gchar *ch = t_channel ("caps");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  gchar caps[DORADMA_CAPS_MAX];
  guint32 epoch0;

  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  epoch0 = frame.info.caps_epoch;
  doradma_reader_release (r, frame.slot);

  gst_harness_set_src_caps_str (h, T_CAPS_SMALL);
  fail_unless_equals_int (gst_harness_push (h,
          t_sysmem_frame (T_CAPS_SMALL, 2)), GST_FLOW_OK);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless (frame.info.caps_epoch != epoch0);
  fail_unless_equals_int (frame.info.width, 32);
  fail_unless_equals_int (doradma_reader_caps (r, frame.info.caps_epoch,
          caps, sizeof (caps), &diag), 0);
  fail_unless (strstr (caps, "width=(int)32") != NULL, "%s", caps);
  doradma_reader_release (r, frame.slot);

  gst_harness_set_src_caps_str (h, T_CAPS_BIG);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS_BIG,
              3)), GST_FLOW_OK);
  /* the old segment is superseded: readers drain it and reopen */
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), -ESTALE);

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

static gpointer
join_later (gpointer channel)
{
  g_usleep (100 * 1000);
  return t_reader (channel, FALSE);
}

GST_START_TEST (test_wait_for_readers_holds_frames_until_a_reader_joined)
{
  gchar *ch = t_channel ("wfr");
  GstHarness *h;
  struct doradma_reader *r;
  struct doradma_frame frame;
  struct doradma_diag diag;
  GThread *t;
  gint64 start;

  h = t_sink_new (ch, T_CAPS, "wait-for-readers=1");
  t = g_thread_new ("join", join_later, ch);
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 9)),
      GST_FLOW_OK);
  fail_unless (g_get_monotonic_time () - start >= 90 * 1000);
  r = g_thread_join (t);
  /* the reader that joined sees that first frame */
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_int (frame.data[0], 9);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_uint64 (t_stat (h->element, "readers"), 1);

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

GST_START_TEST (test_permissions_set_the_file_mode)
{
  gchar *ch = t_channel ("perm");
  GstHarness *h;
  gchar *path;
  GStatBuf st;

  h = t_sink_new (ch, T_CAPS, "permissions=416");       /* 0640 */
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL), ch);
  fail_unless_equals_int (g_stat (path, &st), 0);
  fail_unless_equals_int (st.st_mode & 0777, 0640);

  gst_harness_teardown (h);
  fail_unless (t_shm_clean (ch));
  g_free (path);
  g_free (ch);
}

GST_END_TEST;

/* R4-C2: 0640 lets the group read the channel, never join it (readers
 * need write on ~ctl): one WARNING says so and names 0660; 0660 and 0600
 * get none. Before, 0640 was accepted silently. */
static GstMessage *
warning_for_permissions (const gchar * mode)
{
  gchar *ch = t_channel ("permw");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! " T_CAPS
      " ! doradmasink channel=%s sync=false permissions=%s", ch, mode);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg, *warning = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  /* up to EOS, keeping the first warning */
  while ((msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    fail_if (type == GST_MESSAGE_ERROR, "mode %s: an error", mode);
    if (type == GST_MESSAGE_WARNING && warning == NULL)
      warning = gst_message_ref (msg);
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  fail_unless (msg != NULL, "mode %s: no EOS", mode);
  msg = warning;
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch));
  g_free (desc);
  g_free (ch);
  return msg;
}

GST_START_TEST (test_permissions_nobody_can_join_with_are_warned_about)
{
  GstMessage *msg = warning_for_permissions ("416");    /* 0640 */
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (msg != NULL, "no warning for 0640");
  gst_message_parse_warning (msg, &err, &dbg);
  fail_unless (err->domain == GST_RESOURCE_ERROR
      && strstr (err->message, "0640") && strstr (dbg, "0660"), "%s / %s",
      err->message, dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  fail_unless (warning_for_permissions ("432") == NULL);        /* 0660 */
  fail_unless (warning_for_permissions ("384") == NULL);        /* 0600 */
}

GST_END_TEST;

GST_START_TEST (test_clean_stop_leaves_nothing_in_shm)
{
  gchar *ch = t_channel ("clean"), *desc;
  GstElement *p;
  GstMessage *msg;

  desc = g_strdup_printf ("videotestsrc num-buffers=10 ! " T_CAPS " ! "
      "doradmasink name=s channel=%s sync=false", ch);
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
  {
    GstElement *s = gst_bin_get_by_name (GST_BIN (p), "s");

    /* videotestsrc wrote in place */
    fail_unless_equals_uint64 (t_stat (s, "frames"), 10);
    fail_unless_equals_uint64 (t_stat (s, "copies"), 0);
    gst_object_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch));
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* Finding 3: a reader that joins before the first frame (the segment is
 * made with the pool) reads the producer's latency, not 0. */
GST_START_TEST (test_latency_is_published_when_the_segment_is_created)
{
  gchar *ch = t_channel ("lat0"), *desc, *path;
  struct doradma_reader *r;
  GstElement *p;
  gint64 end;

  desc = g_strdup_printf ("videotestsrc is-live=true ! video/x-raw,"
      "format=I420,width=64,height=48,framerate=10/1 ! doradmasink "
      "channel=%s", ch);
  p = gst_parse_launch (desc, NULL);
  /* a live source negotiates and allocates in PAUSED, renders nothing */
  fail_unless_equals_int (gst_element_set_state (p, GST_STATE_PAUSED),
      GST_STATE_CHANGE_NO_PREROLL);
  path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL), ch);
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!g_file_test (path, G_FILE_TEST_EXISTS)
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS), "%s never appeared",
      path);
  /* the reader joins as soon as the name exists: the latency is in the
   * segment before its name (tests/lib/latency-at-link.c), no wait for it */
  r = t_reader (ch, FALSE);
  /* one frame at 10/1 */
  fail_unless (doradma_reader_latency (r) >= 100 * GST_MSECOND,
      "latency %" GST_TIME_FORMAT, GST_TIME_ARGS (doradma_reader_latency (r)));
  fail_unless (doradma_reader_latency (r) < GST_SECOND);

  doradma_reader_close (r);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch));
  g_free (path);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* Finding 3: a new pipeline latency reaches readers when the pipeline
 * distributes it (LATENCY event), even while no frame is rendered. */
GST_START_TEST (test_a_changed_pipeline_latency_is_published_without_a_frame)
{
  gchar *ch = t_channel ("lat1"), *desc, *path;
  struct doradma_reader *r;
  GstElement *p, *sink;
  gint64 end;

  /* render blocks until 2 readers joined: only 1 will */
  desc = g_strdup_printf ("videotestsrc is-live=true ! video/x-raw,"
      "format=I420,width=64,height=48,framerate=10/1 ! doradmasink name=s "
      "channel=%s wait-for-readers=2", ch);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL), ch);
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (!g_file_test (path, G_FILE_TEST_EXISTS)
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  r = t_reader (ch, FALSE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (doradma_reader_latency (r) == 0 && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  /* three frame periods: the first frame is blocked in render by now */
  g_usleep (300 * 1000);
  fail_unless (doradma_reader_latency (r) > 0);
  fail_unless (doradma_reader_latency (r) < 400 * GST_MSECOND);

  gst_pipeline_set_latency (GST_PIPELINE (p), 700 * GST_MSECOND);
  end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (doradma_reader_latency (r) != 700 * GST_MSECOND
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  fail_unless_equals_uint64 (doradma_reader_latency (r), 700 * GST_MSECOND);
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  fail_unless_equals_uint64 (t_stat (sink, "frames"), 0);
  gst_object_unref (sink);

  doradma_reader_close (r);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch));
  g_free (path);
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* A reader opened now gets frame `v` next, and then waits (the stream is
 * live again: no EOS). */
static void
assert_live_with_frame (const gchar * ch, guint8 v)
{
  struct doradma_reader *r = t_reader (ch, FALSE);
  struct doradma_frame frame;
  struct doradma_diag diag;

  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &frame, &diag), 0);
  fail_unless_equals_int (frame.data[0], v);
  doradma_reader_release (r, frame.slot);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          200 * GST_MSECOND, &frame, &diag), -ETIMEDOUT);
  doradma_reader_close (r);
}

/* Finding 4: EOS, then a flushing seek (a looping player): the frames that
 * follow go to a new segment, and a reader that joins gets them. */
GST_START_TEST (test_flush_after_eos_starts_a_segment_readers_follow)
{
  gchar *ch = t_channel ("eosflush");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GstSegment seg;

  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 2)),
      GST_FLOW_OK);
  assert_live_with_frame (ch, 2);

  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 4: EOS, then READY and PLAYING again (no stop/start): the new
 * STREAM_START starts a new segment. */
GST_START_TEST (test_stream_start_after_eos_starts_a_segment_readers_follow)
{
  gchar *ch = t_channel ("eosrestart");
  GstHarness *h = t_sink_harness (ch, T_CAPS);

  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_PLAYING), GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("second")));
  gst_harness_set_src_caps_str (h, T_CAPS);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 2)),
      GST_FLOW_OK);
  assert_live_with_frame (ch, 2);

  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 7: objects every reader would refuse are refused at start. */
GST_START_TEST (test_world_writable_permissions_are_refused_at_start)
{
  gchar *ch = t_channel ("perm666"), *desc;
  GstElement *p;
  GstMessage *msg;

  desc = g_strdup_printf ("videotestsrc num-buffers=1 ! " T_CAPS " ! " "doradmasink channel=%s permissions=438 sync=false", ch);        /* 0666 */
  p = gst_parse_launch (desc, NULL);
  msg = t_run (p, 5 * GST_SECOND);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "0666");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fail_unless (t_shm_clean (ch));
  g_free (desc);
  g_free (ch);
}

GST_END_TEST;

/* Finding 8: start() (NULL to READY) takes the settings; a change in READY
 * would reach only part of the element, so it is refused until NULL. */
GST_START_TEST (test_properties_are_frozen_from_start_until_stop)
{
  GstElement *e = gst_element_factory_make ("doradmasink", NULL);
  gchar *channel;
  guint slots;
  gint transport;

  g_object_set (e, "channel", "frozen-a", "slots", 4, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  g_object_set (e, "channel", "frozen-b", "slots", 6, "transport", 2,
      "wait-for-readers", 1, NULL);
  g_object_get (e, "channel", &channel, "slots", &slots, "transport",
      &transport, NULL);
  fail_unless_equals_string (channel, "frozen-a");
  fail_unless_equals_int (slots, 4);
  fail_unless_equals_int (transport, 0);
  g_free (channel);
  /* wait-for-readers is the one setting read per frame */
  g_object_get (e, "wait-for-readers", &slots, NULL);
  fail_unless_equals_int (slots, 1);

  gst_element_set_state (e, GST_STATE_NULL);
  g_object_set (e, "channel", "frozen-b", NULL);
  g_object_get (e, "channel", &channel, NULL);
  fail_unless_equals_string (channel, "frozen-b");
  g_free (channel);
  gst_object_unref (e);
}

GST_END_TEST;

/* Finding 12: caps the ring cannot record are refused like any caps a sink
 * does not take (not-negotiated), with no error message of our own. */
GST_START_TEST (test_unrecordable_caps_are_refused_without_an_error_message)
{
  gchar *ch = t_channel ("longcaps");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  GString *caps = g_string_new (T_CAPS ",note=(string)");
  GstPad *pad = gst_element_get_static_pad (h->element, "sink");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;

  gst_element_set_bus (h->element, bus);
  while (caps->len < DORADMA_CAPS_MAX + 10)
    g_string_append_c (caps, 'x');
  fail_if (gst_pad_send_event (pad,
          gst_event_new_caps (gst_caps_from_string (caps->str))));
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg == NULL, "error posted: %" GST_PTR_FORMAT, msg);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_object_unref (pad);
  g_string_free (caps, TRUE);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 13: the newest slot is never rewritten, so one slot would
 * publish a single frame. */
GST_START_TEST (test_slots_minimum_is_two)
{
  GstElement *e = gst_element_factory_make ("doradmasink", NULL);
  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "slots"));

  fail_unless_equals_int (ps->minimum, 2);
  gst_object_unref (e);
}

GST_END_TEST;

/* Finding 13: with no reader connected, a lossless stall is upstream
 * holding every slot, and the error says so. */
GST_START_TEST (test_lossless_stall_without_readers_blames_upstream)
{
  gchar *ch = t_channel ("stall0");
  GstHarness *h;
  GstBufferPool *pool;
  GstBuffer *a, *b;
  GstMessage *msg;
  GstBus *bus;
  GError *err = NULL;

  h = t_sink_new (ch, T_CAPS,
      "slots=2 timeout=100000000 mode=lossless on-reader-stall=error");
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  pool = t_sink_pool (h, T_CAPS, NULL);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &a, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &b, NULL),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, t_sysmem_frame (T_CAPS, 1)),
      GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  t_assert_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
      "upstream holds every slot (no reader");
  gst_message_parse_error (msg, &err, NULL);
  fail_if (strstr (err->message, "reader stalled"), "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  gst_buffer_unref (a);
  gst_buffer_unref (b);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 16: with transport=shmem the sink uses no GPU and must not pin
 * its CUDA neighbours to device 0 (on a CUDA host fe6806e answered). */
GST_START_TEST (test_cuda_context_query_is_not_answered_for_shmem)
{
  gchar *ch = t_channel ("ctx");
  GstHarness *h = t_sink_new (ch, T_CAPS, "transport=shmem");
  GstQuery *q = gst_query_new_context ("gst.cuda.context");

  fail_if (gst_pad_peer_query (h->srcpad, q));
  gst_query_unref (q);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* Finding 17: a buffer that starts before the segment (and overlaps it)
 * has a negative running time; its mono_pts is that much before the
 * segment start's, not "none". */
GST_START_TEST (test_buffer_starting_before_the_segment_gets_its_mono_pts)
{
  gchar *ch = t_channel ("negrt");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r = NULL;
  struct doradma_frame f1, f2;
  struct doradma_diag diag;
  GstClockTime mono1, mono2;
  GstSegment seg;
  GstBuffer *buf;

  gst_harness_use_systemclock (h);
  /* an element alone has base time 0: running times map to its clock */
  gst_element_set_base_time (h->element, 100 * GST_SECOND);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  buf = t_sysmem_frame (T_CAPS, 1);
  GST_BUFFER_PTS (buf) = 10 * GST_SECOND - 10 * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = 33 * GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &f1, &diag), 0);
  mono1 = f1.info.mono_pts;
  doradma_reader_release (r, f1.slot);
  buf = t_sysmem_frame (T_CAPS, 2);
  GST_BUFFER_PTS (buf) = 10 * GST_SECOND;
  GST_BUFFER_DURATION (buf) = 33 * GST_MSECOND;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &f2, &diag), 0);
  mono2 = f2.info.mono_pts;
  doradma_reader_release (r, f2.slot);

  fail_unless (mono1 != DORADMA_TIME_NONE, "no mono_pts before the segment");
  fail_unless (mono2 != DORADMA_TIME_NONE);
  /* 10 ms apart (not 10 ms + a clipped running time); the tolerance is
   * for a clock offset sampled per frame, which the system clock on
   * CLOCK_MONOTONIC does not need (test_mono_pts_follow_the_pipeline_clock) */
  fail_unless (ABS (GST_CLOCK_DIFF (mono1, mono2) - 10 * GST_MSECOND) <
      5 * GST_MSECOND, "%" G_GINT64_FORMAT, GST_CLOCK_DIFF (mono1, mono2));

  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
}

GST_END_TEST;

/* The mono_pts of a frame of PTS `pts` rendered on `clock` (taken) at base
 * time `base`. */
static GstClockTime
t_mono_pts_on (GstClock * clock, GstClockTime base, GstClockTime pts)
{
  gchar *ch = t_channel ("clock");
  GstHarness *h = t_sink_harness (ch, T_CAPS);
  struct doradma_reader *r;
  struct doradma_frame f;
  struct doradma_diag diag;
  GstBuffer *buf;

  gst_element_set_clock (h->element, clock);
  gst_object_unref (clock);
  gst_element_set_base_time (h->element, base);
  buf = t_sysmem_frame (T_CAPS, 1);
  GST_BUFFER_PTS (buf) = pts;
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  r = t_reader (ch, FALSE);
  fail_unless_equals_int (doradma_reader_next (r, DORADMA_READ_NEXT,
          GST_SECOND, &f, &diag), 0);
  doradma_reader_release (r, f.slot);
  doradma_reader_close (r);
  t_teardown (h, NULL, ch);
  return f.info.mono_pts;
}

/* mono_pts go through the pipeline clock: GStreamer's system clock on
 * CLOCK_MONOTONIC (the default) maps a running time exactly, without a
 * clock read; one that is calibrated, or on CLOCK_REALTIME, has the clocks'
 * difference applied. */
GST_START_TEST (test_mono_pts_follow_the_pipeline_clock)
{
  GstClockTime before, got;

  fail_unless_equals_uint64 (t_mono_pts_on (t_system_clock
          (GST_CLOCK_TYPE_MONOTONIC, 0), 100 * GST_SECOND, 5 * GST_SECOND),
      105 * GST_SECOND);
  /* 1 s ahead of CLOCK_MONOTONIC: its 105 s are CLOCK_MONOTONIC's 104 */
  got = t_mono_pts_on (t_system_clock (GST_CLOCK_TYPE_MONOTONIC,
          GST_SECOND), 100 * GST_SECOND, 5 * GST_SECOND);
  fail_unless (ABS (GST_CLOCK_DIFF (104 * GST_SECOND, got)) < 50 * GST_MSECOND,
      "mono_pts %" GST_TIME_FORMAT " on a clock 1 s ahead",
      GST_TIME_ARGS (got));
  /* the wall clock: a base time of its "now" is CLOCK_MONOTONIC's now */
  {
    GstClock *real = t_system_clock (GST_CLOCK_TYPE_REALTIME, 0);
    GstClockTime base = gst_clock_get_time (real);

    before = t_monotonic_now ();
    got = t_mono_pts_on (real, base, 0);
  }
  fail_unless (ABS (GST_CLOCK_DIFF (before, got)) < GST_SECOND,
      "mono_pts %" GST_TIME_FORMAT " on CLOCK_REALTIME, monotonic now %"
      GST_TIME_FORMAT, GST_TIME_ARGS (got), GST_TIME_ARGS (before));
}

GST_END_TEST;

/* Finding 20: gst-inspect's one-line blurb names every stats field. */
GST_START_TEST (test_stats_blurb_names_every_field)
{
  GstElement *e = gst_element_factory_make ("doradmasink", NULL);
  const gchar *blurb = g_param_spec_get_blurb (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "stats"));
  GstStructure *stats;
  guint i;

  g_object_get (e, "stats", &stats, NULL);
  for (i = 0; i < (guint) gst_structure_n_fields (stats); i++)
    fail_unless (strstr (blurb, gst_structure_nth_field_name (stats, i)),
        "blurb \"%s\" lacks %s", blurb, gst_structure_nth_field_name (stats,
            i));
  gst_structure_free (stats);
  gst_object_unref (e);
}

GST_END_TEST;

static Suite *
doradmasink_suite (void)
{
  Suite *s = suite_create ("doradmasink");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties_have_documented_defaults);
  tcase_add_test (tc, test_slot_memory_with_an_offset_is_published_byte_exact);
  tcase_add_test (tc, test_short_slot_buffer_without_meta_is_refused);
  tcase_add_test (tc, test_missing_channel_is_a_settings_error);
  tcase_add_test (tc, test_invalid_channel_name_is_refused_before_any_syscall);
  tcase_add_test (tc,
      test_unknown_transport_env_is_an_error_naming_the_variable);
  tcase_add_test (tc, test_empty_transport_env_means_unset);
  tcase_add_test (tc,
      test_transport_env_does_not_override_an_explicit_transport);
  tcase_add_test (tc, test_cuda_transports_fail_clearly_without_cuda);
  tcase_add_test (tc, test_second_live_writer_is_refused_naming_its_pid);
  tcase_add_test (tc, test_a_squatted_name_fails_the_state_change_at_once);
  tcase_add_test (tc,
      test_a_live_writers_channel_fails_the_state_change_at_once);
  tcase_add_test (tc, test_inplace_buffers_are_published_without_copy);
  tcase_add_test (tc,
      test_system_memory_is_copied_honouring_strides_and_counted);
  tcase_add_test (tc,
      test_published_slot_becomes_readonly_and_second_render_copies);
  tcase_add_test (tc, test_buffer_dropped_without_render_is_abandoned);
  tcase_add_test (tc, test_latest_mode_never_blocks_and_counts_fallbacks);
  tcase_add_test (tc, test_lossless_stalled_reader_errors_after_timeout);
  tcase_add_test (tc, test_lossless_stalled_reader_is_evicted_on_request);
  tcase_add_test (tc, test_timestamps_and_flags_are_carried_with_monotonic_pts);
  tcase_add_test (tc, test_eos_ends_the_ring_after_the_last_frame);
  tcase_add_test (tc,
      test_caps_that_fit_change_in_band_and_larger_caps_replace);
  tcase_add_test (tc, test_wait_for_readers_holds_frames_until_a_reader_joined);
  tcase_add_test (tc, test_permissions_set_the_file_mode);
  tcase_add_test (tc, test_permissions_nobody_can_join_with_are_warned_about);
  tcase_add_test (tc, test_clean_stop_leaves_nothing_in_shm);
  tcase_add_test (tc, test_latency_is_published_when_the_segment_is_created);
  tcase_add_test (tc,
      test_a_changed_pipeline_latency_is_published_without_a_frame);
  tcase_add_test (tc, test_flush_after_eos_starts_a_segment_readers_follow);
  tcase_add_test (tc,
      test_stream_start_after_eos_starts_a_segment_readers_follow);
  tcase_add_test (tc, test_world_writable_permissions_are_refused_at_start);
  tcase_add_test (tc, test_properties_are_frozen_from_start_until_stop);
  tcase_add_test (tc,
      test_unrecordable_caps_are_refused_without_an_error_message);
  tcase_add_test (tc, test_slots_minimum_is_two);
  tcase_add_test (tc, test_lossless_stall_without_readers_blames_upstream);
  tcase_add_test (tc, test_cuda_context_query_is_not_answered_for_shmem);
  tcase_add_test (tc,
      test_buffer_starting_before_the_segment_gets_its_mono_pts);
  tcase_add_test (tc, test_mono_pts_follow_the_pipeline_clock);
  tcase_add_test (tc, test_stats_blurb_names_every_field);
  return s;
}

GST_CHECK_MAIN (doradmasink);
