/* A doradma writer driven by hand through the lib, for the element tests
 * that need records doradmasink would not write. Header-only.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_TESTS_ELEMENTS_LIBWRITER_H
#define DORADMA_TESTS_ELEMENTS_LIBWRITER_H

#include "common.h"

/* A lib writer of `caps` (default layout), `slots` slots, objects of
 * permissions `mode` (0: the default). */
static inline struct doradma_writer *
lib_writer (const gchar * channel, const gchar * caps, guint slots, guint mode)
{
  struct doradma_writer_config cfg = { 0 };
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  int r;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  cfg.channel = channel;
  cfg.slots = slots;
  cfg.slot_size = info.size;
  cfg.caps = caps;
  cfg.mode = mode;
  r = doradma_writer_create (&cfg, &w, &diag);
  fail_unless (r == 0, "writer: %s (%s)", diag.msg, g_strerror (-r));
  return w;
}

/* The record of a frame of `caps` in the default layout, captured at
 * CLOCK_MONOTONIC `mono_pts`; *size gets the frame's bytes. */
static inline void
lib_frame_info (const gchar * caps, GstClockTime mono_pts,
    struct doradma_frame_info *fi, gsize * size)
{
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);
  guint p;

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  memset (fi, 0, sizeof (*fi));
  fi->width = GST_VIDEO_INFO_WIDTH (&info);
  fi->height = GST_VIDEO_INFO_HEIGHT (&info);
  fi->n_planes = GST_VIDEO_INFO_N_PLANES (&info);
  for (p = 0; p < fi->n_planes; p++) {
    GstVideoInfo *i = &info;

    fi->planes[p].offset = GST_VIDEO_INFO_PLANE_OFFSET (i, p);
    fi->planes[p].stride = GST_VIDEO_INFO_PLANE_STRIDE (i, p);
    fi->planes[p].rows = GST_VIDEO_INFO_COMP_HEIGHT (i, p);
    fi->planes[p].row_bytes = GST_VIDEO_INFO_COMP_WIDTH (i, p) *
        GST_VIDEO_INFO_COMP_PSTRIDE (i, p);
  }
  fi->pts = fi->dts = fi->offset = fi->offset_end = DORADMA_TIME_NONE;
  fi->duration = 33 * GST_MSECOND;
  fi->payload_bytes = info.size;
  fi->mono_pts = mono_pts;
  *size = info.size;
}

/* Publishes `fi` (lib_frame_info) whose bytes are all `v`, acquiring the
 * slot with `policy` within 1 s: the acquisition's result (0, -ETIMEDOUT
 * when a lossless reader holds every slot). */
static inline int
lib_publish_info (struct doradma_writer *w, enum doradma_slot_policy policy,
    struct doradma_frame_info *fi, gsize size, guint8 v)
{
  guint32 slot;
  int r;

  r = doradma_writer_acquire (w, policy, GST_SECOND, &slot);
  if (r < 0)
    return r;
  memset (doradma_writer_slot_data (w, slot), v, size);
  r = doradma_writer_publish (w, slot, fi);
  fail_unless (r == 0, "publish: %s", g_strerror (-r));
  return 0;
}

/* Publishes a frame of `caps` (default layout) whose bytes are all `v`,
 * captured at CLOCK_MONOTONIC `mono_pts`. */
static inline void
lib_publish (struct doradma_writer *w, const gchar * caps, guint8 v,
    GstClockTime mono_pts)
{
  struct doradma_frame_info fi;
  gsize size;
  int r;

  lib_frame_info (caps, mono_pts, &fi, &size);
  r = lib_publish_info (w, DORADMA_POLICY_LATEST, &fi, size, v);
  fail_unless (r == 0, "acquire: %s", g_strerror (-r));
}

#endif
