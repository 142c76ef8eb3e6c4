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
  if (!gst_doradma_clock_map_offset (&r->clock_map, GST_ELEMENT (r->sink),
          &offset))
    return DORADMA_TIME_NONE;
  mono = offset + (sign > 0 ? (gint64) rt : -(gint64) rt);
  return mono < 0 ? DORADMA_TIME_NONE : (GstClockTime) mono;
}

/* The frame record of a slot (`slot_size` bytes) whose planes start at
 * `offset` with `pstride` (bytes from the slot's first byte). FALSE when
 * the planes do not fit in the slot. */
static gboolean
fill_frame_info_planes (GstDoradmaSinkRender * r, const GstVideoInfo * info,
    const gsize * offset, const gint * pstride, gsize buf_size,
    gsize slot_size, GstBuffer * src, struct doradma_frame_info *fi)
{
  return gst_doradma_frame_info_fill (info, offset, pstride, buf_size,
      slot_size, src, to_monotonic (r, GST_BUFFER_PTS (src)), fi);
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

  if (!gst_video_frame_map (&src, info, buf, GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&dst, info, tmp, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&src);
    goto map_failed;
  }
  /* honours both sides' strides and offsets; never a flat memcpy */
  gst_video_frame_copy (&dst, &src);
  gst_video_frame_unmap (&src);
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
  if (mem == NULL || !gst_doradma_producer_is_writing (r->producer, mem))
    /* system memory, a fallback buffer, a slot published before (videorate,
     * tee) or of a replaced segment: copy into a fresh slot */
    return render_copy (r, buf);

  /* upstream wrote into the slot: publish it in place */
  return publish_in_place (r, mem, buf);
}

GstFlowReturn
gst_doradma_sink_render_frame (GstDoradmaSinkRender * r, GstBuffer * buf)
{
  gboolean device = gst_doradma_producer_settings (r->producer)->transport ==
      GST_DORADMA_TRANSPORT_IPC;
  GstFlowReturn ret;
  guint tries;

  ret = device ? render_device (r, buf) : render_host (r, buf);
  /* the segment was replaced between acquire and publish (another thread
   * renegotiated): copy into the new one */
  for (tries = 0; ret == GST_FLOW_CUSTOM_SUCCESS && tries < 3; tries++)
    ret = device ? render_device (r, buf) : render_copy (r, buf);
  return ret == GST_FLOW_CUSTOM_SUCCESS ? GST_FLOW_OK : ret;
}

void
gst_doradma_sink_render_reset (GstDoradmaSinkRender * r)
{
  g_clear_pointer (&r->copier, gst_doradma_cuda_copier_free);
  r->told_copies = FALSE;
}
