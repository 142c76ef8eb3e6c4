/* Description: the statement order of the writer's release stores, seen
 * by a reader at the instant right after each of them. Built against lib's
 * own sources with step-atomic.h: the hook runs in the writer's thread
 * after every RELEASE store of doradma_writer_publish, doradma_writer_eos
 * and doradma_writer_replace, and looks at the segment as a reader does
 * (the reader's own mapping; its real doradma_reader_next for publish):
 *   publish  once newest names frame k, a NEXT reader gets frame k at once
 *            (slot_seq before newest: otherwise find_frame finds nothing
 *            and the reader sleeps on a frame that is there);
 *   eos      once state is EOS, final_seq is the last frame (layout.h:
 *            "state: stored RELEASE after final_seq"; tools and other
 *            implementations read final_seq after state);
 *   replace  the same for SUPERSEDED on the replaced segment;
 *   join     (doradma_reader_open) once a reader's bit is in `active`, the
 *            writer counts it (doradma_writer_get_stats: its entry is
 *            ACTIVE; reader.c: "the writer that sees our active bit sees
 *            the entry").
 * With the two stores of any of them swapped in lib/writer*.c or
 * lib/reader.c (the ordering harness's swap mutants) the check at the
 * second hook fails: checked by hand for each, on x86.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "step-atomic.h"

#define BYTES 4096

void (*volatile step_hook) (enum step_op op, const void *p, uint64_t v, int mo);

enum check
{
  CHECK_PUBLISH,
  CHECK_FINAL,
  CHECK_JOIN,
};

static struct
{
  enum check what;
  struct doradma_reader *r;
  const struct doradma_shm_rcb *rcb;    /* the reader's mapping */
  struct doradma_writer *w;
  const struct doradma_shm_ctl *ctl;    /* a mapping of the ctl object */
  uint64_t want_seq;
  uint32_t want_state;
  int in_hook, stops, delivered, failed;
} t;

static void
check_now (void)
{
  if (t.what == CHECK_PUBLISH) {
    uint64_t n = __atomic_load_n (&t.rcb->newest, __ATOMIC_ACQUIRE);
    struct doradma_frame f;
    struct doradma_diag d = { 0 };
    int ret;

    if (DORADMA_NEWEST_SEQ (n) != t.want_seq || t.delivered)
      return;
    ret = doradma_reader_next (t.r, DORADMA_READ_NEXT, 0, &f, &d);
    if (ret != 0 || f.info.seq != t.want_seq) {
      t_log ("newest names frame %llu, but a NEXT reader gets %s (frame "
          "%llu): newest was stored before the slot's slot_seq",
          (unsigned long long) t.want_seq, t_errname (ret),
          ret ? 0ull : (unsigned long long) f.info.seq);
      t.failed++;
    } else {
      doradma_reader_release (t.r, f.slot);
    }
    t.delivered = 1;
  } else if (t.what == CHECK_JOIN) {
    uint64_t active = __atomic_load_n (&t.ctl->active, __ATOMIC_ACQUIRE);
    struct doradma_writer_stats st;

    doradma_writer_get_stats (t.w, &st);
    if ((uint32_t) __builtin_popcountll (active) != st.readers) {
      t_log ("active has %d bits, but the writer counts %u readers: the "
          "bit was set before the entry became ACTIVE",
          __builtin_popcountll (active), st.readers);
      t.failed++;
    }
  } else {
    uint32_t st = __atomic_load_n (&t.rcb->state, __ATOMIC_ACQUIRE);
    uint64_t fs = __atomic_load_n (&t.rcb->final_seq, __ATOMIC_RELAXED);

    if (st == t.want_state && fs != t.want_seq) {
      t_log ("state %u with final_seq %llu, want %llu: state was stored "
          "before final_seq", st, (unsigned long long) fs,
          (unsigned long long) t.want_seq);
      t.failed++;
    }
  }
}

static void
hook (enum step_op op, const void *p, uint64_t v, int mo)
{
  (void) p;
  (void) v;
  if (t.in_hook || (t.what != CHECK_JOIN && (op != STEP_STORE ||
              mo != __ATOMIC_RELEASE)))
    return;
  t.in_hook = 1;                /* the reader's own atomics come back here */
  t.stops++;
  check_now ();
  t.in_hook = 0;
}

static int
run_publish (const char *dir)
{
  struct doradma_writer *w;
  char ch[64];
  uint64_t seq;
  uint32_t slot;
  int failed = 0;

  t_step ("publish: frame 2 while a NEXT reader has read frame 1");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, "p"), 3, BYTES, 0, &w,
          &t.r) == 0, "open pair");
  T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, &seq, &slot) == 0,
      "publish 1");
  {
    struct doradma_frame f;
    struct doradma_diag d = { 0 };
    T_CHECK (doradma_reader_next (t.r, DORADMA_READ_NEXT, 0, &f, &d) == 0 &&
        f.info.seq == 1, "read frame 1");
    doradma_reader_release (t.r, f.slot);
  }
  t.what = CHECK_PUBLISH;
  t.rcb = t_reader_rcb (t.r);
  t.want_seq = 2;
  step_hook = hook;
  T_EXPECT_RC (failed, t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, &seq,
          &slot), 0, "publish 2");
  step_hook = NULL;
  T_EXPECT (failed, t.delivered, "the hook never saw newest = 2 (%d stops)",
      t.stops);
  doradma_reader_close (t.r);
  doradma_writer_close (w);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

static int
run_final (const char *dir, int replace)
{
  struct doradma_writer *w, *w2 = NULL;
  struct doradma_writer_config wc;
  struct doradma_diag d = { 0 };
  char ch[64];
  uint64_t seq;
  uint32_t slot;
  int failed = 0, i;

  t_step ("%s: final_seq before state", replace ? "replace" : "eos");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, replace ? "r" : "e"),
          3, BYTES, 0, &w, &t.r) == 0, "open pair");
  for (i = 0; i < 2; i++)
    T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, &seq,
            &slot) == 0, "publish %d", i + 1);
  t.what = CHECK_FINAL;
  t.rcb = t_reader_rcb (t.r);
  t.want_seq = 2;
  t.want_state = replace ? DORADMA_STATE_SUPERSEDED : DORADMA_STATE_EOS;
  step_hook = hook;
  if (replace) {
    t_writer_config (&wc, ch, dir, 3, BYTES);
    T_EXPECT_RC (failed, doradma_writer_replace (w, &wc, &w2, &d), 0,
        "replace");
  } else {
    T_EXPECT_RC (failed, doradma_writer_eos (w), 0, "eos");
  }
  step_hook = NULL;
  T_EXPECT (failed, __atomic_load_n (&t.rcb->state, __ATOMIC_ACQUIRE) ==
      t.want_state, "state %u, want %u", t.rcb->state, t.want_state);
  doradma_reader_close (t.r);
  doradma_writer_close (w);
  if (w2 != NULL)
    doradma_writer_close (w2);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

static int
run_join (const char *dir)
{
  struct doradma_reader_config rc;
  struct doradma_diag d = { 0 };
  char ch[64];
  int failed = 0;

  t_step ("join: the active bit after the ACTIVE entry");
  memset (&t, 0, sizeof t);
  T_CHECK (t_open_pair (dir, t_channel (ch, sizeof ch, "j"), 3, BYTES, 0,
          &t.w, NULL) == 0, "open writer");
  t.ctl = t_ctl_map (dir, ch);
  T_CHECK (t.ctl != NULL, "map ctl");
  t.what = CHECK_JOIN;
  t_reader_config (&rc, ch, dir, 1);
  step_hook = hook;
  T_EXPECT_RC (failed, doradma_reader_open (&rc, &t.r, &d), 0, "reader open");
  step_hook = NULL;
  T_EXPECT (failed, t.stops > 0, "no atomic of the join seen");
  if (t.r != NULL)
    doradma_reader_close (t.r);
  t_ctl_unmap ((struct doradma_shm_ctl *) t.ctl);
  doradma_writer_close (t.w);
  return failed + t.failed;
err:
  step_hook = NULL;
  return 1;
}

int
main (void)
{
  char *dir;
  int failed;

  t_watchdog (60);
  dir = t_shm_dir_new (NULL, "interleave-stores");
  T_CHECK (dir != NULL, "shm dir");
  failed = run_publish (dir);
  failed += run_final (dir, 0);
  failed += run_final (dir, 1);
  failed += run_join (dir);
  t_shm_dir_remove (dir);
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
