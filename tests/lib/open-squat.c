/* Description: opening a channel never blocks on what squats its name
 * (review #6). Any local user may create /dev/shm/doradma.<ch> as a FIFO
 * before the producer starts: doradma_reader_open and doradma_writer_create
 * fail at once with an error naming the file type and the squatter's uid,
 * instead of hanging in open(2) before any check. doradma_channel_wait
 * finds the name present whatever squats it, a dangling symlink included
 * (round 4, R4-8), so the open names it instead of a wait for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;

static int
reader_open_child (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  const char *type = arg;
  char uid[32];
  int ret;

  t_reader_config (&rc, ch, dir, 0);
  ret = doradma_reader_open (&rc, &r, &diag);
  t_log ("reader_open: %s: %s", t_errname (ret), diag.msg);
  snprintf (uid, sizeof uid, "uid %u", (unsigned) getuid ());
  T_RC (ret, -EBADMSG, "reader_open of a squatted name");
  T_CHECK (diag.field && strcmp (diag.field, "object.type") == 0, "field %s",
      diag.field ? diag.field : "(null)");
  T_CHECK (strstr (diag.msg, type) && strstr (diag.msg, uid), "the message "
      "names neither \"%s\" nor \"%s\": %s", type, uid, diag.msg);
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

static int
writer_create_child (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  int ret;

  (void) arg;
  t_writer_config (&wc, ch, dir, 2, 4096);
  ret = doradma_writer_create (&wc, &w, &diag);
  t_log ("writer_create: %s: %s", t_errname (ret), diag.msg);
  T_CHECK (ret < 0, "a writer over a squatted name");
  return T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* Each open runs in a child that must finish within 2 s. */
static int
prompt (int (*fn) (void *), void *arg, const char *what)
{
  int rc = t_wait (t_fork (fn, arg), 2000);

  if (rc != 0)
    t_log ("%s: %s", what, rc < 0 ? "still blocked after 2 s" : "failed");
  return rc == 0 ? 0 : -1;
}

int
main (void)
{
  char path[512];
  struct sockaddr_un sa = {.sun_family = AF_UNIX };
  int failed = 0, sock;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "squat");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "fifo");
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  T_EXPECT (failed, mkfifo (path, 0644) == 0, "mkfifo %s", path);
  T_EXPECT (failed, doradma_channel_wait (dir, ch, 0, -1) == 0, "present");
  T_EXPECT (failed, prompt (reader_open_child, "FIFO", "reader on a FIFO") == 0,
      "reader on a FIFO");
  T_EXPECT (failed, prompt (writer_create_child, NULL, "writer on a FIFO") == 0,
      "writer on a FIFO");
  unlink (path);

  t_channel (ch, sizeof ch, "sock");
  snprintf (sa.sun_path, sizeof sa.sun_path, "%s/doradma.%s", dir, ch);
  sock = socket (AF_UNIX, SOCK_STREAM, 0);
  T_EXPECT (failed, sock >= 0 && bind (sock, (struct sockaddr *) &sa,
          sizeof sa) == 0, "bind %s", sa.sun_path);
  T_EXPECT (failed, prompt (reader_open_child, "socket", "reader on a socket")
      == 0, "reader on a socket");
  close (sock);
  unlink (sa.sun_path);

  /* review round 4, R4-8: a dangling symlink is not "absent" (the wait
   * used stat (), which follows it, and waited for ever) */
  t_channel (ch, sizeof ch, "dangle");
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  T_EXPECT (failed, symlink ("doradma.nothing-here", path) == 0, "symlink %s",
      path);
  T_EXPECT (failed, doradma_channel_wait (dir, ch, 0, -1) == 0,
      "a dangling symlink at the name is present");
  T_EXPECT (failed, prompt (reader_open_child, "symbolic link",
          "reader on a dangling symlink") == 0, "reader on a dangling symlink");
  unlink (path);
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
