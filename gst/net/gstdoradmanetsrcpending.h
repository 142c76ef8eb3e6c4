/* doradma network plugin — private: doradmanetsrc's pending frames.
 *
 * One responsibility: the queue of frames the sender announced whose
 * payload is still with UCX (a rendezvous descriptor) or copied out of it
 * (eager data), until the create loop takes them. Its bounds are
 * max-pending frames and max-pending-bytes: beyond, the oldest latest-mode
 * frames are dropped (dropped-pending); a lossless frame beyond the credits
 * granted is the sender's fault.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SRC_PENDING_H__
#define __GST_DORADMA_NET_SRC_PENDING_H__

#include "gstdoradmanetsrcprivate.h"

G_BEGIN_DECLS
/* A frame announced by the sender, its payload still with UCX. */
    typedef struct
{
  struct doradma_net_frame hdr;
  void *data;                   /* UCX's data or rendezvous descriptor */
  gsize length;
  gboolean rndv;
  gboolean owned;               /* data is ours (g_free) */
  gsize held;                   /* bytes held here: this and eager data */
} PendingFrame;

/* The frame message's handler (DORADMA_NET_AM_FRAME): a frame decoded,
 * checked and queued, or refused (the reason in bad_peer). */
ucs_status_t gst_doradma_net_src_on_frame (void *arg, const void *header,
    size_t header_length, void *data, size_t length,
    const ucp_am_recv_param_t * param);

/* The oldest pending frame, taken off the queue, or NULL. */
PendingFrame *gst_doradma_net_src_pending_pop (GstDoradmaNetSrc * self);

/* Frees a frame taken off the queue, and its data when it is ours. */
void gst_doradma_net_src_pending_release (GstDoradmaNetSrc * self,
    PendingFrame * pf);

/* Every pending frame released, counted as abandoned. */
void gst_doradma_net_src_pending_abandon_all (GstDoradmaNetSrc * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SRC_PENDING_H__ */
