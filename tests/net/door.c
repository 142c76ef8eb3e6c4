/* The door of a keyed stream (gst/net/gstdoradmanetdoor.c) on loopback
 * sockets, without UCX: both sides prove the key and the sender learns
 * the port of the receiver's UCX listener; a wrong key, a forged or
 * altered proof, a replayed answer, garbage, an in-band message and a
 * silent peer all fail, each with its reason; the receiver's door opens
 * the gate only for a sender that proved the key, before its proof goes
 * out, closes it again after GST_DORADMA_NET_DOOR_GRANT_US, grants an
 * IPv4 sender on a dual-stack door as IPv4 (the family the gate matches
 * its packets against) and an IPv6 one as IPv6, and holds at most
 * GST_DORADMA_NET_DOOR_MAX_TALKS conversations. net-door (netns.sh)
 * runs it in front of UCX between namespaces. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "gstdoradmanetauth.h"
#include "gstdoradmanetdoor.h"

#define UCX_PORT 4242

static GBytes *key_a, *key_b;

static GBytes *
key_of (const gchar * text)
{
  return g_bytes_new (text, strlen (text));
}

/* a loopback listener on a port the kernel picks */
static int
listener (struct sockaddr_storage *ss, socklen_t * len)
{
  struct sockaddr_in *s = (struct sockaddr_in *) ss;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  memset (ss, 0, sizeof (*ss));
  s->sin_family = AF_INET;
  s->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  *len = sizeof (*s);
  g_assert_cmpint (bind (fd, (struct sockaddr *) ss, *len), ==, 0);
  g_assert_cmpint (listen (fd, 32), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) ss, len), ==, 0);
  return fd;
}

static int
accept_one (int lfd)
{
  int fd = accept4 (lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* a blocking client, for a peer played by hand */
static int
raw_connect (const struct sockaddr_storage *ss, socklen_t len)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct timeval tv = { 5, 0 };

  g_assert_cmpint (connect (fd, (const struct sockaddr *) ss, len), ==, 0);
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv));
  return fd;
}

static void
raw_read (int fd, struct doradma_net_auth *a)
{
  g_assert_cmpint (recv (fd, a, sizeof (*a), MSG_WAITALL), ==, sizeof (*a));
  g_assert_cmpint (doradma_net_auth_decode (a, sizeof (*a), a, NULL), ==, 0);
}

static void
raw_write (int fd, const void *buf, gsize len)
{
  g_assert_cmpint (send (fd, buf, len, MSG_NOSIGNAL), ==, len);
}

/* Steps `talk` until it is no longer waiting (5 s at most); the reason of
 * a failure in *why. PROVEN is returned as it comes. */
static GstDoradmaNetDoorResult
run_talk (GstDoradmaNetDoorTalk * talk, const gchar ** why)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < end) {
    struct pollfd p = { talk->fd, gst_doradma_net_door_talk_events (talk) };
    GstDoradmaNetDoorResult r = gst_doradma_net_door_talk_step (talk, why);

    if (r != GST_DORADMA_NET_DOOR_WAITING)
      return r;
    poll (&p, 1, 10);
  }
  g_assert_not_reached ();
}

/* Steps `talk` until what it has to send is sent (it then waits to
 * read); the result of the last step */
static GstDoradmaNetDoorResult
run_until_sent (GstDoradmaNetDoorTalk * talk, const gchar ** why)
{
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  GstDoradmaNetDoorResult r;

  do {
    r = gst_doradma_net_door_talk_step (talk, why);
  } while (r == GST_DORADMA_NET_DOOR_WAITING
      && gst_doradma_net_door_talk_events (talk) == POLLOUT
      && g_get_monotonic_time () < end);
  return r;
}

/* A sender's and a receiver's talk on one loopback connection, stepped in
 * turn until neither waits; their last results */
static void
converse (GBytes * sender_key, GBytes * receiver_key,
    GstDoradmaNetDoorResult * s_res, const gchar ** s_why,
    GstDoradmaNetDoorResult * r_res, const gchar ** r_why, guint * port,
    gboolean * proven_before_done)
{
  struct sockaddr_storage ss;
  socklen_t len;
  int lfd = listener (&ss, &len);
  GstDoradmaNetDoorTalk s, r;
  gboolean s_over = FALSE, r_over = FALSE;
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  g_assert_true (gst_doradma_net_door_talk_init (&s,
          gst_doradma_net_door_dial (&ss, len, NULL), TRUE, sender_key, 0));
  g_assert_true (gst_doradma_net_door_talk_init (&r, accept_one (lfd), FALSE,
          receiver_key, UCX_PORT));
  *proven_before_done = FALSE;
  while (!(s_over && r_over) && g_get_monotonic_time () < end) {
    if (!r_over) {
      *r_res = gst_doradma_net_door_talk_step (&r, r_why);
      if (*r_res == GST_DORADMA_NET_DOOR_PROVEN)
        *proven_before_done = !s_over;
      else if (*r_res != GST_DORADMA_NET_DOOR_WAITING) {
        r_over = TRUE;
        gst_doradma_net_door_talk_clear (&r);
      }
    }
    if (!s_over) {
      *s_res = gst_doradma_net_door_talk_step (&s, s_why);
      if (*s_res != GST_DORADMA_NET_DOOR_WAITING) {
        s_over = TRUE;
        *port = s.port;
        gst_doradma_net_door_talk_clear (&s);
      }
    }
    g_usleep (1000);
  }
  g_assert_true (s_over && r_over);
  close (lfd);
}

static void
test_both_prove_the_key_and_the_sender_learns_the_port (void)
{
  GstDoradmaNetDoorResult s, r;
  const gchar *s_why = NULL, *r_why = NULL;
  guint port = 0;
  gboolean proven_first;

  converse (key_a, key_a, &s, &s_why, &r, &r_why, &port, &proven_first);
  g_assert_cmpint (s, ==, GST_DORADMA_NET_DOOR_DONE);
  g_assert_cmpint (r, ==, GST_DORADMA_NET_DOOR_DONE);
  g_assert_cmpuint (port, ==, UCX_PORT);
  /* the receiver knows before the sender has its proof: it opens the gate
   * then */
  g_assert_true (proven_first);
}

static void
test_a_wrong_key_fails_on_both_sides (void)
{
  GstDoradmaNetDoorResult s, r;
  const gchar *s_why = NULL, *r_why = NULL;
  guint port = 0;
  gboolean proven_first;

  converse (key_b, key_a, &s, &s_why, &r, &r_why, &port, &proven_first);
  g_assert_cmpint (r, ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (r_why, "sender does not have the key"));
  g_assert_false (proven_first);
  g_assert_cmpint (s, ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (s_why, "closed the door after our answer"));
}

/* A receiver played by hand: the sender's challenge read, its own sent,
 * the sender's answer read and checked, then a proof with `flags` as its
 * port and a MAC over `mac_port` with `key`. */
static GstDoradmaNetDoorResult
sender_against_fake_receiver (GBytes * key, guint32 flags, guint32 mac_port,
    const gchar ** why)
{
  struct sockaddr_storage ss;
  socklen_t len;
  int lfd = listener (&ss, &len), fd;
  GstDoradmaNetDoorTalk s;
  struct doradma_net_auth a;
  guint8 nonce_r[DORADMA_NET_AUTH_BYTES], nonce_s[DORADMA_NET_AUTH_BYTES];
  guint8 mac[DORADMA_NET_AUTH_BYTES];
  GstDoradmaNetDoorResult res;

  g_assert_true (gst_doradma_net_door_talk_init (&s,
          gst_doradma_net_door_dial (&ss, len, NULL), TRUE, key_a, 0));
  fd = accept4 (lfd, NULL, NULL, SOCK_CLOEXEC);
  /* connected on loopback: one step sends the sender's challenge */
  g_assert_cmpint (gst_doradma_net_door_talk_step (&s, why), ==,
      GST_DORADMA_NET_DOOR_WAITING);
  raw_read (fd, &a);
  g_assert_cmpuint (a.kind, ==, DORADMA_NET_AUTH_DOOR_CHALLENGE);
  memcpy (nonce_s, a.nonce, sizeof (nonce_s));
  g_assert_true (gst_doradma_net_auth_nonce (nonce_r));
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, nonce_r,
      NULL);
  raw_write (fd, &a, sizeof (a));
  /* the challenge is there: one step reads it and answers */
  g_assert_cmpint (gst_doradma_net_door_talk_step (&s, why), ==,
      GST_DORADMA_NET_DOOR_WAITING);
  raw_read (fd, &a);
  g_assert_cmpuint (a.kind, ==, DORADMA_NET_AUTH_DOOR_RESPONSE);
  /* the answer is right under the real key */
  g_assert_true (gst_doradma_net_auth_check (key_a,
          GST_DORADMA_NET_AUTH_DOOR_SENDER, nonce_r, nonce_s, 0, 0, a.mac));
  gst_doradma_net_auth_mac (key, GST_DORADMA_NET_AUTH_DOOR_RECEIVER, nonce_s,
      nonce_r, 0, mac_port, mac);
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_PROOF, flags, NULL, mac);
  raw_write (fd, &a, sizeof (a));
  res = run_talk (&s, why);
  gst_doradma_net_door_talk_clear (&s);
  close (fd);
  close (lfd);
  return res;
}

static void
test_the_sender_checks_the_proof_and_its_port (void)
{
  const gchar *why = NULL;

  /* the control: a right proof passes */
  g_assert_cmpint (sender_against_fake_receiver (key_a, UCX_PORT, UCX_PORT,
          &why), ==, GST_DORADMA_NET_DOOR_DONE);
  /* a receiver without the key */
  g_assert_cmpint (sender_against_fake_receiver (key_b, UCX_PORT, UCX_PORT,
          &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, "receiver does not have the key"));
  /* the port changed on the path */
  why = NULL;
  g_assert_cmpint (sender_against_fake_receiver (key_a, UCX_PORT + 1,
          UCX_PORT, &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, "receiver does not have the key"));
}

/* A receiver's talk on a fresh connection, and a hand-played client on it */
typedef struct
{
  int lfd, client;
  GstDoradmaNetDoorTalk r;
  struct doradma_net_auth challenge;
} Receiver;

static void
receiver_open (Receiver * rx)
{
  struct sockaddr_storage ss;
  socklen_t len;

  rx->lfd = listener (&ss, &len);
  rx->client = raw_connect (&ss, len);
  g_assert_true (gst_doradma_net_door_talk_init (&rx->r, accept_one (rx->lfd),
          FALSE, key_a, UCX_PORT));
}

static void
receiver_close (Receiver * rx)
{
  gst_doradma_net_door_talk_clear (&rx->r);
  close (rx->client);
  close (rx->lfd);
}

/* the client's challenge (nonce_s) sent, the receiver's read */
static void
receiver_challenge (Receiver * rx, const guint8 * nonce_s)
{
  struct doradma_net_auth a;
  const gchar *why = NULL;

  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, nonce_s,
      NULL);
  raw_write (rx->client, &a, sizeof (a));
  g_assert_cmpint (run_until_sent (&rx->r, &why), ==,
      GST_DORADMA_NET_DOOR_WAITING);
  raw_read (rx->client, &rx->challenge);
  g_assert_cmpuint (rx->challenge.kind, ==, DORADMA_NET_AUTH_DOOR_CHALLENGE);
}

static void
test_a_replayed_answer_is_refused (void)
{
  Receiver one, two;
  struct doradma_net_auth answer;
  guint8 nonce_s[DORADMA_NET_AUTH_BYTES], mac[DORADMA_NET_AUTH_BYTES];
  const gchar *why = NULL;

  /* an answer recorded from a conversation that succeeded ... */
  g_assert_true (gst_doradma_net_auth_nonce (nonce_s));
  receiver_open (&one);
  receiver_challenge (&one, nonce_s);
  gst_doradma_net_auth_mac (key_a, GST_DORADMA_NET_AUTH_DOOR_SENDER,
      one.challenge.nonce, nonce_s, 0, 0, mac);
  doradma_net_auth_encode (&answer, DORADMA_NET_AUTH_DOOR_RESPONSE, 0, NULL,
      mac);
  raw_write (one.client, &answer, sizeof (answer));
  g_assert_cmpint (run_talk (&one.r, &why), ==, GST_DORADMA_NET_DOOR_PROVEN);
  receiver_close (&one);
  /* ... proves nothing to the next, whose challenge is fresh, even with
   * the same challenge from the client */
  receiver_open (&two);
  receiver_challenge (&two, nonce_s);
  g_assert_cmpint (memcmp (two.challenge.nonce, one.challenge.nonce,
          DORADMA_NET_AUTH_BYTES), !=, 0);
  raw_write (two.client, &answer, sizeof (answer));
  g_assert_cmpint (run_talk (&two.r, &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, "sender does not have the key"));
  receiver_close (&two);
}

/* `bytes` sent as the client's first record (then its side closed, or
 * not) fail the receiver's talk with a reason containing `reason`, and
 * the receiver sent nothing */
static void
receiver_refuses_first (const void *bytes, gsize len, gboolean then_close,
    const gchar * reason)
{
  Receiver rx;
  const gchar *why = NULL;
  guint8 byte;

  receiver_open (&rx);
  raw_write (rx.client, bytes, len);
  if (then_close)
    shutdown (rx.client, SHUT_WR);
  g_assert_cmpint (run_talk (&rx.r, &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, reason));
  gst_doradma_net_door_talk_clear (&rx.r);
  /* not one byte came back before the close */
  g_assert_cmpint (recv (rx.client, &byte, 1, 0), <=, 0);
  receiver_close (&rx);
}

static void
test_garbage_and_other_messages_are_refused (void)
{
  guint8 garbage[sizeof (struct doradma_net_auth)];
  guint8 nonce_s[DORADMA_NET_AUTH_BYTES] = { 1 };
  guint8 zeros[DORADMA_NET_AUTH_BYTES] = { 0 };
  struct doradma_net_auth a;
  Receiver rx;
  const gchar *why = NULL;

  memset (garbage, 0xa5, sizeof (garbage));
  /* refused at its first bytes, not after a whole record or the time */
  receiver_refuses_first (garbage, 4, FALSE, "not a doradma door message");
  /* the in-band challenge (kind 1) is not the door's */
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_CHALLENGE, 0, nonce_s, NULL);
  receiver_refuses_first (&a, sizeof (a), FALSE, "not the door message");
  /* half a record, then the end */
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, nonce_s,
      NULL);
  receiver_refuses_first (&a, sizeof (a) / 2, TRUE, "peer closed");
  /* a door answer with a MAC of zeros */
  receiver_open (&rx);
  receiver_challenge (&rx, nonce_s);
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_RESPONSE, 0, NULL, zeros);
  raw_write (rx.client, &a, sizeof (a));
  g_assert_cmpint (run_talk (&rx.r, &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, "sender does not have the key"));
  receiver_close (&rx);
}

static void
test_a_silent_peer_runs_out_of_time (void)
{
  Receiver rx;
  const gchar *why = NULL;

  receiver_open (&rx);
  /* the conversation's bound, brought near instead of waited for */
  rx.r.deadline = g_get_monotonic_time () + 50000;
  g_assert_cmpint (run_talk (&rx.r, &why), ==, GST_DORADMA_NET_DOOR_FAILED);
  g_assert_nonnull (strstr (why, "took more than"));
  receiver_close (&rx);
}

/* ---- the receiver's door, its thread ---- */

typedef struct
{
  GMutex lock;
  GCond cond;
  GPtrArray *regates;           /* of GPtrArray: each list regate was given */
  GPtrArray *refusals;          /* of gchar *: each reason */
} Seen;

static gboolean
on_regate (GPtrArray * allow, gpointer arg)
{
  Seen *seen = arg;

  g_mutex_lock (&seen->lock);
  g_ptr_array_add (seen->regates, g_ptr_array_ref (allow));
  g_cond_broadcast (&seen->cond);
  g_mutex_unlock (&seen->lock);
  return TRUE;
}

static void
on_refused (const struct sockaddr_storage *peer, const gchar * why,
    gpointer arg)
{
  Seen *seen = arg;

  g_mutex_lock (&seen->lock);
  g_ptr_array_add (seen->refusals, g_strdup (why));
  g_cond_broadcast (&seen->cond);
  g_mutex_unlock (&seen->lock);
}

/* waits (up to `seconds`) until seen's array `which` has `n` entries */
static gboolean
wait_for (Seen * seen, GPtrArray ** which, guint n, gint seconds)
{
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  gboolean ok = TRUE;

  g_mutex_lock (&seen->lock);
  while ((*which)->len < n && ok)
    ok = g_cond_wait_until (&seen->cond, &seen->lock, end);
  ok = (*which)->len >= n;
  g_mutex_unlock (&seen->lock);
  return ok;
}

/* A door on `at` (port 0: the kernel's choice), its port set in *at */
static GstDoradmaNetDoor *
door_open_at (Seen * seen, struct sockaddr_storage *at, socklen_t len)
{
  GstDoradmaNetDoor *door;
  GError *err = NULL;
  guint16 port;

  g_mutex_init (&seen->lock);
  g_cond_init (&seen->cond);
  seen->regates = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_ptr_array_unref);
  seen->refusals = g_ptr_array_new_with_free_func (g_free);
  door = gst_doradma_net_door_open ("the test's door", at, len, key_a, NULL,
      UCX_PORT, on_regate, on_refused, seen, &err);
  g_assert_no_error (err);
  port = htons (gst_doradma_net_door_port (door));
  if (at->ss_family == AF_INET6)
    ((struct sockaddr_in6 *) at)->sin6_port = port;
  else
    ((struct sockaddr_in *) at)->sin_port = port;
  return door;
}

/* A door on 127.0.0.1 */
static GstDoradmaNetDoor *
door_new (Seen * seen, struct sockaddr_storage *ss, socklen_t * len)
{
  struct sockaddr_in *s = (struct sockaddr_in *) ss;

  memset (ss, 0, sizeof (*ss));
  s->sin_family = AF_INET;
  s->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  *len = sizeof (*s);
  return door_open_at (seen, ss, *len);
}

static void
seen_clear (Seen * seen)
{
  g_ptr_array_unref (seen->regates);
  g_ptr_array_unref (seen->refusals);
  g_mutex_clear (&seen->lock);
  g_cond_clear (&seen->cond);
}

static GstDoradmaNetDoorResult
dial_door (const struct sockaddr_storage *ss, socklen_t len, GBytes * key,
    const gchar ** why, guint * port)
{
  GstDoradmaNetDoorTalk s;
  GstDoradmaNetDoorResult r;

  g_assert_true (gst_doradma_net_door_talk_init (&s,
          gst_doradma_net_door_dial (ss, len, NULL), TRUE, key, 0));
  r = run_talk (&s, why);
  *port = s.port;
  gst_doradma_net_door_talk_clear (&s);
  return r;
}

static void
test_the_door_opens_the_gate_to_a_prover_only (void)
{
  Seen seen;
  struct sockaddr_storage ss;
  socklen_t len;
  GstDoradmaNetDoor *door = door_new (&seen, &ss, &len);
  const gchar *why = NULL;
  guint port = 0;
  GPtrArray *allow;
  gchar *text;

  /* a wrong key: refused, named, and no gate opened */
  g_assert_cmpint (dial_door (&ss, len, key_b, &why, &port), ==,
      GST_DORADMA_NET_DOOR_FAILED);
  g_assert_true (wait_for (&seen, &seen.refusals, 1, 5));
  g_assert_nonnull (strstr (g_ptr_array_index (seen.refusals, 0),
          "sender does not have the key"));
  g_assert_cmpuint (seen.regates->len, ==, 0);
  /* the key: the gate opened to 127.0.0.1 before the proof came */
  g_assert_cmpint (dial_door (&ss, len, key_a, &why, &port), ==,
      GST_DORADMA_NET_DOOR_DONE);
  g_assert_cmpuint (port, ==, UCX_PORT);
  g_mutex_lock (&seen.lock);
  g_assert_cmpuint (seen.regates->len, ==, 1);
  allow = g_ptr_array_index (seen.regates, 0);
  g_assert_cmpuint (allow->len, ==, 1);
  text = g_inet_address_mask_to_string (g_ptr_array_index (allow, 0));
  g_assert_cmpstr (text, ==, "127.0.0.1");
  g_free (text);
  g_mutex_unlock (&seen.lock);
  /* and closed again when the grant ends */
  g_assert_true (wait_for (&seen, &seen.regates, 2,
          GST_DORADMA_NET_DOOR_GRANT_US / G_USEC_PER_SEC + 5));
  g_assert_cmpuint (((GPtrArray *) g_ptr_array_index (seen.regates,
              1))->len, ==, 0);
  gst_doradma_net_door_close (door);
  seen_clear (&seen);
}

static void
test_the_door_holds_a_bounded_number_of_conversations (void)
{
  Seen seen;
  struct sockaddr_storage ss;
  socklen_t len;
  GstDoradmaNetDoor *door = door_new (&seen, &ss, &len);
  int idle[GST_DORADMA_NET_DOOR_MAX_TALKS + 1];
  const gchar *why = NULL;
  guint i, port = 0;

  /* one more silent connection than it holds: the oldest is closed */
  for (i = 0; i < G_N_ELEMENTS (idle); i++) {
    idle[i] = raw_connect (&ss, len);
    g_usleep (20000);
  }
  g_assert_true (wait_for (&seen, &seen.refusals, 1, 5));
  g_assert_nonnull (strstr (g_ptr_array_index (seen.refusals, 0),
          "the oldest closed"));
  /* the next sender with the key still gets in (the oldest made room) */
  g_assert_cmpint (dial_door (&ss, len, key_a, &why, &port), ==,
      GST_DORADMA_NET_DOOR_DONE);
  for (i = 0; i < G_N_ELEMENTS (idle); i++)
    close (idle[i]);
  gst_doradma_net_door_close (door);
  seen_clear (&seen);
}

/* the newest grant in the list the door's last regate was given, as
 * text (grants are added at the end) */
static gchar *
last_grant (Seen * seen)
{
  GPtrArray *allow;
  gchar *text;

  g_mutex_lock (&seen->lock);
  g_assert_cmpuint (seen->regates->len, >, 0);
  allow = g_ptr_array_index (seen->regates, seen->regates->len - 1);
  g_assert_cmpuint (allow->len, >, 0);
  text = g_inet_address_mask_to_string (g_ptr_array_index (allow,
          allow->len - 1));
  g_mutex_unlock (&seen->lock);
  return text;
}

/* A door on "::" (dual stack) grants an IPv4 sender as IPv4, the family
 * the gate's filter matches its packets against, and an IPv6 one as
 * IPv6 */
static void
test_the_door_grants_each_family_as_its_packets_come (void)
{
  Seen seen;
  struct sockaddr_storage any, to;
  struct sockaddr_in6 *a6 = (struct sockaddr_in6 *) &any;
  struct sockaddr_in *to4 = (struct sockaddr_in *) &to;
  struct sockaddr_in6 *to6 = (struct sockaddr_in6 *) &to;
  GstDoradmaNetDoor *door;
  const gchar *why = NULL;
  guint port = 0;
  gchar *text;
  int probe = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int v6only = 0;
  socklen_t optlen = sizeof (v6only);

  memset (&any, 0, sizeof (any));
  a6->sin6_family = AF_INET6;
  a6->sin6_addr = in6addr_any;
  if (probe < 0 || bind (probe, (struct sockaddr *) &any, sizeof (*a6)) != 0
      || getsockopt (probe, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, &optlen) != 0
      || v6only) {
    if (probe >= 0)
      close (probe);
    g_test_skip ("no dual-stack IPv6 socket here");
    return;
  }
  close (probe);
  door = door_open_at (&seen, &any, sizeof (*a6));
  /* IPv4, to the :: socket: ::ffff:127.0.0.1 to the kernel, 127.0.0.1 to
   * the gate */
  memset (&to, 0, sizeof (to));
  to4->sin_family = AF_INET;
  to4->sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  to4->sin_port = a6->sin6_port;
  g_assert_cmpint (dial_door (&to, sizeof (*to4), key_a, &why, &port), ==,
      GST_DORADMA_NET_DOOR_DONE);
  text = last_grant (&seen);
  g_assert_cmpstr (text, ==, "127.0.0.1");
  g_free (text);
  /* IPv6 */
  memset (&to, 0, sizeof (to));
  to6->sin6_family = AF_INET6;
  to6->sin6_addr = in6addr_loopback;
  to6->sin6_port = a6->sin6_port;
  g_assert_cmpint (dial_door (&to, sizeof (*to6), key_a, &why, &port), ==,
      GST_DORADMA_NET_DOOR_DONE);
  text = last_grant (&seen);
  g_assert_cmpstr (text, ==, "::1");
  g_free (text);
  gst_doradma_net_door_close (door);
  seen_clear (&seen);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  gst_init (NULL, NULL);
  key_a = key_of ("the key of this stream, 32 bytes");
  key_b = key_of ("another key, not this stream's..");
  g_test_add_func ("/door/both-prove-the-key",
      test_both_prove_the_key_and_the_sender_learns_the_port);
  g_test_add_func ("/door/wrong-key", test_a_wrong_key_fails_on_both_sides);
  g_test_add_func ("/door/proof-checked",
      test_the_sender_checks_the_proof_and_its_port);
  g_test_add_func ("/door/replay", test_a_replayed_answer_is_refused);
  g_test_add_func ("/door/garbage",
      test_garbage_and_other_messages_are_refused);
  g_test_add_func ("/door/silent-peer", test_a_silent_peer_runs_out_of_time);
  g_test_add_func ("/door/gate-opened-to-a-prover-only",
      test_the_door_opens_the_gate_to_a_prover_only);
  g_test_add_func ("/door/families",
      test_the_door_grants_each_family_as_its_packets_come);
  g_test_add_func ("/door/bounded",
      test_the_door_holds_a_bounded_number_of_conversations);
  ret = g_test_run ();
  g_bytes_unref (key_a);
  g_bytes_unref (key_b);
  return ret;
}
