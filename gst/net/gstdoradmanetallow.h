/* doradma network plugin — the allow-list of peer addresses of
 * doradmanetsink and doradmanetsrc (`allowed-peers`; docs/network.md,
 * "Authentication"): IP addresses and CIDR prefixes, parsed and matched
 * by GIO's GInetAddressMask.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_ALLOW_H__
#define __GST_DORADMA_NET_ALLOW_H__

#include <sys/socket.h>

#include <gst/gst.h>

G_BEGIN_DECLS
/* `list`, comma-separated addresses ("10.0.0.2", "fd00::1") and prefixes
 * ("10.0.0.0/24"), spaces allowed around each: its masks (a GPtrArray of
 * GInetAddressMask), NULL when it is empty or NULL (anyone may connect),
 * or NULL with an error naming `what` (the property) and the entry. */
    GPtrArray * gst_doradma_net_allow_parse (const gchar * list,
    const gchar * what, GError ** error);

/* Whether `sa` (an IPv4 or IPv6 socket address; an IPv4-mapped IPv6 one
 * is taken as its IPv4 address) matches one of `allow`'s masks; always
 * TRUE when `allow` is NULL. *text (if given) gets the address as text,
 * to be freed. */
gboolean gst_doradma_net_allow_check (GPtrArray * allow,
    const struct sockaddr *sa, gchar ** text);

G_END_DECLS
#endif /* __GST_DORADMA_NET_ALLOW_H__ */
