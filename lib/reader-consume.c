/* What a reader gives back to its writer: the leases it drops (the writer
 * never rewrites a leased slot), the frames it consumed (a lossless writer
 * waits for them), and its position: after an eviction, or carried over a
 * reopen. */
#include <pthread.h>

#include "atomic.h"
#include "futex.h"
#include "keep-errno.h"
#include "reader-private.h"
#include "seqlock.h"

DORADMA_API void
doradma_reader_ref_slot (struct doradma_reader *r, uint32_t slot)
{
  KEEP_ERRNO;
  if (slot >= r->desc.slot_count)
    return;
  pthread_mutex_lock (&r->lock);
  if (r->refs[slot] > 0)
    r->refs[slot]++;
  pthread_mutex_unlock (&r->lock);
}

DORADMA_API void
doradma_reader_release (struct doradma_reader *r, uint32_t slot)
{
  KEEP_ERRNO;
  int cleared = 0;

  if (slot >= r->desc.slot_count || fork_generation () != r->fork_gen)
    return;
  pthread_mutex_lock (&r->lock);
  if (r->refs[slot] > 0 && --r->refs[slot] == 0) {
    /* RELEASE: our payload reads happen before the writer's next mark. */
    lease_release (&r->ctl->lease[slot].readers, r->bit);
    r->n_leases--;
    cleared = 1;
  }
  pthread_mutex_unlock (&r->lock);
  if (cleared)
    eventcount_bump (&r->ctl->space);
}

DORADMA_API uint32_t
doradma_reader_leases (struct doradma_reader *r)
{
  KEEP_ERRNO;
  uint32_t n;

  pthread_mutex_lock (&r->lock);
  n = r->n_leases;
  pthread_mutex_unlock (&r->lock);
  return n;
}

DORADMA_API void
doradma_reader_consume (struct doradma_reader *r, uint64_t seq)
{
  KEEP_ERRNO;
  uint64_t *c = &r->ctl->readers[r->entry].consumed_seq;

  /* Monotonic: a stale value is low, hence conservative for the writer. */
  if (seq > dr_load_relaxed (c)) {
    dr_store_release (c, seq);
    eventcount_bump (&r->ctl->space);
  }
}

/* The writer evicted us (a stalled lossless reader): resume at the newest
 * frame, which the caller sees as a gap: the frames jumped over are
 * counted as skipped with the next frame (so it is marked DISCONT). */
void
check_evicted (struct doradma_reader *r)
{
  struct doradma_shm_reader *ent = &r->ctl->readers[r->entry];
  uint64_t newest;

  if (dr_load_acquire (&ent->state) != DORADMA_READER_EVICTED)
    return;
  newest = DORADMA_NEWEST_SEQ (dr_load_acquire (&r->rcb->newest));
  __atomic_store_n (&r->stats.evicted, 1, __ATOMIC_RELAXED);
  if (newest > r->last_seq + 1) {
    r->evict_skipped += newest - 1 - r->last_seq;
    r->last_seq = newest - 1;
  }
  dr_store_release (&ent->consumed_seq, r->last_seq);
  dr_store_release (&ent->state, DORADMA_READER_ACTIVE);
}

DORADMA_API uint64_t
doradma_reader_last_seq (const struct doradma_reader *r)
{
  KEEP_ERRNO;
  return r->last_seq;
}

DORADMA_API int
doradma_reader_set_last_seq (struct doradma_reader *r, uint64_t seq)
{
  KEEP_ERRNO;
  /* Continuity only where the sequence does continue: an adopted entry (a
   * replace carried us over) or a segment that starts right after `seq`.
   * A writer that took over a dead writer's channel starts its own
   * sequence: keep the position join gave us (its newest frame next). */
  if (!r->adopted && r->first_seq != seq + 1)
    return 0;
  r->last_seq = seq;
  if (r->backpressure && !r->adopted)
    dr_store_release (&r->ctl->readers[r->entry].consumed_seq, seq);
  return 1;
}
