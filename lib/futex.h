/* Private: shared futex eventcounts (never FUTEX_PRIVATE_FLAG: the words live
 * in memory shared between processes).
 *
 * An eventcount is a u32 whose bit 0 means "someone may be asleep" and whose
 * bits 1..31 count events. Keeping the sleeper flag inside the futex word
 * means no cross-word ordering is needed, and a sleeper that dies leaves at
 * most one spurious wake behind (the next bump clears the bit). */
#ifndef DORADMA_FUTEX_H
#define DORADMA_FUTEX_H

#include <stdint.h>

/* Bumps the count and wakes every sleeper iff bit 0 was set: zero system
 * calls when nobody sleeps. RELEASE: what was stored before is visible to a
 * sleeper that wakes and re-checks. */
void eventcount_bump (uint32_t *shm_word);

/* Snapshot to take BEFORE checking the condition (ACQUIRE, pairs with the
 * RELEASE CAS in eventcount_bump). */
uint32_t eventcount_snapshot (const uint32_t *shm_word);

/* Sleeps until the word moves past `snapshot`, or timeout_ns passes (< 0:
 * no limit). Sets bit 0 first. Returns 0 when woken or the word already
 * moved, -ETIMEDOUT, or -EINTR on a signal. */
int eventcount_wait (uint32_t *shm_word, uint32_t snapshot, int64_t timeout_ns);

/* Polls the word (with the CPU's pause hint, no system call; the clock is
 * read through the vDSO every few polls) until it moves past `snapshot`,
 * `*stop` or `*stop2` (read atomically, either may be NULL) becomes non-zero, or spin_ns pass.
 * Returns 1 if the word moved, 0 otherwise. Spinning does not set the
 * sleeper bit: a bumper that sees none makes no system call. */
int eventcount_spin (const uint32_t *shm_word, uint32_t snapshot,
    uint64_t spin_ns, const int *stop, const int *stop2);

/* Wakes every sleeper unconditionally (interrupting our own waits). */
void eventcount_wake_all (uint32_t *shm_word);

/* CLOCK_MONOTONIC in ns. */
uint64_t monotonic_ns (void);

/* How long the next wait may sleep: `slice`, cut to what is left of
 * timeout_ns (< 0: no limit) since `start`; never negative (a negative
 * wait is "forever" to eventcount_wait), 0 once the deadline has passed. */
static inline int64_t
wait_slice (uint64_t start, uint64_t now, int64_t timeout_ns, int64_t slice)
{
  if (timeout_ns > 0) {
    uint64_t spent = now - start;

    if (spent >= (uint64_t) timeout_ns)
      return 0;
    if ((int64_t) ((uint64_t) timeout_ns - spent) < slice)
      return (int64_t) ((uint64_t) timeout_ns - spent);
  }
  return slice;
}

#endif
