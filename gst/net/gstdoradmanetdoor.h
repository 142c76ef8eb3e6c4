/* doradma network plugin — the door: a keyed stream's key handshake on a
 * plain TCP socket, before UCX hears anything from the peer
 * (docs/ucx-front-door.md, design A + filter; docs/network.md, "The
 * door").
 *
 * UCX parses what any host sends to its listening sockets, and one
 * connection can abort the process (gstdoradmanetgate.h). With a key-file,
 * a receiver's UCX listeners start closed to every host (the kernel's
 * filter), and `port` is the door: our own listening socket, where a
 * sender proves the key before UCX is told anything. Sender → receiver
 * DOOR_CHALLENGE (nonce_s), receiver → sender DOOR_CHALLENGE (nonce_r),
 * sender → receiver DOOR_RESPONSE (MAC "door sender" over nonce_r
 * nonce_s); the receiver then opens its UCX listeners to the address the
 * door connection came from, for GST_DORADMA_NET_DOOR_GRANT_US, and
 * answers DOOR_PROOF (MAC "door receiver" over nonce_s nonce_r and the
 * port of its UCX listener, which the sender connects to next). The
 * receiver sends no MAC to a peer that has not proved the key, and
 * sends nothing before the peer's first record. The sender opens its own
 * UCX listeners to the receiver's address only after that proof.
 * Fixed-size records
 * (struct doradma_net_auth, decoded by the wire's one parser), each
 * conversation bounded in time, a bounded number at once.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_DOOR_H__
#define __GST_DORADMA_NET_DOOR_H__

#include <sys/socket.h>

#include <gio/gio.h>
#include <gst/gst.h>

#include "gstdoradmanetwire.h"

G_BEGIN_DECLS
/* How long a conversation at the door may take, in microseconds. */
#define GST_DORADMA_NET_DOOR_TIMEOUT_US (2 * G_USEC_PER_SEC)
/* How long the receiver's UCX listeners stay open to a sender's address
 * after its proof: for its UCX connections to be made. Those keep the
 * filter they were accepted under; a reconnect comes through the door. */
#define GST_DORADMA_NET_DOOR_GRANT_US (10 * G_USEC_PER_SEC)
/* Conversations at once; one more closes the oldest. */
#define GST_DORADMA_NET_DOOR_MAX_TALKS 16
    typedef enum
{
  GST_DORADMA_NET_DOOR_FAILED = -1,
  GST_DORADMA_NET_DOOR_WAITING = 0,     /* for the socket (talk_events) */
  GST_DORADMA_NET_DOOR_PROVEN,  /* receiver: the sender proved the key;
                                 * the proof goes out at the next steps */
  GST_DORADMA_NET_DOOR_DONE,    /* the peer proved the key, all was sent */
} GstDoradmaNetDoorResult;

/* One side of a conversation at the door, on a non-blocking TCP socket. */
typedef struct
{
  int fd;                       /* owned; -1: none */
  gboolean sender;
  GBytes *key;                  /* borrowed */
  guint state;
  guint8 mine[DORADMA_NET_AUTH_BYTES], theirs[DORADMA_NET_AUTH_BYTES];
  struct doradma_net_auth out;  /* the message being written */
  gsize out_len, out_done;
  guint8 in[sizeof (struct doradma_net_auth)];
  gsize in_done;
  guint port;                   /* receiver: its UCX listener's; sender:
                                 * the one the proof gave */
  gint64 deadline;              /* monotonic us */
  struct sockaddr_storage peer;
} GstDoradmaNetDoorTalk;

/* Starts a conversation on `fd` (taken: talk_clear closes it): a
 * receiver's accepted socket (`port`: its UCX listener's), or a sender's
 * socket from door_dial. FALSE when there are no random bytes. */
gboolean gst_doradma_net_door_talk_init (GstDoradmaNetDoorTalk * talk, int fd,
    gboolean sender, GBytes * key, guint port);
/* Moves the conversation on as far as the socket allows without
 * blocking. FAILED with *why (a static string naming what was wrong) when
 * the peer closed, sent what is not the next message, did not prove the
 * key, or the time ran out. */
GstDoradmaNetDoorResult gst_doradma_net_door_talk_step (GstDoradmaNetDoorTalk *
    talk, const gchar ** why);
/* POLLIN or POLLOUT: what the conversation waits for. */
short gst_doradma_net_door_talk_events (GstDoradmaNetDoorTalk * talk);
void gst_doradma_net_door_talk_clear (GstDoradmaNetDoorTalk * talk);

/* A non-blocking connection to a door at `ss` (under way); -1 with
 * *error. */
int gst_doradma_net_door_dial (const struct sockaddr_storage *ss,
    socklen_t len, GError ** error);

/* The one-address mask of `peer` (an IPv4 address for a v4-mapped IPv6
 * one, as the gate's filter sees its packets). */
GInetAddressMask *gst_doradma_net_door_peer_mask (const struct
    sockaddr_storage *peer);

/* The receiver's door: a thread that accepts on address:port and talks
 * with each sender. `regate` is called (from that thread) with the
 * addresses whose senders proved the key in the last
 * GST_DORADMA_NET_DOOR_GRANT_US, each time that list changes (empty: every
 * host kept out); it returns FALSE when the gate could not be changed.
 * `refused` is called for each conversation that failed, with its peer and
 * why. */
typedef struct _GstDoradmaNetDoor GstDoradmaNetDoor;
typedef gboolean (*GstDoradmaNetDoorRegate) (GPtrArray * allow, gpointer arg);
typedef void (*GstDoradmaNetDoorRefused) (const struct sockaddr_storage * peer,
    const gchar * why, gpointer arg);

/* Listens on `ss` (`address` names it in errors; `allow` not NULL: the
 * door's own socket gated to those addresses, allowed-peers) and starts
 * the thread; NULL with *error. `ucx_port` is told to the senders that
 * prove the key. */
GstDoradmaNetDoor *gst_doradma_net_door_open (const gchar * address,
    const struct sockaddr_storage *ss, socklen_t len, GBytes * key,
    GPtrArray * allow, guint ucx_port, GstDoradmaNetDoorRegate regate,
    GstDoradmaNetDoorRefused refused, gpointer arg, GError ** error);
/* The port the door listens on (the kernel's choice for port 0). */
guint gst_doradma_net_door_port (GstDoradmaNetDoor * door);
/* Stops the thread and closes every socket of the door. */
void gst_doradma_net_door_close (GstDoradmaNetDoor * door);

G_END_DECLS
#endif /* __GST_DORADMA_NET_DOOR_H__ */
