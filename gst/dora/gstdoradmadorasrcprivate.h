/* doradma GStreamer plugin — doradmasrc's dora read path, private: the
 * state kept per element that the reading (gstdoradmadorasrc.c), its
 * settings (gstdoradmadorasrcsettings.c) and the caps step
 * (gstdoradmadorasrccaps.c) share.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DORA_SRC_PRIVATE_H__
#define __GST_DORADMA_DORA_SRC_PRIVATE_H__

#include <gst/base/gstbasesrc.h>
#include <gst/video/video.h>
#include <doradma/dora-pool.h>

#include "gstdoradmadora.h"
#include "gstdoradmaenums.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_doradma_dora_src_debug);

/* How one frame moves from the pool to a GstBuffer: a rect per plane
 * (`rows` rows of `row_bytes`, `src_pitch` apart from `src_offset` in the
 * payload, `dst_pitch` apart from `dst_offset` in the buffer), checked by
 * doradma_pool_rects_check when it is made. Buffer bytes no rect writes
 * (row padding, the gaps between planes) are zeroed per frame. */
typedef struct
{
  struct doradma_pool_rect rect[GST_VIDEO_MAX_PLANES];
  guint n;
} CopyPlan;

typedef struct
{
  GstDoradmaDoraState head;     /* its lock: properties, `unlocked` + cond */
  GCond cond;
  GstClockTime poll_interval;
  GstDoradmaChannelOrder order;
  GstCaps *caps_prop;
  gboolean unlocked;

  /* streaming thread only */
  struct doradma_pool_reader *r;
  GstCaps *out_caps;            /* also read by get_caps under `lock` */
  GstVideoInfo info;
  CopyPlan plan;
  gboolean have_last;
  guint64 last_gen;
  guint64 n_frames, n_torn;
  guint64 n_skipped;            /* atomic: generations never pushed */
  gint64 odd_since;             /* the generation stayed odd since; 0: not */
  gboolean odd_warned;
  gint64 next_replaced_check;
  gint64 freed_since;           /* the name led nowhere since; 0: it does */
  gboolean freed_reported;
  guint pool_epoch;             /* bumped per opened pool: sizes change */
  gboolean discont;
  /* CUDA (unified with a device, or ipc) */
  struct doradma_cuda_device *dev;
  struct doradma_cuda_hostreg *reg;
  struct doradma_cuda_ipc_import *imp;
  guint64 dptr;                 /* payload device pointer, 0 = host copy */
} DoraSrc;

DoraSrc *gst_doradma_dora_src_get (gpointer src);

/* Chooses caps and the copy plan for a newly opened pool and negotiates
 * them; FALSE after posting an element error. */
gboolean gst_doradma_dora_src_setup_caps (GstBaseSrc * src, DoraSrc * s,
    const struct doradma_pool_info *pi, const gchar * name);

G_END_DECLS
#endif
