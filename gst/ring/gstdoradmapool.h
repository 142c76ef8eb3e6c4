/* doradma GStreamer plugin — the buffer pool whose buffers are ring slots.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_POOL_H__
#define __GST_DORADMA_POOL_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmaproducer.h"

G_BEGIN_DECLS

#define GST_TYPE_DORADMA_POOL (gst_doradma_pool_get_type ())
G_DECLARE_FINAL_TYPE (GstDoradmaPool, gst_doradma_pool, GST, DORADMA_POOL,
    GstBufferPool);

/* A pool whose buffers hold one slot memory of `producer` each, so
 * upstream writes frames in place. */
GstBufferPool *gst_doradma_pool_new (GstDoradmaProducer * producer);

/* Registers "doradmapool" (plugin init). */
void gst_doradma_pool_debug_init (void);

G_END_DECLS

#endif /* __GST_DORADMA_POOL_H__ */
