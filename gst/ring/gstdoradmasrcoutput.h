/* doradma GStreamer plugin — doradmasrc's output: a frame → a buffer.
 *
 * Which buffer a received frame becomes: the leased slot itself (with the
 * writer's layout in GstVideoMeta when downstream accepts it), a local copy
 * in the default layout (over max-leases, or a layout downstream cannot
 * read), copy mode's buffer, or one of the GPU paths of
 * gstdoradmacudaoutput.h; and which caps it goes out with (system or CUDA
 * memory, whatever downstream accepts). Errors go to the element.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SRC_OUTPUT_H__
#define __GST_DORADMA_SRC_OUTPUT_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmaconsumer.h"
#include "gstdoradmawire.h"
#include "gstdoradmacudaoutput.h"

G_BEGIN_DECLS typedef struct
{
  GstElement *element;          /* errors go there; not a ref */

  /* fixed from start() to stop() */
  guint max_leases;
  GstDoradmaCopyTo copy_to;
  guint64 copy_budget;

  /* the caps as read from the ring and as pushed, and their video info:
   * written in the streaming thread under the element's object lock */
  GstCaps *caps;
  GstCaps *out_caps;
  GstVideoInfo info;
  GstDoradmaPlaneNeeds needs;   /* of `info`: worked out with it */
  gboolean cuda_out;            /* out_caps are memory:CUDAMemory */

  /* streaming thread only */
  gboolean downstream_meta;     /* the ALLOCATION answer has GstVideoMeta */
  GstBufferPool *copy_pool;     /* default layout, for local copies */
  GstBufferPool *shell_pool;    /* recycled buffers for leases */
  GstDoradmaCudaOutput cuda;
  gboolean over_leases_warned;  /* the one warning of a copy over quota */
  gboolean layout_warned;       /* the one warning of a copy for layout */

  gint copies;                  /* frames copied locally (atomic) */
} GstDoradmaSrcOutput;

/* Downstream of `pad` explicitly accepts memory:CUDAMemory. */
gboolean gst_doradma_src_output_peer_wants_cuda (GstPad * pad);

/* The caps to push for the writer's `caps`: their memory:CUDAMemory twin
 * when downstream asks for it, CUDA memory works here and downstream
 * accepts it, else `caps` when downstream accepts them (a new reference).
 * NULL otherwise; *no_cuda (g_free) then says why CUDA memory was not
 * offered, if that was the reason. */
GstCaps *gst_doradma_src_output_choose_caps (GstPad * pad, GstCaps * caps,
    gchar ** no_cuda);

void gst_doradma_src_output_init (GstDoradmaSrcOutput * o,
    GstElement * element);
/* The caps changed: buffers of the old caps go. */
void gst_doradma_src_output_caps_changed (GstDoradmaSrcOutput * o);
/* stop(): pools, copier and slabs go, counters restart. */
void gst_doradma_src_output_reset (GstDoradmaSrcOutput * o);
void gst_doradma_src_output_finalize (GstDoradmaSrcOutput * o);

/* The buffer `frame` becomes (its lease or copy taken over), or NULL after
 * posting an error. */
GstBuffer *gst_doradma_src_output_frame (GstDoradmaSrcOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame);

G_END_DECLS
#endif /* __GST_DORADMA_SRC_OUTPUT_H__ */
