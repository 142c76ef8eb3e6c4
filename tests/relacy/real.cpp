/* Description: the ring's protocol checked on a relaxed memory model
 * (Relacy Race Detector) through lib's real functions: writer*.c,
 * reader*.c and futex.c are compiled as they are, with lib/atomic.h's
 * primitives routed to Relacy (real-atomic.h, model-cells.cpp), and each
 * scenario runs doradma_writer_* in one thread and doradma_reader_* in the
 * other on a real segment in a private shm directory. What each call site
 * protects is asserted on the frames the reader gets: the payload a frame
 * carries is an rl::var written before the publish and read after the
 * delivery, so a missing release or acquire on the way is a data race
 * Relacy reports; a lost wake-up is a deadlock. protocol.cpp checks the
 * same rows on small copies of the sites; this file checks the sites in
 * place. x86 cannot show these bugs; aarch64 (Jetson) can.
 *
 *   relacy-real [SCENARIO]   (no argument: all; exit 0 pass, 1 fail) */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

/* lib's headers are C11 */
#define _Static_assert static_assert
extern "C" {
#include <doradma/doradma.h>
#include "helpers.h"
}

#include <relacy/relacy.hpp>
#undef errno
#define errno (*__errno_location ())

#include "model-cells.h"

#define SLOTS 2
#define SLOT_BYTES 4096
/* random schedules per scenario (a full search of lib's real calls is
 * too large): each costs about a millisecond, mostly the set-up */
#define ITERATIONS 3000

static char *shm_dir;
static unsigned channel_serial;

/* A writer and a reader of a fresh channel, and the frames' payloads: slot
 * i's bytes are payload[i] for the model. */
struct ring
{
  struct doradma_writer *w;
  struct doradma_reader *r;

  void open (int backpressure)
  {
    char ch[64];

    model_reset ();
    snprintf (ch, sizeof ch, "model-%u", channel_serial++);
    if (t_open_pair (shm_dir, ch, SLOTS, SLOT_BYTES, backpressure, &w,
            &r) < 0)
      abort ();
    model_begin ();
  }
  void close ()
  {
    model_end ();
    doradma_reader_close (r);
    doradma_writer_close (w);
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
};

/* Publish, then a `next` reader leases the frame and reads its payload:
 * the publish's release of the slot and the reader's acquire of it
 * (writer-slots.c publish, reader-frames.c find_frame and lease_slot,
 * seqlock.h), and the wake on the notify eventcount (futex.c). */
struct publish_next : rl::test_suite < publish_next, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

  void before ()
  {
    g.open (0);
  }
  void thread (unsigned t)
  {
    uint64_t seq;

    if (t == 0)
      g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
    else
      RL_ASSERT (g.read (payload, &seq) == 0 && seq == 1);
  }
  void after ()
  {
    g.close ();
  }
};

/* A reader holds frame 1 while the writer publishes two more into a
 * two-slot ring: the writer may take frame 1's slot only after the
 * reader's release (seqlock.h mark against lease, lease_release), and a
 * frame the reader gets is never one the writer is rewriting. */
struct release_reuse : rl::test_suite < release_reuse, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

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
  void after ()
  {
    g.close ();
  }
};

/* Lossless: a back-pressure reader gets frames 1, 2, 3 of a two-slot
 * ring in order; the writer reuses a slot only after the reader consumed
 * its frame (reader-consume.c consume, writer-slots.c min_consumed). */
struct lossless : rl::test_suite < lossless, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

  void before ()
  {
    g.open (1);
  }
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
  void after ()
  {
    g.close ();
  }
};

/* EOS: a reader that sees the end has seen every frame before it
 * (writer-stream.c eos: final_seq before the state; reader-frames.c). */
struct eos : rl::test_suite < eos, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

  void before ()
  {
    g.open (0);
  }
  void thread (unsigned t)
  {
    uint64_t seq = 0;
    int rc;

    if (t == 0) {
      g.write (DORADMA_POLICY_LATEST, 0, payload, 1);
      RL_ASSERT (doradma_writer_eos (g.w) == 0);
    } else {
      rc = g.read (payload, &seq);
      if (rc == 0)
        rc = g.read (payload, &seq);
      RL_ASSERT (rc == -EPIPE && seq == 1);
    }
  }
  void after ()
  {
    g.close ();
  }
};

/* A copy reader (no lease) gets the frame's payload under the slot's
 * seqlock (reader-frames.c copy path, seqlock.h read_begin / read_ok). */
struct copy_next : rl::test_suite < copy_next, 2 >
{
  ring g;
  rl::var < uint64_t > payload[SLOTS];

  void before ()
  {
    g.open (0);
  }
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
  void after ()
  {
    g.close ();
  }
};

template < class T > static int
check (const char *name, const char *only)
{
  rl::test_params p;

  if (only != NULL && strcmp (only, name) != 0)
    return 0;
  p.search_type = rl::sched_random;
  p.iteration_count = ITERATIONS;
  p.execution_depth_limit = 20000;
  p.output_history = getenv ("RELACY_HISTORY") != NULL;
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

  shm_dir = t_shm_dir_new (NULL, "relacy");
  if (shm_dir == NULL)
    return 1;
  failed += check < publish_next > ("publish_next", only);
  failed += check < release_reuse > ("release_reuse", only);
  failed += check < lossless > ("lossless", only);
  failed += check < eos > ("eos", only);
  failed += check < copy_next > ("copy_next", only);
  t_shm_dir_remove (shm_dir);
  return failed ? 1 : 0;
}
