/* doradma network plugin — private: doradmanetsink's sends.
 *
 * One responsibility: what goes to the receiver as frames. A buffer
 * becomes one active message (its numbered header, with the frame record,
 * and its bytes from the mapped buffer, the device frame or the pinned
 * staging buffer, held until UCX is done), or is dropped and counted in
 * latest mode; at EOS, what was sent is delivered before the receiver is
 * told.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SINK_SEND_H__
#define __GST_DORADMA_NET_SINK_SEND_H__

#include "gstdoradmanetsinkprivate.h"

G_BEGIN_DECLS
/* Sends `buf` (ucx.lock held): OK also when it was dropped (counted). */
    GstFlowReturn gst_doradma_net_sink_render_locked (GstDoradmaNetSink * self,
    GstBuffer * buf);

/* EOS: what was sent is delivered, then the receiver is told (it ends its
 * ring's stream and its own). Bounded by peer-timeout. Takes ucx.lock. */
gboolean gst_doradma_net_sink_send_eos (GstDoradmaNetSink * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SINK_SEND_H__ */
