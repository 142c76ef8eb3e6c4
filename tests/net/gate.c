/* allowed-peers' kernel gate (gst/net/gstdoradmanetgate.c) on plain
 * loopback sockets, without UCX or a namespace: only the listening
 * sockets opened after the snapshot are gated; a packet passes when its
 * source matches a mask of its own family (an IPv4 connection to a "::"
 * listener against IPv4 masks, a v4-mapped IPv6 mask matching no IPv4
 * packet), prefixes included; a connection a gated listener took before
 * the gate from another address is reset, one from an allowed address
 * kept. net-gate (netns.sh) runs it in front of UCX between namespaces.
 * A gated connection is one whose SYN gets no answer: connect still in
 * progress after a second, nothing in the listener's queue. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "gstdoradmanetallow.h"
#include "gstdoradmanetgate.h"

typedef struct
{
  int fd;
  struct sockaddr_storage addr;
  socklen_t len;
} Listener;

static gboolean have_ipv6;

/* `text` (a numeric IPv4 or IPv6 address) and `port` (network order) in
 * *ss; its length */
static socklen_t
socket_address (const gchar * text, guint16 port, struct sockaddr_storage *ss)
{
  memset (ss, 0, sizeof (*ss));
  if (strchr (text, ':') == NULL) {
    struct sockaddr_in *s = (struct sockaddr_in *) ss;

    s->sin_family = AF_INET;
    s->sin_port = port;
    g_assert_cmpint (inet_pton (AF_INET, text, &s->sin_addr), ==, 1);
    return sizeof (*s);
  } else {
    struct sockaddr_in6 *s = (struct sockaddr_in6 *) ss;

    s->sin6_family = AF_INET6;
    s->sin6_port = port;
    g_assert_cmpint (inet_pton (AF_INET6, text, &s->sin6_addr), ==, 1);
    return sizeof (*s);
  }
}

static Listener
listen_on (const gchar * host, gboolean v6only)
{
  Listener l = { -1 };
  int on = 1;

  l.len = socket_address (host, 0, &l.addr);
  l.fd = socket (l.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
      SOCK_NONBLOCK, 0);
  g_assert_cmpint (l.fd, >=, 0);
  if (l.addr.ss_family == AF_INET6)
    g_assert_cmpint (setsockopt (l.fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
            sizeof (int)), ==, 0);
  g_assert_cmpint (setsockopt (l.fd, SOL_SOCKET, SO_REUSEADDR, &on,
          sizeof (on)), ==, 0);
  g_assert_cmpint (bind (l.fd, (struct sockaddr *) &l.addr, l.len), ==, 0);
  g_assert_cmpint (listen (l.fd, 8), ==, 0);
  g_assert_cmpint (getsockname (l.fd, (struct sockaddr *) &l.addr, &l.len),
      ==, 0);
  return l;
}

/* a client socket connecting from `from` (loopback) to `l`'s port */
static int
connect_from (const gchar * from, const Listener * l)
{
  struct sockaddr_storage to;
  guint16 port = l->addr.ss_family == AF_INET ?
      ((struct sockaddr_in *) &l->addr)->sin_port :
      ((struct sockaddr_in6 *) &l->addr)->sin6_port;
  socklen_t len = socket_address (from, port, &to);
  int fd = socket (to.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
      0);

  g_assert_cmpint (fd, >=, 0);
  if (connect (fd, (struct sockaddr *) &to, len) != 0)
    g_assert_cmpint (errno, ==, EINPROGRESS);
  return fd;
}

/* TRUE when a connection from `from` to `l` is made and queued; FALSE
 * when its SYN goes unanswered (gated) */
static gboolean
passes (const gchar * from, const Listener * l)
{
  int fd = connect_from (from, l), err = 0, acc;
  socklen_t len = sizeof (err);
  struct pollfd p = { fd, POLLOUT, 0 };
  /* an answered SYN on loopback completes at once: a second is plenty on
   * a busy machine, and a gated one never completes */
  int n = poll (&p, 1, 1000);

  if (n == 1) {
    g_assert_cmpint (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len), ==, 0);
    g_assert_cmpint (err, ==, 0);
    acc = -1;
    for (n = 0; n < 100 && acc < 0; n++) {
      acc = accept (l->fd, NULL, NULL);
      if (acc < 0)
        g_usleep (10000);
    }
    g_assert_cmpint (acc, >=, 0);
    close (acc);
  } else {
    g_assert_cmpint (n, ==, 0);
    g_assert_cmpint (accept (l->fd, NULL, NULL), ==, -1);
    g_assert_cmpint (errno, ==, EAGAIN);
  }
  close (fd);
  return n == 1;
}

/* gates the listeners opened since `before` with `list`; their count */
static gint
gate (GHashTable * before, const gchar * list)
{
  GError *err = NULL;
  GPtrArray *allow = gst_doradma_net_allow_parse (list, "allowed-peers",
      &err);
  gint n;

  g_assert_no_error (err);
  n = gst_doradma_net_gate_apply (before, allow, NULL, &err);
  /* a kernel that keeps socket filters from unprivileged users */
  if (n < 0 && g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS) && geteuid () != 0) {
    g_print ("SKIP: %s\n", err->message);
    exit (77);
  }
  g_assert_no_error (err);
  g_ptr_array_unref (allow);
  g_hash_table_unref (before);
  return n;
}

static GHashTable *
snapshot (void)
{
  GError *err = NULL;
  GHashTable *s = gst_doradma_net_gate_snapshot (&err);

  g_assert_no_error (err);
  g_assert_nonnull (s);
  return s;
}

static void
test_only_new_listeners_are_gated (void)
{
  Listener old = listen_on ("127.0.0.1", FALSE), gated;
  GHashTable *before = snapshot ();

  gated = listen_on ("127.0.0.1", FALSE);
  g_assert_cmpint (gate (before, "10.0.0.0/8"), ==, 1);
  g_assert_true (passes ("127.0.0.1", &old));
  g_assert_false (passes ("127.0.0.1", &gated));
  close (old.fd);
  close (gated.fd);
}

/* one listener of `host` gated with `list`: does `from` pass? */
static gboolean
passes_gated (const gchar * host, gboolean v6only, const gchar * list,
    const gchar * from)
{
  GHashTable *before = snapshot ();
  Listener l = listen_on (host, v6only);
  gboolean ok;

  g_assert_cmpint (gate (before, list), ==, 1);
  ok = passes (from, &l);
  close (l.fd);
  return ok;
}

static void
test_ipv4_addresses_and_prefixes (void)
{
  g_assert_true (passes_gated ("127.0.0.1", FALSE, "127.0.0.1", "127.0.0.1"));
  g_assert_true (passes_gated ("127.0.0.1", FALSE, "10.1.2.3, 127.0.0.0/8",
          "127.0.0.1"));
  g_assert_true (passes_gated ("127.0.0.1", FALSE, "0.0.0.0/0", "127.0.0.1"));
  g_assert_false (passes_gated ("127.0.0.1", FALSE, "127.0.0.2", "127.0.0.1"));
  g_assert_false (passes_gated ("127.0.0.1", FALSE, "127.0.1.0/24",
          "127.0.0.1"));
  /* a list of the other family only */
  g_assert_false (passes_gated ("127.0.0.1", FALSE, "::1, ::/0", "127.0.0.1"));
}

static void
test_ipv6_addresses_and_prefixes (void)
{
  if (!have_ipv6) {
    g_test_skip ("no IPv6 loopback (::1)");
    return;
  }
  g_assert_true (passes_gated ("::1", TRUE, "::1", "::1"));
  g_assert_true (passes_gated ("::1", TRUE, "fd00::1, ::/8", "::1"));
  g_assert_true (passes_gated ("::1", TRUE, "::/0", "::1"));
  /* the last bit of the last word decides */
  g_assert_false (passes_gated ("::1", TRUE, "::2", "::1"));
  g_assert_true (passes_gated ("::1", TRUE, "::/127", "::1"));
  g_assert_false (passes_gated ("::1", TRUE, "::0/128", "::1"));
  g_assert_false (passes_gated ("::1", TRUE, "127.0.0.1, 0.0.0.0/0", "::1"));
}

static void
test_ipv4_into_a_dual_stack_listener (void)
{
  if (!have_ipv6) {
    g_test_skip ("no IPv6 (::)");
    return;
  }
  /* the packet is IPv4: IPv4 masks decide, as allowed-peers' own check
   * takes ::ffff:a.b.c.d for a.b.c.d */
  g_assert_true (passes_gated ("::", FALSE, "127.0.0.1", "127.0.0.1"));
  g_assert_false (passes_gated ("::", FALSE, "::ffff:127.0.0.1", "127.0.0.1"));
  g_assert_false (passes_gated ("::", FALSE, "10.0.0.1", "127.0.0.1"));
}

/* TRUE when the client `fd`'s peer reset it */
static gboolean
was_reset (int fd)
{
  struct pollfd p = { fd, POLLIN, 0 };
  char b;

  g_assert_cmpint (poll (&p, 1, 5000), ==, 1);
  return read (fd, &b, 1) < 0 && errno == ECONNRESET;
}

static void
test_connections_taken_before_the_gate (void)
{
  GHashTable *before = snapshot ();
  Listener l = listen_on ("127.0.0.1", FALSE), keep;
  int client, server;
  struct pollfd p;

  client = connect_from ("127.0.0.1", &l);
  p = (struct pollfd) { client, POLLOUT, 0 };
  g_assert_cmpint (poll (&p, 1, 5000), ==, 1);
  while ((server = accept (l.fd, NULL, NULL)) < 0)
    g_usleep (10000);
  g_assert_cmpint (gate (before, "10.0.0.0/8"), ==, 1);
  g_assert_true (was_reset (client));
  close (client);
  close (server);
  close (l.fd);

  /* from an address on the list: kept */
  before = snapshot ();
  keep = listen_on ("127.0.0.1", FALSE);
  client = connect_from ("127.0.0.1", &keep);
  p = (struct pollfd) { client, POLLOUT, 0 };
  g_assert_cmpint (poll (&p, 1, 5000), ==, 1);
  while ((server = accept (keep.fd, NULL, NULL)) < 0)
    g_usleep (10000);
  g_assert_cmpint (gate (before, "127.0.0.1"), ==, 1);
  g_assert_cmpint (write (server, "x", 1), ==, 1);
  p = (struct pollfd) { client, POLLIN, 0 };
  g_assert_cmpint (poll (&p, 1, 5000), ==, 1);
  g_assert_false (was_reset (client));
  close (client);
  close (server);
  close (keep.fd);
}

int
main (int argc, char **argv)
{
  int probe = socket (AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in6 lo = {.sin6_family = AF_INET6 };

  lo.sin6_addr = in6addr_loopback;
  have_ipv6 = probe >= 0 && bind (probe, (struct sockaddr *) &lo,
      sizeof (lo)) == 0;
  if (probe >= 0)
    close (probe);
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net/gate/only-new-listeners",
      test_only_new_listeners_are_gated);
  g_test_add_func ("/net/gate/ipv4", test_ipv4_addresses_and_prefixes);
  g_test_add_func ("/net/gate/ipv6", test_ipv6_addresses_and_prefixes);
  g_test_add_func ("/net/gate/ipv4-dual-stack",
      test_ipv4_into_a_dual_stack_listener);
  g_test_add_func ("/net/gate/connections-before",
      test_connections_taken_before_the_gate);
  return g_test_run ();
}
