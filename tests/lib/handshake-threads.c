/* Description: lib's publish, lease and wake handshakes (lib/seqlock.h and
 * lib/futex.c, with lib/atomic.h's orderings) between two threads of one
 * process, on words at the same addresses in both threads, so that
 * ThreadSanitizer (scripts/sanitize.sh's tsan build) sees every access: a
 * relaxed store or load where the protocol needs a release or an acquire
 * leaves the plain payload accesses unordered and TSan reports the race.
 * Without TSan it checks what the handshakes promise: a leased frame never
 * changes under the reader, and each wake-up delivers the value written
 * before it. (The relaxed-memory model of the same code is
 * tests/relacy/protocol.cpp.) */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "futex.h"
#include "helpers.h"
#include "seqlock.h"

#define ROUNDS 4000
#define WORDS 16

/* One slot: the seqlock's gen, the lease word and a plain payload. */
static uint64_t gen, lease;
static uint64_t payload[WORDS];
static int writer_done;
/* The last frame the reader leased: RELAXED, so it orders nothing (TSan
 * must see only lib's orderings); it only makes the writer wait until the
 * reader has leased each frame, so that every round races. */
static uint64_t seen;
static int failures;

static void *
slot_writer (void *arg)
{
  uint64_t g = 0;

  for (uint64_t k = 1; k <= ROUNDS; k++) {
    while (!seqlock_mark (&gen, &lease, g, UINT64_MAX))
      sched_yield ();           /* leased: wait for the release */
    for (int i = 0; i < WORDS; i++)
      payload[i] = k;           /* plain stores, as upstream writes frames */
    seqlock_publish (&gen, g + 1);
    g += 2;
    while (__atomic_load_n (&seen, __ATOMIC_RELAXED) < k)
      sched_yield ();
  }
  __atomic_store_n (&writer_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *
slot_reader (void *arg)
{
  uint64_t leased = 0;

  while (!__atomic_load_n (&writer_done, __ATOMIC_ACQUIRE)) {
    uint64_t g = seqlock_read_begin (&gen), first;

    if ((g & 1) || !lease_try (&lease, &gen, g, 1)) {
      sched_yield ();
      continue;
    }
    first = payload[0];
    for (int i = 1; i < WORDS; i++)
      if (payload[i] != first) {
        t_log ("leased frame changed: word %d is %llu, word 0 %llu", i,
            (unsigned long long) payload[i], (unsigned long long) first);
        __atomic_fetch_add (&failures, 1, __ATOMIC_RELAXED);
        break;
      }
    leased++;
    __atomic_store_n (&seen, first, __ATOMIC_RELAXED);
    lease_release (&lease, 1);
    sched_yield ();
  }
  return (void *) (uintptr_t) leased;
}

/* Ping-pong over two eventcounts (notify: writer to reader; space: back),
 * as publish and release use them; `value` is plain. */
static uint32_t notify, space;
static uint64_t value;
static uint32_t notify_start;   /* taken before either thread runs */

static int
moved (uint32_t now, uint32_t then)
{
  return (now | 1u) != (then | 1u);     /* bit 0 is the sleeper flag */
}

static void *
wake_writer (void *arg)
{
  for (uint64_t k = 1; k <= ROUNDS; k++) {
    uint32_t vs = eventcount_snapshot (&space), cur;

    value = k;
    eventcount_bump (&notify);
    while (!moved (cur = eventcount_snapshot (&space), vs))
      eventcount_wait (&space, cur, 20000000);
  }
  return NULL;
}

static void *
wake_reader (void *arg)
{
  uint32_t vn = notify_start;

  for (uint64_t k = 1; k <= ROUNDS; k++) {
    uint32_t cur;

    while (!moved (cur = eventcount_snapshot (&notify), vn))
      eventcount_wait (&notify, cur, 20000000);
    vn = cur;
    if (value != k) {
      t_log ("woken for %llu but read %llu", (unsigned long long) k,
          (unsigned long long) value);
      failures++;
      break;
    }
    eventcount_bump (&space);
  }
  return NULL;
}

int
main (void)
{
  pthread_t a, b;
  void *leased;

  t_watchdog (120);
  pthread_create (&a, NULL, slot_writer, NULL);
  pthread_create (&b, NULL, slot_reader, NULL);
  pthread_join (a, NULL);
  pthread_join (b, &leased);
  /* A run where the reader never got a lease checked nothing. */
  T_EXPECT (failures, (uintptr_t) leased > 0, "the reader never leased");

  notify_start = eventcount_snapshot (&notify);
  pthread_create (&a, NULL, wake_writer, NULL);
  pthread_create (&b, NULL, wake_reader, NULL);
  pthread_join (a, NULL);
  pthread_join (b, NULL);
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
