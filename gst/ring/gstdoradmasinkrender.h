/* doradma GStreamer plugin — private: doradmasink's render paths.
 *
 * One responsibility: a buffer that reached doradmasink's render becomes a
 * published frame in the ring. A buffer whose memory is a slot upstream
 * wrote in place (a system-memory slot from gstdoradmapool.c, or a device
 * slot wrapped as GstCudaMemory by gstdoradmasinkcudapool.c) is published
 * as it is; anything else is copied into a fresh slot (the CPU for shmem
 * and unified, the GPU for transport=ipc).
 * The frame record (planes, crop, timestamps, CLOCK_MONOTONIC pts) is
 * filled here. The sink keeps the negotiation, the allocation query, the
 * events and the properties.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SINK_RENDER_H__
#define __GST_DORADMA_SINK_RENDER_H__

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "gstdoradmaproducer.h"
#include "gstdoradmawire.h"
#include "gstdoradmaclock.h"
#include "gstdoradmacuda.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_doradma_sink_debug);

/* Streaming-thread state of the render paths. */
typedef struct
{
  GstBaseSink *sink;            /* errors, clock, segment; not a reference */
  GstDoradmaProducer *producer; /* the sink's */
  GstVideoInfo info;            /* of the caps (set_caps) */
  GstDoradmaPlaneNeeds needs;   /* of `info`: worked out with it */
  GstDoradmaCudaCopier *copier; /* transport ipc: made on the first copy */
  gboolean told_copies;         /* the first ipc copy was logged */
  GstDoradmaClockMap clock_map; /* running time → mono_pts */
  /* the frame being rendered: its crop meta (NULL: none), and whether that
   * crop is what the caps describe. Looked up once per frame, in
   * gst_doradma_sink_render_frame, not by every step of the render path. */
  GstVideoCropMeta *crop;
  gboolean crop_defines_caps;
} GstDoradmaSinkRender;

/* Publishes `buf` (in place or copied). GST_FLOW_OK also when latest mode
 * dropped it (no slot free, counted); a flow error after posting. */
GstFlowReturn gst_doradma_sink_render_frame (GstDoradmaSinkRender * r,
    GstBuffer * buf);

/* At stop: frees the copier. */
void gst_doradma_sink_render_set_info (GstDoradmaSinkRender * r,
    const GstVideoInfo * info);

void gst_doradma_sink_render_reset (GstDoradmaSinkRender * r);

G_END_DECLS

#endif /* __GST_DORADMA_SINK_RENDER_H__ */
