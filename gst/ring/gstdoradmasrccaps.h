/* doradma GStreamer plugin — doradmasrc's caps.
 *
 * The caps come from the ring, one string per caps epoch: each frame's
 * epoch is checked, a new one is parsed, validated as plain raw video and
 * pushed (as memory:CUDAMemory when downstream asks for it and can have
 * it), with the ALLOCATION query re-run for it. Until a frame told us,
 * there is nothing to negotiate. Errors go to the element.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SRC_CAPS_H__
#define __GST_DORADMA_SRC_CAPS_H__

#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>

#include "gstdoradmaconsumer.h"
#include "gstdoradmasrcoutput.h"

G_BEGIN_DECLS
/* gst_doradma_src_caps_ensure(): the frame's epoch cannot be read, skip
 * the frame */
#define GST_DORADMA_SRC_SKIP_FRAME GST_FLOW_CUSTOM_SUCCESS
    typedef struct
{
  GstBaseSrc *src;              /* not a ref */
  GstDoradmaSrcOutput *out;     /* its caps fields: under src's object lock */

  /* streaming thread only */
  guint32 epoch;
  gboolean have_epoch;
} GstDoradmaSrcCaps;

void gst_doradma_src_caps_init (GstDoradmaSrcCaps * c, GstBaseSrc * src,
    GstDoradmaSrcOutput * out);
/* start(): no epoch seen yet. */
void gst_doradma_src_caps_start (GstDoradmaSrcCaps * c);

/* The consumer's question (`src` is the element): downstream explicitly
 * accepts memory:CUDAMemory. */
gboolean gst_doradma_src_caps_downstream_wants_cuda (gpointer src);

/* Makes the caps of the frame's epoch the current ones (*changed: the
 * epoch brought new caps). GST_FLOW_OK, GST_DORADMA_SRC_SKIP_FRAME or an error flow
 * (posted). */
GstFlowReturn gst_doradma_src_caps_ensure (GstDoradmaSrcCaps * c,
    GstDoradmaConsumer * consumer, const GstDoradmaConsumerFrame * fr,
    gboolean * changed);

/* The get_caps and negotiate vfuncs. */
GstCaps *gst_doradma_src_caps_query (GstDoradmaSrcCaps * c, GstCaps * filter);
gboolean gst_doradma_src_caps_negotiate (GstDoradmaSrcCaps * c);

G_END_DECLS
#endif /* __GST_DORADMA_SRC_CAPS_H__ */
