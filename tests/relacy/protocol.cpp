/* Description: the ring's protocol checked on a relaxed memory model (Relacy
 * Race Detector, relacy-dev): every interleaving, and every value C++11
 * allows each load to return, of small two-thread scenarios built from
 * lib's own code: seqlock.h's mark, publish, lease, release and copy read,
 * futex.c's eventcounts (the futex system call stubbed), with lib/atomic.h's
 * orderings (model-atomic.h maps them onto Relacy's atomics), and the
 * orderings of the protocol sites in writer*.c and reader*.c copied by
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
#include "sites.h"
#include "check.h"

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

/* ---- Sites beyond the ring's slot protocol (R4-7): the caps table, the
 * dora pool's generation word, SUPERSEDED, `stopped`, join's `active`, the
 * eviction, the lease bits cleared on close, set_last_seq. Each scenario
 * copies the statement order of its lib function and takes the ordering
 * of every site from lib (SITE_*, orderings.py). */

/* writer-stream.c write_caps_entry / reader-stream.c doradma_reader_caps: a
 * reader that gets a caps entry through the seqlock gets the whole entry. */
struct caps_publish : rl::test_suite < caps_publish, 2 >
{
  rl::atomic < uint64_t > gen;
  rl::atomic < uint32_t > epoch;
  rl::atomic < uint32_t > c0, c1;

  void before ()
  {
    gen ($).store (0, rl::mo_relaxed);
    epoch ($).store (0, rl::mo_relaxed);
    c0 ($).store (0, rl::mo_relaxed);
    c1 ($).store (0, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      dr_store_relaxed (U64 (gen), 1);
      SITE_CAPS_ODD_FENCE ();
      dr_store_relaxed ((uint32_t *) & epoch, 1);
      dr_store_relaxed (U32 (c0), 'a');
      dr_store_relaxed (U32 (c1), 'b');
      SITE_CAPS_PUBLISH (U64 (gen), 2);
    } else {
      uint64_t g = seqlock_read_begin (U64 (gen));
      if (g & 1)
        return;
      uint32_t e = dr_load_relaxed ((uint32_t *) & epoch);
      uint32_t a = dr_load_relaxed (U32 (c0));
      uint32_t b = dr_load_relaxed (U32 (c1));
      if (!seqlock_read_ok (U64 (gen), g) || g == 0)
        return;
      RL_ASSERT (e == 1 && a == 'a' && b == 'b');
    }
  }
};

/* The same entry rewritten (a new epoch in the same slot of the table): a
 * copy that passes the re-check is one entry, never half of each (the
 * release fence after the odd gen). */
struct caps_rewrite : rl::test_suite < caps_rewrite, 2 >
{
  rl::atomic < uint64_t > gen;
  rl::atomic < uint32_t > c0, c1;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    c0 ($).store ('a', rl::mo_relaxed);
    c1 ($).store ('a', rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      dr_store_relaxed (U64 (gen), 3);
      SITE_CAPS_ODD_FENCE ();
      dr_store_relaxed (U32 (c0), 'b');
      dr_store_relaxed (U32 (c1), 'b');
      SITE_CAPS_PUBLISH (U64 (gen), 4);
    } else {
      uint64_t g = seqlock_read_begin (U64 (gen));
      if (g & 1)
        return;
      uint32_t b = dr_load_relaxed (U32 (c1));
      uint32_t a = dr_load_relaxed (U32 (c0));
      if (seqlock_read_ok (U64 (gen), g))
        RL_ASSERT (a == b);
    }
  }
};

/* dora-pool.c writer_create: a reader that sees the first (odd) gen sees
 * the header written before it. */
struct pool_create : rl::test_suite < pool_create, 2 >
{
  rl::atomic < uint64_t > gen;
  rl::var < int >header;

  void before ()
  {
    gen ($).store (0, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      header ($) = 42;
      SITE_POOL_CREATE (U64 (gen), 1);
    } else if (SITE_POOL_READ_BEGIN (U64 (gen)) != 0) {
      RL_ASSERT (header ($) == 42);
    }
  }
};

/* dora-pool.c writer_begin / writer_end / read_begin: a reader that sees
 * the even gen of a write sees its payload. */
struct pool_publish : rl::test_suite < pool_publish, 2 >
{
  rl::atomic < uint64_t > gen;
  rl::var < int >payload;

  void before ()
  {
    gen ($).store (1, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      uint64_t cur = dr_load_relaxed (U64 (gen));
      if ((cur & 1) == 0)
        dr_store_relaxed (U64 (gen), cur + 1);
      SITE_POOL_BEGIN_FENCE ();
      payload ($) = 42;
      SITE_POOL_END (U64 (gen), (cur & ~(uint64_t) 1) + 2);
    } else {
      uint64_t g = SITE_POOL_READ_BEGIN (U64 (gen));
      if (g == 2)
        RL_ASSERT (payload ($) == 42);
    }
  }
};

/* dora-pool.c: a copy across a rewrite that passes read_ok is one write,
 * never half of each (writer_begin's release fence, read_ok's acquire
 * fence). */
struct pool_rewrite : rl::test_suite < pool_rewrite, 2 >
{
  rl::atomic < uint64_t > gen, a, b;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    a ($).store (1, rl::mo_relaxed);
    b ($).store (1, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      uint64_t cur = dr_load_relaxed (U64 (gen));
      if ((cur & 1) == 0)
        dr_store_relaxed (U64 (gen), cur + 1);
      SITE_POOL_BEGIN_FENCE ();
      dr_store_relaxed (U64 (a), 2);
      dr_store_relaxed (U64 (b), 2);
      SITE_POOL_END (U64 (gen), (cur & ~(uint64_t) 1) + 2);
    } else {
      uint64_t g = SITE_POOL_READ_BEGIN (U64 (gen)), y, x;
      if (g & 1)
        return;
      y = dr_load_relaxed (U64 (b));
      x = dr_load_relaxed (U64 (a));
      SITE_POOL_READ_FENCE ();
      if (dr_load_relaxed (U64 (gen)) == g)
        RL_ASSERT (x == y);
    }
  }
};

/* writer.c supersede_old and writer-replace.c doradma_writer_replace: a
 * reader that sees SUPERSEDED sees final_seq and every frame up to it. */
template < int REPLACE > struct superseded_t:rl::test_suite < superseded_t <
    REPLACE >, 2 >
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
      dr_store_relaxed (U64 (final_seq), 1);
      if (REPLACE)
        SITE_REPLACE_STATE (U32 (state), DORADMA_STATE_SUPERSEDED);
      else
        SITE_SUPERSEDE_STATE (U32 (state), DORADMA_STATE_SUPERSEDED);
    } else {
      uint32_t st = SITE_NEXT_STATE (U32 (state));
      uint64_t n = DORADMA_NEWEST_SEQ (SITE_FIND_NEWEST (U64 (newest)));
      uint64_t f = dr_load_relaxed (U64 (final_seq));
      RL_ASSERT (st != DORADMA_STATE_SUPERSEDED || (n == 1 && f == 1));
    }
  }
};

/* writer.c doradma_writer_close / reader-stream.c
 * doradma_reader_writer_stopped: a reader that sees the clean stop sees
 * every frame published before it (it drains them before it reports the
 * end). */
struct stopped : rl::test_suite < stopped, 2 >
{
  rl::atomic < uint64_t > newest;
  rl::atomic < uint32_t > stop;

  void before ()
  {
    newest ($).store (0, rl::mo_relaxed);
    stop ($).store (0, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (1ull, 0u));
      SITE_STOPPED (U32 (stop), 1);
    } else if (SITE_STOPPED_LOAD (U32 (stop)) == 1) {
      RL_ASSERT (DORADMA_NEWEST_SEQ (SITE_FIND_NEWEST (U64 (newest))) == 1);
    }
  }
};

/* reader.c join against the writer's scans of `active` (min_consumed,
 * evict_stalled, unadopted, active_readers, replace's carry-over): a scan
 * that sees the reader's bit sees its entry ACTIVE with the consumed_seq
 * it joined with (a stale 0 would let a lossless writer overwrite frames
 * the new reader was promised). SCAN picks the writer's site. */
enum
{ SCAN_MIN, SCAN_EVICT, SCAN_UNADOPTED, SCAN_ACTIVE_READERS, SCAN_REPLACE };
template < int SCAN > struct join_t:rl::test_suite < join_t < SCAN >, 2 >
{
  rl::atomic < uint64_t > active, consumed;
  rl::atomic < uint32_t > state;

  void before ()
  {
    active ($).store (0, rl::mo_relaxed);
    consumed ($).store (0, rl::mo_relaxed);
    state ($).store (DORADMA_READER_FREE, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_JOIN_CONSUMED (U64 (consumed), 5);
      SITE_JOIN_STATE (U32 (state), DORADMA_READER_ACTIVE);
      SITE_JOIN_ACTIVE (U64 (active), 1ull);
    } else {
      uint64_t a = SCAN == SCAN_MIN ? SITE_MIN_ACTIVE (U64 (active)) :
          SCAN == SCAN_EVICT ? SITE_EVICT_ACTIVE (U64 (active)) :
          SCAN == SCAN_UNADOPTED ? SITE_UNADOPTED_ACTIVE (U64 (active)) :
          SCAN == SCAN_ACTIVE_READERS ? SITE_ACTIVE_READERS (U64 (active)) :
          SITE_REPLACE_ACTIVE (U64 (active));
      if (!(a & 1))
        return;
      RL_ASSERT (dr_load_relaxed (U32 (state)) == DORADMA_READER_ACTIVE);
      uint64_t c = SCAN == SCAN_EVICT ? SITE_EVICT_CONSUMED (U64 (consumed)) :
          SCAN == SCAN_MIN ? SITE_WRITER_CONSUMED (U64 (consumed)) :
          dr_load_relaxed (U64 (consumed));
      RL_ASSERT (c == 5);
    }
  }
};

/* writer-readers.c evict_locked / reader-consume.c check_evicted: a reader
 * that sees itself evicted resumes no earlier than the newest frame at the
 * eviction (older frames may already be rewritten: the writer stopped
 * waiting). */
struct evicted : rl::test_suite < evicted, 2 >
{
  rl::atomic < uint64_t > newest;
  rl::atomic < uint32_t > state;

  void before ()
  {
    newest ($).store (0, rl::mo_relaxed);
    state ($).store (DORADMA_READER_ACTIVE, rl::mo_relaxed);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      SITE_PUBLISH_NEWEST (U64 (newest), DORADMA_NEWEST_PACK (3ull, 0u));
      SITE_EVICT_STATE (U32 (state), DORADMA_READER_EVICTED);
    } else if (SITE_EVICTED_STATE (U32 (state)) == DORADMA_READER_EVICTED) {
      RL_ASSERT (DORADMA_NEWEST_SEQ (SITE_EVICTED_NEWEST (U64 (newest))) == 3);
    }
  }
};

/* writer-readers.c old_entry_state against reader.c join: the writer
 * checks a carried reader's old entry (its lock held) by state, then
 * token. A later reader that took the entry (the carried one left) stores
 * its token, then ACTIVE (RELEASE); the writer that sees that ACTIVE must
 * see the new token (ACQUIRE), or it takes the newcomer for the carried
 * reader and keeps the carried entry RESERVED. */
struct old_entry : rl::test_suite < old_entry, 2 >
{
  rl::atomic < uint64_t > token;
  rl::atomic < uint32_t > state;

  void before ()
  {
    token ($).store (1, rl::mo_relaxed);        /* the carried reader's */
    state ($).store (DORADMA_READER_FREE, rl::mo_relaxed);      /* it left */
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      dr_store_relaxed (U64 (token), 2);
      SITE_JOIN_STATE (U32 (state), DORADMA_READER_ACTIVE);
    } else {
      uint32_t st = SITE_OLD_ENTRY_STATE (U32 (state));
      uint64_t tok = dr_load_relaxed (U64 (token));

      RL_ASSERT (!(st == DORADMA_READER_ACTIVE && tok == 1));
    }
  }
};

/* reader.c clear_our_bit_everywhere (close, fork child): payload reads
 * under a lease happen before the writer's rewrite once the bit is gone. */
struct clear_leases : rl::test_suite < clear_leases, 2 >
{
  rl::atomic < uint64_t > gen, lease;
  rl::var < int >payload;

  void before ()
  {
    gen ($).store (2, rl::mo_relaxed);
    lease ($).store (1, rl::mo_relaxed);
    payload ($) = 42;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (payload ($) == 42);
      SITE_CLEAR_LEASES (U64 (lease), ~1ull);
    } else if (seqlock_mark (U64 (gen), U64 (lease), 2, UINT64_MAX)) {
      payload ($) = 7;
    }
  }
};

/* reader-consume.c doradma_reader_set_last_seq: like consume, the frames up
 * to the new position are read before a lossless writer rewrites them. */
struct set_last_seq : rl::test_suite < set_last_seq, 2 >
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
      SITE_SET_LAST_SEQ (U64 (consumed), 1);
    } else if (SITE_WRITER_CONSUMED (U64 (consumed)) >= 1) {
      payload ($) = 7;
    }
  }
};

/* reader.c doradma_reader_close: a copy reader's last copies happen before
 * a lossless writer that sees our bit gone rewrites the slot (the shape of
 * consume, through `active`). */
struct close_active : rl::test_suite < close_active, 2 >
{
  rl::atomic < uint64_t > active;
  rl::var < int >payload;

  void before ()
  {
    active ($).store (1, rl::mo_relaxed);
    payload ($) = 42;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (payload ($) == 42);
      SITE_CLOSE_ACTIVE (U64 (active), ~1ull);
    } else if (!(SITE_MIN_ACTIVE (U64 (active)) & 1)) {
      payload ($) = 7;
    }
  }
};

/* inspect.c inspect_records (the CLI): copy 1 gives the gen, copy 2 the
 * record, copy 3 the gen again; the kernel's pread(2) loads stand here as
 * relaxed loads. A record whose gen was even and the same in copies 1 and
 * 3 is one frame, never half of each (the two full fences). */
struct inspect_copies : rl::test_suite < inspect_copies, 2 >
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
      uint64_t g1 = dr_load_relaxed (U64 (gen)), x, y, g3;
      SITE_INSPECT_FENCE_1 ();
      y = dr_load_relaxed (U64 (b));
      x = dr_load_relaxed (U64 (a));
      SITE_INSPECT_FENCE_2 ();
      g3 = dr_load_relaxed (U64 (gen));
      if (!(g1 & 1) && g1 == g3)
        RL_ASSERT (x == y);
    }
  }
};

template < class T > static int
check (const char *name, const char *only)
{
  rl::test_params p;

  p.search_type = rl::sched_full;
  p.output_history = false;
  return relacy_check < T > (name, only, p);
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
  failed += check < caps_publish > ("caps_publish", only);
  failed += check < caps_rewrite > ("caps_rewrite", only);
  failed += check < pool_create > ("pool_create", only);
  failed += check < pool_publish > ("pool_publish", only);
  failed += check < pool_rewrite > ("pool_rewrite", only);
  failed += check < superseded_t < 0 > >("supersede_old", only);
  failed += check < superseded_t < 1 > >("replace", only);
  failed += check < stopped > ("stopped", only);
  failed += check < join_t < SCAN_MIN > >("join_min_consumed", only);
  failed += check < join_t < SCAN_EVICT > >("join_evict_stalled", only);
  failed += check < join_t < SCAN_UNADOPTED > >("join_unadopted", only);
  failed += check < join_t < SCAN_ACTIVE_READERS > >("join_active_readers",
      only);
  failed += check < join_t < SCAN_REPLACE > >("join_replace", only);
  failed += check < evicted > ("evicted", only);
  failed += check < old_entry > ("old_entry", only);
  failed += check < clear_leases > ("clear_leases", only);
  failed += check < set_last_seq > ("set_last_seq", only);
  failed += check < close_active > ("close_active", only);
  failed += check < inspect_copies > ("inspect_copies", only);
  return failed ? 1 : 0;
}
