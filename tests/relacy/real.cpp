/* Description: the ring's protocol checked on a relaxed memory model
 * (Relacy Race Detector) through lib's real functions: writer*.c,
 * reader*.c and futex.c are compiled as they are, with lib/atomic.h's
 * primitives routed to Relacy (real-atomic.h, model-cells.cpp), and each
 * scenario runs doradma_writer_* in one thread and doradma_reader_* in the
 * other on a real segment in a private shm directory. What each call site
 * protects is asserted on the frames the reader gets: the payload a frame
 * carries is an rl::var written before the publish and read after the
 * delivery, so a missing release or acquire on the way is a data race
 * Relacy reports; lib's timed waits are made untimed, so a lost wake-up
 * is a deadlock. protocol.cpp checks the
 * same rows on small copies of the sites; this file checks the sites in
 * place (tests/relacy/reached.py lists which). x86 cannot show these bugs;
 * aarch64 (Jetson) can.
 *
 *   relacy-real [SCENARIO]   (no argument: all; exit 0 pass, 1 fail)
 *   RELACY_SITES=FILE: the call sites in lib the model reached, for
 *   tests/relacy/reached.py */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

/* lib's headers are C11 */
#define _Static_assert static_assert
extern "C" {
#include <doradma/doradma.h>
#include <doradma/dora-pool.h>
#include <doradma/inspect.h>
#include "helpers.h"
#include "liveness.h"
}

#include <relacy/relacy.hpp>
#undef errno
#define errno (*__errno_location ())

#include "model-cells.h"
#include "check.h"

#define SLOTS 2
#define SLOT_BYTES 4096
/* random schedules per scenario (a full search of lib's real calls is
 * too large): each costs about a millisecond, mostly the set-up;
 * RELACY_ITERATIONS overrides (the arm64 leg, under qemu-user) */
#define ITERATIONS 3000

static char *shm_dir;
static unsigned channel_serial;

/* Relacy cannot fork: `forked` makes the reader's calls see the fork
 * generation a child forked without exec sees (lib/reader.c). Only
 * calls across lib's objects are wrapped: reader.c's own (open, close)
 * see the real one, as in the parent. */
static unsigned fork_bump;
extern "C" unsigned __real_fork_generation (void);
extern "C" unsigned
__wrap_fork_generation (void)
{
  return __real_fork_generation () + fork_bump;
}

/* A writer and a reader of a fresh channel, and the frames' payloads: slot
 * i's bytes are payload[i] for the model. */
struct ring
{
  struct doradma_writer *w, *w2;        /* w2: w's successor (replace) */
  struct doradma_reader *r;
  char ch[64];

  /* a writer, and a reader unless backpressure < 0 (it joins in a
   * thread); every wait of the scenario must end by an event (a lost
   * wake-up is a deadlock) */
  void open (int backpressure)
  {
    model_reset ();
    fork_bump = 0;              /* a failed `forked` iteration skips after () */
    snprintf (ch, sizeof ch, "model-%u", channel_serial++);
    w2 = NULL;
    r = NULL;
    if (t_open_pair (shm_dir, ch, SLOTS, SLOT_BYTES, backpressure,
            &w, backpressure < 0 ? NULL : &r) < 0)
      abort ();
    model_begin ();
    model_untimed_waits (true);
  }
  void close ()
  {
    model_end ();
    doradma_reader_close (r);
    doradma_writer_close (w2);
    doradma_writer_close (w);
  }
  /* the reader joins (in a thread): 0 or open's error */
  int join (int backpressure)
  {
    struct doradma_reader_config rc;
    struct doradma_diag d = { 0 };

    t_reader_config (&rc, ch, shm_dir, backpressure);
    return doradma_reader_open (&rc, &r, &d);
  }
  /* acquire (waiting up to timeout_ns), write the payload, publish: the
   * payload of a frame is its sequence number. Returns the slot, or -1. */
  int write (enum doradma_slot_policy policy, int64_t timeout_ns,
      rl::var < uint64_t > *payload, uint64_t seq)
  {
    struct doradma_frame_info info;
    uint32_t slot;

    if (doradma_writer_acquire (w, policy, timeout_ns, &slot) < 0)
      return -1;
    payload[slot] ($) = seq;
    t_frame_info (&info, SLOT_BYTES);
    RL_ASSERT (doradma_writer_publish (w, slot, &info) == 0);
    RL_ASSERT (info.seq == seq);
    return (int) slot;
  }
  /* next (waiting: in the model a wait slice may end at once), checks the
   * payload it got against the frame's sequence, releases the lease.
   * Returns next's result and *seq. */
  int read (rl::var < uint64_t > *payload, uint64_t * seq)
  {
    struct doradma_frame f;
    struct doradma_diag d = { 0 };
    int rc = doradma_reader_next (r, DORADMA_READ_NEXT, -1, &f, &d);

    if (rc == 0) {
      RL_ASSERT (payload[f.slot] ($) == f.info.seq);
      *seq = f.info.seq;
      doradma_reader_release (r, f.slot);
    }
    return rc;
  }
  /* reads until next fails: its error, *seq the last frame delivered */
  int read_to_end (rl::var < uint64_t > *payload, uint64_t * seq)
  {
    int rc;

    while ((rc = read (payload, seq)) == 0)
      continue;
    return rc;
  }
};

/* A scenario on one ring: its payloads, the ring opened with a reader of
 * that back-pressure (< 0: none, it joins in a thread), closed after. */
template < class T, int BACKPRESSURE > struct ring_scenario:rl::test_suite < T,
    2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

  void before ()
  {
    g.open (BACKPRESSURE);
  }
  void after ()
  {
    g.close ();
  }
};

/* Publish, then a `next` reader leases the frame and reads its payload:
 * the publish's release of the slot and the reader's acquire of it
 * (writer-slots.c publish, reader-frames.c find_frame and lease_slot,
 * seqlock.h), and the wake on the notify eventcount (futex.c). */
struct publish_next : ring_scenario < publish_next, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0)
      g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
    else
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
  }
};

/* publish_next with both sides spinning before they sleep (futex.c
 * eventcount_spin; writer-slots.c and reader-frames.c spin paths). */
struct publish_spin : ring_scenario < publish_spin, 1 >
{
  void before ()
  {
    g.open (1);
    doradma_reader_set_spin (g.r, 50000000);
    doradma_writer_set_spin (g.w, 50000000);
  }
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      for (uint64_t n = 1; n <= 3; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, n) >= 0);
    } else {
      for (uint64_t n = 1; n <= 3; n++)
        RL_ASSERT (g.read (payload, &seq) == 0 && seq == n);
    }
  }
};

/* A reader holds frame 1 while the writer publishes two more into a
 * two-slot ring: the writer may take frame 1's slot only after the
 * reader's release (seqlock.h mark against lease, lease_release), and a
 * frame the reader gets is never one the writer is rewriting. */
struct release_reuse : ring_scenario < release_reuse, 0 >
{
  void before ()
  {
    g.open (0);
    g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
  }
  void thread (unsigned t)
  {
    uint64_t seq = 0, last = 0;

    if (t == 0) {
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, 2) >= 0);
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, 3) >= 0);
    } else {
      while (last < 3) {
        RL_ASSERT (g.read (payload, &seq) == 0 && seq > last);
        last = seq;
      }
    }
  }
};

/* Lossless: a back-pressure reader gets frames 1, 2, 3 of a two-slot
 * ring in order; the writer reuses a slot only after the reader consumed
 * its frame (reader-consume.c consume, writer-slots.c min_consumed). */
struct lossless : ring_scenario < lossless, 1 >
{
  void thread (unsigned t)
  {
    uint64_t seq, want;

    if (t == 0) {
      for (want = 1; want <= 3; want++)
        RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, want) >= 0);
    } else {
      for (want = 1; want <= 3; want++)
        RL_ASSERT (g.read (payload, &seq) == 0 && seq == want);
    }
  }
};

/* EOS: a reader that sees the end has seen every frame before it
 * (writer-stream.c eos: final_seq before the state; reader-frames.c). */
struct eos : ring_scenario < eos, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq = 0;
    int rc;

    if (t == 0) {
      g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
      RL_ASSERT (doradma_writer_eos (g.w) == 0);
    } else {
      rc = g.read_to_end (payload, &seq);
      RL_ASSERT (rc == -EPIPE && seq == 1);
    }
  }
};

/* A copy reader (no lease) gets the frame's payload under the slot's
 * seqlock (reader-frames.c copy path, seqlock.h read_begin / read_ok). */
struct copy_next : ring_scenario < copy_next, 0 >
{
  void thread (unsigned t)
  {
    if (t == 0) {
      g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
    } else {
      static uint8_t buf[SLOT_BYTES];
      struct doradma_frame f;
      struct doradma_diag d = { 0 };

      RL_ASSERT (doradma_reader_copy_next (g.r, DORADMA_READ_NEXT, -1, buf,
              sizeof buf, &f, &d) == 0);
      RL_ASSERT (payload[f.slot] ($) == 1 && f.info.seq == 1);
    }
  }
};

/* An abandoned slot is never delivered: the writer gives up a slot it
 * wrote garbage into, then publishes frame 1 (writer-slots.c abandon: the
 * slot's seq cleared before the even gen). */
struct abandon : ring_scenario < abandon, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      uint32_t slot;

      RL_ASSERT (doradma_writer_acquire (g.w, DORADMA_POLICY_LATEST, 0,
              &slot) == 0);
      payload[slot] ($) = 99;
      RL_ASSERT (doradma_writer_abandon (g.w, slot) == 0);
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
    } else {
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
    }
  }
};

/* A back-pressure reader joins while a lossless writer publishes: from
 * the frame it starts at, it gets every frame in order, each intact
 * (reader.c join: consumed_seq and state before the active bit;
 * writer-readers.c min_consumed's scan of active). */
struct join : ring_scenario < join, -1 >
{
  void thread (unsigned t)
  {
    uint64_t seq, last = 0;

    if (t == 0) {
      for (uint64_t n = 1; n <= 3; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, n) >= 0);
    } else {
      RL_ASSERT (g.join (1) == 0);
      /* continuity is taken only from the segment's start (first_seq 1):
       * reader-consume.c set_last_seq */
      last = doradma_reader_last_seq (g.r);
      RL_ASSERT (doradma_reader_set_last_seq (g.r, last) == (last == 0));
      while (last < 3) {
        RL_ASSERT (g.read (payload, &seq) == 0);
        RL_ASSERT (last == 0 || seq == last + 1);
        last = seq;
      }
    }
  }
};

/* A back-pressure reader stops while it still holds frame 1: the lossless
 * writer no longer waits for it, yet never rewrites the leased slot
 * (reader.c stop: flags, active, STOPPED; writer-readers.c scans). */
struct stop : ring_scenario < stop, 1 >
{
  void thread (unsigned t)
  {
    if (t == 0) {
      for (uint64_t n = 1; n <= 4; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, n) >= 0);
    } else {
      struct doradma_frame f;
      struct doradma_diag d = { 0 };

      RL_ASSERT (doradma_reader_next (g.r, DORADMA_READ_NEXT, -1, &f,
              &d) == 0);
      doradma_reader_stop (g.r);
      RL_ASSERT (payload[f.slot] ($) == f.info.seq);
      doradma_reader_release (g.r, f.slot);
    }
  }
};

/* Replace: the old segment's reader gets every frame up to final_seq,
 * then -ESTALE (writer.c supersede_old: final_seq before SUPERSEDED;
 * writer-replace.c; reader-frames.c). */
struct replace : ring_scenario < replace, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq = 0;
    int rc;

    if (t == 0) {
      struct doradma_writer_config wc;
      struct doradma_diag d = { 0 };

      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
      t_writer_config (&wc, g.ch, shm_dir, SLOTS, SLOT_BYTES);
      RL_ASSERT (doradma_writer_replace (g.w, &wc, &g.w2, &d) == 0);
    } else {
      rc = g.read_to_end (payload, &seq);
      RL_ASSERT (rc == -ESTALE && seq == 1);
    }
  }
};

/* A caps change: the reader of a frame of the new epoch reads that
 * epoch's caps, whole (writer-stream.c write_caps_entry and caps_epoch;
 * reader-stream.c doradma_reader_caps under the entry's seqlock). */
struct caps : ring_scenario < caps, 0 >
{
  void thread (unsigned t)
  {
    static const char caps2[] = "video/x-raw, format=(string)GRAY8, "
        "width=(int)4096, height=(int)1, framerate=(fraction)60/1";

    if (t == 0) {
      uint32_t epoch;

      doradma_writer_set_latency (g.w, 5000000);
      RL_ASSERT (doradma_writer_set_caps (g.w, caps2, &epoch) == 0);
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
    } else {
      struct doradma_frame f;
      struct doradma_diag d = { 0 };
      char buf[DORADMA_CAPS_MAX];

      RL_ASSERT (doradma_reader_next (g.r, DORADMA_READ_NEXT, -1, &f,
              &d) == 0);
      RL_ASSERT (payload[f.slot] ($) == 1);
      RL_ASSERT (doradma_reader_caps (g.r, f.info.caps_epoch, buf,
              sizeof buf, &d) == 0);
      RL_ASSERT (strcmp (buf, caps2) == 0);
      doradma_reader_release (g.r, f.slot);
    }
  }
};

/* The writer waits for a reader to join, then publishes: the join wakes
 * it and the reader gets frame 1 (writer-readers.c wait_readers and
 * active_readers against reader.c join). */
struct wait_readers : ring_scenario < wait_readers, -1 >
{
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      RL_ASSERT (doradma_writer_wait_readers (g.w, 1, -1, NULL) == 0);
      RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, 1) >= 0);
    } else {
      RL_ASSERT (g.join (1) == 0);
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
    }
  }
};

/* A back-pressure reader closes after frame 1 while the lossless writer
 * publishes three more: the writer stops waiting for it (reader.c close:
 * the active bit, the entry's state; writer-readers.c scans). */
struct close_reader : ring_scenario < close_reader, 1 >
{
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      for (uint64_t n = 1; n <= 4; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, n) >= 0);
    } else {
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
      doradma_reader_close (g.r);
      g.r = NULL;
    }
  }
};

/* The writer evicts a stalled back-pressure reader (the ring is full of
 * frames it has not consumed) and goes on; the reader notices and resumes
 * with later frames, each intact (writer-readers.c evict_stalled /
 * evict_locked; reader-consume.c check_evicted). */
struct evict : ring_scenario < evict, 1 >
{
  void before ()
  {
    g.open (1);
    g.write (DORADMA_POLICY_LOSSLESS, 0, payload, 1);
    g.write (DORADMA_POLICY_LOSSLESS, 0, payload, 2);
  }
  void thread (unsigned t)
  {
    uint64_t seq, last = 0;

    if (t == 0) {
      struct doradma_diag d = { 0 };

      /* 0 when the reader consumed both frames first (a lease reader
       * consumes at delivery) */
      RL_ASSERT (doradma_writer_evict_stalled (g.w, &d) <= 1);
      RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, 3) >= 0);
    } else {
      while (last < 3) {
        RL_ASSERT (g.read (payload, &seq) == 0 && seq > last);
        last = seq;
      }
    }
  }
};

/* The writer stops cleanly after frame 1: the reader gets frame 1, then
 * -EOWNERDEAD with the stop told (writer.c close: `stopped` and the wake;
 * reader-stream.c writer_stopped; reader-frames.c next_common), woken by
 * the close, not by its liveness check a wait slice later. */
struct writer_stops : ring_scenario < writer_stops, 0 >
{
  /* a reader that looped (a spurious wake-up) would reach its liveness
   * check, which sees the writer's lock gone (a system call the model
   * does not order) before `stopped`: the stop must be told by the wake */
  void before ()
  {
    g.open (0);
    model_no_spurious_wakeups (true);
  }
  void thread (unsigned t)
  {
    uint64_t seq = 0;
    int rc;

    if (t == 0) {
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
      doradma_writer_close (g.w);
      g.w = NULL;
    } else {
      rc = g.read_to_end (payload, &seq);
      RL_ASSERT (rc == -EOWNERDEAD && seq == 1);
      RL_ASSERT (doradma_reader_writer_stopped (g.r) == 1);
    }
  }
};

/* The writer dies after frame 1 (its lock goes, its segment stays LIVE)
 * and a new writer takes the channel over: the old segment's reader gets
 * frame 1, then -ESTALE once it sees SUPERSEDED, never before the final
 * frame (writer.c supersede_old: final_seq before SUPERSEDED, then the
 * wake); or -EOWNERDEAD when its liveness check finds the lock gone first
 * (reader-frames.c next_common). That branch's frame 1 is not asserted:
 * the lock goes by a system call the model does not order after the
 * publish, so the model may show the lock gone before the frame. */
struct takeover : ring_scenario < takeover, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq = 0;
    int rc;

    if (t == 0) {
      struct doradma_writer_config wc;
      struct doradma_diag d = { 0 };

      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
      RL_ASSERT (ofd_unlock (doradma_writer_fd (g.w), 0) == 0);
      t_writer_config (&wc, g.ch, shm_dir, SLOTS, SLOT_BYTES);
      RL_ASSERT (doradma_writer_create (&wc, &g.w2, &d) == 0);
    } else {
      rc = g.read_to_end (payload, &seq);
      RL_ASSERT (rc == -EOWNERDEAD || (rc == -ESTALE && seq == 1));
    }
  }
};

/* One live reader and every other entry RESERVED (a replace's carried
 * readers, or forged): a joiner takes none of them and says so, counting
 * the RESERVED apart from the live reader, whose pid it names, while the
 * writer publishes (reader.c join: RESERVED checked before and under the
 * entry lock, and the diagnostic's counts). */
struct table_full : ring_scenario < table_full, 0 >
{
  struct doradma_reader *live;

  void before ()
  {
    struct doradma_shm_ctl *ctl;
    struct doradma_reader_stats st;

    g.open (0);
    live = g.r;
    g.r = NULL;
    doradma_reader_get_stats (live, &st);
    /* plain stores before any thread runs: the model's first access to
     * each word takes these bytes */
    ctl = t_ctl_map (shm_dir, g.ch);
    if (ctl == NULL)
      abort ();
    for (unsigned e = 0; e < DORADMA_MAX_READERS; e++)
      if (e != st.entry)
        ctl->readers[e].state = DORADMA_READER_RESERVED;
    t_ctl_unmap (ctl);
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
    } else {
      struct doradma_reader_config rc;
      struct doradma_diag d = { 0 };

      t_reader_config (&rc, g.ch, shm_dir, 0);
      char live_pid[48];

      RL_ASSERT (doradma_reader_open (&rc, &g.r, &d) == -EUSERS);
      RL_ASSERT (strcmp (d.field, "readers") == 0);
      char reserved[32];

      snprintf (reserved, sizeof reserved, "%u RESERVED",
          DORADMA_MAX_READERS - 1);
      RL_ASSERT (strstr (d.msg, reserved) != NULL);
      snprintf (live_pid, sizeof live_pid, "1 by readers, pids: %u",
          (unsigned) getpid ());
      RL_ASSERT (strstr (d.msg, live_pid) != NULL);
      g.r = NULL;
    }
  }
  void after ()
  {
    g.close ();
    doradma_reader_close (live);
  }
};

/* A reader used in a child forked after it was opened: next refuses it
 * and names the pid that opened it (reader-frames.c next_common's fork
 * check), whatever the writer publishes meanwhile. */
struct forked : ring_scenario < forked, 0 >
{
  void before ()
  {
    g.open (0);
    fork_bump = 1;
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
    } else {
      struct doradma_frame f;
      struct doradma_diag d = { 0 };
      char pid[32];

      RL_ASSERT (doradma_reader_next (g.r, DORADMA_READ_NEXT, -1, &f,
              &d) == -EPERM);
      snprintf (pid, sizeof pid, "(by pid %u)", (unsigned) getpid ());
      RL_ASSERT (strcmp (d.field, "fork") == 0 && strstr (d.msg, pid));
    }
  }
  void after ()
  {
    fork_bump = 0;
    g.close ();
  }
};

/* A latency change, then a frame: the reader that got the frame reads the
 * new latency (writer-stream.c set_latency's relaxed store before the
 * publish's release; reader-stream.c doradma_reader_latency after the
 * frame's acquire). */
struct latency : ring_scenario < latency, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      doradma_writer_set_latency (g.w, 2000000);
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, 0, payload, 1) >= 0);
    } else {
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
      RL_ASSERT (doradma_reader_latency (g.r) == 2000000);
    }
  }
};

/* A latest writer laps its reader: six frames into two slots while the
 * reader reads. Every frame it gets carries its own payload, in order; a
 * slot rewritten between the reader's sample and its lease is given back
 * (seqlock.h lease_try's undo); frames passed over are counted skipped
 * (reader-frames.c tool_counters_add), and delivered + skipped is the
 * last sequence it got. */
struct overrun : ring_scenario < overrun, 0 >
{
  void thread (unsigned t)
  {
    uint64_t seq, last = 0;

    if (t == 0) {
      /* waiting: a slot the reader let go may still read leased here */
      for (uint64_t n = 1; n <= 6; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, n) >= 0);
    } else {
      struct doradma_reader_stats st;

      while (last < 6) {
        RL_ASSERT (g.read (payload, &seq) == 0 && seq > last);
        last = seq;
      }
      doradma_reader_get_stats (g.r, &st);
      RL_ASSERT (st.frames + st.skipped == 6);
    }
  }
};

/* The writer rewrites the slot a reader sampled before the reader's
 * lease lands: the reader gives the lease back and takes the newer frame,
 * whole (seqlock.h lease_try: bit, full fence, gen re-checked, the bit
 * removed again with a release; reader-frames.c counts a lease retry).
 * The reader is held between its sample of frame 1's slot and its lease
 * until the writer has published frames 2 and 3, 3 into that slot; `next`
 * then delivers frame 2, the oldest left, with frame 1 skipped. */
struct lease_lost : ring_scenario < lease_lost, 0 >
{
  rl::atomic < int >published;
  static lease_lost *self;

  static void hold ()
  {
    while (self->published.load (rl::mo_acquire, $) == 0)
      rl::yield (1, $);
  }
  void before ()
  {
    g.open (0);
    g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
    published.store (0, rl::mo_relaxed, $);
    self = this;
  }
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0) {
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, 2) >= 0);
      RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, 3) >= 0);
      published.store (1, rl::mo_release, $);
    } else {
      struct doradma_reader_stats st;

      model_before_fetch_or (hold);
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 2);
      doradma_reader_get_stats (g.r, &st);
      RL_ASSERT (st.lease_retries == 1 && st.skipped == 1);
    }
  }
};

lease_lost *lease_lost::self;

/* A lossless replace carries the back-pressure reader over: it drains the
 * old segment, reopens the name with its token, adopts its RESERVED entry
 * and gets frame 2 of the successor, which waited for it (writer-replace.c
 * carry, wait_carried, unadopted; reader.c reserved_for, set_last_seq). */
struct replace_lossless : rl::test_suite < replace_lossless, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS], payload2[SLOTS];      /* old, new */
  struct doradma_reader *old_r;

  void before ()
  {
    g.open (1);
    old_r = NULL;
  }
  void thread (unsigned t)
  {
    uint64_t seq = 0;

    if (t == 0) {
      struct doradma_writer_config wc;
      struct doradma_diag d = { 0 };

      RL_ASSERT (g.write (DORADMA_POLICY_LOSSLESS, -1, payload, 1) >= 0);
      t_writer_config (&wc, g.ch, shm_dir, SLOTS, SLOT_BYTES);
      RL_ASSERT (doradma_writer_replace (g.w, &wc, &g.w2, &d) == 0);
      /* the next replace would wait for the carried reader to adopt */
      RL_ASSERT (doradma_writer_wait_carried (g.w2, -1, NULL) == 0);
      struct doradma_frame_info info;
      uint32_t slot;
      RL_ASSERT (doradma_writer_acquire (g.w2, DORADMA_POLICY_LOSSLESS, -1,
              &slot) == 0);
      payload2[slot] ($) = 2;
      t_frame_info (&info, SLOT_BYTES);
      RL_ASSERT (doradma_writer_publish (g.w2, slot, &info) == 0);
      RL_ASSERT (info.seq == 2);
    } else {
      struct doradma_reader_config rc;
      struct doradma_diag d = { 0 };
      int ret;

      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
      RL_ASSERT (g.read (payload, &seq) == -ESTALE);
      old_r = g.r;
      t_reader_config (&rc, g.ch, shm_dir, 1);
      rc.token = doradma_reader_token (old_r);
      while ((ret = doradma_reader_open (&rc, &g.r, &d)) == -ESTALE)
        rl::yield (1, $);
      RL_ASSERT (ret == 0);
      RL_ASSERT (doradma_reader_set_last_seq (g.r, 1) == 1);
      RL_ASSERT (g.read (payload2, &seq) == 0 && seq == 2);
    }
  }
  void after ()
  {
    doradma_reader_close (old_r);
    g.close ();
  }
};

/* A dora pool made, then written twice: a reader that opens a read on an
 * even generation sees that write's payload, never the zeros of a pool
 * not yet written (dora-pool.c writer_create: odd before the name exists;
 * writer_begin / writer_end, the second one bumping; read_begin /
 * read_ok). The pool's name appears by link(2) after its header: the
 * kernel orders that, the model does not, so `named` stands for it (a
 * release by the creator, an acquire before the reader opens). */
struct pool : rl::test_suite < pool, 2 >
{
  struct doradma_pool_writer *w;
  struct doradma_pool_reader *r;
  char name[64];
  /* relaxed atomic, as a seqlock's data must be in C++: a read that
   * overlaps the second write is the seqlock's to refuse */
  rl::atomic < int >payload;
  rl::atomic < int >named;

  void before ()
  {
    model_reset ();
    snprintf (name, sizeof name, "dora_pool_model_%u", channel_serial++);
    w = NULL;
    r = NULL;
    named.store (0, rl::mo_relaxed, $);
    payload.store (0, rl::mo_relaxed, $);
    model_begin ();
  }
  void thread (unsigned t)
  {
    if (t == 0) {
      uint64_t shape[] = { 4096 };
      struct doradma_pool_writer_config cfg;
      struct doradma_diag d = { 0 };

      memset (&cfg, 0, sizeof cfg);
      cfg.shm_dir = shm_dir;
      cfg.name = name;
      cfg.dtype = "uint8";
      cfg.shape = shape;
      cfg.n_dims = 1;
      cfg.transport = DORADMA_POOL_SHMEM;
      RL_ASSERT (doradma_pool_writer_create (&cfg, &w, &d) == 0);
      named.store (1, rl::mo_release, $);
      for (int v = 7; v <= 8; v++) {
        uint64_t base = doradma_pool_writer_begin (w);

        payload.store (v, rl::mo_relaxed, $);
        doradma_pool_writer_end (w, base, true);
      }
    } else {
      struct doradma_diag d = { 0 };
      uint64_t gen;

      while (named.load (rl::mo_acquire, $) == 0)
        rl::yield (1, $);
      RL_ASSERT (doradma_pool_reader_open (shm_dir, name, -1, &r, &d) == 0);
      if (doradma_pool_read_begin (r, &gen) == 0) {
        int v = payload.load (rl::mo_relaxed, $);

        /* generation 2 is the first write, 4 the second; a copy that
         * overlapped the second write is refused, never taken */
        if (doradma_pool_read_ok (r, gen))
          RL_ASSERT (v == (gen == 2 ? 7 : gen == 4 ? 8 : -1));
        else
          RL_ASSERT (gen == 2);
      }
    }
  }
  void after ()
  {
    model_end ();
    doradma_pool_reader_close (r);
    doradma_pool_writer_close (w);
  }
};

/* doradma inspect (the CLI's `show`) while the writer publishes: the
 * RCB's gens are copied before and after its records, with full fences
 * between (inspect.c inspect_records); a slot it reports as a frame
 * carries a sequence the writer published, and the newest it reports is
 * one. The copies are pread(2)s, the kernel's loads, each an atomic
 * snapshot in the model, which orders only the fences around them: this
 * scenario reaches inspect_records' fences more than it checks them. */
struct inspect : ring_scenario < inspect, 0 >
{
  void thread (unsigned t)
  {
    if (t == 0) {
      for (uint64_t n = 1; n <= 3; n++)
        RL_ASSERT (g.write (DORADMA_POLICY_LATEST, -1, payload, n) >= 0);
    } else {
      static struct doradma_inspect in;

      RL_ASSERT (doradma_inspect_channel (shm_dir, g.ch, &in) == 0);
      RL_ASSERT (doradma_inspect_newest_seq (&in) <= 3);
      for (uint32_t s = 0; s < in.slot_count; s++)
        if (in.slots[s].state == DORADMA_INSPECT_SLOT_FRAME)
          RL_ASSERT (in.slots[s].rec.seq >= 1 && in.slots[s].rec.seq <= 3);
      doradma_inspect_clear (&in);
    }
  }
};

template < class T > static int
check (const char *name, const char *only)
{
  rl::test_params p;

  p.search_type = rl::sched_random;
  p.iteration_count = getenv ("RELACY_ITERATIONS") != NULL ?
      strtoul (getenv ("RELACY_ITERATIONS"), NULL, 10) : ITERATIONS;
  p.execution_depth_limit = 20000;
  p.output_history = getenv ("RELACY_HISTORY") != NULL;
  return relacy_check < T > (name, only, p);
}

int
main (int argc, char **argv)
{
  const char *only = argc > 1 ? argv[1] : NULL;
  int failed = 0;

  shm_dir = t_shm_dir_new (NULL, "relacy");
  if (shm_dir == NULL)
    return 1;
  failed += check < publish_next > ("publish_next", only);
  failed += check < publish_spin > ("publish_spin", only);
  failed += check < release_reuse > ("release_reuse", only);
  failed += check < lossless > ("lossless", only);
  failed += check < eos > ("eos", only);
  failed += check < copy_next > ("copy_next", only);
  failed += check < abandon > ("abandon", only);
  failed += check < join > ("join", only);
  failed += check < stop > ("stop", only);
  failed += check < replace > ("replace", only);
  failed += check < caps > ("caps", only);
  failed += check < wait_readers > ("wait_readers", only);
  failed += check < close_reader > ("close_reader", only);
  failed += check < evict > ("evict", only);
  failed += check < writer_stops > ("writer_stops", only);
  failed += check < takeover > ("takeover", only);
  failed += check < table_full > ("table_full", only);
  failed += check < forked > ("forked", only);
  failed += check < latency > ("latency", only);
  failed += check < overrun > ("overrun", only);
  failed += check < lease_lost > ("lease_lost", only);
  failed += check < replace_lossless > ("replace_lossless", only);
  failed += check < pool > ("pool", only);
  failed += check < inspect > ("inspect", only);
  if (getenv ("RELACY_SITES") != NULL)
    model_sites_write (getenv ("RELACY_SITES"));
  t_shm_dir_remove (shm_dir);
  return failed ? 1 : 0;
}
