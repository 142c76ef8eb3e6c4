/* Helpers shared by the element tests (gst-check). Header-only.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_TESTS_ELEMENTS_COMMON_H
#define DORADMA_TESTS_ELEMENTS_COMMON_H

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

#include "gstdoradmamemory.h"

#define T_CAPS "video/x-raw,format=I420,width=64,height=48,framerate=30/1"
#define T_CAPS_SMALL "video/x-raw,format=I420,width=32,height=24,framerate=30/1"
#define T_CAPS_BIG "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

static inline gchar *
t_channel (const gchar * tag)
{
  static gint n;

  return g_strdup_printf ("el-%s-%d-%d", tag, (int) getpid (),
      g_atomic_int_add (&n, 1));
}

static inline GstClockTime
t_monotonic_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (GstClockTime) ts.tv_sec * GST_SECOND + ts.tv_nsec;
}

/* A system clock of `type` (not the shared one), its time `ahead` of its
 * own (calibrated). */
static inline GstClock *
t_system_clock (GstClockType type, GstClockTime ahead)
{
  GstClock *clock = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type", type,
      NULL);

  gst_object_ref_sink (clock);
  if (ahead)
    gst_clock_set_calibration (clock, 0, ahead, 1, 1);
  return clock;
}

static inline gboolean
t_shm_clean (const gchar * channel)
{
  const gchar *dir = doradma_shm_dir (NULL);
  gchar *a = g_strdup_printf ("%s/doradma.%s", dir, channel);
  gchar *b = g_strdup_printf ("%s/doradma.%s~ctl", dir, channel);
  gboolean clean = !g_file_test (a, G_FILE_TEST_EXISTS)
      && !g_file_test (b, G_FILE_TEST_EXISTS);

  unlink (a);
  unlink (b);
  g_free (a);
  g_free (b);
  return clean;
}

/* A harness around "doradmasink channel=<channel> <props>" (sync and async
 * off), playing, with `caps` set. */
static inline GstHarness *
t_sink_new (const gchar * channel, const gchar * caps, const gchar * props)
{
  gchar *desc = g_strdup_printf ("doradmasink channel=%s sync=false "
      "async=false %s", channel, props ? props : "");
  GstElement *e = gst_parse_launch (desc, NULL);
  GstHarness *h;

  fail_unless (e != NULL);
  h = gst_harness_new_with_element (e, "sink", NULL);
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, caps);
  g_free (desc);
  return h;
}

#define t_sink_harness(channel, caps) t_sink_new (channel, caps, NULL)

/* Asks the sink for its pool as upstream would and activates it. */
static inline GstBufferPool *
t_sink_pool (GstHarness * h, const gchar * caps_str, GstVideoAlignment * align)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstVideoInfo info;
  guint size = 0;

  fail_unless (gst_video_info_from_caps (&info, caps));
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, NULL, NULL);
  fail_unless (pool != NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (align) {
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment (config, align);
  }
  /* the contract: FALSE when the pool changed the config (a larger size
   * for the alignment, max 0); check what it says, then set that */
  if (!gst_buffer_pool_set_config (pool, config)) {
    config = gst_buffer_pool_get_config (pool);
    fail_unless (gst_buffer_pool_config_validate_params (config, caps,
            info.size, 0, 0));
    fail_unless (gst_buffer_pool_set_config (pool, config));
  }
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_query_unref (q);
  gst_caps_unref (caps);
  return pool;
}

static inline struct doradma_reader *
t_reader (const gchar * channel, gboolean backpressure)
{
  struct doradma_reader_config cfg = { 0 };
  struct doradma_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  int ret;

  cfg.channel = channel;
  cfg.backpressure = backpressure;
  cfg.allowed_uid = -1;
  ret = doradma_reader_open (&cfg, &r, &diag);
  fail_unless (ret == 0, "reader open: %s (%s)", diag.msg, g_strerror (-ret));
  return r;
}

/* A frame of T_CAPS whose bytes are all `v`, in system memory. */
static inline GstBuffer *
t_sysmem_frame (const gchar * caps_str, guint8 v)
{
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstBuffer *buf;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (buf, 0, v, info.size);
  return buf;
}

/* Runs a pipeline until an error or EOS (or timeout); returns the message. */
static inline GstMessage *
t_run (GstElement * pipeline, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gst_object_unref (bus);
  return msg;
}

static inline void
t_assert_error (GstMessage * msg, GQuark domain, gint code,
    const gchar * in_text)
{
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (msg != NULL, "no message");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (err->domain == domain && err->code == code,
      "error %s %d: %s", g_quark_to_string (err->domain), err->code,
      err->message);
  if (in_text)
    fail_unless (strstr (err->message, in_text) || (dbg
            && strstr (dbg, in_text)), "\"%s\" not in \"%s\" / \"%s\"",
        in_text, err->message, dbg);
  g_clear_error (&err);
  g_free (dbg);
}

static inline guint64
t_stat (GstElement * e, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = G_MAXUINT64;
  guint u;

  g_object_get (e, "stats", &s, NULL);
  fail_unless (s != NULL);
  if (!gst_structure_get_uint64 (s, field, &v) && gst_structure_get_uint (s,
          field, &u))
    v = u;
  gst_structure_free (s);
  return v;
}

/* The common end of a sink test: the pool (or NULL) deactivated, the
 * harness torn down, nothing of `channel` left in the shm directory. */
static inline void
t_teardown (GstHarness * h, GstBufferPool * pool, gchar * channel)
{
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_harness_teardown (h);
  fail_unless (t_shm_clean (channel), "leftovers of %s", channel);
  g_free (channel);
}

#endif
