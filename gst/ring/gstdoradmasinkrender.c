/* doradma GStreamer plugin — doradmasink's render paths (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmasinkrender.h"
#include "gstdoradmawire.h"
#include <gst/doradma/gstdoradmamemory.h>
#include "gstdoradmasinkcudapool.h"

#define GST_CAT_DEFAULT gst_doradma_sink_debug

#define COUNT(r, c) \
  gst_doradma_producer_count ((r)->producer, GST_DORADMA_COUNT_##c)

/* ---------------------------------------------------------------------- */
/* Timestamps */

/* The buffer's running time as CLOCK_MONOTONIC ns, through the pipeline
 * clock (which need not be monotonic: audio, PTP, device clocks). A
 * timestamp before the segment start (a buffer that overlaps it) has a
 * negative running time: it maps to before the base time, not to "none". */
static GstClockTime
to_monotonic (GstDoradmaSinkRender * r, GstClockTime ts)
{
  GstBaseSink *bsink = r->sink;
  gint64 offset, mono;
  guint64 rt;
  gint sign;

  if (!GST_CLOCK_TIME_IS_VALID (ts) || bsink->segment.format != GST_FORMAT_TIME)
    return DORADMA_TIME_NONE;
  sign = gst_segment_to_running_time_full (&bsink->segment, GST_FORMAT_TIME,
      ts, &rt);
  if (sign == 0)
    return DORADMA_TIME_NONE;
  if (!gst_doradma_clock_map_offset (&r->clock_map, GST_ELEMENT_CAST (r->sink),
          &offset))
    return DORADMA_TIME_NONE;
  mono = offset + (sign > 0 ? (gint64) rt : -(gint64) rt);
  return mono < 0 ? DORADMA_TIME_NONE : (GstClockTime) mono;
}

/* ---------------------------------------------------------------------- */
/* Crop by meta upstream (videocrop before the sink) */

/* TRUE when `buf` is a larger frame (its video meta) whose crop meta is
 * what the caps describe: videocrop crops that way when the sink announces
 * the crop meta. The slots are sized for the caps, so the sink applies
 * such a crop as it copies the frame: the ring carries the cropped frame,
 * which is what the caps say. */
static gboolean
crop_defines_caps (const GstVideoInfo * info, GstBuffer * buf,
    const GstVideoCropMeta * crop)
{
  GstVideoMeta *vm;

  if (crop == NULL)
    return FALSE;
  vm = gst_buffer_get_video_meta (buf);
  return vm && (vm->width != (guint) GST_VIDEO_INFO_WIDTH (info)
      || vm->height != (guint) GST_VIDEO_INFO_HEIGHT (info));
}

/* Copies the crop of `buf` (crop_defines_caps) into `dst`, a frame of
 * `info`: `buf` is mapped at its video meta's size and each plane starts
 * at the crop's origin. FALSE with *why when that cannot be done. */
static gboolean
copy_crop (const GstVideoInfo * info, GstBuffer * buf, GstVideoFrame * dst,
    const gchar ** why)
{
  GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);
  const GstVideoFormatInfo *finfo = info->finfo;
  GstVideoInfo full = *info;
  GstVideoFrame src;
  guint p;

  if (crop->width != (guint) GST_VIDEO_INFO_WIDTH (info)
      || crop->height != (guint) GST_VIDEO_INFO_HEIGHT (info)
      || (guint64) crop->x + crop->width > vm->width
      || (guint64) crop->y + crop->height > vm->height) {
    *why = "the crop meta is not the caps' size inside the video meta's frame";
    return FALSE;
  }
  if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    *why = "a tiled format cannot start at the crop's origin";
    return FALSE;
  }
  full.width = vm->width;
  full.height = vm->height;
  if (!gst_video_frame_map (&src, &full, buf, GST_MAP_READ)) {
    *why = "the buffer does not match its video meta";
    return FALSE;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    guint i, wsub, hsub, x, y;
    gint ps;

    gst_video_format_info_component (finfo, p, comps);
    ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comps[0]);
    wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[0]);
    hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[0]);
    /* As videocrop does: the origin is rounded down to a whole sample of
     * the plane, so an odd crop on 4:2:0 starts its chroma at the sample
     * that covers the origin. */
    x = crop->x & ~((1u << wsub) - 1);
    y = crop->y & ~((1u << hsub) - 1);
    /* a plane that packs samples of several subsamplings (YUY2's
     * macro-pixels) can only start at a whole macro-pixel */
    for (i = 0; i < GST_VIDEO_MAX_COMPONENTS && comps[i] >= 0; i++)
      if (crop->x % (1u << GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[i]))
          || crop->y % (1u << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[i])))
        if (GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comps[i]) != wsub
            || GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comps[i]) != hsub)
          ps = 0;
    if (ps <= 0) {
      gst_video_frame_unmap (&src);
      *why = "the crop's origin splits a macro-pixel of a packed format";
      return FALSE;
    }
    src.data[p] = (guint8 *) src.data[p]
        + (gsize) GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comps[0],
        y) * src.info.stride[p]
        + (gsize) GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comps[0], x) * ps;
  }
  src.info.width = GST_VIDEO_INFO_WIDTH (info);
  src.info.height = GST_VIDEO_INFO_HEIGHT (info);
  gst_doradma_frame_copy (dst, &src, info);
  gst_video_frame_unmap (&src);
  return TRUE;
}

/* A crop meta on a frame of the caps' size must lie inside it (the reader
 * refuses a record whose crop does not): NULL when it does or there is
 * none, else what is wrong. */
static const gchar *
crop_fault (const GstDoradmaSinkRender * r)
{
  const GstVideoInfo *info = &r->info;
  const GstVideoCropMeta *crop = r->crop;

  if (crop == NULL || r->crop_defines_caps
      || crop->width == 0 || crop->height == 0)
    return NULL;
  if ((guint64) crop->x + crop->width > (guint) GST_VIDEO_INFO_WIDTH (info)
      || (guint64) crop->y + crop->height >
      (guint) GST_VIDEO_INFO_HEIGHT (info))
    return "the crop meta is not inside the frame of the caps";
  return NULL;
}

/* transport=ipc: the crop applied into a system-memory frame of the caps,
 * which the device path then uploads. NULL with *why. */
static GstBuffer *
cropped_copy (const GstVideoInfo * info, GstBuffer * buf, const gchar ** why)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame dst;
  gboolean ok;

  if (!gst_video_frame_map (&dst, info, out, GST_MAP_WRITE)) {
    gst_buffer_unref (out);
    *why = "could not map a local frame";
    return NULL;
  }
  ok = copy_crop (info, buf, &dst, why);
  gst_video_frame_unmap (&dst);
  if (!ok) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_buffer_copy_into (out, buf, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  return out;
}

static GstFlowReturn
crop_error (GstDoradmaSinkRender * r, GstBuffer * buf, const gchar * why)
{
  GST_ELEMENT_ERROR (r->sink, STREAM, FORMAT,
      ("Could not apply the crop of a video frame"),
      ("%s: buffer %" GST_PTR_FORMAT, why, buf));
  return GST_FLOW_ERROR;
}

/* The frame record of a slot (`slot_size` bytes) whose planes start at
 * `offset` with `pstride` (bytes from the slot's first byte); `info` is
 * r->info, whose planes' needs r holds. FALSE when the planes do not fit
 * in the slot. */
static gboolean
fill_frame_info_planes (GstDoradmaSinkRender * r, const GstVideoInfo * info,
    const gsize * offset, const gint * pstride, gsize buf_size,
    gsize slot_size, GstBuffer * src, struct doradma_frame_info *fi)
{
  /* render_copy applied a crop that defines the caps */
  return gst_doradma_frame_info_fill (info, &r->needs, offset, pstride,
      buf_size, slot_size, src, r->crop_defines_caps ? NULL : r->crop,
      to_monotonic (r, GST_BUFFER_PTS (src)), fi);
}

static GstFlowReturn
layout_error (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  GST_ELEMENT_ERROR (r->sink, STREAM, FORMAT, ("Could not map a video frame"),
      ("buffer %" GST_PTR_FORMAT " does not match the caps", buf));
  return GST_FLOW_ERROR;
}

/* ---------------------------------------------------------------------- */
/* Rendering */

/* Publishes slot memory `mem` whose frame has its planes `offset` bytes
 * into the memory (its data, host or device) with `pstride`, `size` bytes
 * in all; `src` gives the timestamps, flags and crop. */
static GstFlowReturn
publish_planes (GstDoradmaSinkRender * r, GstMemory * mem,
    const gsize * offset, const gint * pstride, gsize size, GstBuffer * src)
{
  gsize from_slot[GST_VIDEO_MAX_PLANES] = { 0 };
  struct doradma_frame_info fi;
  guint p;

  /* the record's offsets count from the slot's first byte, wherever the
   * memory starts in it */
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&r->info); p++)
    from_slot[p] = mem->offset + offset[p];
  if (!fill_frame_info_planes (r, &r->info, from_slot, pstride, size,
          mem->maxsize, src, &fi))
    return layout_error (r, src);
  return gst_doradma_producer_publish (r->producer, mem, &fi);
}

/* Publishes the slot memory `mem` that upstream wrote `buf` into, in the
 * layout of the buffer's video meta, else of the caps. No map: the
 * offsets and strides are all a map would give. */
static GstFlowReturn
publish_in_place (GstDoradmaSinkRender * r, GstMemory * mem, GstBuffer * buf)
{
  const GstVideoInfo *info = &r->info;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  gsize size = gst_buffer_get_size (buf);

  if (meta ? meta->format != GST_VIDEO_INFO_FORMAT (info)
      || meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)
      : size < GST_VIDEO_INFO_SIZE (info))
    return layout_error (r, buf);
  /* the buffer's one memory is `mem`: its offsets are the memory's */
  return publish_planes (r, mem, meta ? meta->offset : info->offset,
      meta ? meta->stride : info->stride, size, buf);
}

/* A slot for a frame that render has to copy. Returns GST_FLOW_OK with
 * *mem, GST_FLOW_OK with *mem NULL when latest mode found every slot busy
 * (the frame is dropped, never waited for), or the flow error. */
static GstFlowReturn
acquire_for_render (GstDoradmaSinkRender * r, GstBuffer * buf, gsize size,
    GstMemory ** mem)
{
  GstFlowReturn ret;

  for (;;) {
    ret = gst_doradma_producer_acquire (r->producer, size, FALSE, NULL, mem);
    if (ret != GST_FLOW_FLUSHING)
      break;
    /* unlocked: flushing, or going to PAUSED (then wait and retry) */
    if ((ret = gst_base_sink_wait_preroll (r->sink))
        != GST_FLOW_OK)
      return ret;
  }
  if (ret == GST_FLOW_OK && *mem == NULL) {
    COUNT (r, DROPS);
    GST_LOG_OBJECT (r->sink, "no free slot, dropping %" GST_PTR_FORMAT, buf);
  }
  return ret;
}

static GstFlowReturn
render_copy (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  GstVideoFrame src, dst;
  GstMemory *mem = NULL;
  GstBuffer *tmp;
  GstVideoInfo *info = &r->info;
  GstFlowReturn ret;

  ret = acquire_for_render (r, buf, info->size, &mem);
  if (ret != GST_FLOW_OK || mem == NULL)
    return ret;

  /* the slot in the default layout of the caps, via a temporary buffer */
  tmp = gst_buffer_new ();
  gst_buffer_append_memory (tmp, mem);

  if (r->crop_defines_caps) {
    const gchar *why = NULL;

    if (!gst_video_frame_map (&dst, info, tmp, GST_MAP_WRITE))
      goto map_failed;
    if (!copy_crop (info, buf, &dst, &why)) {
      gst_video_frame_unmap (&dst);
      gst_buffer_unref (tmp);
      return crop_error (r, buf, why);
    }
  } else {
    if (!gst_video_frame_map (&src, info, buf, GST_MAP_READ))
      goto map_failed;
    if (!gst_video_frame_map (&dst, info, tmp, GST_MAP_WRITE)) {
      gst_video_frame_unmap (&src);
      goto map_failed;
    }
    /* honours both sides' strides and offsets; never a flat memcpy */
    gst_doradma_frame_copy (&dst, &src, info);
    gst_video_frame_unmap (&src);
  }
  COUNT (r, COPIES);

  /* the slot holds the frame in the default layout of the caps */
  ret = publish_planes (r, mem, info->offset, info->stride, info->size, buf);
  gst_video_frame_unmap (&dst);
  /* the slot memory returns to its producer, published */
  gst_buffer_unref (tmp);
  return ret;

  /* ERRORS */
map_failed:
  {
    gst_buffer_unref (tmp);
    return layout_error (r, buf);
  }
}

/* transport=ipc, a buffer of the CUDA slot pool: upstream wrote the frame
 * into the slot, in the pool's pitched layout. Published once the GPU work
 * on it is done (the ring's CPU fences do not order GPU work). */
static GstFlowReturn
publish_device_slot (GstDoradmaSinkRender * r, GstBuffer * buf,
    GstMemory * slot, const GstVideoInfo * layout)
{
  gchar *err = NULL;
  GstFlowReturn ret;

  if (!gst_doradma_sink_cuda_pool_sync (buf, &err)) {
    GST_ELEMENT_ERROR (r->sink, RESOURCE, WRITE,
        ("Could not wait for the GPU work on a frame"), ("%s", err));
    g_free (err);
    return GST_FLOW_ERROR;
  }
  /* the wrapper starts at the slot memory's device address */
  ret = publish_planes (r, slot, layout->offset, layout->stride, layout->size,
      buf);
  if (ret == GST_FLOW_OK)
    /* upstream may keep the buffer: a later write map must copy instead of
     * scribbling over a frame readers lease. Atomic: GstCudaMemory changes
     * its transfer flags in the same word when another holder maps it. */
    g_atomic_int_or (&GST_MINI_OBJECT_FLAGS (gst_buffer_peek_memory (buf, 0)),
        GST_MEMORY_FLAG_READONLY);
  return ret;
}

/* transport=ipc: the slot is device memory. A frame upstream wrote into a
 * slot of the CUDA slot pool is published in place; anything else is
 * copied (gst_doradma_cuda_upload_frame copies and synchronises before we
 * publish). */
static GstFlowReturn
render_device (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  const GstVideoInfo *layout = NULL;
  GstMemory *slot = gst_doradma_sink_cuda_pool_slot (buf, &layout);
  const GstVideoInfo *info = &r->info;
  gboolean from_device = FALSE;
  GstMemory *mem = NULL;
  gchar *err = NULL;
  GstFlowReturn ret;

  if (slot && gst_doradma_producer_is_writing (r->producer, slot))
    return publish_device_slot (r, buf, slot, layout);

  if (r->copier == NULL
      && (r->copier = gst_doradma_cuda_copier_new (&err)) == NULL)
    goto copy_failed;

  ret = acquire_for_render (r, buf, info->size, &mem);
  if (ret != GST_FLOW_OK || mem == NULL)
    return ret;

  if (!gst_doradma_cuda_upload_frame (r->copier, info, buf,
          gst_doradma_memory_get_device_pointer (mem), &from_device, &err)) {
    /* the slot memory's dispose abandons a WRITING slot */
    gst_memory_unref (mem);
    goto copy_failed;
  }
  COUNT (r, COPIES);
  if (from_device)
    COUNT (r, DEVICE_COPIES);
  else
    COUNT (r, UPLOADS);
  if (!r->told_copies) {
    /* GStreamer < 1.24, an upstream that kept its own pool, system memory,
     * a fallback buffer or a slot of a replaced segment */
    GST_INFO_OBJECT (r->sink, "copying frames into the device slots (%s): "
        "not written in place", from_device ? "from CUDA memory that is not "
        "a slot of ours" : "from system memory");
    r->told_copies = TRUE;
  }

  ret = publish_planes (r, mem, info->offset, info->stride, info->size, buf);
  gst_memory_unref (mem);
  return ret;

  /* ERRORS */
copy_failed:
  {
    GST_ELEMENT_ERROR (r->sink, RESOURCE, WRITE,
        ("Could not copy a frame into GPU memory"), ("%s", err));
    g_free (err);
    return GST_FLOW_ERROR;
  }
}

/* In place when upstream wrote into a slot of the current segment, else a
 * copy into a fresh one. */
static GstFlowReturn
render_host (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  GstMemory *mem = NULL;

  if (gst_buffer_n_memory (buf) == 1)
    mem = gst_buffer_peek_memory (buf, 0);
  if (mem == NULL || !gst_doradma_producer_is_writing (r->producer, mem)
      || r->crop_defines_caps)
    /* system memory, a fallback buffer, a slot published before (videorate,
     * tee) or of a replaced segment, or a crop to apply: copy into a fresh
     * slot */
    return render_copy (r, buf);

  /* upstream wrote into the slot: publish it in place */
  return publish_in_place (r, mem, buf);
}

GstFlowReturn
gst_doradma_sink_render_frame (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  gboolean device = gst_doradma_producer_settings (r->producer)->transport ==
      GST_DORADMA_TRANSPORT_IPC;
  const gchar *why;
  GstBuffer *cropped = NULL;
  GstFlowReturn ret;
  guint tries;

  r->crop = gst_buffer_get_video_crop_meta (buf);
  r->crop_defines_caps = crop_defines_caps (&r->info, buf, r->crop);
  if ((why = crop_fault (r)))
    return crop_error (r, buf, why);
  if (device && r->crop_defines_caps) {
    if ((cropped = cropped_copy (&r->info, buf, &why)) == NULL)
      return crop_error (r, buf, why);
    /* the copy is the frame of the caps, cropped, with no crop meta */
    buf = cropped;
    r->crop = NULL;
    r->crop_defines_caps = FALSE;
  }
  ret = device ? render_device (r, buf) : render_host (r, buf);
  /* the segment was replaced between acquire and publish (another thread
   * renegotiated): copy into the new one */
  for (tries = 0; ret == GST_FLOW_CUSTOM_SUCCESS && tries < 3; tries++)
    ret = device ? render_device (r, buf) : render_copy (r, buf);
  gst_clear_buffer (&cropped);
  r->crop = NULL;
  return ret == GST_FLOW_CUSTOM_SUCCESS ? GST_FLOW_OK : ret;
}

void
gst_doradma_sink_render_set_info (GstDoradmaSinkRender * r,
    const GstVideoInfo * info)
{
  r->info = *info;
  gst_doradma_plane_needs_all (info, &r->needs);
}

void
gst_doradma_sink_render_reset (GstDoradmaSinkRender * r)
{
  g_clear_pointer (&r->copier, gst_doradma_cuda_copier_free);
  r->told_copies = FALSE;
}
