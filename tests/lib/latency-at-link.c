/* Description: the latency a writer is created with is in the RCB before
 * the channel's name exists (issue 30: doradmasink linked the name, then
 * set the latency; a reader joining in between read 0). Built with
 * -Wl,--wrap=linkat,--wrap=rename: the moment the data name appears (linkat
 * for a new channel, rename over a stale channel or in a replace), the
 * wrapper inspects the object at the name, as a reader joining at that
 * instant would read it, and records its latency. Each way a name appears
 * must show the configured latency, without any doradma_writer_set_latency.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doradma/inspect.h>

#include "helpers.h"

#define MS 1000000ull

static char ch[64], *dir, data_path[4200];
static int seen;                /* names linked while watched */
static uint64_t seen_latency;   /* the RCB's latency at the last one */

int __real_linkat (int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath, int flags);
int __real_rename (const char *oldpath, const char *newpath);

/* Runs right after the data name appeared, before the writer goes on. */
static void
name_appeared (const char *path)
{
  struct doradma_inspect in;

  if (strcmp (path, data_path) != 0)
    return;
  seen++;
  seen_latency = UINT64_MAX;
  if (doradma_inspect_channel (dir, ch, &in) == 0 && in.rcb_read)
    seen_latency = in.rcb.latency;
  doradma_inspect_clear (&in);
}

int
__wrap_linkat (int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath, int flags)
{
  int ret = __real_linkat (olddirfd, oldpath, newdirfd, newpath, flags);

  if (ret == 0)
    name_appeared (newpath);
  return ret;
}

int
__wrap_rename (const char *oldpath, const char *newpath)
{
  int ret = __real_rename (oldpath, newpath);

  if (ret == 0)
    name_appeared (newpath);
  return ret;
}

/* A writer that dies without closing: its channel is stale. */
static int
stale_channel (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  int status;
  pid_t pid = fork ();

  if (pid < 0)
    return -errno;
  if (pid == 0) {
    t_writer_config (&wc, ch, dir, 2, 4096);
    _exit (doradma_writer_create (&wc, &w, NULL) == 0 ? 0 : 1);
  }
  if (waitpid (pid, &status, 0) != pid || !WIFEXITED (status)
      || WEXITSTATUS (status) != 0)
    return -ECHILD;
  return 0;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL, *w2 = NULL;
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  int ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "latlink");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "ll");
  snprintf (data_path, sizeof data_path, "%s/doradma.%s", dir, ch);

  /* a new channel: linkat */
  t_writer_config (&wc, ch, dir, 2, 4096);
  wc.latency = 33 * MS;
  seen = 0;
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  T_CHECK (seen == 1, "create linked the name %d times", seen);
  T_CHECK (seen_latency == 33 * MS, "a reader joining as the name appeared "
      "read latency %llu, want %llu", (unsigned long long) seen_latency,
      33 * MS);
  /* and a reader that opens now reads it too */
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "reader open");
  T_CHECK (doradma_reader_latency (r) == 33 * MS, "reader latency %llu",
      (unsigned long long) doradma_reader_latency (r));
  doradma_reader_close (r);
  r = NULL;

  /* a replace (new caps that need bigger slots): rename */
  t_writer_config (&wc, ch, dir, 2, 8192);
  wc.latency = 50 * MS;
  seen = 0;
  T_RC (doradma_writer_replace (w, &wc, &w2, NULL), 0, "replace");
  T_CHECK (seen == 1, "replace linked the name %d times", seen);
  T_CHECK (seen_latency == 50 * MS, "a reader joining as the replacement "
      "appeared read latency %llu, want %llu",
      (unsigned long long) seen_latency, 50 * MS);
  doradma_writer_close (w2);
  w2 = NULL;
  doradma_writer_close (w);
  w = NULL;

  /* a stale channel taken over: rename */
  T_RC (stale_channel (), 0, "stale channel");
  t_writer_config (&wc, ch, dir, 2, 4096);
  wc.latency = 20 * MS;
  seen = 0;
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create over stale");
  T_CHECK (seen == 1, "the takeover linked the name %d times", seen);
  T_CHECK (seen_latency == 20 * MS, "a reader joining as the takeover's "
      "name appeared read latency %llu, want %llu",
      (unsigned long long) seen_latency, 20 * MS);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w2);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
