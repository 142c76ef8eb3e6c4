/* doradma GStreamer plugin — doradmasrc's buffer shells.
 *
 * A GstBufferPool of empty GstBuffers that doradmasrc fills with one
 * leased memory and the frame's metas. A buffer coming back loses its
 * memory (the memory's own last unref ends the lease: downstream may still
 * hold the memory beyond the buffer) and every meta without the POOLED
 * flag (doradmasrc marks its video, crop and frame metas POOLED and
 * updates them in place for the next frame), then waits in a free list.
 * Taking and returning one allocates nothing and makes no system call
 * (GStreamer 1.22's default pool signals a GstPoll whenever its queue runs
 * empty or refills). Shells are never waited for: an empty list allocates.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SHELL_POOL_H__
#define __GST_DORADMA_SHELL_POOL_H__

#include <gst/gst.h>

G_BEGIN_DECLS
/* An active pool (free with gst_doradma_pool_clear), or NULL. */
    GstBufferPool * gst_doradma_shell_pool_new (void);

/* Marks every meta `buf` has now POOLED: they stay for the next frame. */
void gst_doradma_shell_pool_keep_metas (GstBuffer * buf);

G_END_DECLS
#endif /* __GST_DORADMA_SHELL_POOL_H__ */
