/* doradma network plugin — private: doradmanetsrc's sender connection.
 *
 * One responsibility: the one sender at a time. Its connection request
 * (a second sender is refused), the key-file handshake (the sender's
 * RESPONSE checked, this side's PROOF sent; gstdoradmanetwire.h), the
 * credits returned to it, its EOS and active messages of ids the wire does
 * not use, and letting it go. Runs in the streaming thread (UCX callbacks
 * inside the worker's progress); a sender's fault is left in `bad_peer`
 * for the create loop.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SRC_CONN_H__
#define __GST_DORADMA_NET_SRC_CONN_H__

#include "gstdoradmanetsrcprivate.h"

G_BEGIN_DECLS
/* Sets the handlers of the wire's messages on self->ucx (opened) and
 * listens on `address`:`port` (self->listener); FALSE with `err` set. */
    gboolean gst_doradma_net_src_listen (GstDoradmaNetSrc * self,
    const gchar * address, guint port, GError ** err);

/* key-file: the door on `address`:`port` (self->door), which tells the
 * senders that prove the key the port of self->listener and opens the
 * gate of self->ucx to them; FALSE with `err` set. */
gboolean gst_doradma_net_src_open_door (GstDoradmaNetSrc * self,
    const gchar * address, guint port, GError ** err);

/* A credit message: the hello (`credits` granted to a new connection) or
 * `credits` more, counted in credit_balance. Nothing without a live
 * endpoint. */
void gst_doradma_net_src_send_credit (GstDoradmaNetSrc * self,
    gboolean hello, guint credits);

/* Abandons the pending frames (counted) and closes the endpoint. */
void gst_doradma_net_src_drop_sender (GstDoradmaNetSrc * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SRC_CONN_H__ */
