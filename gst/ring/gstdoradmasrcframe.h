/* doradma GStreamer plugin — doradmasrc's frame helpers.
 *
 * A received frame record (struct doradma_frame_info) against the caps and
 * a GstBuffer: does it cover the caps, is it in their default layout, its
 * metas, its buffer fields and timestamps, and the copy into the default
 * layout a downstream without GstVideoMeta needs. A leaf: GStreamer and
 * the lib's types only.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SRC_FRAME_H__
#define __GST_DORADMA_SRC_FRAME_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

#include "gstdoradmawire.h"

G_BEGIN_DECLS

/* The record covers what `info` needs (size, planes, rows, row bytes;
 * `needs`: gst_doradma_plane_needs_all of `info`). */
gboolean gst_doradma_frame_fits (const GstVideoInfo * info,
    const GstDoradmaPlaneNeeds * needs, const struct doradma_frame_info *fi);
/* The record is laid out as `info`'s default layout (no meta needed). */
gboolean gst_doradma_frame_is_default_layout (const GstVideoInfo * info,
    const struct doradma_frame_info *fi);

/* Adds the frame's GstVideoMeta (its offsets and strides) and crop, or
 * updates the ones `buf` has (a recycled buffer's; a crop meta goes when
 * the frame has no crop). */
void gst_doradma_frame_add_metas (GstBuffer * buf, const GstVideoInfo * info,
    const struct doradma_frame_info *fi);
void gst_doradma_frame_add_crop_meta (GstBuffer * buf,
    const struct doradma_frame_info *fi);

/* Duration, offsets and the flags the writer carried over; PTS as given,
 * DTS derived from the writer's PTS - DTS gap. */
void gst_doradma_frame_set_buffer_fields (GstBuffer * buf,
    const struct doradma_frame_info *fi, GstClockTime pts);

/* Configures and activates `pool` (taken) for `size`-byte buffers of
 * `caps`; NULL on failure. */
GstBufferPool *gst_doradma_pool_activate (GstBufferPool * pool,
    GstCaps * caps, gsize size);
/* Deactivates and drops a pool (NULL is fine). */
void gst_doradma_pool_clear (GstBufferPool ** pool);

/* Copies `in` (its layout in its GstVideoMeta) into a buffer of `pool`
 * (default layout of `info`), crop meta included. NULL on failure. */
GstBuffer *gst_doradma_frame_copy_to_default_layout (GstBufferPool * pool,
    const GstVideoInfo * info, GstBuffer * in);

G_END_DECLS

#endif /* __GST_DORADMA_SRC_FRAME_H__ */
