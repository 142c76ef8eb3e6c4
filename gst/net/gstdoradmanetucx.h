/* doradma GStreamer plugin — private: the UCX worker of one network
 * element (doradmanetsink or doradmanetsrc).
 *
 * One responsibility: UCP context, worker, listener and endpoints. Either
 * driven from one thread (the receiver's streaming thread), with a wait
 * that sleeps on the worker's event fd and can be interrupted from any
 * thread (the element's unlock); or, `threaded`, progressed by a thread of
 * its own so that transfers go on between the caller's calls (the
 * sender: a rendezvous needs the sender's progress to move the data):
 * then every UCX call, and the callbacks, run under `lock`, and `cond` is
 * broadcast after each progress. Transports: the
 * element's `transports` when set, else UCX's own choice (UCX_TLS and the
 * other UCX_* variables are honoured as UCX reads them).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_UCX_H__
#define __GST_DORADMA_NET_UCX_H__

#include <dirent.h>
#include <sys/socket.h>
#include <gst/gst.h>
#include <ucp/api/ucp.h>

G_BEGIN_DECLS typedef struct
{
  ucp_context_h context;
  ucp_worker_h worker;
  int worker_fd;                /* ucp_worker_get_efd */
  int cancel_fd;                /* eventfd: readable while interrupted */
  gchar *memory_types;          /* what UCX can send from, e.g. "host" */
  GHashTable *stuck_seen;       /* reset_stuck: sockets seen at its last sweep */
  gint64 next_sweep;            /* reset_stuck: monotonic us */
  /* reset_stuck's own descriptors, taken at listen: a flood of stuck
   * connections may leave none free when it runs */
  DIR *sweep_dir;               /* /proc/self/fd; NULL: no sweep */
  struct sockaddr_storage sweep_addr;   /* the listener's bound address */
  int spare_fd;                 /* the slot a dup goes into (dup3), never freed */
  guint64 memory_type_mask;     /* the same: UCS_BIT (ucs_memory_type_t) */
  GPtrArray *gate;              /* allowed-peers' masks: listeners gated */
  GArray *gated;                /* int: a duplicate of each gated listener */
  /* threaded */
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean stop;
} GstDoradmaNetUcx;

/* Opens the context and the worker; `transports` NULL or "" leaves the
 * choice to UCX (UCX_TLS). `device` (a network interface, e.g. "eth0")
 * keeps every UCX network transport to that device (UCX's NET_DEVICES;
 * NULL or "": every device; UCX_NET_DEVICES set by the user wins).
 * `port_range` "FIRST-LAST": the tcp transport's data listener on those
 * ports (UCX's TCP_PORT_RANGE; NULL or "": UCX_TCP_PORT_RANGE or
 * ephemeral). All set in UCX's configuration object, never in the
 * environment. `allow` (allowed-peers' masks; NULL: anyone): every
 * listening socket UCX opens, here and in listen, is gated by the kernel
 * to those addresses before the worker reads from it
 * (gstdoradmanetgate.h). FALSE with *error. */
gboolean gst_doradma_net_ucx_open (GstDoradmaNetUcx * u,
    const gchar * transports, const gchar * device,
    const gchar * port_range, GPtrArray * allow, GError ** error);
void gst_doradma_net_ucx_close (GstDoradmaNetUcx * u);

/* data-ports' "FIRST-LAST", 1 <= FIRST <= LAST <= 65535: TRUE with both
 * set, FALSE (nothing set) for anything else. */
gboolean gst_doradma_net_ucx_port_range (const gchar * range, guint * first,
    guint * last);

/* Threaded use: starts the progress thread (after open), stops and joins
 * it (before close). Call neither with `lock` held. */
void gst_doradma_net_ucx_start_thread (GstDoradmaNetUcx * u);
void gst_doradma_net_ucx_stop_thread (GstDoradmaNetUcx * u);
/* Threaded use, `lock` held: waits for the next progress (or any
 * broadcast) up to timeout_ms. */
void gst_doradma_net_ucx_wait_progress (GstDoradmaNetUcx * u, gint timeout_ms);

/* Runs the worker's callbacks; then, when none ran, sleeps until the
 * network has news, `timeout_ms` passed, or the wait is interrupted.
 * Returns FALSE when interrupted. */
gboolean gst_doradma_net_ucx_wait (GstDoradmaNetUcx * u, gint timeout_ms);
/* Runs the worker's callbacks without sleeping. */
void gst_doradma_net_ucx_progress (GstDoradmaNetUcx * u);

/* Any thread: on = TRUE makes waits return FALSE until on = FALSE. */
void gst_doradma_net_ucx_interrupt (GstDoradmaNetUcx * u, gboolean on);
gboolean gst_doradma_net_ucx_interrupted (GstDoradmaNetUcx * u);

/* Completes request `req` (the return of a *_nbx call): UCS_OK, the
 * request's error, UCS_ERR_CANCELED when interrupted or
 * UCS_ERR_TIMED_OUT after `timeout_us` (0: none); the request is
 * cancelled and completed before returning. */
ucs_status_t gst_doradma_net_ucx_finish (GstDoradmaNetUcx * u, void *req,
    gint64 timeout_us);

/* Resolves host:port (IPv4 or IPv6, numeric or a name). */
gboolean gst_doradma_net_ucx_resolve (const gchar * host, guint port,
    struct sockaddr_storage *ss, socklen_t * len, GError ** error);

/* The name of the network interface that holds `address` (numeric or a
 * name; getifaddrs), "" for a wildcard address (0.0.0.0, ::: every
 * interface), NULL with *error when no interface holds it. g_free. */
gchar *gst_doradma_net_ucx_interface_of (const gchar * address,
    GError ** error);

/* The names of the interfaces that are up, not loopback, with an IP
 * address (getifaddrs). g_strfreev. */
gchar **gst_doradma_net_ucx_interfaces (void);

/* The interface this host would reach host:port through (its route, by
 * a UDP connect that sends nothing), "" or NULL when there is none now.
 * g_free. */
gchar *gst_doradma_net_ucx_route_interface (const gchar * host, guint port);

/* A client endpoint to `ss` (host:port resolved by the caller, named in
 * the error); `on_error` is called from the worker's progress when the
 * connection fails or breaks. */
ucp_ep_h gst_doradma_net_ucx_connect (GstDoradmaNetUcx * u,
    const gchar * host, guint port, const struct sockaddr_storage *ss,
    socklen_t len, ucp_err_handler_cb_t on_error, gpointer arg,
    GError ** error);
/* The address a connection request comes from; FALSE if UCX does not
 * say. */
gboolean gst_doradma_net_ucx_request_address (ucp_conn_request_h request,
    struct sockaddr_storage *ss);
/* A server endpoint for a connection request (listener callback). */
ucp_ep_h gst_doradma_net_ucx_accept (GstDoradmaNetUcx * u,
    ucp_conn_request_h request, ucp_err_handler_cb_t on_error, gpointer arg,
    GError ** error);
ucp_listener_h gst_doradma_net_ucx_listen (GstDoradmaNetUcx * u,
    const gchar * address, guint port, ucp_listener_conn_callback_t on_conn,
    gpointer arg, GError ** error);
/* Gated (open's `allow` not NULL): every listening socket it gated, in
 * open and listen, now passes only packets from `allow`'s addresses
 * (the door's grants); connections they took already are left as they
 * are. Any thread. FALSE with *error. */
gboolean gst_doradma_net_ucx_regate (GstDoradmaNetUcx * u, GPtrArray * allow,
    GError ** error);
/* The port the listener that listen made is bound to (the one the kernel
 * chose for port 0); 0 before listen. */
guint gst_doradma_net_ucx_listener_port (GstDoradmaNetUcx * u);

/* Closes an endpoint: flushed when `force` is FALSE, else at once
 * (pending sends complete with an error). A flush that does not complete
 * within `grace_us` (> 0; a peer that stopped reading) turns into a forced
 * close, so that no stop waits on a peer forever. Returns FALSE when the
 * grace ran out (what was in flight may be lost). */
gboolean gst_doradma_net_ucx_close_ep (GstDoradmaNetUcx * u, ucp_ep_h ep,
    gboolean force, gint64 grace_us);

/* UCX's TCP connection manager (1.13.1 to 1.22.0 at least) never closes
 * a server socket whose peer sent a header announcing more private data
 * than its buffer holds (any garbage of 2080 bytes or more): once the
 * buffer is full it reads 0 bytes, which it takes for success, so it never
 * sees the peer's close; the socket stays, and while anything is unread
 * UCX's async thread polls it without end (review N-5; docs/network.md,
 * "Not defended"). At most every 500 ms, this finds the sockets of the
 * listener that listen made (on its bound address and port; on any
 * address of its family when bound to the wildcard) that UCX has not
 * read: in CLOSE_WAIT, or with bytes waiting, now and at the previous
 * sweep (a socket UCX watches is read at once): a socket of ours on the
 * same port at another address is not one of them. Each is reset through
 * a duplicate descriptor (connect AF_UNSPEC: an RST, ECONNRESET pending),
 * so that UCX's own error handler closes it, once. It reads /proc/self/fd
 * through the directory, and dups into the slot of the spare descriptor
 * (dup3, and back), that listen took: it runs with every other descriptor
 * taken, and the slot is never free for UCX to take. Returns how many
 * were reset (0 without /proc). The receiving thread, between
 * progresses. */
guint gst_doradma_net_ucx_reset_stuck (GstDoradmaNetUcx * u);

/* What reset_stuck needs, taken when listen made `l` (asked for at
 * `asked`): the address the listener is bound to, the /proc/self/fd
 * directory and the spare descriptor (gstdoradmanetsweep.c). */
void gst_doradma_net_ucx_sweep_prepare (GstDoradmaNetUcx * u,
    ucp_listener_h l, const struct sockaddr_storage *asked,
    socklen_t asked_len);

/* Registers `cb` for active message `id` (data kept by returning
 * UCS_INPROGRESS). */
gboolean gst_doradma_net_ucx_set_am_handler (GstDoradmaNetUcx * u, guint id,
    ucp_am_recv_callback_t cb, gpointer arg, GError ** error);

/* Sends a copy of `len` bytes of `buf` as active message `id` (header
 * only) on `ep`; the copy is freed when UCX is done. FALSE when the send
 * failed at once. */
gboolean gst_doradma_net_ucx_send_copy (ucp_ep_h ep, guint id,
    const void *buf, gsize len);

/* Registers `cb` for every active message id (0..65535); the wire's own
 * handlers are registered after it, over it. UCX 1.13 reads its handler
 * table at the id a peer sends without bounding it on every path (an
 * unknown id 65535 crashed either element inside UCX, review N-3): with a
 * handler at every id, every id is a registered one. `cb` must drop the
 * message (UCS_OK; a rendezvous refused) and may count and disconnect. */
gboolean gst_doradma_net_ucx_set_unknown_am_handler (GstDoradmaNetUcx * u,
    ucp_am_recv_callback_t cb, gpointer arg, GError ** error);

/* "host", "host,cuda"... : the memory types this UCX can send from (the
 * run-time probe of docs/network.md, "GPU memory"). */
const gchar *gst_doradma_net_ucx_memory_types (GstDoradmaNetUcx * u);

/* TRUE when the probe found that this UCX sends from CUDA device memory
 * (a UCX built --with-cuda: UCS_MEMORY_TYPE_CUDA in the send params). */
gboolean gst_doradma_net_ucx_has_cuda (GstDoradmaNetUcx * u);

/* The element's stats structure `name`: counters[i] (read atomically) as
 * guint64 fields names[i], then ucx-memory-types (the probe; "" when
 * `open` is FALSE). */
GstStructure *gst_doradma_net_ucx_stats_new (GstDoradmaNetUcx * u,
    gboolean open, const gchar * name, const gchar * const *names,
    guint64 * counters, guint n);

G_END_DECLS
#endif /* __GST_DORADMA_NET_UCX_H__ */
