/* Description: a consumer that forks without exec (Python
 * multiprocessing's "fork") keeps its reader entry's liveness to itself
 * (finding N5 of reviews/round3/lib-and-dora-pools.md): once the reader
 * process is dead, a child it forked does not keep the entry alive, so a
 * lossless writer's sweep reclaims it and publishes on instead of timing
 * out behind it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;
static struct t_barrier *bar;

/* The child's atfork handlers have run once its function runs. */
static int
sleeping_child (void *arg)
{
  (void) arg;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

/* The consumer: joins with back-pressure, forks a long-lived child, and
 * waits to be killed. */
static int
consumer (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  pid_t *grandchild = arg, child;

  t_reader_config (&rc, ch, dir, 1);
  if (doradma_reader_open (&rc, &r, NULL) < 0)
    return 1;
  /* A plain fork: t_fork's child dies with its parent (PDEATHSIG), a
   * multiprocessing worker does not. main kills it at the end. */
  fflush (NULL);
  child = fork ();
  if (child == 0)
    _exit (sleeping_child (NULL));
  *grandchild = child;          /* shared memory: never written by the child */
  t_barrier_wait (bar);
  pause ();
  return 0;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  pid_t pid, *grandchild;
  uint64_t seq;
  int i, rc, ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "forkr");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "fr");
  t_writer_config (&wc, ch, dir, 3, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);

  bar = t_barrier_new (3);      /* consumer, its child, us */
  grandchild = t_shared_alloc (sizeof *grandchild);
  pid = t_fork (consumer, grandchild);
  t_barrier_wait (bar);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);

  /* 3 slots: the 4th lossless publish needs the dead reader's entry
   * reclaimed; with the child holding its lock it would time out. */
  for (i = 0; i < 6; i++) {
    rc = t_publish (w, DORADMA_POLICY_LOSSLESS, 2000000000ll, 4096, &seq, NULL);
    if (rc < 0)
      break;
  }
  if (*grandchild > 0)
    kill (*grandchild, SIGKILL);
  T_CHECK (i == 6, "lossless publish %d of 6 after the reader died: %s "
      "(its forked child keeps the entry alive)", i + 1, t_errname (rc));
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
