/* doradma GStreamer plugin — the sweep of a UCX listener's stuck
 * connections (gst_doradma_net_ucx_reset_stuck in gstdoradmanetucx.h says
 * why UCX leaves them; docs/network.md, "Not defended").
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
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gstdoradmanetgate.h"
#include "gstdoradmanetucx.h"

void
gst_doradma_net_ucx_sweep_prepare (GstDoradmaNetUcx * u, ucp_listener_h l,
    const struct sockaddr_storage *asked, socklen_t asked_len)
{
  ucp_listener_attr_t attr = { 0 };

  /* the address it is bound to (the port chosen, were it 0), else the
   * one asked for */
  memset (&u->sweep_addr, 0, sizeof (u->sweep_addr));
  attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
  if (ucp_listener_query (l, &attr) == UCS_OK)
    u->sweep_addr = attr.sockaddr;
  else
    memcpy (&u->sweep_addr, asked, asked_len);
  if (u->sweep_dir == NULL)
    u->sweep_dir = opendir ("/proc/self/fd");
  if (u->spare_fd < 0)
    u->spare_fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* TRUE, with its inode, when `fd` is a TCP socket of the listener bound
 * to `bound` that UCX, if it still watched it, would have read: its peer
 * closed its side (CLOSE_WAIT), or bytes wait in it. Reads only. */
static gboolean
unread_on_listener (int fd, const struct sockaddr_storage *bound, ino_t * ino)
{
  struct stat st;
  struct sockaddr_storage ss;
  socklen_t len = sizeof (ss);
  struct tcp_info ti;
  socklen_t ti_len = sizeof (ti);
  int queued = 0;

  if (fstat (fd, &st) != 0 || !S_ISSOCK (st.st_mode)
      || getsockname (fd, (struct sockaddr *) &ss, &len) != 0
      || !gst_doradma_net_gate_accepted_by (&ss, bound)
      || getsockopt (fd, IPPROTO_TCP, TCP_INFO, &ti, &ti_len) != 0)
    return FALSE;
  if (ti.tcpi_state != TCP_CLOSE_WAIT && (ti.tcpi_state != TCP_ESTABLISHED
          || ioctl (fd, FIONREAD, &queued) != 0 || queued <= 0))
    return FALSE;
  *ino = st.st_ino;
  return TRUE;
}

#define SWEEP_INTERVAL_US (500 * G_TIME_SPAN_MILLISECOND)

guint
gst_doradma_net_ucx_reset_stuck (GstDoradmaNetUcx * u)
{
  const struct sockaddr_storage *bound = &u->sweep_addr;
  struct sockaddr unspec = {.sa_family = AF_UNSPEC };
  GHashTable *seen;
  struct dirent *e;
  DIR *dir = u->sweep_dir;
  guint n = 0;
  gint64 now = g_get_monotonic_time ();

  if (dir == NULL || now < u->next_sweep)
    return 0;
  u->next_sweep = now + SWEEP_INTERVAL_US;
  rewinddir (dir);
  seen = g_hash_table_new (NULL, NULL);
  while ((e = readdir (dir)) != NULL) {
    gchar *end;
    gint64 fd = g_ascii_strtoll (e->d_name, &end, 10);
    ino_t ino, again;
    int dup_fd;

    if (end == e->d_name || *end != '\0' || fd < 0 || fd > G_MAXINT
        || fd == dirfd (dir) || fd == u->spare_fd
        || !unread_on_listener (fd, bound, &ino))
      continue;
    g_hash_table_add (seen, GSIZE_TO_POINTER (ino));
    if (u->stuck_seen == NULL
        || !g_hash_table_contains (u->stuck_seen, GSIZE_TO_POINTER (ino)))
      continue;
    /* UCX may close `fd` and reuse its number meanwhile: act on a
     * duplicate, checked to be the same socket, never on the number. The
     * duplicate goes into the spare's slot, which it replaces atomically
     * (dup3), and the spare goes back the same way: the slot is never
     * free, so UCX, which accepts into every free one while the flood
     * has taken them all, cannot take it (a close then an open lost it
     * to UCX's accept under load, and with it every later sweep) */
    if (u->spare_fd >= 0)
      dup_fd = dup3 (fd, u->spare_fd, O_CLOEXEC);
    else
      dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
    if (dup_fd < 0)
      continue;
    if (unread_on_listener (dup_fd, bound, &again) && again == ino
        && connect (dup_fd, &unspec, sizeof (unspec)) == 0)
      n++;
    /* the spare now holds nothing but another reference to the
     * directory: the socket's last reference is UCX's again */
    if (dup_fd != u->spare_fd) {
      close (dup_fd);
    } else if (dup3 (dirfd (dir), u->spare_fd, O_CLOEXEC) < 0) {
      /* the spare must not keep the socket open: given up, later sweeps
       * dup anywhere */
      GST_WARNING ("dup3: %s; the sweep's spare descriptor closed",
          g_strerror (errno));
      close (u->spare_fd);
      u->spare_fd = -1;
    }
  }
  if (u->stuck_seen != NULL)
    g_hash_table_unref (u->stuck_seen);
  u->stuck_seen = seen;
  return n;
}
