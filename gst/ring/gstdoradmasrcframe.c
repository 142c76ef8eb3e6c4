/* doradma GStreamer plugin — doradmasrc's frame helpers (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmasrcframe.h"
#include "gstdoradmawire.h"
#include <string.h>

#define VIDEO_FLAGS (GST_VIDEO_BUFFER_FLAG_INTERLACED | \
    GST_VIDEO_BUFFER_FLAG_TFF | GST_VIDEO_BUFFER_FLAG_RFF | \
    GST_VIDEO_BUFFER_FLAG_ONEFIELD | GST_VIDEO_BUFFER_FLAG_MULTIPLE_VIEW | \
    GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE | \
    GST_VIDEO_BUFFER_FLAG_TOP_FIELD | GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD | \
    GST_VIDEO_BUFFER_FLAG_MARKER)

gboolean
gst_doradma_frame_fits (const GstVideoInfo * info,
    const GstDoradmaPlaneNeeds * needs, const struct doradma_frame_info *fi)
{
  guint p;

  if (fi->width != (guint) GST_VIDEO_INFO_WIDTH (info)
      || fi->height != (guint) GST_VIDEO_INFO_HEIGHT (info)
      || fi->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return FALSE;
  for (p = 0; p < fi->n_planes; p++) {
    /* a GstVideoMeta stride is a gint */
    if (fi->planes[p].rows < needs->rows[p]
        || fi->planes[p].row_bytes < needs->row_bytes[p]
        || fi->planes[p].stride < needs->row_bytes[p]
        || fi->planes[p].stride > G_MAXINT)
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_doradma_frame_is_default_layout (const GstVideoInfo * info,
    const struct doradma_frame_info *fi)
{
  guint p;

  if (fi->payload_bytes < info->size)
    return FALSE;
  for (p = 0; p < fi->n_planes; p++) {
    if (fi->planes[p].offset != info->offset[p]
        || fi->planes[p].stride != (guint32) info->stride[p])
      return FALSE;
  }
  return TRUE;
}

void
gst_doradma_frame_add_crop_meta (GstBuffer * buf,
    const struct doradma_frame_info *fi)
{
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);

  if (fi->crop_width == 0 || fi->crop_height == 0) {
    if (crop)
      gst_buffer_remove_meta (buf, (GstMeta *) crop);
    return;
  }
  if (crop == NULL)
    crop = gst_buffer_add_video_crop_meta (buf);
  crop->x = fi->crop_x;
  crop->y = fi->crop_y;
  crop->width = fi->crop_width;
  crop->height = fi->crop_height;
}

/* The map functions of a video meta as gst_buffer_add_video_meta_full
 * makes it (a downstream element may replace them on a meta it got):
 * learnt once, from a meta made for the purpose, so that no streaming
 * thread writes them */
static gboolean (*default_map) (GstVideoMeta *, guint, GstMapInfo *,
    gpointer *, gint *, GstMapFlags);
static gboolean (*default_unmap) (GstVideoMeta *, guint, GstMapInfo *);

static void
learn_default_video_meta_map (void)
{
  static gsize learnt = 0;

  if (g_once_init_enter (&learnt)) {
    GstBuffer *probe = gst_buffer_new ();
    GstVideoMeta *vm = gst_buffer_add_video_meta (probe,
        GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, 1, 1);

    default_map = vm->map;
    default_unmap = vm->unmap;
    gst_buffer_unref (probe);
    g_once_init_leave (&learnt, 1);
  }
}

void
gst_doradma_frame_add_metas (GstBuffer * buf, const GstVideoInfo * info,
    const struct doradma_frame_info *fi)
{
  GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  guint p;

  learn_default_video_meta_map ();
  for (p = 0; p < fi->n_planes; p++) {
    offset[p] = fi->planes[p].offset;
    stride[p] = fi->planes[p].stride;
  }
  if (vm && (vm->map != default_map || vm->unmap != default_unmap)) {
    /* a recycled buffer's meta whose map a previous holder replaced */
    gst_buffer_remove_meta (buf, (GstMeta *) vm);
    vm = NULL;
  }
  if (vm == NULL) {
    vm = gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), fi->width, fi->height, fi->n_planes,
        offset, stride);
  } else {
    /* a recycled buffer's: what gst_buffer_add_video_meta_full sets */
    gst_video_alignment_reset (&vm->alignment);
    vm->flags = GST_VIDEO_FRAME_FLAG_NONE;
    vm->format = GST_VIDEO_INFO_FORMAT (info);
    vm->id = 0;
    vm->width = fi->width;
    vm->height = fi->height;
    vm->n_planes = fi->n_planes;
    memcpy (vm->offset, offset, sizeof (offset));
    memcpy (vm->stride, stride, sizeof (stride));
  }
  gst_doradma_frame_add_crop_meta (buf, fi);
}

void
gst_doradma_frame_set_buffer_fields (GstBuffer * buf,
    const struct doradma_frame_info *fi, GstClockTime pts)
{
  GstClockTime dts = GST_CLOCK_TIME_NONE;

  if (GST_CLOCK_TIME_IS_VALID (pts) && fi->pts != DORADMA_TIME_NONE
      && fi->dts != DORADMA_TIME_NONE && fi->dts <= fi->pts
      && pts >= fi->pts - fi->dts)
    dts = pts - (fi->pts - fi->dts);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = dts;
  GST_BUFFER_DURATION (buf) = fi->duration;
  GST_BUFFER_OFFSET (buf) = fi->offset;
  GST_BUFFER_OFFSET_END (buf) = fi->offset_end;
  GST_BUFFER_FLAGS (buf) = (fi->flags & GST_DORADMA_CARRIED_FLAGS)
      | (fi->video_flags & VIDEO_FLAGS);
}

GstBufferPool *
gst_doradma_pool_activate (GstBufferPool * pool, GstCaps * caps, gsize size)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

void
gst_doradma_pool_clear (GstBufferPool ** pool)
{
  if (*pool == NULL)
    return;
  gst_buffer_pool_set_active (*pool, FALSE);
  gst_clear_object (pool);
}

GstBuffer *
gst_doradma_frame_copy_to_default_layout (GstBufferPool * pool,
    const GstVideoInfo * info, GstBuffer * in)
{
  GstVideoCropMeta *c, *oc;
  GstVideoFrame src, dst;
  GstBuffer *out = NULL;

  if (pool == NULL
      || gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK)
    return NULL;
  if (!gst_video_frame_map (&src, info, in, GST_MAP_READ)) {
    gst_buffer_unref (out);
    return NULL;
  }
  if (!gst_video_frame_map (&dst, info, out, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&src);
    gst_buffer_unref (out);
    return NULL;
  }
  gst_doradma_frame_copy (&dst, &src, info);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  if ((c = gst_buffer_get_video_crop_meta (in))) {
    oc = gst_buffer_add_video_crop_meta (out);
    oc->x = c->x;
    oc->y = c->y;
    oc->width = c->width;
    oc->height = c->height;
  }
  return out;
}
