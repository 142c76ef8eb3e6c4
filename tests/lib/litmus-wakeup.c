/* Description: publish vs wait (the notify eventcount). (1) A reader
 * sleeping in doradma_reader_next with a long timeout gets every one of 50k
 * frames without waiting for its timeout: the writer publishes after a
 * random 0-20 us pause, so the publish lands anywhere in the reader's
 * "check, set bit 0, FUTEX_WAIT" path; a lost wakeup shows as a wait that
 * lasts >= the timeout (must be 0). (2) A dead sleeper (a child sleeping in
 * next, killed with kill -9) costs one wake at most: after one publish
 * clears bit 0 of notify, it stays clear over 1000 publishes, and those
 * publishes make no futex call (counted with ptrace around the publishing
 * process; skipped with a reason if ptrace is not permitted).
 * (3) doradma_reader_interrupt wakes a sleeping reader with -EINTR at once.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define FRAMES 50000
#define WAIT_NS 1000000000ll
#define BYTES 4096

static char *dir;

/* ---- (1) every frame wakes the sleeper ---- */

struct wake_ctx
{
  struct doradma_reader *r;
  uint64_t got;                 /* last sequence received */
  uint64_t lost;                /* waits that reached the timeout */
  uint64_t slept;               /* waits that took > 20 us (really slept) */
  uint64_t wrong;
  int error;
};

static void *
wake_reader (void *arg)
{
  struct wake_ctx *c = arg;

  for (;;) {
    struct doradma_frame f;
    uint64_t t0 = t_now_ns (), dt;
    int rc = doradma_reader_next (c->r, DORADMA_READ_NEXT, WAIT_NS, &f, NULL);

    dt = t_now_ns () - t0;
    if (rc == -EPIPE)
      break;
    if (rc == -ETIMEDOUT || dt >= (uint64_t) WAIT_NS) {
      t_log ("lost wakeup: a wait took %llu ns (rc %s) after frame %llu",
          (unsigned long long) dt, t_errname (rc), (unsigned long long) c->got);
      if (++c->lost >= 3)
        break;
      if (rc < 0)
        continue;
    } else if (rc < 0) {
      t_log ("next: %s", t_errname (rc));
      c->error = 1;
      break;
    }
    if (dt > 20000)
      c->slept++;
    if (f.info.seq != c->got + 1)
      c->wrong++;
    doradma_reader_release (c->r, f.slot);
    __atomic_store_n (&c->got, f.info.seq, __ATOMIC_RELEASE);
  }
  return NULL;
}

static int
test_every_frame_wakes (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct wake_ctx c;
  pthread_t th;
  unsigned seed = 42;
  char ch[64];
  int started = 0, ret = -1;
  uint64_t n = 0, t_start = t_now_ns ();

  memset (&c, 0, sizeof c);
  t_channel (ch, sizeof ch, "wake");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &c.r, NULL), 0, "open");
  T_CHECK (pthread_create (&th, NULL, wake_reader, &c) == 0, "thread");
  started = 1;

  for (n = 1; n <= FRAMES; n++) {
    uint64_t until = t_now_ns () + (rand_r (&seed) % 20000);
    while (t_now_ns () < until) {
    }
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0,
        "publish");
    /* Wait for the reader to have it, so that every frame meets a reader
     * on its way to sleep (bounded: a lost wakeup costs one WAIT_NS). */
    while (__atomic_load_n (&c.got, __ATOMIC_ACQUIRE) < n && !c.error &&
        c.lost < 3)
      sched_yield ();
    if (c.error || c.lost >= 3 || t_now_ns () - t_start > 40000000000ull)
      break;
  }
  T_RC (doradma_writer_eos (w), 0, "eos");
  pthread_join (th, NULL);
  started = 0;
  t_log ("%llu frames, %llu waits really slept, %llu lost wakeups, %llu out "
      "of order", (unsigned long long) c.got, (unsigned long long) c.slept,
      (unsigned long long) c.lost, (unsigned long long) c.wrong);
  T_CHECK (c.lost == 0, "lost wakeups");
  T_CHECK (!c.error && c.wrong == 0, "reader errors");
  T_CHECK (c.got >= 10000, "only %llu frames", (unsigned long long) c.got);
  T_CHECK (c.slept > 0, "the reader never slept: the test did not test");
  ret = 0;
err:
  if (started) {
    doradma_writer_eos (w);
    pthread_join (th, NULL);
  }
  doradma_reader_close (c.r);
  doradma_writer_close (w);
  return ret;
}

/* ---- (2) a dead sleeper ---- */

static const char *dead_channel;

static int
sleeper (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_frame f;

  t_reader_config (&rc, dead_channel, dir, 0);
  if (doradma_reader_open (&rc, &r, NULL) < 0)
    return 2;
  if (doradma_reader_next (r, DORADMA_READ_NEXT, WAIT_NS, &f, NULL) < 0)
    return 3;
  doradma_reader_release (r, f.slot);
  /* Sleep until killed. */
  doradma_reader_next (r, DORADMA_READ_NEXT, -1, &f, NULL);
  return 4;
}

#define DEAD_PUBLISHES 1000

/* Runs in the traced process: the writer, its dead sleeper, the publishes. */
static int
dead_sleeper_writer (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_shm_ctl *ctl = NULL;
  uint64_t t0;
  uint32_t v;
  pid_t pid;
  int code = 1, set_after = 0;

  t_writer_config (&wc, dead_channel, dir, 4, BYTES);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  ctl = t_ctl_map (dir, dead_channel);
  T_CHECK (ctl != NULL, "map ctl");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0,
      "publish");
  pid = t_fork (sleeper, NULL);
  T_CHECK (pid > 0, "fork");
  /* Bit 0 of notify = someone may sleep. */
  t0 = t_now_ns ();
  while (!(__atomic_load_n (&ctl->notify, __ATOMIC_ACQUIRE) & 1)) {
    if (t_now_ns () - t0 > 5000000000ull) {
      t_log ("the sleeper never set bit 0 of notify");
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      goto err;
    }
    usleep (1000);
  }
  usleep (50000);               /* let it enter FUTEX_WAIT */
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  v = __atomic_load_n (&ctl->notify, __ATOMIC_ACQUIRE);
  t_log ("dead sleeper left notify = %#x", v);

  /* One publish pays the spurious wake and clears bit 0... */
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0,
      "publish");
  v = __atomic_load_n (&ctl->notify, __ATOMIC_ACQUIRE);
  T_CHECK (!(v & 1), "bit 0 still set after a publish: notify = %#x", v);

  /* ...and then nothing: no bit, no futex call. */
  t_mark_begin ();
  for (int i = 0; i < DEAD_PUBLISHES; i++) {
    if (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL) < 0)
      break;
    if (__atomic_load_n (&ctl->notify, __ATOMIC_ACQUIRE) & 1)
      set_after++;
  }
  t_mark_end ();
  T_CHECK (set_after == 0, "bit 0 of notify set again after %d publishes",
      set_after);
  code = 0;
err:
  t_ctl_unmap (ctl);
  doradma_writer_close (w);
  return code;
}

static int
test_dead_sleeper (void)
{
  struct t_syscounts sc;
  char ch[64];
  int code;

  dead_channel = t_channel (ch, sizeof ch, "dead");
  code = t_count_syscalls (dead_sleeper_writer, NULL, &sc);
  if (code == T_EXIT_SKIP) {
    t_log ("ptrace not permitted: checking bit 0 only, futex calls uncounted");
    code = t_wait (t_fork (dead_sleeper_writer, NULL), 30000);
    return code == 0 ? 0 : -1;
  }
  t_log ("%d publishes after the dead sleeper: %llu system calls, %llu futex",
      DEAD_PUBLISHES, (unsigned long long) sc.total,
      (unsigned long long) sc.futex);
  T_CHECK (code == 0, "publishing process failed (exit %d)", code);
  T_CHECK (sc.futex == 0, "%llu futex calls in %d publishes nobody sleeps on",
      (unsigned long long) sc.futex, DEAD_PUBLISHES);
  T_CHECK (sc.total == 0, "%llu system calls in %d publishes nobody sleeps on",
      (unsigned long long) sc.total, DEAD_PUBLISHES);
  return 0;
err:
  return -1;
}

/* ---- (3) interrupt ---- */

static void *
interrupter (void *arg)
{
  usleep (100000);
  doradma_reader_interrupt (arg, 1);
  return NULL;
}

static int
test_interrupt (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  pthread_t th;
  uint64_t t0, dt;
  char ch[64];
  int ret = -1;

  t_channel (ch, sizeof ch, "intr");
  t_writer_config (&wc, ch, dir, 2, BYTES);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  pthread_create (&th, NULL, interrupter, r);
  t0 = t_now_ns ();
  int rc2 = doradma_reader_next (r, DORADMA_READ_NEXT, 10 * WAIT_NS, &f, NULL);
  dt = t_now_ns () - t0;
  pthread_join (th, NULL);
  T_RC (rc2, -EINTR, "next while interrupted");
  T_CHECK (dt < 2000000000ull, "interrupt took %llu ns",
      (unsigned long long) dt);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, WAIT_NS, &f, NULL), -EINTR,
      "next after interrupt(1)");
  doradma_reader_interrupt (r, 0);
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0,
      "publish");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, WAIT_NS, &f, NULL), 0,
      "next after interrupt(0)");
  doradma_reader_release (r, f.slot);
  ret = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return ret;
}

int
main (void)
{
  int failed = 0;

  t_watchdog (110);
  dir = t_shm_dir_new (NULL, "wakeup");
  if (dir == NULL)
    return T_EXIT_FAIL;
  if (test_every_frame_wakes () < 0)
    failed++;
  if (test_dead_sleeper () < 0)
    failed++;
  if (test_interrupt () < 0)
    failed++;
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
