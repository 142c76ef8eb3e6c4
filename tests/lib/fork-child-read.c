/* Description: a reader used in a child forked without exec is refused
 * (review round 4, R4-3). The child's ctl mapping is a private copy and
 * the entry lock is not its own, so a frame it leased there was protected
 * by nothing: the writer rewrote it under the child. doradma_reader_next
 * and copy_next in the child now return -EPERM (diag field "fork"); the
 * parent reads on as before.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define SEC 1000000000ll

static struct doradma_reader *r;

static int
child_reads (void *arg)
{
  struct doradma_frame f;
  struct doradma_diag diag = { 0 };
  uint8_t buf[4096];
  int ret;

  (void) arg;
  ret = doradma_reader_next (r, DORADMA_READ_LATEST, SEC / 5, &f, &diag);
  T_RC (ret, -EPERM, "reader_next in a forked child");
  T_CHECK (diag.field && strcmp (diag.field, "fork") == 0 && diag.msg[0],
      "diag [%s] %s", diag.field ? diag.field : "-", diag.msg);
  memset (&diag, 0, sizeof diag);
  ret = doradma_reader_copy_next (r, DORADMA_READ_LATEST, SEC / 5, buf,
      sizeof buf, &f, &diag);
  T_RC (ret, -EPERM, "reader_copy_next in a forked child");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_frame f;
  char ch[64], *dir;
  int failed = 0;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "fork-child-read");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "fk");
  T_RC (t_open_pair (dir, ch, 2, 4096, 0, &w, &r), 0, "open");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0, "pub");
  T_EXPECT (failed, t_wait (t_fork (child_reads, NULL), 5000) == 0,
      "the child was not refused");
  T_RC (doradma_reader_next (r, DORADMA_READ_LATEST, SEC, &f, NULL), 0,
      "the parent reads on");
  doradma_reader_release (r, f.slot);
  doradma_reader_close (r);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
