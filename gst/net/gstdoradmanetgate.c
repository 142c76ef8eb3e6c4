/* doradma network plugin — the kernel's gate in front of UCX's listening
 * sockets (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "gstdoradmanetallow.h"
#include "gstdoradmanetgate.h"

static GMutex window_lock;

void
gst_doradma_net_gate_lock (void)
{
  g_mutex_lock (&window_lock);
}

void
gst_doradma_net_gate_unlock (void)
{
  g_mutex_unlock (&window_lock);
}

/* ---- the filter: classic BPF over the IP header ---- */

#define ACCEPT 0xffffffffu      /* keep the whole packet */
#define DROP 0u

static void
emit (GArray * prog, guint16 code, guint8 jt, guint8 jf, guint32 k)
{
  struct sock_filter insn = { code, jt, jf, k };

  g_array_append_val (prog, insn);
}

/* word `w` (0-based, of 32 bits from the top) of a `prefix`-bit mask */
static guint32
mask_word (guint prefix, guint w)
{
  guint bits = prefix > 32 * w ? MIN (prefix - 32 * w, 32) : 0;

  return bits == 0 ? 0 : 0xffffffffu << (32 - bits);
}

/* The words of `mask` in host order (as BPF_LD loads them), how many
 * count (those the prefix reaches), and its family */
static guint
mask_words (GInetAddressMask * mask, guint32 words[4], GSocketFamily * family)
{
  GInetAddress *a = g_inet_address_mask_get_address (mask);
  const guint8 *b = g_inet_address_to_bytes (a);
  guint prefix = g_inet_address_mask_get_length (mask);
  guint n = g_inet_address_get_native_size (a) / 4, w;

  *family = g_inet_address_get_family (a);
  for (w = 0; w < n; w++)
    words[w] = ((guint32) b[4 * w] << 24 | (guint32) b[4 * w + 1] << 16
        | (guint32) b[4 * w + 2] << 8 | b[4 * w + 3]) & mask_word (prefix, w);
  return (prefix + 31) / 32;
}

/* One mask's test: falls through to ACCEPT when every word it covers
 * matches, else jumps past that return to the next mask. The IPv4
 * source word is in X; IPv6's four are loaded from the header. */
static void
emit_mask (GArray * prog, GInetAddressMask * mask, GSocketFamily want)
{
  guint32 words[4];
  GSocketFamily family;
  guint n = mask_words (mask, words, &family), w;
  guint prefix = g_inet_address_mask_get_length (mask);

  if (family != want)
    return;
  for (w = 0; w < n; w++) {
    if (want == G_SOCKET_FAMILY_IPV4)
      emit (prog, BPF_MISC | BPF_TXA, 0, 0, 0);
    else
      emit (prog, BPF_LD | BPF_W | BPF_ABS, 0, 0, SKF_NET_OFF + 8 + 4 * w);
    emit (prog, BPF_ALU | BPF_AND | BPF_K, 0, 0, mask_word (prefix, w));
    emit (prog, BPF_JMP | BPF_JEQ | BPF_K, 0, (n - 1 - w) * 3 + 1, words[w]);
  }
  emit (prog, BPF_RET | BPF_K, 0, 0, ACCEPT);
}

/* ACCEPT for a packet whose IP source address one of `allow`'s masks
 * matches, DROP for any other; NULL with *error past the kernel's limit */
static GArray *
build_filter (GPtrArray * allow, GError ** error)
{
  GArray *prog = g_array_new (FALSE, FALSE, sizeof (struct sock_filter));
  guint i, jump_to_v6;

  /* the IP version, from the network header (the filter runs on the
   * transport header: SKF_NET_OFF reaches back) */
  emit (prog, BPF_LD | BPF_B | BPF_ABS, 0, 0, SKF_NET_OFF);
  emit (prog, BPF_ALU | BPF_RSH | BPF_K, 0, 0, 4);
  emit (prog, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 4);
  jump_to_v6 = prog->len;
  emit (prog, BPF_JMP | BPF_JA, 0, 0, 0);       /* k set below */
  emit (prog, BPF_LD | BPF_W | BPF_ABS, 0, 0, SKF_NET_OFF + 12);
  emit (prog, BPF_MISC | BPF_TAX, 0, 0, 0);
  for (i = 0; i < allow->len; i++)
    emit_mask (prog, g_ptr_array_index (allow, i), G_SOCKET_FAMILY_IPV4);
  emit (prog, BPF_RET | BPF_K, 0, 0, DROP);
  g_array_index (prog, struct sock_filter, jump_to_v6).k =
      prog->len - jump_to_v6 - 1;
  /* A still holds the version */
  emit (prog, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 6);
  emit (prog, BPF_RET | BPF_K, 0, 0, DROP);
  for (i = 0; i < allow->len; i++)
    emit_mask (prog, g_ptr_array_index (allow, i), G_SOCKET_FAMILY_IPV6);
  emit (prog, BPF_RET | BPF_K, 0, 0, DROP);
  if (prog->len > BPF_MAXINSNS) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "allowed-peers: %u entries make a socket filter of %u instructions, "
        "more than the kernel takes (%d)", allow->len, prog->len, BPF_MAXINSNS);
    g_array_unref (prog);
    return NULL;
  }
  return prog;
}

/* ---- UCX's sockets, found in /proc/self/fd ---- */

/* A duplicate of `fd` if it is an IPv4 or IPv6 TCP socket (its inode in
 * *ino, whether it listens in *listening), else -1. Acting on a
 * duplicate, never on the number: UCX's threads may close `fd` and reuse
 * it meanwhile. */
static int
tcp_socket_dup (int fd, ino_t * ino, gboolean * listening)
{
  struct stat st;
  int dup_fd, type = 0, domain = 0, acc = 0;
  socklen_t len = sizeof (type), dlen = sizeof (domain), acc_len = sizeof (acc);

  dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0)
    return -1;
  if (fstat (dup_fd, &st) != 0 || !S_ISSOCK (st.st_mode)
      || getsockopt (dup_fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0
      || type != SOCK_STREAM
      || getsockopt (dup_fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) != 0
      || (domain != AF_INET && domain != AF_INET6)
      || getsockopt (dup_fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &acc_len) != 0) {
    close (dup_fd);
    return -1;
  }
  *ino = st.st_ino;
  *listening = acc != 0;
  return dup_fd;
}

/* Calls `each` with a duplicate of every TCP socket this process holds
 * (closed after); FALSE with *error when /proc/self/fd cannot be read */
static gboolean
for_each_tcp_socket (void (*each) (int fd, ino_t ino, gboolean listening,
        gpointer data), gpointer data, GError ** error)
{
  DIR *dir = opendir ("/proc/self/fd");
  struct dirent *e;

  if (dir == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "allowed-peers, key-file: cannot read /proc/self/fd to find UCX's "
        "listening sockets: %s", g_strerror (errno));
    return FALSE;
  }
  while ((e = readdir (dir)) != NULL) {
    gchar *end;
    gint64 fd = g_ascii_strtoll (e->d_name, &end, 10);
    gboolean listening;
    ino_t ino;
    int dup_fd;

    if (end == e->d_name || *end != '\0' || fd < 0 || fd > G_MAXINT
        || fd == dirfd (dir))
      continue;
    dup_fd = tcp_socket_dup (fd, &ino, &listening);
    if (dup_fd < 0)
      continue;
    each (dup_fd, ino, listening, data);
    close (dup_fd);
  }
  closedir (dir);
  return TRUE;
}

static void
add_listener (int fd, ino_t ino, gboolean listening, gpointer data)
{
  if (listening)
    g_hash_table_add (data, GSIZE_TO_POINTER (ino));
}

GHashTable *
gst_doradma_net_gate_snapshot (GError ** error)
{
  GHashTable *inodes = g_hash_table_new (NULL, NULL);

  if (!for_each_tcp_socket (add_listener, inodes, error)) {
    g_hash_table_unref (inodes);
    return NULL;
  }
  return inodes;
}

typedef struct
{
  GHashTable *before;
  GPtrArray *allow;
  struct sock_fprog fprog;
  GArray *gated;                /* struct sockaddr_storage: their addresses */
  GArray *keep;                 /* int: a duplicate of each (NULL: none) */
  GError *error;
  guint reset;
} Gate;

static void
gate_listener (int fd, ino_t ino, gboolean listening, gpointer data)
{
  Gate *g = data;
  struct sockaddr_storage ss;
  socklen_t len = sizeof (ss);

  if (!listening || g->error != NULL
      || g_hash_table_contains (g->before, GSIZE_TO_POINTER (ino)))
    return;
  if (setsockopt (fd, SOL_SOCKET, SO_ATTACH_FILTER, &g->fprog,
          sizeof (g->fprog)) != 0) {
    g_set_error (&g->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "allowed-peers, key-file: the kernel refused the socket filter that "
        "keeps other hosts off UCX's listening sockets (SO_ATTACH_FILTER: "
        "%s)", g_strerror (errno));
    return;
  }
  memset (&ss, 0, sizeof (ss));
  if (getsockname (fd, (struct sockaddr *) &ss, &len) == 0)
    g_array_append_val (g->gated, ss);
  if (g->keep != NULL) {
    int keep = fcntl (fd, F_DUPFD_CLOEXEC, 0);

    if (keep < 0)
      g_set_error (&g->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
          "the gate in front of UCX: no descriptor left to keep a listening "
          "socket by (%s)", g_strerror (errno));
    else
      g_array_append_val (g->keep, keep);
  }
}

/* A connection one of the gated listeners took from an address not
 * allowed, before its filter was on: reset (connect AF_UNSPEC sends an
 * RST and leaves ECONNRESET for UCX to read) */
static void
reset_unallowed (int fd, ino_t ino, gboolean listening, gpointer data)
{
  Gate *g = data;
  struct sockaddr_storage local, peer;
  socklen_t llen = sizeof (local), plen = sizeof (peer);
  struct sockaddr unspec = {.sa_family = AF_UNSPEC };
  guint i;

  if (listening || getsockname (fd, (struct sockaddr *) &local, &llen) != 0
      || getpeername (fd, (struct sockaddr *) &peer, &plen) != 0
      || gst_doradma_net_allow_check (g->allow, (struct sockaddr *) &peer,
          NULL))
    return;
  for (i = 0; i < g->gated->len; i++) {
    if (gst_doradma_net_gate_accepted_by (&local,
            &g_array_index (g->gated, struct sockaddr_storage, i)))
    {
      if (connect (fd, &unspec, sizeof (unspec)) == 0)
        g->reset++;
      return;
    }
  }
}

gint
gst_doradma_net_gate_apply (GHashTable * before, GPtrArray * allow,
    GArray * keep, GError ** error)
{
  Gate g = { before, allow };
  GArray *prog = build_filter (allow, error);
  gint n;

  g.keep = keep;

  if (prog == NULL)
    return -1;
  g.fprog.len = prog->len;
  g.fprog.filter = (struct sock_filter *) prog->data;
  g.gated = g_array_new (FALSE, TRUE, sizeof (struct sockaddr_storage));
  if (!for_each_tcp_socket (gate_listener, &g, error)
      || (g.error == NULL && !for_each_tcp_socket (reset_unallowed, &g, error))) {
    n = -1;
  } else if (g.error != NULL) {
    g_propagate_error (error, g.error);
    n = -1;
  } else {
    n = g.gated->len;
    GST_INFO ("allowed-peers: %d listening sockets gated, %u connections "
        "from other addresses reset", n, g.reset);
  }
  g_array_unref (g.gated);
  g_array_unref (prog);
  return n;
}

gboolean
gst_doradma_net_gate_refilter (GArray * keep, GPtrArray * allow,
    GError ** error)
{
  GArray *prog = build_filter (allow, error);
  struct sock_fprog fprog;
  guint i;

  if (prog == NULL)
    return FALSE;
  fprog.len = prog->len;
  fprog.filter = (struct sock_filter *) prog->data;
  for (i = 0; i < keep->len; i++) {
    if (setsockopt (g_array_index (keep, int, i), SOL_SOCKET,
            SO_ATTACH_FILTER, &fprog, sizeof (fprog)) != 0)
    {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "the gate in front of UCX: the kernel refused a new socket "
          "filter (SO_ATTACH_FILTER: %s)", g_strerror (errno));
      g_array_unref (prog);
      return FALSE;
    }
  }
  g_array_unref (prog);
  return TRUE;
}

gboolean
gst_doradma_net_gate_accepted_by (const struct sockaddr_storage *local,
    const struct sockaddr_storage *bound)
{
  if (local->ss_family != bound->ss_family)
    return FALSE;
  if (bound->ss_family == AF_INET) {
    const struct sockaddr_in *l = (const struct sockaddr_in *) local;
    const struct sockaddr_in *b = (const struct sockaddr_in *) bound;

    return l->sin_port == b->sin_port
        && (b->sin_addr.s_addr == htonl (INADDR_ANY)
        || l->sin_addr.s_addr == b->sin_addr.s_addr);
  }
  if (bound->ss_family == AF_INET6) {
    const struct sockaddr_in6 *l = (const struct sockaddr_in6 *) local;
    const struct sockaddr_in6 *b = (const struct sockaddr_in6 *) bound;

    return l->sin6_port == b->sin6_port
        && (IN6_IS_ADDR_UNSPECIFIED (&b->sin6_addr)
        || IN6_ARE_ADDR_EQUAL (&l->sin6_addr, &b->sin6_addr));
  }
  return FALSE;
}

guint
gst_doradma_net_sockaddr_port (const struct sockaddr_storage *ss)
{
  if (ss->ss_family == AF_INET)
    return ntohs (((const struct sockaddr_in *) ss)->sin_port);
  if (ss->ss_family == AF_INET6)
    return ntohs (((const struct sockaddr_in6 *) ss)->sin6_port);
  return 0;
}

void
gst_doradma_net_sockaddr_set_port (struct sockaddr_storage *ss, guint port)
{
  if (ss->ss_family == AF_INET)
    ((struct sockaddr_in *) ss)->sin_port = htons (port);
  else if (ss->ss_family == AF_INET6)
    ((struct sockaddr_in6 *) ss)->sin6_port = htons (port);
}
