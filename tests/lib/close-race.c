/* Description: a writer's close never removes a successor's names (review
 * #8). In a rolling restart the new writer creates the channel while the
 * old one is closing; the old writer unlinks ~ctl first, while its data
 * name (and its lock on it) still keeps every other writer out, then the
 * data name. Built with -Wl,--wrap=unlink: the wrapper starts the new
 * writer exactly when the old one is about to unlink its ~ctl, the widest
 * window there is. The new channel must be joinable.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;
static struct doradma_writer *successor;
static int successor_rc = 1;    /* 1: not tried yet */

int __real_unlink (const char *path);

static void
start_successor (void)
{
  struct doradma_writer_config wc;

  t_writer_config (&wc, ch, dir, 2, 4096);
  successor_rc = doradma_writer_create (&wc, &successor, NULL);
  t_log ("successor created while the old writer unlinks: %s",
      t_errname (successor_rc));
}

int
__wrap_unlink (const char *path)
{
  size_t n = strlen (path);

  if (successor_rc == 1 && n > 4 && strcmp (path + n - 4, "~ctl") == 0 &&
      strstr (path, ch) != NULL)
    start_successor ();
  return __real_unlink (path);
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *old = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  int ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "closerace");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "cr");
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &old, NULL), 0, "old writer");
  doradma_writer_close (old);
  if (successor_rc != 0) {
    /* The live old writer kept it out: it comes after the close. */
    successor_rc = 1;
    start_successor ();
  }
  T_RC (successor_rc, 0, "successor");
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, &diag), 0, diag.msg);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (successor);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
