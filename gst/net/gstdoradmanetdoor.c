/* doradma network plugin — the door of a keyed stream (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gstdoradmanetauth.h"
#include "gstdoradmanetdoor.h"
#include "gstdoradmanetgate.h"

GST_DEBUG_CATEGORY_STATIC (door_debug);
#define GST_CAT_DEFAULT door_debug

/* What a conversation waits for. The sender speaks first: a UCX client
 * that dials the door by mistake (a sender without key-file) sends its own
 * header, which is refused, and is never sent bytes it would parse. */
enum
{
  S_CONNECTING,                 /* sender: the TCP connection */
  S_SEND_CHALLENGE,
  S_READ_CHALLENGE,
  S_SEND_RESPONSE,
  S_READ_PROOF,
  R_READ_CHALLENGE,
  R_SEND_CHALLENGE,
  R_READ_RESPONSE,
  R_SEND_PROOF,
  FINISHED,
};

/* ---- one conversation ---- */

static void
talk_send (GstDoradmaNetDoorTalk * talk, guint16 kind, guint32 flags,
    const guint8 * nonce, const guint8 * mac, guint next)
{
  doradma_net_auth_encode (&talk->out, kind, flags, nonce, mac);
  talk->out_len = sizeof (talk->out);
  talk->out_done = 0;
  talk->state = next;
}

gboolean
gst_doradma_net_door_talk_init (GstDoradmaNetDoorTalk * talk, int fd,
    gboolean sender, GBytes * key, guint port)
{
  memset (talk, 0, sizeof (*talk));
  talk->fd = fd;
  talk->sender = sender;
  talk->key = key;
  talk->port = port;
  talk->deadline = g_get_monotonic_time () + GST_DORADMA_NET_DOOR_TIMEOUT_US;
  if (!gst_doradma_net_auth_nonce (talk->mine))
    return FALSE;
  talk->state = sender ? S_CONNECTING : R_READ_CHALLENGE;
  return TRUE;
}

void
gst_doradma_net_door_talk_clear (GstDoradmaNetDoorTalk * talk)
{
  if (talk->fd >= 0)
    close (talk->fd);
  talk->fd = -1;
  talk->state = FINISHED;
}

short
gst_doradma_net_door_talk_events (GstDoradmaNetDoorTalk * talk)
{
  switch (talk->state) {
    case S_CONNECTING:
    case S_SEND_CHALLENGE:
    case S_SEND_RESPONSE:
    case R_SEND_CHALLENGE:
    case R_SEND_PROOF:
      return POLLOUT;
    default:
      return POLLIN;
  }
}

/* A whole record from the peer: the one `want` was, or FAILED with *why */
static GstDoradmaNetDoorResult
handle (GstDoradmaNetDoorTalk * talk, guint16 want, const gchar ** why)
{
  struct doradma_net_auth a;
  guint8 mac[DORADMA_NET_AUTH_BYTES];

  if (doradma_net_auth_decode (talk->in, sizeof (talk->in), &a, NULL) != 0
      || a.kind != want) {
    *why = "not the door message expected next (not a doradma sender or "
        "receiver of this version?)";
    return GST_DORADMA_NET_DOOR_FAILED;
  }
  talk->in_done = 0;
  switch (want) {
    case DORADMA_NET_AUTH_DOOR_CHALLENGE:
      memcpy (talk->theirs, a.nonce, sizeof (talk->theirs));
      if (!talk->sender) {
        talk_send (talk, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, talk->mine, NULL,
            R_SEND_CHALLENGE);
        return GST_DORADMA_NET_DOOR_WAITING;
      }
      gst_doradma_net_auth_mac (talk->key, GST_DORADMA_NET_AUTH_DOOR_SENDER,
          talk->theirs, talk->mine, 0, 0, mac);
      talk_send (talk, DORADMA_NET_AUTH_DOOR_RESPONSE, 0, NULL, mac,
          S_SEND_RESPONSE);
      return GST_DORADMA_NET_DOOR_WAITING;
    case DORADMA_NET_AUTH_DOOR_RESPONSE:
      if (!gst_doradma_net_auth_check (talk->key,
              GST_DORADMA_NET_AUTH_DOOR_SENDER, talk->mine, talk->theirs, 0,
              0, a.mac)) {
        *why = "the sender does not have the key (wrong key-file, or a "
            "replayed answer)";
        return GST_DORADMA_NET_DOOR_FAILED;
      }
      gst_doradma_net_auth_mac (talk->key, GST_DORADMA_NET_AUTH_DOOR_RECEIVER,
          talk->theirs, talk->mine, 0, talk->port, mac);
      talk_send (talk, DORADMA_NET_AUTH_DOOR_PROOF, talk->port, NULL, mac,
          R_SEND_PROOF);
      return GST_DORADMA_NET_DOOR_PROVEN;
    default:                   /* DOOR_PROOF */
      if (!gst_doradma_net_auth_check (talk->key,
              GST_DORADMA_NET_AUTH_DOOR_RECEIVER, talk->mine, talk->theirs, 0,
              a.flags, a.mac)) {
        *why = "the receiver does not have the key (wrong key-file, or a "
            "replayed proof)";
        return GST_DORADMA_NET_DOOR_FAILED;
      }
      talk->port = a.flags;
      talk->state = FINISHED;
      return GST_DORADMA_NET_DOOR_DONE;
  }
}

GstDoradmaNetDoorResult
gst_doradma_net_door_talk_step (GstDoradmaNetDoorTalk * talk,
    const gchar ** why)
{
  for (;;) {
    ssize_t n;

    if (talk->state == FINISHED)
      return GST_DORADMA_NET_DOOR_DONE;
    if (g_get_monotonic_time () > talk->deadline) {
      *why = "the conversation at the door took more than 2 s";
      return GST_DORADMA_NET_DOOR_FAILED;
    }
    if (talk->state == S_CONNECTING) {
      struct pollfd p = { talk->fd, POLLOUT, 0 };
      int err = 0;
      socklen_t len = sizeof (err);

      if (poll (&p, 1, 0) == 0)
        return GST_DORADMA_NET_DOOR_WAITING;
      if (getsockopt (talk->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0
          || err != 0) {
        *why = err == ECONNREFUSED ? "nothing listens at the door (is the "
            "receiver running, with a key-file?)" : "could not connect to "
            "the door";
        return GST_DORADMA_NET_DOOR_FAILED;
      }
      talk_send (talk, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, talk->mine, NULL,
          S_SEND_CHALLENGE);
      continue;
    }
    if (gst_doradma_net_door_talk_events (talk) == POLLOUT) {
      n = send (talk->fd, (guint8 *) & talk->out + talk->out_done,
          talk->out_len - talk->out_done, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return GST_DORADMA_NET_DOOR_WAITING;
      if (n <= 0) {
        *why = "the peer closed the door connection";
        return GST_DORADMA_NET_DOOR_FAILED;
      }
      talk->out_done += n;
      if (talk->out_done < talk->out_len)
        continue;
      talk->state = talk->state == S_SEND_CHALLENGE ? S_READ_CHALLENGE :
          talk->state == S_SEND_RESPONSE ? S_READ_PROOF :
          talk->state == R_SEND_CHALLENGE ? R_READ_RESPONSE : FINISHED;
      continue;
    }
    /* never more than the record: nothing else may come */
    n = recv (talk->fd, talk->in + talk->in_done,
        sizeof (talk->in) - talk->in_done, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return GST_DORADMA_NET_DOOR_WAITING;
    if (n <= 0) {
      *why = talk->sender && talk->state == S_READ_PROOF ? "the receiver "
          "closed the door after our answer: not the same key-file?" :
          "the peer closed the door connection";
      return GST_DORADMA_NET_DOOR_FAILED;
    }
    talk->in_done += n;
    /* not a door at all (a UCX client, a scan): refused at its first
     * bytes, without waiting for a whole record */
    if (memcmp (talk->in, DORADMA_NET_AUTH_MAGIC, MIN (talk->in_done,
                sizeof (DORADMA_NET_AUTH_MAGIC))) != 0) {
      *why = "not a doradma door message (a sender without key-file, or "
          "not a doradma sender?)";
      return GST_DORADMA_NET_DOOR_FAILED;
    }
    if (talk->in_done < sizeof (talk->in))
      continue;
    {
      GstDoradmaNetDoorResult r = handle (talk, talk->state == S_READ_PROOF ?
          DORADMA_NET_AUTH_DOOR_PROOF : talk->state == R_READ_RESPONSE ?
          DORADMA_NET_AUTH_DOOR_RESPONSE : DORADMA_NET_AUTH_DOOR_CHALLENGE,
          why);

      if (r != GST_DORADMA_NET_DOOR_WAITING)
        return r;
    }
  }
}

int
gst_doradma_net_door_dial (const struct sockaddr_storage *ss, socklen_t len,
    GError ** error)
{
  int fd = socket (ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
      0);

  if (fd < 0 || (connect (fd, (const struct sockaddr *) ss, len) != 0
          && errno != EINPROGRESS)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        "Could not connect to the receiver's door: %s", g_strerror (errno));
    if (fd >= 0)
      close (fd);
    return -1;
  }
  return fd;
}

GInetAddressMask *
gst_doradma_net_door_peer_mask (const struct sockaddr_storage *peer)
{
  GInetAddress *a;
  GInetAddressMask *mask;

  if (peer->ss_family == AF_INET6) {
    const struct in6_addr *v6 =
        &((const struct sockaddr_in6 *) peer)->sin6_addr;

    a = IN6_IS_ADDR_V4MAPPED (v6) ?
        g_inet_address_new_from_bytes (v6->s6_addr + 12, G_SOCKET_FAMILY_IPV4)
        : g_inet_address_new_from_bytes (v6->s6_addr, G_SOCKET_FAMILY_IPV6);
  } else {
    a = g_inet_address_new_from_bytes ((const guint8 *)
        &((const struct sockaddr_in *) peer)->sin_addr, G_SOCKET_FAMILY_IPV4);
  }
  mask = g_inet_address_mask_new (a, g_inet_address_get_native_size (a) * 8,
      NULL);
  g_object_unref (a);
  return mask;
}

/* ---- the receiver's door ---- */

typedef struct
{
  GInetAddressMask *mask;
  gint64 until;                 /* monotonic us */
} Grant;

struct _GstDoradmaNetDoor
{
  int listen_fd, cancel_fd;
  GBytes *key;
  guint ucx_port;
  GstDoradmaNetDoorRegate regate;
  GstDoradmaNetDoorRefused refused;
  gpointer arg;
  GstDoradmaNetDoorTalk talks[GST_DORADMA_NET_DOOR_MAX_TALKS];
  GArray *grants;               /* Grant */
  gint64 accept_paused_until;   /* out of descriptors: monotonic us */
  gboolean regate_due;          /* expired grants the kernel still holds */
  GThread *thread;
};

static void
grant_clear (gpointer p)
{
  g_object_unref (((Grant *) p)->mask);
}

/* Tells regate the addresses granted now. */
static gboolean
regate (GstDoradmaNetDoor * door)
{
  GPtrArray *allow = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean ok;
  guint i;

  for (i = 0; i < door->grants->len; i++)
    g_ptr_array_add (allow,
        g_object_ref (g_array_index (door->grants, Grant, i).mask));
  ok = door->regate (allow, door->arg);
  g_ptr_array_unref (allow);
  return ok;
}

/* Opens the UCX listeners to `peer` for GRANT_US from now */
static gboolean
grant (GstDoradmaNetDoor * door, const struct sockaddr_storage *peer)
{
  Grant g = { gst_doradma_net_door_peer_mask (peer),
    g_get_monotonic_time () + GST_DORADMA_NET_DOOR_GRANT_US
  };
  guint i;

  for (i = 0; i < door->grants->len; i++) {
    Grant *old = &g_array_index (door->grants, Grant, i);

    if (g_inet_address_mask_equal (old->mask, g.mask)) {
      old->until = g.until;
      g_object_unref (g.mask);
      return TRUE;
    }
  }
  g_array_append_val (door->grants, g);
  if (regate (door))
    return TRUE;
  /* the list stays what the kernel holds */
  g_array_remove_index (door->grants, door->grants->len - 1);
  return FALSE;
}

/* Drops the grants whose time is over; the soonest end left, or G_MAXINT64 */
static gint64
expire_grants (GstDoradmaNetDoor * door, gint64 now)
{
  gint64 next = G_MAXINT64;
  gboolean changed = FALSE;
  guint i = 0;

  while (i < door->grants->len) {
    Grant *g = &g_array_index (door->grants, Grant, i);

    if (g->until <= now) {
      g_array_remove_index_fast (door->grants, i);
      changed = TRUE;
    } else {
      next = MIN (next, g->until);
      i++;
    }
  }
  /* a gate that could not be closed is tried again, every 100 ms */
  if (changed || door->regate_due) {
    door->regate_due = !regate (door);
    if (door->regate_due) {
      GST_WARNING ("the door could not close the gate behind a sender");
      next = MIN (next, now + 100000);
    }
  }
  return next;
}

static void
refuse (GstDoradmaNetDoor * door, GstDoradmaNetDoorTalk * talk,
    const gchar * why)
{
  door->refused (&talk->peer, why, door->arg);
  gst_doradma_net_door_talk_clear (talk);
}

/* Takes every connection waiting at the door; with every place taken, the
 * conversation that has had longest makes room */
static void
accept_all (GstDoradmaNetDoor * door)
{
  for (;;) {
    struct sockaddr_storage peer;
    socklen_t len = sizeof (peer);
    GstDoradmaNetDoorTalk *place = NULL;
    int fd;
    guint i;

    memset (&peer, 0, sizeof (peer));
    fd = accept4 (door->listen_fd, (struct sockaddr *) &peer, &len,
        SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS
          || errno == ENOMEM)
        door->accept_paused_until = g_get_monotonic_time () + 100000;
      return;
    }
    for (i = 0; i < G_N_ELEMENTS (door->talks); i++) {
      GstDoradmaNetDoorTalk *t = &door->talks[i];

      if (t->fd < 0) {
        place = t;
        break;
      }
      if (place == NULL || t->deadline < place->deadline)
        place = t;
    }
    if (place->fd >= 0)
      refuse (door, place, "more conversations at the door at once than it "
          "holds: the oldest closed");
    if (!gst_doradma_net_door_talk_init (place, fd, FALSE, door->key,
            door->ucx_port)) {
      place->peer = peer;
      refuse (door, place, "no random bytes for a challenge");
      continue;
    }
    place->peer = peer;
  }
}

static void
step_talk (GstDoradmaNetDoor * door, GstDoradmaNetDoorTalk * talk)
{
  const gchar *why = NULL;

  for (;;) {
    switch (gst_doradma_net_door_talk_step (talk, &why)) {
      case GST_DORADMA_NET_DOOR_FAILED:
        refuse (door, talk, why);
        return;
      case GST_DORADMA_NET_DOOR_WAITING:
        return;
      case GST_DORADMA_NET_DOOR_PROVEN:
        /* open before the proof goes out: the sender connects on it */
        if (!grant (door, &talk->peer)) {
          refuse (door, talk, "the gate in front of UCX could not be opened");
          return;
        }
        continue;
      case GST_DORADMA_NET_DOOR_DONE:
        GST_DEBUG ("a sender proved the key at the door");
        gst_doradma_net_door_talk_clear (talk);
        return;
    }
  }
}

static void
watch (struct pollfd *p, int fd, short events)
{
  p->fd = fd;
  p->events = events;
  p->revents = 0;
}

static gpointer
door_thread (gpointer data)
{
  GstDoradmaNetDoor *door = data;
  struct pollfd fds[2 + GST_DORADMA_NET_DOOR_MAX_TALKS];
  GstDoradmaNetDoorTalk *polled[GST_DORADMA_NET_DOOR_MAX_TALKS];

  for (;;) {
    gint64 now = g_get_monotonic_time ();
    gint64 next = expire_grants (door, now);
    guint n = 0, i, nt = 0;
    gint timeout;

    watch (&fds[n++], door->cancel_fd, POLLIN);
    if (now >= door->accept_paused_until)
      watch (&fds[n++], door->listen_fd, POLLIN);
    else
      next = MIN (next, door->accept_paused_until);
    for (i = 0; i < G_N_ELEMENTS (door->talks); i++) {
      GstDoradmaNetDoorTalk *t = &door->talks[i];

      if (t->fd < 0)
        continue;
      watch (&fds[n++], t->fd, gst_doradma_net_door_talk_events (t));
      polled[nt++] = t;
      next = MIN (next, t->deadline);
    }
    timeout = next == G_MAXINT64 ? -1 :
        (gint) MIN ((MAX (next - now, 0) + 999) / 1000, G_MAXINT);
    if (poll (fds, n, timeout) < 0 && errno != EINTR) {
      GST_ERROR ("the door closes: poll: %s", g_strerror (errno));
      break;
    }
    if (fds[0].revents)
      break;
    for (i = 0; i < nt; i++) {
      struct pollfd *p = &fds[n - nt + i];

      /* a turn for every one: the step also ends those past their time */
      if (p->revents || g_get_monotonic_time () > polled[i]->deadline)
        step_talk (door, polled[i]);
    }
    if (n - nt == 2 && fds[1].revents)
      accept_all (door);
  }
  return NULL;
}

GstDoradmaNetDoor *
gst_doradma_net_door_open (const gchar * address,
    const struct sockaddr_storage *ss, socklen_t len, GBytes * key,
    GPtrArray * allow, guint ucx_port, GstDoradmaNetDoorRegate regate_cb,
    GstDoradmaNetDoorRefused refused, gpointer arg, GError ** error)
{
  GstDoradmaNetDoor *door;
  int fd, one = 1;
  guint i;

  GST_DEBUG_CATEGORY_INIT (door_debug, "doradmanetdoor", 0,
      "doradma network door");
  /* not made inside another element's window between its snapshot and
   * its gate (gstdoradmanetgate.h) */
  gst_doradma_net_gate_lock ();
  fd = socket (ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0
      || setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof (one)) != 0
      || bind (fd, (const struct sockaddr *) ss, len) != 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not listen on %s (the door of a keyed stream): %s", address,
        g_strerror (errno));
    goto failed;
  }
  /* allowed-peers: gated before it listens, so that no other host is
   * ever queued */
  if (allow != NULL) {
    GArray *one_fd = g_array_new (FALSE, FALSE, sizeof (int));
    gboolean ok;

    g_array_append_val (one_fd, fd);
    ok = gst_doradma_net_gate_refilter (one_fd, allow, error);
    g_array_unref (one_fd);
    if (!ok)
      goto failed;
  }
  if (listen (fd, GST_DORADMA_NET_DOOR_MAX_TALKS) != 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not listen on %s (the door of a keyed stream): %s", address,
        g_strerror (errno));
    goto failed;
  }
  gst_doradma_net_gate_unlock ();
  door = g_new0 (GstDoradmaNetDoor, 1);
  door->listen_fd = fd;
  door->cancel_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  door->key = g_bytes_ref (key);
  door->ucx_port = ucx_port;
  door->regate = regate_cb;
  door->refused = refused;
  door->arg = arg;
  door->grants = g_array_new (FALSE, FALSE, sizeof (Grant));
  g_array_set_clear_func (door->grants, grant_clear);
  for (i = 0; i < G_N_ELEMENTS (door->talks); i++)
    door->talks[i].fd = -1;
  if (door->cancel_fd < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "The door of a keyed stream: no eventfd: %s", g_strerror (errno));
    gst_doradma_net_door_close (door);
    return NULL;
  }
  door->thread = g_thread_new ("doradmanetdoor", door_thread, door);
  return door;

failed:
  gst_doradma_net_gate_unlock ();
  if (fd >= 0)
    close (fd);
  return NULL;
}

guint
gst_doradma_net_door_port (GstDoradmaNetDoor * door)
{
  struct sockaddr_storage ss;
  socklen_t len = sizeof (ss);

  if (getsockname (door->listen_fd, (struct sockaddr *) &ss, &len) != 0)
    return 0;
  return gst_doradma_net_sockaddr_port (&ss);
}

void
gst_doradma_net_door_close (GstDoradmaNetDoor * door)
{
  guint64 one = 1;
  guint i;

  if (door == NULL)
    return;
  if (door->thread) {
    if (write (door->cancel_fd, &one, sizeof (one)) != sizeof (one))
      GST_WARNING ("could not wake the door's thread");
    g_thread_join (door->thread);
  }
  for (i = 0; i < G_N_ELEMENTS (door->talks); i++)
    gst_doradma_net_door_talk_clear (&door->talks[i]);
  close (door->listen_fd);
  if (door->cancel_fd >= 0)
    close (door->cancel_fd);
  g_array_unref (door->grants);
  g_bytes_unref (door->key);
  g_free (door);
}
