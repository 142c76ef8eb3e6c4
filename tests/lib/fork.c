/* Description: a process that forks without exec (e.g. Python
 * multiprocessing's "fork") keeps its liveness to itself; one scenario per
 * argv[1], each a meson test of its own:
 *   writer  (review #18) a child never keeps the writer "alive" after the
 *           writer process died: a successor takes the channel over, not
 *           -EBUSY; and a child's doradma_writer_close never unlinks its
 *           parent's names.
 *   reader  (finding N5 of reviews/round3/lib-and-dora-pools.md) a child
 *           never keeps a dead reader's entry alive: a lossless writer's
 *           sweep reclaims it and publishes on instead of timing out
 *           behind it.
 * The long-lived child is a plain fork (t_fork's children die with their
 * parent, a multiprocessing worker does not); main kills it at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;
static struct t_barrier *bar;   /* the process, its child, main */
static pid_t *grandchild;       /* shared: written by the process only */

/* The child's atfork handlers have run once its function runs: only then
 * are the process's locks its own alone (the barrier waits for that). */
static int
sleeping_child (void *arg)
{
  (void) arg;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

/* Forks the long-lived child, waits for it and main, then for SIGKILL. */
static int
fork_and_wait (void)
{
  pid_t child;

  fflush (NULL);
  child = fork ();
  if (child == 0)
    _exit (sleeping_child (NULL));
  *grandchild = child;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

static int
producer (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;

  (void) arg;
  t_writer_config (&wc, ch, dir, 2, 4096);
  if (doradma_writer_create (&wc, &w, NULL) < 0)
    return 1;
  return fork_and_wait ();
}

static int
consumer (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;

  (void) arg;
  t_reader_config (&rc, ch, dir, 1);
  if (doradma_reader_open (&rc, &r, NULL) < 0)
    return 1;
  return fork_and_wait ();
}

/* Runs `fn` in a process that forks a child and is then killed. */
static void
kill_after_fork (int (*fn) (void *))
{
  pid_t pid;

  bar = t_barrier_new (3);
  grandchild = t_shared_alloc (sizeof *grandchild);
  pid = t_fork (fn, NULL);
  t_barrier_wait (bar);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);
}

static struct doradma_writer *w_closed_by_child;

static int
child_closes (void *arg)
{
  (void) arg;
  doradma_writer_close (w_closed_by_child);
  return 0;
}

static int
writer_case (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *succ = NULL;
  struct doradma_diag diag = { 0 };
  char path[512];
  struct stat st;
  int rc, ret = T_EXIT_FAIL;

  /* A child's close leaves the parent's names alone. */
  t_channel (ch, sizeof ch, "fc");
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w_closed_by_child, NULL), 0, "create");
  rc = t_wait (t_fork (child_closes, NULL), 5000);
  T_CHECK (rc == 0, "child exit %d", rc);
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  T_CHECK (stat (path, &st) == 0, "a child's close unlinked %s", path);
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
  T_CHECK (stat (path, &st) == 0, "a child's close unlinked %s", path);
  doradma_writer_close (w_closed_by_child);
  w_closed_by_child = NULL;

  /* A child outliving the producer does not keep the channel. */
  t_channel (ch, sizeof ch, "fl");
  kill_after_fork (producer);
  rc = doradma_writer_create (&wc, &succ, &diag);
  T_RC (rc, 0, diag.msg);
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w_closed_by_child);
  doradma_writer_close (succ);
  return ret;
}

static int
reader_case (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  uint64_t seq;
  int i, rc = 0, ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "fr");
  t_writer_config (&wc, ch, dir, 3, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  kill_after_fork (consumer);
  /* 3 slots: the 4th lossless publish needs the dead reader's entry
   * reclaimed; with the child holding its lock it would time out. */
  for (i = 0; i < 6; i++) {
    rc = t_publish (w, DORADMA_POLICY_LOSSLESS, 2000000000ll, 4096, &seq, NULL);
    if (rc < 0)
      break;
  }
  T_CHECK (i == 6, "lossless publish %d of 6 after the reader died: %s "
      "(its forked child keeps the entry alive)", i + 1, t_errname (rc));
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return ret;
}

int
main (int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "";
  int ret;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "fork");
  if (dir == NULL)
    return T_EXIT_FAIL;
  if (strcmp (what, "writer") == 0)
    ret = writer_case ();
  else if (strcmp (what, "reader") == 0)
    ret = reader_case ();
  else {
    t_log ("usage: %s writer|reader", argv[0]);
    ret = T_EXIT_FAIL;
  }
  if (grandchild != NULL && *grandchild > 0)
    kill (*grandchild, SIGKILL);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
