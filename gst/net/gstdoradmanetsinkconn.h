/* doradma network plugin — private: doradmanetsink's receiver connection.
 *
 * One responsibility: being connected to the receiver, with credits. The
 * connection attempts (every retry-interval, a hello awaited), the
 * key-file handshake (the receiver's CHALLENGE answered, its PROOF
 * checked; gstdoradmanetwire.h), the credits it returns, a refusal (it
 * serves another sender), and its loss (the error callback, peer-timeout,
 * an unknown or malformed message) with the on-peer-lost policy and the
 * element messages. Under ucx.lock.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SINK_CONN_H__
#define __GST_DORADMA_NET_SINK_CONN_H__

#include "gstdoradmanetsinkprivate.h"

G_BEGIN_DECLS
/* Sets the handlers of the receiver's messages on self->ucx (opened);
 * FALSE with `err` set. */
    gboolean gst_doradma_net_sink_set_handlers (GstDoradmaNetSink * self,
    GError ** err);

/* Closes the endpoint (`force`: without flushing what was sent) and
 * forgets the connection's state. */
void gst_doradma_net_sink_drop_connection (GstDoradmaNetSink * self,
    gboolean force);

/* Counts in lost-in-flight the frames sent on the last lost connection
 * that its receiver did not confirm (docs/network.md, "Modes"): at the
 * next receiver's hello (`hello`, its `handled_seq`: what that receiver
 * handled, when it is the same one) or at EOS (no hello came). Under
 * ucx.lock. */
void gst_doradma_net_sink_note_unconfirmed (GstDoradmaNetSink * self);
void gst_doradma_net_sink_count_lost (GstDoradmaNetSink * self,
    gboolean hello, guint64 handled_seq);

/* TRUE when connected; else starts or follows a connection attempt.
 * *ret is set (not OK) when the peer-lost policy ends the stream. */
gboolean gst_doradma_net_sink_ensure_connected (GstDoradmaNetSink * self,
    GstFlowReturn * ret);

/* Lossless: waits until connected with a credit. Returns OK, FLUSHING
 * (unlock) or an error after `timeout`. */
GstFlowReturn gst_doradma_net_sink_wait_for_credit (GstDoradmaNetSink * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SINK_CONN_H__ */
