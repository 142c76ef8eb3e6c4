/* Description: a producer that forks without exec (e.g. Python
 * multiprocessing's "fork") keeps its channel's liveness to itself
 * (review #18): a child never keeps the writer "alive" after the writer
 * process died (a successor can take the channel over, not -EBUSY), and a
 * child's doradma_writer_close never unlinks its parent's names.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;
static struct t_barrier *bar;
static struct doradma_writer *w;

static int
child_closes (void *arg)
{
  (void) arg;
  doradma_writer_close (w);
  return 0;
}

/* The child's atfork handler has run once its function runs: only then is
 * the parent's lock its parent's alone (the barrier waits for that). */
static int
sleeping_child (void *arg)
{
  (void) arg;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

/* The producer: creates the channel, forks a long-lived child, dies. */
static int
producer (void *arg)
{
  struct doradma_writer_config wc;
  pid_t *grandchild = arg;

  t_writer_config (&wc, ch, dir, 2, 4096);
  if (doradma_writer_create (&wc, &w, NULL) < 0)
    return 1;
  *grandchild = t_fork (sleeping_child, NULL);
  t_barrier_wait (bar);
  pause ();
  return 0;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *succ = NULL;
  struct doradma_diag diag = { 0 };
  char path[512];
  struct stat st;
  pid_t pid, *grandchild;
  int rc, ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "forkw");
  if (dir == NULL)
    return T_EXIT_FAIL;

  /* A child's close leaves the parent's names alone. */
  t_channel (ch, sizeof ch, "fc");
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  rc = t_wait (t_fork (child_closes, NULL), 5000);
  T_CHECK (rc == 0, "child exit %d", rc);
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  T_CHECK (stat (path, &st) == 0, "a child's close unlinked %s", path);
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
  T_CHECK (stat (path, &st) == 0, "a child's close unlinked %s", path);
  doradma_writer_close (w);
  w = NULL;

  /* A child outliving the producer does not keep the channel. */
  t_channel (ch, sizeof ch, "fl");
  bar = t_barrier_new (3);      /* producer, its child, us */
  grandchild = t_shared_alloc (sizeof *grandchild);
  pid = t_fork (producer, grandchild);
  t_barrier_wait (bar);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);
  rc = doradma_writer_create (&wc, &succ, &diag);
  kill (*grandchild, SIGKILL);
  T_RC (rc, 0, diag.msg);
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (succ);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
