/* Description: the ring's protocol checked on a relaxed memory model (Relacy
 * Race Detector, relacy-dev): every interleaving, and every value C++11
 * allows each load to return, of small two-thread scenarios built from
 * lib's own code: seqlock.h's mark, publish, lease, release and copy read,
 * futex.c's eventcounts (the futex system call stubbed), with lib/atomic.h's
 * orderings (model-atomic.h maps them onto Relacy's atomics), and the
 * orderings of the protocol sites in writer.c and reader.c copied by
 * orderings.py (SITE_*). One scenario per row of DESIGN.md §3; weakening an
 * ordering it covers makes Relacy report a data race on the payload (an
 * rl::var) or a failed assertion, and this test fail. x86 cannot show these
 * bugs; aarch64 (Jetson) can.
 *
 *   relacy-protocol [SCENARIO]   (no argument: all; exit 0 pass, 1 fail) */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "model-atomic.h"
/* Relacy emulates errno and futex(); lib's own futex.c is checked here,
 * with glibc's errno and the stub below. */
#undef errno
#define errno (*__errno_location ())
#undef futex

/* lib's headers are C11 */
#define _Static_assert static_assert
#include "doradma/layout.h"

#include "seqlock.h"
#include "orderings.h"

/* ---- futex.c with the system call replaced by a model of the kernel's
 * futex: FUTEX_WAIT compares the word atomically (an RMW reads the latest
 * value, as the kernel's check under its hash-bucket lock does) and records
 * that the caller went to sleep; FUTEX_WAKE records a wake. */
static int model_slept, model_woken;

static long
model_futex (uint32_t * uaddr, int op, uint32_t val)
{
  if (op == FUTEX_WAIT) {
    if (model_cell (uaddr).fetch_add (0, rl::mo_relaxed, $) == val) {
      model_slept = 1;
      return 0;
    }
    errno = EAGAIN;
    return -1;
  }
  model_woken = 1;
  return 0;
}

#define syscall(nr, uaddr, op, val, ts, a, b) model_futex (uaddr, op, val)
#include "futex.c"
#undef syscall

#define U64(a) ((uint64_t *) &(a))
#define U32(a) ((uint32_t *) &(a))

/* Mark against lease (Dekker): never both the writer's mark and a reader's
 * lease on the same frame. Needs both full fences. */
struct mark_vs_lease : rl::test_suite < mark_vs_lease, 2 >
{
  rl::atomic < uint64_t > gen, lease;
  int got, leased;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    lease ($).store (0, rl::mo_relaxed);
    got = leased = 0;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      got = seqlock_mark (U64 (gen), U64 (lease), 2, UINT64_MAX);
    } else {
      uint64_t g = SITE_LEASE_GEN (U64 (gen));
      if (!(g & 1))
        leased = lease_try (U64 (lease), U64 (gen), g, 1);
    }
  }
  void after ()
  {
    RL_ASSERT (!(got && leased));
  }
};

/* Publish, then a reader leases the frame and reads its payload: the
 * writer's release of gen and the reader's acquire of it. */
struct publish_lease : rl::test_suite < publish_lease, 2 >
{
  rl::atomic < uint64_t > gen, lease;
  rl::var < int >payload;

  void before ()
  {
    gen ($).store (1, rl::mo_relaxed);  /* marked: the writer owns it */
    lease ($).store (0, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      payload ($) = 42;
      seqlock_publish (U64 (gen), 1);
    } else {
      uint64_t g = SITE_LEASE_GEN (U64 (gen));
      if (g == 2 && lease_try (U64 (lease), U64 (gen), g, 1)) {
        RL_ASSERT (payload ($) == 42);
        lease_release (U64 (lease), 1);
      }
    }
  }
};

/* A reader done with a frame releases its lease; the writer marks the slot
 * and rewrites the payload: the release of the lease bit and the acquire
 * of the lease word in seqlock_mark. */
struct release_mark : rl::test_suite < release_mark, 2 >
{
  rl::atomic < uint64_t > gen, lease;
  rl::var < int >payload;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    lease ($).store (1, rl::mo_relaxed);        /* the reader holds it */
    payload ($) = 42;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (payload ($) == 42);
      lease_release (U64 (lease), 1);
    } else {
      if (seqlock_mark (U64 (gen), U64 (lease), 2, UINT64_MAX))
        payload ($) = 7;
    }
  }
};

/* The writer finds a lease and puts gen back: a reader that reads the
 * put-back value must still synchronise with the publish before it. */
struct put_back : rl::test_suite < put_back, 2 >
{
  rl::atomic < uint64_t > gen, lease;
  rl::var < int >payload;

  void before ()
  {
    gen ($).store (1, rl::mo_relaxed);
    lease ($).store (1, rl::mo_relaxed);        /* another reader's bit */
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      payload ($) = 42;
      seqlock_publish (U64 (gen), 1);
      RL_ASSERT (!seqlock_mark (U64 (gen), U64 (lease), 2, UINT64_MAX));
    } else {
      uint64_t g = SITE_LEASE_GEN (U64 (gen));
      if (g == 2 && lease_try (U64 (lease), U64 (gen), g, 2))
        RL_ASSERT (payload ($) == 42);
    }
  }
};

/* Copy read (no lease) across a rewrite: a copy that passes read_ok is one
 * frame, never half of each. */
struct copy_read : rl::test_suite < copy_read, 2 >
{
  rl::atomic < uint64_t > gen, lease, a, b;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    lease ($).store (0, rl::mo_relaxed);
    a ($).store (1, rl::mo_relaxed);
    b ($).store (1, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      if (seqlock_mark (U64 (gen), U64 (lease), 2, UINT64_MAX)) {
        dr_store_relaxed (U64 (a), 2);
        dr_store_relaxed (U64 (b), 2);
        seqlock_publish (U64 (gen), 3);
      }
    } else {
      uint64_t g = seqlock_read_begin (U64 (gen)), x, y;
      if (g & 1)
        return;
      x = dr_load_relaxed (U64 (a));
      y = dr_load_relaxed (U64 (b));
      if (seqlock_read_ok (U64 (gen), g))
        RL_ASSERT (x == y);
    }
  }
};

/* A `next` reader scanning slot_seq below newest never skips a frame:
 * frames 1 (slot 0) and 2 (slot 1) published, the reader sees newest 2 and
 * must find frame 1 (the RELEASE of newest, the ACQUIRE in find_frame). */
struct newest_scan : rl::test_suite < newest_scan, 2 >
{
  rl::atomic < uint64_t > newest, seq0, seq1;

  void before ()
  {
    newest ($).store (0, rl::mo_relaxed);
    seq0 ($).store (0, rl::mo_relaxed);
    seq1 ($).store (0, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_PUBLISH_SLOT_SEQ (U64 (seq0), 1);
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (1ull, 0u));
      SITE_PUBLISH_SLOT_SEQ (U64 (seq1), 2);
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (2ull, 1u));
    } else {
      uint64_t n = DORADMA_NEWEST_SEQ (SITE_FIND_NEWEST (U64 (newest)));
      uint64_t q0 = SITE_FIND_SLOT_SEQ (U64 (seq0));
      uint64_t q1 = SITE_FIND_SLOT_SEQ (U64 (seq1));
      /* The oldest frame in (0, n]: frame 1 whenever n >= 1. */
      uint64_t best = 0;
      if (q0 > 0 && q0 <= n)
        best = q0;
      if (q1 > 0 && q1 <= n && (best == 0 || q1 < best))
        best = q1;
      RL_ASSERT (n == 0 || best == 1);
    }
  }
};

/* Reader waits, writer publishes and bumps notify: no lost wake-up (a
 * sleeper is always woken), from eventcount_snapshot's ACQUIRE and
 * eventcount_bump's RELEASE CAS. */
struct wake : rl::test_suite < wake, 2 >
{
  rl::atomic < uint64_t > newest;
  rl::atomic < uint32_t > notify;

  void before ()
  {
    newest ($).store (0, rl::mo_relaxed);
    notify ($).store (0, rl::mo_relaxed);
    model_slept = model_woken = 0;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (1ull, 0u));
      eventcount_bump (U32 (notify));
    } else {
      uint32_t v = eventcount_snapshot (U32 (notify));
      if (DORADMA_NEWEST_SEQ (SITE_FIND_NEWEST (U64 (newest))) == 0)
        eventcount_wait (U32 (notify), v, -1);
    }
  }
  void after ()
  {
    RL_ASSERT (!model_slept || model_woken);
  }
};

/* EOS: a reader that sees EOS sees every frame before it (it would
 * otherwise end the stream without the last frame). */
struct eos : rl::test_suite < eos, 2 >
{
  rl::atomic < uint64_t > newest, final_seq;
  rl::atomic < uint32_t > state;

  void before ()
  {
    newest ($).store (0, rl::mo_relaxed);
    final_seq ($).store (0, rl::mo_relaxed);
    state ($).store (DORADMA_STATE_LIVE, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (1ull, 0u));
      SITE_EOS_FINAL_SEQ (U64 (final_seq), 1);
      SITE_EOS_STATE (U32 (state), DORADMA_STATE_EOS);
    } else {
      uint32_t st = SITE_NEXT_STATE (U32 (state));
      uint64_t n = DORADMA_NEWEST_SEQ (SITE_FIND_NEWEST (U64 (newest)));
      RL_ASSERT (st != DORADMA_STATE_EOS || n == 1);
    }
  }
};

/* Lossless: a reader's consumed_seq (after its copy) lets the writer reuse
 * the slot: the copy happens before the rewrite. */
struct consume : rl::test_suite < consume, 2 >
{
  rl::atomic < uint64_t > consumed;
  rl::var < int >payload;

  void before ()
  {
    consumed ($).store (0, rl::mo_relaxed);
    payload ($) = 42;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (payload ($) == 42);
      SITE_CONSUME (U64 (consumed), 1);
    } else {
      if (SITE_WRITER_CONSUMED (U64 (consumed)) >= 1)
        payload ($) = 7;
    }
  }
};

template < class T > static int
check (const char *name, const char *only)
{
  rl::test_params p;

  if (only != NULL && strcmp (only, name) != 0)
    return 0;
  p.search_type = rl::sched_full;
  p.output_history = false;
  if (rl::simulate < T > (p)) {
    printf ("ok   %s (%llu executions)\n", name,
        (unsigned long long) p.stop_iteration);
    return 0;
  }
  printf ("FAIL %s: %s\n", name, rl::test_result_str (p.test_result));
  return 1;
}

int
main (int argc, char **argv)
{
  const char *only = argc > 1 ? argv[1] : NULL;
  int failed = 0;

  failed += check < mark_vs_lease > ("mark_vs_lease", only);
  failed += check < publish_lease > ("publish_lease", only);
  failed += check < release_mark > ("release_mark", only);
  failed += check < put_back > ("put_back", only);
  failed += check < copy_read > ("copy_read", only);
  failed += check < newest_scan > ("newest_scan", only);
  failed += check < wake > ("wake", only);
  failed += check < eos > ("eos", only);
  failed += check < consume > ("consume", only);
  return failed ? 1 : 0;
}
