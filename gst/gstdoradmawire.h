/* doradma GStreamer plugin — what writer and reader agree on for every frame:
 * the plane geometry and the buffer flags carried.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_WIRE_H__
#define __GST_DORADMA_WIRE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

G_BEGIN_DECLS
/* Buffer flags that travel with a frame (the wire contract: the writer
 * stores exactly these, the reader restores exactly these). */
#define GST_DORADMA_CARRIED_FLAGS (GST_BUFFER_FLAG_DISCONT | \
    GST_BUFFER_FLAG_RESYNC | GST_BUFFER_FLAG_CORRUPTED | \
    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_NON_DROPPABLE)
/* The rows and bytes per row that a plane of `info`'s format needs at its
 * width/height. The writer publishes exactly these, the reader requires at
 * least these. */
void gst_doradma_plane_needs (const GstVideoInfo * info, guint plane,
    guint32 * rows, guint32 * row_bytes);

/* gst_doradma_plane_needs for every plane of `info` (0 past the last):
 * they depend only on the caps, so the elements work them out when the
 * caps change, not for every frame. */
typedef struct
{
  guint32 rows[GST_VIDEO_MAX_PLANES];
  guint32 row_bytes[GST_VIDEO_MAX_PLANES];
} GstDoradmaPlaneNeeds;

void gst_doradma_plane_needs_all (const GstVideoInfo * info,
    GstDoradmaPlaneNeeds * needs);

/* Copies frame `src` into `dst`, both mapped with `info`'s width and
 * height: per plane, the rows and bytes per row gst_doradma_plane_needs
 * gives, so what a record says is there is there. (gst_video_frame_copy
 * stops at the first component's bytes: the last pixel's V sample of an
 * odd-width packed 4:2:2 row is lost.) Tiled formats go to
 * gst_video_frame_copy. */
void gst_doradma_frame_copy (GstVideoFrame * dst, const GstVideoFrame * src,
    const GstVideoInfo * info);

/* The frame record of a frame whose planes start at `offset` with
 * `pstride` (bytes from the first byte of a slot of `slot_size` bytes):
 * geometry of `info` with its plane `needs`, payload bytes, `crop` (NULL:
 * none), timestamps and carried flags of `src`, and `mono_pts`. FALSE
 * when the planes do not fit in the slot. */
gboolean gst_doradma_frame_info_fill (const GstVideoInfo * info,
    const GstDoradmaPlaneNeeds * needs, const gsize * offset,
    const gint * pstride, gsize buf_size, gsize slot_size, GstBuffer * src,
    const GstVideoCropMeta * crop, guint64 mono_pts,
    struct doradma_frame_info *fi);

G_END_DECLS

#endif /* __GST_DORADMA_WIRE_H__ */
