/* The writer's hot path: a slot chosen with the lease handshake (acquire,
 * waiting for space), the frame published or abandoned, and the slots this
 * process still references (hold). Slot choice and mark happen under
 * w->lock: one marker at a time. */
#include <errno.h>
#include <glib.h>
#include <pthread.h>

#include "atomic.h"
#include "futex.h"
#include "keep-errno.h"
#include "seqlock.h"
#include "writer-private.h"

/* Can slot s take a new frame? (lease words are checked by the mark) */
static int
slot_eligible_locked (struct doradma_writer *w, uint32_t s,
    enum doradma_slot_policy policy, uint64_t min_consumed)
{
  if (w->state[s] != SLOT_FREE || s == w->newest_slot ||
      (w->held & (1ull << s)))
    return 0;
  if (policy == DORADMA_POLICY_LOSSLESS && w->seq[s] > min_consumed)
    return 0;
  return 1;
}

static int
mark_locked (struct doradma_writer *w, uint32_t s)
{
  if (!seqlock_mark (&w->rcb->slots[s].gen, &w->ctl->lease[s].readers,
          w->gen[s], UINT64_MAX))
    return 0;
  w->gen[s] += 1;
  w->state[s] = SLOT_WRITING;
  /* The slot no longer holds frame w->seq[s]: readers looking for it skip
   * the slot instead of waiting for the rewrite (publish sets it again). */
  dr_store_relaxed (&w->rcb->slot_seq[s], 0);
  return 1;
}

static int
try_choose_locked (struct doradma_writer *w, enum doradma_slot_policy policy,
    uint32_t * slot)
{
  uint64_t min_consumed = policy == DORADMA_POLICY_LOSSLESS ?
      min_consumed_locked (w) : 0;
  uint64_t tried = 0;
  uint32_t n = w->desc.slot_count;

  /* Oldest eligible slot first (empty slots have seq 0). */
  for (;;) {
    uint32_t s, best = UINT32_MAX;
    for (s = 0; s < n; s++) {
      if ((tried & (1ull << s)) ||
          !slot_eligible_locked (w, s, policy, min_consumed))
        continue;
      if (best == UINT32_MAX || w->seq[s] < w->seq[best])
        best = s;
    }
    if (best == UINT32_MAX)
      return -EAGAIN;
    tried |= 1ull << best;
    if (mark_locked (w, best)) {
      *slot = best;
      return 0;
    }
  }
}

DORADMA_API int
doradma_writer_acquire (struct doradma_writer *w,
    enum doradma_slot_policy policy, int64_t timeout_ns, uint32_t * slot)
{
  KEEP_ERRNO;
  return doradma_writer_acquire_cancellable (w, policy, timeout_ns, NULL, slot);
}

DORADMA_API int
doradma_writer_acquire_cancellable (struct doradma_writer *w,
    enum doradma_slot_policy policy, int64_t timeout_ns, const int *cancel,
    uint32_t * slot)
{
  KEEP_ERRNO;
  uint64_t start = 0;
  uint64_t spin_ns = __atomic_load_n (&w->spin_ns, __ATOMIC_RELAXED);
  int waited = 0, spun = 0, slept = 0, ret;

  for (;;) {
    /* Snapshot BEFORE looking for space: a release after this point
     * changes the word and our wait returns at once. */
    uint32_t v = eventcount_snapshot (&w->ctl->space);
    uint64_t now;

    if (g_atomic_int_get (&w->interrupted) ||
        (cancel != NULL && __atomic_load_n (cancel, __ATOMIC_ACQUIRE)))
      return -EINTR;
    pthread_mutex_lock (&w->lock);
    if (w->superseded) {
      pthread_mutex_unlock (&w->lock);
      return -ESTALE;
    }
    ret = try_choose_locked (w, policy, slot);
    /* At most one sweep per wait slice however often `space` moves (each
     * costs a lock probe per entry), once a second when not waiting. */
    if (ret == -EAGAIN && monotonic_ns () - w->last_sweep >
        (waited ? (uint64_t) WAIT_SLICE_NS : SWEEP_INTERVAL_NS) &&
        sweep_locked (w) > 0)
      ret = try_choose_locked (w, policy, slot);
    if (ret == 0 && spun && !slept)
      w->stats.spins++;
    pthread_mutex_unlock (&w->lock);
    if (ret == 0)
      return 0;
    if (timeout_ns == 0)
      return -EAGAIN;
    now = monotonic_ns ();
    if (!waited) {
      waited = 1;
      start = now;
      pthread_mutex_lock (&w->lock);
      w->stats.full_waits++;
      pthread_mutex_unlock (&w->lock);
    }
    if (timeout_ns > 0 && now - start >= (uint64_t) timeout_ns)
      return -ETIMEDOUT;
    if (spin_ns > 0) {
      /* In chunks of at most a slice (the sweep above runs between them);
       * a release, consume, interrupt and wake all move the word. */
      spun = 1;
      eventcount_spin (&w->ctl->space, v,
          MIN (spin_ns, (uint64_t) wait_slice (start, now, timeout_ns,
                  WAIT_SLICE_NS)), &w->interrupted, cancel);
      spin_ns -= MIN (spin_ns, monotonic_ns () - now);
      continue;                 /* re-check everything before sleeping */
    }
    if (!slept) {
      slept = 1;
      pthread_mutex_lock (&w->lock);
      w->stats.sleeps++;
      pthread_mutex_unlock (&w->lock);
    }
    eventcount_wait (&w->ctl->space, v,
        wait_slice (start, now, timeout_ns, WAIT_SLICE_NS));
  }
}

DORADMA_API void
doradma_writer_set_spin (struct doradma_writer *w, uint64_t spin_ns)
{
  KEEP_ERRNO;
  __atomic_store_n (&w->spin_ns, spin_ns, __ATOMIC_RELAXED);
}

DORADMA_API int
doradma_writer_acquire_slot (struct doradma_writer *w,
    enum doradma_slot_policy policy, uint32_t slot)
{
  KEEP_ERRNO;
  int ret = -EBUSY;

  if (slot >= w->desc.slot_count)
    return -EINVAL;
  pthread_mutex_lock (&w->lock);
  if (slot_eligible_locked (w, slot, policy,
          policy == DORADMA_POLICY_LOSSLESS ? min_consumed_locked (w) : 0) &&
      mark_locked (w, slot))
    ret = 0;
  pthread_mutex_unlock (&w->lock);
  return ret;
}

DORADMA_API uint8_t *
doradma_writer_slot_data (struct doradma_writer *w, uint32_t slot)
{
  KEEP_ERRNO;
  if (w->desc.ipc || slot >= w->desc.slot_count)
    return NULL;
  return w->map + w->desc.slots_offset + w->desc.slot_stride * (uint64_t) slot;
}

DORADMA_API uint64_t
doradma_writer_slot_stride (const struct doradma_writer *w)
{
  KEEP_ERRNO;
  return w->desc.slot_stride;
}

DORADMA_API uint32_t
doradma_writer_slot_count (const struct doradma_writer *w)
{
  KEEP_ERRNO;
  return w->desc.slot_count;
}

/* ------------------------------------------------------------------------ */
/* publish                                                                  */
/* ------------------------------------------------------------------------ */

static int
check_geometry (const struct doradma_frame_info *info, uint64_t slot_stride)
{
  uint32_t p;

  if (info->payload_bytes > slot_stride)
    return -EOVERFLOW;
  if (info->n_planes < 1 || info->n_planes > DORADMA_MAX_PLANES)
    return -EINVAL;
  for (p = 0; p < info->n_planes; p++) {
    const struct doradma_shm_plane *pl = &info->planes[p];
    if (pl->stride == 0 || pl->rows == 0 || pl->row_bytes > pl->stride)
      return -EINVAL;
    if (pl->offset > info->payload_bytes ||
        (uint64_t) pl->stride * (pl->rows - 1) + pl->row_bytes >
        info->payload_bytes - pl->offset)
      return -EOVERFLOW;
  }
  return 0;
}

/* Stores the record word by word (RELAXED atomics: readers copy it under the
 * slot's seqlock or a lease), everything but gen. */
static void
store_record (struct doradma_shm_slot *shm, const struct doradma_shm_slot *rec)
{
  const uint64_t *src = (const uint64_t *) rec;
  uint64_t *dst = (uint64_t *) shm;
  size_t i;

  for (i = 1; i < sizeof *rec / 8; i++)
    dr_store_relaxed (&dst[i], src[i]);
}

DORADMA_API int
doradma_writer_publish (struct doradma_writer *w, uint32_t slot,
    struct doradma_frame_info *info)
{
  KEEP_ERRNO;
  struct doradma_shm_slot rec;
  uint64_t seq;
  int ret;

  if (slot >= w->desc.slot_count)
    return -EINVAL;
  ret = check_geometry (info, w->desc.slot_stride);
  if (ret < 0)
    return ret;
  pthread_mutex_lock (&w->lock);
  if (w->superseded) {
    /* Past final_seq nobody reads this segment: the frame would be lost. */
    pthread_mutex_unlock (&w->lock);
    return -ESTALE;
  }
  if (w->eos) {
    /* Readers stop at final_seq: a frame after EOS would never be read. */
    pthread_mutex_unlock (&w->lock);
    return -EPIPE;
  }
  if (w->state[slot] != SLOT_WRITING) {
    pthread_mutex_unlock (&w->lock);
    return -EINVAL;
  }
  if (w->next_seq > DORADMA_SEQ_MAX) {
    /* `newest` would wrap: readers would wait for ever */
    pthread_mutex_unlock (&w->lock);
    return -EOVERFLOW;
  }
  seq = w->next_seq++;
  info->seq = seq;
  info->caps_epoch = w->caps_epoch;
  info->publish_time = monotonic_ns ();

  doradma_frame_record_encode (info, &rec);
  store_record (&w->rcb->slots[slot], &rec);

  /* Record and payload before the even gen (RELEASE; full fence first for
   * non-temporal stores). Pairs with the reader's ACQUIRE gen load. */
  seqlock_publish (&w->rcb->slots[slot].gen, w->gen[slot]);
  w->gen[slot] += 1;
  dr_store_release (&w->rcb->slot_seq[slot], seq);
  /* RELEASE pairs with the reader's ACQUIRE of newest. */
  dr_store_release (&w->rcb->newest, DORADMA_NEWEST_PACK (seq, slot));
  w->state[slot] = SLOT_FREE;
  w->seq[slot] = seq;
  w->slot_epoch[slot] = info->caps_epoch;
  w->newest_slot = slot;
  w->last_seq = seq;
  w->stats.published++;
  w->stats.last_seq = seq;
  sweep_forged_locked (w, info->publish_time);
  pthread_mutex_unlock (&w->lock);
  /* Wakes sleepers only if one announced itself: no system call otherwise. */
  eventcount_bump (&w->ctl->notify);
  /* The previous newest slot became eligible: an acquire waiting in
   * another thread of ours may take it. */
  eventcount_bump (&w->ctl->space);
  return 0;
}

DORADMA_API int
doradma_writer_abandon (struct doradma_writer *w, uint32_t slot)
{
  KEEP_ERRNO;
  if (slot >= w->desc.slot_count)
    return -EINVAL;
  pthread_mutex_lock (&w->lock);
  if (w->state[slot] != SLOT_WRITING) {
    pthread_mutex_unlock (&w->lock);
    return -EINVAL;
  }
  /* The payload may be half written: the slot becomes empty (seq 0), never
   * the old frame again. BEFORE the publish: a reader that sampled the old
   * frame's slot_seq before our mark finds gen even again, and only the
   * record's seq tells it the frame is gone (tests/lib/interleave-abandon). */
  dr_store_relaxed (&w->rcb->slots[slot].seq, 0);
  seqlock_publish (&w->rcb->slots[slot].gen, w->gen[slot]);
  w->gen[slot] += 1;
  dr_store_release (&w->rcb->slot_seq[slot], 0);
  w->state[slot] = SLOT_FREE;
  w->seq[slot] = 0;
  w->stats.abandoned++;
  pthread_mutex_unlock (&w->lock);
  eventcount_bump (&w->ctl->space);
  return 0;
}

DORADMA_API int
doradma_writer_hold (struct doradma_writer *w, uint32_t slot, int held)
{
  KEEP_ERRNO;
  if (slot >= w->desc.slot_count)
    return -EINVAL;
  pthread_mutex_lock (&w->lock);
  if (held)
    w->held |= 1ull << slot;
  else
    w->held &= ~(1ull << slot);
  pthread_mutex_unlock (&w->lock);
  /* An acquire waiting in another thread of ours may take it now. */
  if (!held)
    eventcount_bump (&w->ctl->space);
  return 0;
}

DORADMA_API void
doradma_writer_wake (struct doradma_writer *w)
{
  KEEP_ERRNO;
  /* A bump, not a bare wake: it moves the word, so a waiter between its
   * cancel check and FUTEX_WAIT cannot sleep through it. */
  eventcount_bump (&w->ctl->space);
}

DORADMA_API void
doradma_writer_interrupt (struct doradma_writer *w, int on)
{
  KEEP_ERRNO;
  g_atomic_int_set (&w->interrupted, on ? 1 : 0);
  if (on)
    eventcount_bump (&w->ctl->space);
}
