/* Description: the per-slot seqlock. (1) lib/seqlock.h's helpers on a local
 * gen word: odd while marked, even after publish, put back to exactly g when
 * a lease exists, a copy read across a mark fails, and all of it across the
 * wrap at 2^64 (the API cannot set gen, so the wrap is tested here).
 * (2) Through the API, inspecting gen words in a reader's mapping: acquire
 * makes gen odd, publish makes it even (+2), abandon makes it even with an
 * empty record that is never delivered. (3) Copy reads racing a writer
 * thread that rewrites the slots: torn copies are counted and discarded,
 * and no copy ever returned mixes two frames. Both outcomes are brought
 * about, not hoped for: the writer pauses 20 ms after each frame until a
 * copy got through whole, then rewrites back to back until one was torn,
 * then mixes random pauses (a loaded machine only makes this slower).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "seqlock.h"

static int
test_helpers (void)
{
  /* *INDENT-OFF* */
  static const uint64_t starts[] = { 0, 2, UINT64_MAX - 3, UINT64_MAX - 1 };
  /* *INDENT-ON* */

  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
    uint64_t g = starts[i], gen = g, lease = 0, s;

    /* Reader samples even g; the writer marks: odd, copy read fails. */
    s = seqlock_read_begin (&gen);
    T_CHECK (s == g && (s & 1) == 0, "read_begin %llx", (unsigned long long) s);
    T_CHECK (seqlock_mark (&gen, &lease, g, 1) == 1, "mark without lease");
    T_CHECK (gen == g + 1 && (gen & 1) == 1, "gen after mark %llx",
        (unsigned long long) gen);
    T_CHECK (!seqlock_read_ok (&gen, s), "copy read across a mark accepted");
    T_CHECK (!seqlock_read_ok (&gen, seqlock_read_begin (&gen)),
        "copy read of an odd gen accepted");
    /* A lease attempt while marked fails and leaves no bit. */
    T_CHECK (lease_try (&lease, &gen, s, 1ull << 5) == 0, "lease while odd");
    T_CHECK (lease == 0, "lease bit left after failed lease_try");
    /* Publish: even again, g + 2 (wrapping to 0 from 2^64 - 2). */
    seqlock_publish (&gen, g + 1);
    T_CHECK (gen == g + 2, "gen after publish %llx, want %llx",
        (unsigned long long) gen, (unsigned long long) (g + 2));
    T_CHECK ((gen & 1) == 0, "odd after publish");
    T_CHECK (!seqlock_read_ok (&gen, s), "copy read across a publish accepted");
    s = seqlock_read_begin (&gen);
    T_CHECK (seqlock_read_ok (&gen, s), "clean copy read rejected (gen %llx)",
        (unsigned long long) gen);

    /* Lease, then the writer's mark sees it and puts back exactly gen. */
    uint64_t g2 = gen;
    T_CHECK (lease_try (&lease, &gen, g2, 1ull << 63) == 1, "lease_try");
    T_CHECK (lease == 1ull << 63, "lease word %llx",
        (unsigned long long) lease);
    T_CHECK (seqlock_mark (&gen, &lease, g2, 1ull << 63) == 0,
        "mark ignored a lease");
    T_CHECK (gen == g2, "put-back %llx, want exactly %llx",
        (unsigned long long) gen, (unsigned long long) g2);
    T_CHECK (seqlock_read_ok (&gen, g2),
        "a copy read across a put-back must stay valid");
    /* Lease bits outside the writer's mask are ignored (distrust). */
    T_CHECK (seqlock_mark (&gen, &lease, g2, 1ull << 62) == 1,
        "mark honoured a bit outside its mask");
    seqlock_publish (&gen, g2 + 1);
    lease_release (&lease, 1ull << 63);
    T_CHECK (lease == 0, "lease word after release %llx",
        (unsigned long long) lease);
  }
  return 0;
err:
  return -1;
}

static uint64_t
gen_of (const struct doradma_shm_rcb *rcb, uint32_t s)
{
  return __atomic_load_n (&rcb->slots[s].gen, __ATOMIC_ACQUIRE);
}

static int
test_api_states (const char *dir)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame_info info;
  struct doradma_frame f;
  struct doradma_diag diag;
  const struct doradma_shm_rcb *rcb;
  uint32_t a, b;
  uint64_t g, seq;
  char ch[64];

  t_channel (ch, sizeof ch, "seq");
  t_writer_config (&wc, ch, dir, 3, 8192);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, &diag), 0, diag.msg);
  rcb = t_reader_rcb (r);
  for (uint32_t s = 0; s < 3; s++)
    T_CHECK ((gen_of (rcb, s) & 1) == 0 && rcb->slots[s].seq == 0,
        "slot %u not empty and even at start", s);

  /* acquire: odd; publish: even, +2. */
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &a), 0, "acquire");
  g = gen_of (rcb, a);
  T_CHECK (g & 1, "gen %llu of an acquired slot is even",
      (unsigned long long) g);
  t_stamp (doradma_writer_slot_data (w, a), 8192, 1);
  t_frame_info (&info, 8192);
  T_RC (doradma_writer_publish (w, a, &info), 0, "publish");
  T_CHECK (gen_of (rcb, a) == g + 1, "gen after publish %llu, want %llu",
      (unsigned long long) gen_of (rcb, a), (unsigned long long) g + 1);
  T_CHECK (rcb->slots[a].seq == 1 && info.seq == 1, "record seq");
  T_RC (doradma_writer_publish (w, a, &info), -EINVAL, "publish twice");
  T_RC (doradma_writer_abandon (w, a), -EINVAL, "abandon a published slot");

  /* The newest slot cannot be marked. */
  T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST, a), -EBUSY,
      "acquire_slot of the newest slot");
  T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST, 3), -EINVAL,
      "acquire_slot out of range");

  /* abandon: odd → even, empty, never delivered. */
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &b), 0,
      "acquire b");
  T_CHECK (b != a, "acquire returned the newest slot");
  T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST, b), -EBUSY,
      "acquire_slot of a WRITING slot");
  g = gen_of (rcb, b);
  T_CHECK (g & 1, "gen of b even while WRITING");
  t_stamp (doradma_writer_slot_data (w, b), 8192, 0xdead);
  T_RC (doradma_writer_abandon (w, b), 0, "abandon");
  T_CHECK ((gen_of (rcb, b) & 1) == 0, "gen odd after abandon");
  T_CHECK (rcb->slots[b].seq == 0, "abandoned record seq %llu",
      (unsigned long long) rcb->slots[b].seq);
  T_RC (doradma_writer_abandon (w, b), -EINVAL, "abandon twice");

  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), 0, "next");
  T_CHECK (f.info.seq == 1 && f.slot == a, "got seq %llu slot %u",
      (unsigned long long) f.info.seq, f.slot);
  doradma_reader_release (r, f.slot);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), -EAGAIN,
      "the abandoned slot was delivered");
  /* Sequence numbers leave no gap for the abandoned frame. */
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 8192, &seq, NULL), 0,
      "publish 2");
  T_CHECK (seq == 2, "seq after an abandon %llu", (unsigned long long) seq);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), 0, "next 2");
  T_CHECK (f.info.seq == 2 && t_check_stamps (f.data, 8192, 2, NULL) == 0,
      "frame 2");
  T_CHECK (f.skipped == 0, "skipped %llu", (unsigned long long) f.skipped);
  doradma_reader_release (r, f.slot);

  doradma_reader_close (r);
  doradma_writer_close (w);
  return 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return -1;
}

/* (3) torn copy reads */
#define TORN_BYTES (2u << 20)

enum torn_phase
{
  QUIET,                        /* until a whole copy */
  BUSY,                         /* until a torn copy */
  MIXED,
};

struct torn_ctx
{
  struct doradma_writer *w;
  int stop;
  int phase;                    /* enum torn_phase, set by the reader */
  uint64_t published;
  int error;
};

static void *
rewriter (void *arg)
{
  struct torn_ctx *c = arg;
  unsigned seed = 1;

  while (!__atomic_load_n (&c->stop, __ATOMIC_RELAXED)) {
    int rc = t_publish (c->w, DORADMA_POLICY_LATEST, 0, TORN_BYTES, NULL, NULL);
    if (rc == -EAGAIN)
      continue;
    if (rc < 0) {
      t_log ("writer thread: %s", t_errname (rc));
      c->error = rc;
      break;
    }
    c->published++;
    /* A random pause mixes clean and torn copies (without it nearly every
     * 2 MiB copy would be torn): three in four 0..300 us, about one copy
     * (two in a row tear it), the rest 0..3 ms, which a copy outlasts also
     * on a loaded machine (0..300 us alone let no copy through in a
     * Debian 11 CI leg). */
    int phase = __atomic_load_n (&c->phase, __ATOMIC_RELAXED);
    unsigned pause_us = phase == QUIET ? 20000 : phase == BUSY ? 0
        : rand_r (&seed) % 4 ? rand_r (&seed) % 300 : rand_r (&seed) % 3000;
    uint64_t until = t_now_ns () + (uint64_t) pause_us * 1000;
    while (t_now_ns () < until) {
    }
  }
  return NULL;
}

static int
test_torn (const char *dir)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_reader_stats st;
  struct doradma_frame f;
  struct torn_ctx c;
  pthread_t th;
  int started = 0, ret = -1;
  uint64_t copies = 0, mixed = 0, t0, bad = 0;
  uint8_t *buf = malloc (TORN_BYTES);
  char ch[64];

  memset (&c, 0, sizeof c);
  T_CHECK (buf != NULL, "malloc");
  t_channel (ch, sizeof ch, "torn");
  /* Two slots: the writer alternates, so while a copy of the newest frame
   * runs the writer finishes the other slot and marks this one. */
  t_writer_config (&wc, ch, dir, 2, TORN_BYTES);
  T_RC (doradma_writer_create (&wc, &c.w, NULL), 0, "create");
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  T_CHECK (pthread_create (&th, NULL, rewriter, &c) == 0, "thread");
  started = 1;

  t0 = t_now_ns ();
  memset (&st, 0, sizeof st);
  /* 4 s of mixing once both happened; 60 s at most in all */
  while (t_now_ns () - t0 < 60000000000ull) {
    int rc2 = doradma_reader_copy_next (r, DORADMA_READ_LATEST, 100000000,
        buf, TORN_BYTES, &f, NULL);
    if (rc2 == -EAGAIN || rc2 == -ETIMEDOUT)
      continue;
    T_RC (rc2, 0, "copy_next");
    T_CHECK (f.info.payload_bytes == TORN_BYTES, "payload %llu",
        (unsigned long long) f.info.payload_bytes);
    copies++;
    if (t_check_stamps (buf, TORN_BYTES, f.info.seq, &bad) != 0) {
      t_log ("copy of seq %llu mixes in seq %llu", (unsigned long long)
          f.info.seq, (unsigned long long) bad);
      mixed++;
    }
    doradma_reader_get_stats (r, &st);
    if (c.phase == QUIET && copies > 0)
      __atomic_store_n (&c.phase, BUSY, __ATOMIC_RELAXED);
    if (c.phase == BUSY && st.torn > 0) {
      __atomic_store_n (&c.phase, MIXED, __ATOMIC_RELAXED);
      t0 = t_now_ns () - 56000000000ull;
    }
    if (st.torn >= 200 && copies >= 200)
      break;
  }
  T_CHECK (doradma_reader_leases (r) == 0, "copy reads hold leases");
  doradma_reader_get_stats (r, &st);
  t_log ("copy reads: %llu returned, %llu torn (discarded), %llu mixed; "
      "writer published %llu", (unsigned long long) copies,
      (unsigned long long) st.torn, (unsigned long long) mixed,
      (unsigned long long) c.published);
  T_CHECK (mixed == 0, "copy_next returned %llu mixed frames",
      (unsigned long long) mixed);
  T_CHECK (copies > 0, "no copy read succeeded");
  T_CHECK (st.torn > 0, "no torn copy was detected in 60 s, most of it "
      "with the writer rewriting back to back: the re-check never fired");
  ret = 0;
err:
  __atomic_store_n (&c.stop, 1, __ATOMIC_RELAXED);
  if (started)
    pthread_join (th, NULL);
  if (c.error)
    ret = -1;
  doradma_reader_close (r);
  doradma_writer_close (c.w);
  free (buf);
  return ret;
}

int
main (void)
{
  char *dir;
  int failed = 0;

  t_watchdog (60);
  dir = t_shm_dir_new (NULL, "seqlock");
  if (dir == NULL)
    return T_EXIT_FAIL;
  if (test_helpers () < 0)
    failed++;
  if (test_api_states (dir) < 0)
    failed++;
  if (test_torn (dir) < 0)
    failed++;
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
