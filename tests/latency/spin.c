/* Description: spin-then-sleep waits (issue 14).
 *  - a reader with doradma_reader_set_spin gets a frame published while it
 *    polls without sleeping (stats: spins 1, sleeps 0); without spin the
 *    same wait sleeps (spins 0, sleeps 1);
 *  - the poll ends at once on doradma_reader_interrupt and on EOS, and a
 *    dead writer is noticed within the usual wait slices even when the
 *    spin is far longer;
 *  - a lossless writer with doradma_writer_set_spin gets the slot a reader
 *    frees while it polls (spins 1, sleeps 0);
 *  - nothing per frame but the hand-off: a spinning reader makes no system
 *    call over 1000 frames, nor does a writer publishing to it (counted
 *    with ptrace); with spin 0 the same reader makes >= 1 per frame (the
 *    count sees them).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"

#define MS 1000000ll
#define N_FRAMES 1000
#define PERIOD_NS 200000ull     /* 200 us between frames */

static char ch[64], *dir;

struct delayed
{
  struct doradma_writer *w;
  struct doradma_reader *r;
  int what;                     /* 0 publish, 1 interrupt, 2 eos, 3 consume */
  int rc;
};

static void *
act_later (void *arg)
{
  struct delayed *d = arg;
  struct doradma_frame f;

  usleep (20000);
  switch (d->what) {
    case 0:
      d->rc = t_publish (d->w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL);
      break;
    case 1:
      doradma_reader_interrupt (d->r, 1);
      break;
    case 2:
      d->rc = doradma_writer_eos (d->w);
      break;
    case 3:
      d->rc = doradma_reader_next (d->r, DORADMA_READ_NEXT, 0, &f, NULL);
      if (d->rc == 0)
        doradma_reader_release (d->r, f.slot);
      break;
  }
  return NULL;
}

/* One wait of the reader while another thread does `what` 20 ms later. */
static int
reader_wait (uint64_t spin_ns, int what, int want, uint64_t max_ms,
    struct doradma_reader_stats *st)
{
  struct delayed d = { 0 };
  struct doradma_frame f;
  pthread_t th;
  uint64_t t0, took;
  int ret, res = -1;

  t_channel (ch, sizeof ch, "spr");
  T_RC (t_open_pair (dir, ch, 4, 4096, 0, &d.w, &d.r), 0, "open");
  doradma_reader_set_spin (d.r, spin_ns);
  d.what = what;
  pthread_create (&th, NULL, act_later, &d);
  t0 = t_now_ns ();
  ret = doradma_reader_next (d.r, DORADMA_READ_NEXT, 5000 * MS, &f, NULL);
  took = t_now_ns () - t0;
  pthread_join (th, NULL);
  if (ret == 0)
    doradma_reader_release (d.r, f.slot);
  doradma_reader_get_stats (d.r, st);
  t_log ("spin %llu ms, event %d: %s after %.1f ms (spins %llu sleeps %llu)",
      (unsigned long long) (spin_ns / MS), what, t_errname (ret), took / 1e6,
      (unsigned long long) st->spins, (unsigned long long) st->sleeps);
  T_RC (ret, want, "the wait");
  T_CHECK (took < max_ms * MS, "returned after %.1f ms, more than %llu ms",
      took / 1e6, (unsigned long long) max_ms);
  res = 0;
err:
  doradma_reader_close (d.r);
  doradma_writer_close (d.w);
  return res;
}

static struct t_barrier *bar;

static int
spin_notices_dead_writer (void)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  pid_t pid;
  uint64_t t0;
  int ret, res = -1;

  t_channel (ch, sizeof ch, "spd");
  pid = t_fork_live_writer (ch, dir);
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  doradma_reader_set_spin (r, 10000 * MS);
  kill (pid, SIGKILL);
  t_wait (pid, 5000);
  t0 = t_now_ns ();
  ret = doradma_reader_next (r, DORADMA_READ_NEXT, 5000 * MS, &f, NULL);
  t_log ("spinning reader of a dead writer: %s after %.0f ms",
      t_errname (ret), (t_now_ns () - t0) / 1e6);
  T_RC (ret, -EOWNERDEAD, "spinning (10 s) reader of a dead writer");
  T_CHECK (t_now_ns () - t0 < 1000 * MS, "detected after %.0f ms",
      (t_now_ns () - t0) / 1e6);
  res = 0;
err:
  doradma_reader_close (r);
  /* The killed writer's names stay behind: ours to remove. */
  t_unlink_channel (dir, ch);
  return res;
}

/* Lossless, 2 slots: frames 1 and 2 published, frame 1 not consumed: the
 * acquire waits until the reader (another thread, 20 ms later) takes it. */
static int
writer_wait (uint64_t spin_ns, struct doradma_writer_stats *st)
{
  struct delayed d = { 0 };
  pthread_t th;
  uint32_t slot;
  uint64_t t0;
  int ret, res = -1;

  t_channel (ch, sizeof ch, "spw");
  T_RC (t_open_pair (dir, ch, 2, 4096, 1, &d.w, &d.r), 0, "open");
  T_RC (t_publish (d.w, DORADMA_POLICY_LOSSLESS, 0, 4096, NULL, NULL), 0, "1");
  T_RC (t_publish (d.w, DORADMA_POLICY_LOSSLESS, 0, 4096, NULL, NULL), 0, "2");
  doradma_writer_set_spin (d.w, spin_ns);
  d.what = 3;
  pthread_create (&th, NULL, act_later, &d);
  t0 = t_now_ns ();
  ret = doradma_writer_acquire (d.w, DORADMA_POLICY_LOSSLESS, 5000 * MS, &slot);
  pthread_join (th, NULL);
  doradma_writer_get_stats (d.w, st);
  t_log ("writer spin %llu ms: %s after %.1f ms (full waits %llu spins %llu "
      "sleeps %llu)", (unsigned long long) (spin_ns / MS), t_errname (ret),
      (t_now_ns () - t0) / 1e6, (unsigned long long) st->full_waits,
      (unsigned long long) st->spins, (unsigned long long) st->sleeps);
  T_RC (d.rc, 0, "the reader took frame 1");
  T_RC (ret, 0, "the acquire");
  T_RC (doradma_writer_abandon (d.w, slot), 0, "abandon");
  res = 0;
err:
  doradma_reader_close (d.r);
  doradma_writer_close (d.w);
  return res;
}

/* ---- system calls per frame ---- */

static uint64_t reader_spin;
static int *reader_done;        /* shared: the writer publishes until set */

static void
busy_until (uint64_t t)
{
  while (t_now_ns () < t);
}

/* The writer: creates the channel, waits for the reader to join, then
 * publishes a frame every PERIOD_NS until the reader is done, pacing by polling the
 * clock (a sleep would be a system call of its own); the middle N_FRAMES
 * are the counted window when it is the traced process. */
static int
writer_proc (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  uint64_t t;
  int i, ret = 0;

  (void) arg;
  t_writer_config (&wc, ch, dir, 8, 4096);
  if (doradma_writer_create (&wc, &w, NULL) < 0)
    return 1;
  t_barrier_wait (bar);         /* the reader joined */
  t = t_now_ns ();
  for (i = 0; !__atomic_load_n (reader_done, __ATOMIC_ACQUIRE) && ret == 0; i++) {
    t += PERIOD_NS;
    busy_until (t);
    if (i == 10)
      t_mark_begin ();
    if (i == 10 + N_FRAMES)
      t_mark_end ();
    if (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) < 0)
      ret = 1;
  }
  t_barrier_wait (bar);         /* the reader is done */
  doradma_writer_close (w);
  return ret;
}

/* The reader: joins (retrying until the writer exists), reads
 * N_FRAMES + 15 frames with `reader_spin`; the frames 5 .. 5 + N_FRAMES
 * are the counted window when it is the traced process. */
static int
reader_proc (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  int i, ret = 0;

  (void) arg;
  t_reader_config (&rc, ch, dir, 0);
  for (i = 0; i < 5000 && doradma_reader_open (&rc, &r, NULL) < 0; i++)
    usleep (1000);
  if (r == NULL) {
    t_log ("reader: the writer never came");
    return 1;
  }
  doradma_reader_set_spin (r, reader_spin);
  t_barrier_wait (bar);
  for (i = 0; i < N_FRAMES + 15 && ret == 0; i++) {
    if (i == 5)
      t_mark_begin ();
    if (i == 5 + N_FRAMES)
      t_mark_end ();
    int got = doradma_reader_next (r, DORADMA_READ_NEXT, 5000 * MS, &f, NULL);

    if (got < 0) {
      t_log ("reader: frame %d: %s", i, t_errname (got));
      ret = 1;
    } else {
      doradma_reader_release (r, f.slot);
    }
  }
  __atomic_store_n (reader_done, 1, __ATOMIC_RELEASE);
  t_barrier_wait (bar);
  doradma_reader_close (r);
  return ret;
}

/* System calls of the reader (count_writer 0) or of the writer over
 * N_FRAMES frames, the other side in a child; -2: ptrace not permitted,
 * -1: failed. */
static long
count (int count_writer, uint64_t spin_ns)
{
  struct t_syscounts sc;
  pid_t pid;
  int code;

  t_channel (ch, sizeof ch, count_writer ? "scw" : "scr");
  bar = t_barrier_new (2);
  reader_done = t_shared_alloc (sizeof *reader_done);
  reader_spin = spin_ns;
  pid = t_fork (count_writer ? reader_proc : writer_proc, NULL);
  code = t_count_syscalls (count_writer ? writer_proc : reader_proc, NULL, &sc);
  if (code == T_EXIT_SKIP) {
    kill (pid, SIGKILL);
    t_wait (pid, 5000);
    /* the killed side may have created the channel: nobody else will
     * remove its objects (qemu-user refuses ptrace, for one) */
    t_unlink_channel (dir, ch);
    return -2;
  }
  {
    int other = t_wait (pid, 20000);

    if (other != 0 || code != 0) {
      t_log ("traced side exited %d, other side %d", code, other);
      return -1;
    }
  }
  t_log ("%s, reader spin %llu ms: %llu system calls (%llu futex) over %d "
      "frames", count_writer ? "writer" : "reader",
      (unsigned long long) (spin_ns / MS), (unsigned long long) sc.total,
      (unsigned long long) sc.futex, N_FRAMES);
  return (long) sc.total;
}

int
main (void)
{
  struct doradma_reader_stats rs;
  struct doradma_writer_stats ws;
  long n;
  int ret = T_EXIT_FAIL;

  t_watchdog (120);
  dir = t_shm_dir_new (NULL, "spin");
  if (dir == NULL)
    return T_EXIT_FAIL;

  T_RC (reader_wait (1000 * MS, 0, 0, 1000, &rs), 0, "spinning reader");
  T_CHECK (rs.spins == 1 && rs.sleeps == 0, "spinning reader: spins %llu "
      "sleeps %llu, want 1 and 0", (unsigned long long) rs.spins,
      (unsigned long long) rs.sleeps);
  T_RC (reader_wait (0, 0, 0, 1000, &rs), 0, "sleeping reader");
  T_CHECK (rs.spins == 0 && rs.sleeps == 1, "sleeping reader: spins %llu "
      "sleeps %llu, want 0 and 1", (unsigned long long) rs.spins,
      (unsigned long long) rs.sleeps);
  T_RC (reader_wait (10000 * MS, 1, -EINTR, 1000, &rs), 0, "interrupt");
  T_RC (reader_wait (10000 * MS, 2, -EPIPE, 1000, &rs), 0, "EOS");
  T_RC (spin_notices_dead_writer (), 0, "dead writer");
  T_RC (writer_wait (1000 * MS, &ws), 0, "spinning writer");
  T_CHECK (ws.full_waits == 1 && ws.spins == 1 && ws.sleeps == 0,
      "spinning writer: full waits %llu spins %llu sleeps %llu, want 1 1 0",
      (unsigned long long) ws.full_waits, (unsigned long long) ws.spins,
      (unsigned long long) ws.sleeps);
  T_RC (writer_wait (0, &ws), 0, "sleeping writer");
  T_CHECK (ws.spins == 0 && ws.sleeps == 1, "sleeping writer: spins %llu "
      "sleeps %llu, want 0 and 1", (unsigned long long) ws.spins,
      (unsigned long long) ws.sleeps);

  n = count (0, 0);
  if (n == -2) {
    t_log ("SKIP the system call counts: ptrace is not permitted");
    ret = T_EXIT_PASS;
    goto err;
  }
  /* The reader sleeps for a frame only when it got there before the frame:
   * on a loaded machine (CI runs the chroot legs beside the sanitizers) it
   * often does not (497 of 1000 seen). What these two checks ask is that
   * the count sees the calls at all (a blind count gives 0). */
  T_CHECK (n >= N_FRAMES / 10, "a sleeping reader made %ld system calls over "
      "%d frames: the count does not see its sleeps", n, N_FRAMES);
  n = count (0, 1000 * MS);
  T_CHECK (n >= 0 && n <= N_FRAMES / 100, "a spinning reader made %ld system "
      "calls over %d frames (at most %d allowed: a rare preemption of the "
      "writer for > 1 s)", n, N_FRAMES, N_FRAMES / 100);
  n = count (1, 0);
  T_CHECK (n >= N_FRAMES / 10, "a writer waking a sleeping reader made %ld "
      "system calls over %d frames: the count does not see its wakes", n,
      N_FRAMES);
  n = count (1, 1000 * MS);
  T_CHECK (n >= 0 && n <= N_FRAMES / 100, "a writer publishing to a spinning "
      "reader made %ld system calls over %d frames (at most %d allowed)", n,
      N_FRAMES, N_FRAMES / 100);
  ret = T_EXIT_PASS;
err:
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
