/* Description: a reader whose writer died and whose channel a new writer
 * took over continues with the new writer's frames (review #1). The new
 * writer counts from its own first_seq, so a reader that reopens after
 * -ESTALE and carries its last sequence over (doradma_reader_set_last_seq,
 * as doradmasrc does) must not wait for the new sequence to pass the old
 * one: it starts at the new writer's newest frame, and a lossless new
 * writer never stalls behind it. The same holds for a reader that sat idle
 * (PAUSED) through the death and the takeover, and for one that saw
 * -EOWNERDEAD and reopened. Where the sequence does continue (a replace,
 * first_seq == last + 1) it is kept without a gap.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define BYTES 4096
#define MS 1000000ll

static char ch[64], *dir;
static struct t_barrier *bar;

/* The first writer: publishes 50 frames, then waits to be killed. */
static int
old_writer (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;

  (void) arg;
  t_writer_config (&wc, ch, dir, 4, BYTES);
  if (doradma_writer_create (&wc, &w, NULL) < 0)
    return 1;
  t_barrier_wait (bar);
  for (int i = 0; i < 50; i++)
    if (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL) < 0)
      return 2;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

/* Reopens the way doradmasrc does on -ESTALE: token, then last_seq. */
static int
reopen (struct doradma_reader **r, int backpressure)
{
  struct doradma_reader_config rc;
  uint64_t token = doradma_reader_token (*r), last =
      doradma_reader_last_seq (*r);
  int ret;

  doradma_reader_close (*r);
  *r = NULL;
  t_reader_config (&rc, ch, dir, backpressure);
  rc.token = token;
  ret = doradma_reader_open (&rc, r, NULL);
  if (ret == 0)
    doradma_reader_set_last_seq (*r, last);
  return ret;
}

/* Kills the first writer after the reader joined and drained it; a new
 * writer takes the stale channel over. `drain`: the reader reads the 50
 * frames before the kill (else it sat idle: PAUSED). */
static int
takeover (int drain, struct doradma_reader **r, struct doradma_writer **b)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_frame f;
  pid_t pid;
  int ret;

  pid = t_fork (old_writer, NULL);
  t_reader_config (&rc, ch, dir, 1);
  for (int i = 0; i < 200; i++) {
    if ((ret = doradma_reader_open (&rc, r, NULL)) != -ENOENT)
      break;
    usleep (5000);
  }
  if (ret < 0)
    return ret;
  t_barrier_wait (bar);
  t_barrier_wait (bar);
  while (drain && doradma_reader_next (*r, DORADMA_READ_NEXT, 0, &f, NULL) == 0)
    doradma_reader_release (*r, f.slot);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);
  t_writer_config (&wc, ch, dir, 4, BYTES);
  return doradma_writer_create (&wc, b, NULL);
}

/* The reader after the switch: every frame of the lossless new writer
 * arrives, in order, and the writer never waits more than a moment. */
static int
follows_new_writer (struct doradma_reader *r, struct doradma_writer *b)
{
  struct doradma_frame f;
  uint64_t seq;
  int i;

  for (i = 0; i < 12; i++) {
    T_RC (t_publish (b, DORADMA_POLICY_LOSSLESS, 500 * MS, BYTES, &seq, NULL),
        0, "lossless publish of the new writer");
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
        "reader after the takeover");
    T_CHECK (f.info.seq == seq, "got seq %llu, the new writer published %llu",
        (unsigned long long) f.info.seq, (unsigned long long) seq);
    T_CHECK (t_check_stamps (f.data, BYTES, seq, NULL) == 0, "frame intact");
    doradma_reader_release (r, f.slot);
  }
  return 0;
err:
  return -1;
}

static int
case_estale (int drain)
{
  struct doradma_writer *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  int ret, rc = -1;

  t_channel (ch, sizeof ch, drain ? "tko" : "tkp");
  T_RC (takeover (drain, &r, &b), 0, "take the stale channel over");
  /* Whatever the reader had not read of the old segment, then -ESTALE. */
  while ((ret = doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL)) == 0)
    doradma_reader_release (r, f.slot);
  T_RC (ret, -ESTALE, "old reader after the takeover");
  T_RC (reopen (&r, 1), 0, "reopen");
  T_CHECK (follows_new_writer (r, b) == 0, "%s reader stuck after a takeover",
      drain ? "a busy" : "a paused");
  rc = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (b);
  return rc;
}

static int
case_ownerdead (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  pid_t pid;
  int ret, res = -1;

  t_channel (ch, sizeof ch, "tkd");
  pid = t_fork (old_writer, NULL);
  t_reader_config (&rc, ch, dir, 1);
  for (int i = 0; i < 200; i++) {
    if ((ret = doradma_reader_open (&rc, &r, NULL)) != -ENOENT)
      break;
    usleep (5000);
  }
  T_RC (ret, 0, "open");
  t_barrier_wait (bar);
  t_barrier_wait (bar);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);
  while ((ret = doradma_reader_next (r, DORADMA_READ_NEXT, 1000 * MS, &f,
              NULL)) == 0)
    doradma_reader_release (r, f.slot);
  T_RC (ret, -EOWNERDEAD, "reader of a dead writer");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_create (&wc, &b, NULL), 0, "new writer");
  T_RC (reopen (&r, 1), 0, "reopen");
  T_CHECK (follows_new_writer (r, b) == 0, "reader stuck after -EOWNERDEAD");
  res = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (b);
  return res;
}

/* A replace continues the sequence: a latest reader (no entry carried
 * over) that reopens keeps it, without a gap. */
static int
case_continues (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  uint64_t seq;
  int ret, res = -1;

  t_channel (ch, sizeof ch, "tkc");
  T_RC (t_open_pair (dir, ch, 4, BYTES, 0, &a, &r), 0, "open");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (t_publish (a, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
      "next");
  doradma_reader_release (r, f.slot);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace");
  ret = doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL);
  T_RC (ret, -ESTALE, "drained");
  T_RC (reopen (&r, 0), 0, "reopen");
  T_RC (t_publish_as (b, DORADMA_POLICY_LATEST, 0, BYTES, 2, NULL), 0, "pub");
  seq = 2;
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
      "next after replace");
  T_CHECK (f.info.seq == seq && f.skipped == 0, "seq %llu skipped %llu",
      (unsigned long long) f.info.seq, (unsigned long long) f.skipped);
  doradma_reader_release (r, f.slot);
  res = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

int
main (void)
{
  int failed = 0;

  t_watchdog (60);
  dir = t_shm_dir_new (NULL, "takeover");
  if (dir == NULL)
    return T_EXIT_FAIL;
  bar = t_barrier_new (2);
  T_EXPECT (failed, case_estale (1) == 0, "busy reader, -ESTALE");
  T_EXPECT (failed, case_estale (0) == 0, "paused reader, -ESTALE");
  T_EXPECT (failed, case_ownerdead () == 0, "-EOWNERDEAD");
  T_EXPECT (failed, case_continues () == 0, "replace keeps the sequence");
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
