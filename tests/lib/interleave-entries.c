/* Description: the statement order of the stores that free, resume and
 * supersede, seen at the instant right after each of them. Built against
 * lib's own sources with step-atomic.h: the hook runs after every atomic
 * store of the function under test, in its own thread, and looks at the
 * shared words as another process would at that instant:
 *   close    (doradma_reader_close) and
 *   sweep    (doradma_writer_sweep, freeing a dead reader's entry): once an
 *            entry is FREE, its token and flags are 0. FREE is the last
 *            store: a closer killed right after it (the kernel then drops
 *            its entry lock) or the tools must never see a FREE entry that
 *            still names a reader's token;
 *   evicted  (check_evicted, in doradma_reader_next of an evicted
 *            back-pressure reader): a lossless writer acquires a slot at
 *            every instant of the resume. Seeing the entry ACTIVE again, it
 *            must see the reader's new position too, or it waits for (and
 *            evict_stalled evicts again) a reader that has just resumed;
 *   takeover (supersede_old, a writer created over a dead writer's
 *            channel): once the old segment reads SUPERSEDED, final_seq is
 *            its last frame (as interleave-stores checks for replace).
 * With the two stores of any of them swapped in lib (the ordering harness's
 * swap mutants) the check at the instant between them fails: checked by
 * hand for each, on x86.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "step-atomic.h"

#define BYTES 4096

void (*volatile step_hook) (enum step_op op, const void *p, uint64_t v, int mo);

enum check
{
  CHECK_FREE,
  CHECK_RESUME,
  CHECK_FINAL,
};

static struct
{
  enum check what;
  const struct doradma_shm_ctl *ctl;    /* our own mapping of ctl */
  const struct doradma_shm_rcb *rcb;    /* a reader's mapping */
  struct doradma_writer *w;
  uint64_t want_seq;
  int in_hook, stops, failed;
} t;

static char ch[64], *dir;
static struct t_barrier *bar;

static void
check_free (void)
{
  int r;

  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    const struct doradma_shm_reader *e = &t.ctl->readers[r];
    uint32_t st = __atomic_load_n (&e->state, __ATOMIC_ACQUIRE);
    uint64_t tok = __atomic_load_n (&e->token, __ATOMIC_RELAXED);
    uint32_t fl = __atomic_load_n (&e->flags, __ATOMIC_RELAXED);

    if (st == DORADMA_READER_FREE && (tok != 0 || fl != 0)) {
      t_log ("entry %d is FREE with token %#llx flags %#x: FREE was stored "
          "before the entry was cleared", r, (unsigned long long) tok, fl);
      t.failed++;
    }
  }
}

static void
check_resume (void)
{
  uint32_t slot;
  int ret = doradma_writer_acquire (t.w, DORADMA_POLICY_LOSSLESS, 0, &slot);

  if (ret != 0) {
    t_log ("a lossless writer gets %s while the evicted reader resumes: it "
        "sees the entry ACTIVE with the reader's old consumed_seq",
        t_errname (ret));
    t.failed++;
    return;
  }
  doradma_writer_abandon (t.w, slot);
}

static void
check_final (void)
{
  uint32_t st = __atomic_load_n (&t.rcb->state, __ATOMIC_ACQUIRE);
  uint64_t fs = __atomic_load_n (&t.rcb->final_seq, __ATOMIC_RELAXED);

  if (st == DORADMA_STATE_SUPERSEDED && fs != t.want_seq) {
    t_log ("state SUPERSEDED with final_seq %llu, want %llu: state was "
        "stored before final_seq", (unsigned long long) fs,
        (unsigned long long) t.want_seq);
    t.failed++;
  }
}

static void
hook (enum step_op op, const void *p, uint64_t v, int mo)
{
  (void) p;
  (void) v;
  (void) mo;
  if (t.in_hook || op != STEP_STORE)
    return;
  t.in_hook = 1;                /* the checker's own atomics come back here */
  t.stops++;
  if (t.what == CHECK_FREE)
    check_free ();
  else if (t.what == CHECK_RESUME)
    check_resume ();
  else
    check_final ();
  t.in_hook = 0;
}

static int
run_close (void)
{
  struct doradma_writer *w;
  struct doradma_reader *r;
  int failed = 0;

  t_step ("close: token and flags cleared before FREE");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, "c"), 3, BYTES, 1, &w,
          &r) == 0, "open pair");
  t.ctl = t_ctl_map (dir, ch);
  T_CHECK (t.ctl != NULL, "map ctl");
  t.what = CHECK_FREE;
  step_hook = hook;
  doradma_reader_close (r);
  step_hook = NULL;
  T_EXPECT (failed, t.stops >= 3, "only %d stores of close seen", t.stops);
  t_ctl_unmap ((struct doradma_shm_ctl *) t.ctl);
  doradma_writer_close (w);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

/* A back-pressure reader that joins and dies with its entry held. */
static int
dying_reader (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;

  (void) arg;
  t_reader_config (&rc, ch, dir, 1);
  return doradma_reader_open (&rc, &r, NULL) == 0 ? 0 : 1;
}

static int
run_sweep (void)
{
  struct doradma_writer *w;
  pid_t pid;
  int failed = 0, i;

  t_step ("sweep: a dead reader's entry cleared before FREE");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, "s"), 3, BYTES, 1, &w,
          NULL) == 0, "open writer");
  for (i = 0; i < 2; i++)
    T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL) == 0,
        "publish %d", i + 1);
  pid = t_fork (dying_reader, NULL);
  T_CHECK (pid > 0 && t_wait (pid, 10000) == 0, "the reader joined and died");
  t.ctl = t_ctl_map (dir, ch);
  T_CHECK (t.ctl != NULL, "map ctl");
  t.what = CHECK_FREE;
  step_hook = hook;
  i = doradma_writer_sweep (w);
  step_hook = NULL;
  T_EXPECT (failed, i == 1, "sweep reclaimed %d entries, want 1", i);
  t_ctl_unmap ((struct doradma_shm_ctl *) t.ctl);
  doradma_writer_close (w);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

static int
run_evicted (void)
{
  struct doradma_writer *w;
  struct doradma_reader *r;
  struct doradma_frame f;
  struct doradma_diag d = { 0 };
  int failed = 0, i, ret;

  t_step ("evicted: the new position before ACTIVE");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, "v"), 3, BYTES, 1, &w,
          &r) == 0, "open pair");
  /* Three frames fill the ring: the reader read none. */
  for (i = 0; i < 3; i++)
    T_CHECK (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL,
            NULL) == 0, "publish %d", i + 1);
  T_CHECK (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, NULL) < 0,
      "the ring is full behind the reader");
  T_CHECK (doradma_writer_evict_stalled (w, &d) == 1, "reader evicted");
  t.w = w;
  t.what = CHECK_RESUME;
  step_hook = hook;
  ret = doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, &d);
  step_hook = NULL;
  T_EXPECT (failed, ret == 0 && f.info.seq == 3, "resumed at %s seq %llu, "
      "want frame 3", t_errname (ret), ret ? 0ull :
      (unsigned long long) f.info.seq);
  if (ret == 0)
    doradma_reader_release (r, f.slot);
  T_EXPECT (failed, t.stops >= 2, "only %d stores of the resume seen", t.stops);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

/* The first writer: publishes 2 frames, then waits to be killed. */
static int
old_writer (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  int i;

  (void) arg;
  t_writer_config (&wc, ch, dir, 3, BYTES);
  if (doradma_writer_create (&wc, &w, NULL) < 0)
    return 1;
  for (i = 0; i < 2; i++)
    if (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL) < 0)
      return 2;
  t_barrier_wait (bar);
  pause ();
  return 0;
}

static int
run_takeover (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  pid_t pid;
  int failed = 0, ret;

  t_step ("takeover: final_seq before SUPERSEDED");
  memset (&t, 0, sizeof t);
  t_channel (ch, sizeof ch, "t");
  bar = t_barrier_new (2);
  T_CHECK (bar != NULL, "barrier");
  pid = t_fork (old_writer, NULL);
  T_CHECK (pid > 0, "fork");
  t_barrier_wait (bar);
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "reader of the old writer");
  kill (pid, SIGKILL);
  T_CHECK (t_wait (pid, 10000) == 128 + SIGKILL, "old writer killed");
  t.rcb = t_reader_rcb (r);
  t.want_seq = 2;
  t.what = CHECK_FINAL;
  t_writer_config (&wc, ch, dir, 3, BYTES);
  step_hook = hook;
  ret = doradma_writer_create (&wc, &w, NULL);
  step_hook = NULL;
  T_EXPECT_RC (failed, ret, 0, "new writer over the dead one's channel");
  T_EXPECT (failed, __atomic_load_n (&t.rcb->state, __ATOMIC_ACQUIRE) ==
      DORADMA_STATE_SUPERSEDED, "old segment's state %u, want SUPERSEDED",
      t.rcb->state);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return failed + t.failed;
err:
  step_hook = NULL;
  if (r != NULL)
    doradma_reader_close (r);
  return 1;
}

int
main (void)
{
  int failed;

  t_watchdog (60);
  dir = t_shm_dir_new (NULL, "interleave-entries");
  T_CHECK (dir != NULL, "shm dir");
  failed = run_close ();
  failed += run_sweep ();
  failed += run_evicted ();
  failed += run_takeover ();
  t_shm_dir_remove (dir);
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
