/* Description: every file descriptor the library opens is close-on-exec
 * (review #17), those of a writer made by doradma_writer_replace included
 * (the predecessor's control object it keeps for RESERVED entries): an
 * exec'd child never inherits a channel's objects, nor the locks that tell
 * the channel's liveness.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "helpers.h"

/* fds >= 3 without FD_CLOEXEC, other than the directory listing's own. */
static int
inheritable_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *de;
  int n = 0;

  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL) {
    int fd = atoi (de->d_name);
    int fl;

    if (de->d_name[0] == '.' || fd < 3 || fd == dirfd (d))
      continue;
    fl = fcntl (fd, F_GETFD);
    if (fl >= 0 && !(fl & FD_CLOEXEC)) {
      t_log ("fd %d is inherited by exec", fd);
      n++;
    }
  }
  closedir (d);
  return n;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL;
  char ch[64], *dir;
  int before, ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "cloexec");
  if (dir == NULL)
    return T_EXIT_FAIL;
  before = inheritable_fds ();
  t_channel (ch, sizeof ch, "cx");
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &a, NULL), 0, "create");
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace");
  T_CHECK (inheritable_fds () == before, "the library opened fds without "
      "FD_CLOEXEC (%d before)", before);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
