/* doradma network plugin — private: doradmanetsrc's frames.
 *
 * One responsibility: a pending frame becomes a published ring frame and
 * a buffer for downstream. Its caps are applied (set on the src pad and
 * the ring when they change) and its geometry checked against them (a
 * frame that does not cover them is malformed), a ring slot (or system
 * memory without a ring) is taken, the payload received into it, the
 * frame published and credited to the sender.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SRC_FRAME_H__
#define __GST_DORADMA_NET_SRC_FRAME_H__

#include "gstdoradmanetsrcpending.h"

G_BEGIN_DECLS
/* One pending frame (taken: released here) into the ring and *out for
 * downstream, or *out NULL when it was dropped. */
    GstFlowReturn gst_doradma_net_src_handle_frame (GstDoradmaNetSrc * self,
    PendingFrame * pf, GstBuffer ** out);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SRC_FRAME_H__ */
