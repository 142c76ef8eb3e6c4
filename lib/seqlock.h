/* Private: the per-slot seqlock and lease handshake, written once (the vDSO
 * seqlock shape with C11 fences; see docs/format.md "Protocols").
 *
 *   gen even  = the record and payload are a complete frame (or empty)
 *   gen odd   = the writer owns the slot (WRITING)
 */
#ifndef DORADMA_SEQLOCK_H
#define DORADMA_SEQLOCK_H

#include <stdint.h>

#include "atomic.h"

/* Writer marks a slot WRITING, then checks for leases (Dekker with
 * lease_try). Invariant: NOTHING (payload or record) is written between the
 * mark and the check, so the put-back is safe for lease and copy readers.
 * `g` is the writer's private copy of gen (never read back from shm).
 * Returns 1 if the slot is ours (gen now g + 1), 0 if a lease exists (gen
 * put back to g). */
static inline int
seqlock_mark (uint64_t *shm_gen, const uint64_t *shm_lease, uint64_t g,
    uint64_t lease_mask)
{
  dr_store_relaxed (shm_gen, g + 1);
  /* Pairs with the fence in lease_try: either we see its lease bit, or it
   * sees our odd gen. Also orders the odd store before the payload stores
   * that follow (Boehm's seqlock write side). */
  dr_fence_full ();
  /* ACQUIRE pairs with the reader's RELEASE clear: its last payload reads
   * happen before our first payload store. */
  if (dr_load_acquire (shm_lease) & lease_mask) {
    /* RELEASE so a reader that acquires g synchronises with the publish of g. */
    dr_store_release (shm_gen, g);
    return 0;
  }
  return 1;
}

/* Writer publishes: the record and payload stores before are visible before
 * the even gen (RELEASE). The full fence first also covers non-temporal
 * stores from upstream SIMD code that did not SFENCE. */
static inline void
seqlock_publish (uint64_t *shm_gen, uint64_t g_odd)
{
  dr_fence_full ();
  dr_store_release (shm_gen, g_odd + 1);
}

/* Reader side of a copy read: open. Returns the even sample, or an odd value
 * meaning "being written". */
static inline uint64_t
seqlock_read_begin (const uint64_t *shm_gen)
{
  return dr_load_acquire (shm_gen);
}

/* Reader side of a copy read: close. An acquire load alone would not keep
 * the payload reads from moving after it; the acquire fence does. Returns 1
 * if the copy made since read_begin is consistent. */
static inline int
seqlock_read_ok (const uint64_t *shm_gen, uint64_t g)
{
  dr_fence_acquire ();
  return (g & 1) == 0 && dr_load_relaxed (shm_gen) == g;
}

/* Reader leases a slot whose gen it sampled even as g: set our bit, full
 * fence (pairs with seqlock_mark), re-check gen. Returns 1 if leased (the
 * writer cannot mark the slot until we clear the bit), 0 if the writer got
 * there first (our bit is removed again). */
static inline int
lease_try (uint64_t *shm_lease, const uint64_t *shm_gen, uint64_t g,
    uint64_t bit)
{
  dr_fetch_or_relaxed (shm_lease, bit);
  dr_fence_full ();
  if (dr_load_relaxed (shm_gen) != g) {
    dr_fetch_and_release (shm_lease, ~bit);
    return 0;
  }
  return 1;
}

/* Reader releases a lease: RELEASE orders our payload reads before the
 * writer's ACQUIRE load of the lease word in seqlock_mark. */
static inline void
lease_release (uint64_t *shm_lease, uint64_t bit)
{
  dr_fetch_and_release (shm_lease, ~bit);
}

#endif
