/* doradma network plugin — the kernel's gate in front of UCX's listening
 * sockets (docs/ucx-front-door.md, design B; docs/network.md,
 * "Authentication").
 *
 * UCX parses what any host sends to its listening sockets (the tcp
 * transport's data ports, the connection manager's port) before any code
 * of ours can refuse it, and one connection can abort the process or make
 * it write at an address the sender chose. UCX has no hook before it
 * reads; the kernel has one: a classic BPF socket filter on a listening
 * socket drops a packet before the connection is queued, and the sockets
 * it accepts inherit it. With `allowed-peers` set, every listening socket
 * UCX opens for the element gets a filter that passes only packets from
 * the list's addresses.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_GATE_H__
#define __GST_DORADMA_NET_GATE_H__

#include <sys/socket.h>

#include <gst/gst.h>

G_BEGIN_DECLS
/* Held from a snapshot to its gate_apply, and while any listening socket
 * of the network elements is made (the door's; UCX's, gated or not):
 * another element's new socket must not fall in that window, where it
 * would be taken for UCX's and gated. Sockets the application makes
 * itself can (docs/network.md, "Not defended"). */
void gst_doradma_net_gate_lock (void);
void gst_doradma_net_gate_unlock (void);

/* The inodes of this process's listening TCP sockets now, taken before
 * UCX opens its own to tell them apart after; NULL with *error when
 * /proc/self/fd cannot be read. */
GHashTable *gst_doradma_net_gate_snapshot (GError ** error);

/* Gates every listening TCP socket of this process that is not in
 * `before` (those UCX opened since): attaches a filter that drops every
 * packet whose source address matches none of `allow`'s masks
 * (gst_doradma_net_allow_parse; IPv4 packets against IPv4 masks, IPv6
 * against IPv6), then resets (RST) the connections those sockets took
 * from other addresses before the filter was on, which UCX reads when its
 * worker progresses next. Returns how many sockets it gated, or -1 with
 * *error (the kernel refused the filter: the element must not run
 * open). With `keep` (int, or NULL), a duplicate of each gated socket is
 * appended to it, for gate_refilter; the caller closes them. */
gint gst_doradma_net_gate_apply (GHashTable * before, GPtrArray * allow,
    GArray * keep, GError ** error);

/* Replaces the filter of every socket in `keep` (the duplicates that
 * gate_apply kept, int) with one for `allow`. Connections the sockets took
 * keep the filter they were accepted under. FALSE with *error. */
gboolean gst_doradma_net_gate_refilter (GArray * keep, GPtrArray * allow,
    GError ** error);

/* TRUE when `local`, a socket's own address, is one a listener bound to
 * `bound` accepts on: the same family (a socket takes its listener's:
 * an IPv4 peer of a listener on :: is AF_INET6, ::ffff:a.b.c.d) and port,
 * and the same address unless the listener's is the wildcard (0.0.0.0,
 * ::), which accepts on every address of its family. */
gboolean gst_doradma_net_gate_accepted_by (const struct sockaddr_storage *local,
    const struct sockaddr_storage *bound);

/* The port of an IPv4 or IPv6 address, in host order (0 for another
 * family); and setting it. */
guint gst_doradma_net_sockaddr_port (const struct sockaddr_storage *ss);
void gst_doradma_net_sockaddr_set_port (struct sockaddr_storage *ss,
    guint port);

G_END_DECLS
#endif /* __GST_DORADMA_NET_GATE_H__ */
