/* doradma application SDK — what the ring says about a frame.
 *
 * doradmasrc attaches a GstDoradmaFrameMeta to every buffer it pushes
 * (zero-copy leases and copies alike): the writer's frame number, how many
 * frames this reader did not get before it, and when it was published.
 * Caps, timestamps and the plane layout travel as usual (caps, PTS/DTS,
 * GstVideoMeta).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_FRAME_META_H__
#define __GST_DORADMA_FRAME_META_H__

#include <gst/gst.h>
#include "doradma-prelude.h"

G_BEGIN_DECLS

/**
 * GstDoradmaFrameMeta:
 * @meta: the parent #GstMeta
 * @seq: the writer's number of this frame (from 1, +1 per published frame)
 * @skipped: frames the writer published between the previous frame this
 *   reader delivered and this one (lapped, or read-mode latest); 0 when
 *   none were missed
 * @publish_time: when the writer published it, CLOCK_MONOTONIC nanoseconds
 *   (g_get_monotonic_time () * 1000 compares with it)
 * @caps_epoch: the writer's caps generation the frame was written under
 * @receive_time: when doradmasrc found it in the ring (its wait for the
 *   frame ended, polling or woken), CLOCK_MONOTONIC ns; 0 when unknown
 * @delivery_time: when doradmasrc had made it a buffer, right before the
 *   push, CLOCK_MONOTONIC ns; 0 when unknown
 *
 * publish_time → receive_time is the ring's hand-off, receive_time →
 * delivery_time doradmasrc's own work on the frame.
 *
 * Copied with the buffer; it describes the frame, not the memory.
 */
typedef struct
{
  GstMeta meta;
  guint64 seq;
  guint64 skipped;
  guint64 publish_time;
  guint32 caps_epoch;
  guint64 receive_time;
  guint64 delivery_time;
} GstDoradmaFrameMeta;

GST_DORADMA_API
GType gst_doradma_frame_meta_api_get_type (void);
#define GST_DORADMA_FRAME_META_API_TYPE (gst_doradma_frame_meta_api_get_type ())

GST_DORADMA_API
const GstMetaInfo *gst_doradma_frame_meta_get_info (void);
#define GST_DORADMA_FRAME_META_INFO (gst_doradma_frame_meta_get_info ())

/**
 * gst_buffer_add_doradma_frame_meta:
 * @buffer: a writable #GstBuffer
 * @seq: the frame's number
 * @skipped: frames missed before it
 * @publish_time: CLOCK_MONOTONIC ns of its publication
 * @caps_epoch: the writer's caps generation
 *
 * Sets the frame meta of @buffer, adding it when @buffer has none (a
 * buffer has at most one: an existing one is updated in place, its
 * @receive_time and @delivery_time kept; a new one has them 0).
 *
 * Returns: (transfer none): the frame meta of @buffer.
 */
GST_DORADMA_API
GstDoradmaFrameMeta *gst_buffer_add_doradma_frame_meta (GstBuffer * buffer,
    guint64 seq, guint64 skipped, guint64 publish_time, guint32 caps_epoch);

/**
 * gst_buffer_get_doradma_frame_meta:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the frame meta of @buffer, or %NULL
 * when it did not come from doradmasrc.
 */
GST_DORADMA_API
GstDoradmaFrameMeta *gst_buffer_get_doradma_frame_meta (GstBuffer * buffer);

G_END_DECLS

#endif /* __GST_DORADMA_FRAME_META_H__ */
