/* The reader table as the writer sees it: dead readers' entries reclaimed
 * (the sweep; RESERVED entries carried over a replace get a grace), the
 * lowest consumed position a lossless writer waits for, stalled readers
 * evicted, active readers counted and waited for. */
#include <glib.h>
#include <pthread.h>
#include <stdio.h>

#include "atomic.h"
#include "futex.h"
#include "keep-errno.h"
#include "liveness.h"
#include "writer-private.h"

/* A RESERVED entry not adopted this long after its old lock was first seen
 * free is freed: its reader died during the switch. */
#define RESERVED_GRACE_NS 2000000000ull

enum old_entry
{
  OLD_ENTRY_WAITING,            /* its reader may still adopt the carried one */
  OLD_ENTRY_STOPPED,            /* its reader stopped: it never adopts */
  OLD_ENTRY_LEFT,               /* not its reader's any more (closing, or
                                 * another reader's) */
};

/* What the old entry of carried entry r, whose lock is held, says of the
 * reader we carried. A reader stopped (doradma_reader_stop) after the
 * replace read its entry keeps that lock while the application holds its
 * frames, yet reads no more: it would hold this writer back for ever. */
static enum old_entry
old_entry_state (struct doradma_writer *w, int r)
{
  const struct doradma_shm_ctl *ctl = w->old_ctl[w->reserved_ctl[r]];
  const struct doradma_shm_reader *o;
  uint32_t st;

  if (ctl == NULL)
    return OLD_ENTRY_WAITING;   /* not mapped: the lock alone tells */
  o = &ctl->readers[r];
  /* ACQUIRE pairs with reader_stop's RELEASE of STOPPED and join's of
   * ACTIVE: the token read next is that of the reader whose store we saw,
   * not a half-made one of a reader joining after it. */
  st = dr_load_acquire (&o->state);
  if (dr_load_relaxed (&o->token) != w->reserved_token[r])
    return OLD_ENTRY_LEFT;
  if (st == DORADMA_READER_STOPPED)
    return OLD_ENTRY_STOPPED;
  if (st == DORADMA_READER_FREE)
    return OLD_ENTRY_LEFT;
  return OLD_ENTRY_WAITING;
}

static int
reserved_expired (struct doradma_writer *w, int r)
{
  int fd = w->old_ctl_fd[w->reserved_ctl[r]];
  uint64_t now;

  /* RESERVED is only ours to give: any other is a peer's scribble. */
  if (!(w->carried & (1ull << r)))
    return 1;
  if (fd >= 0 && ofd_is_locked (fd, r) == 1) {
    switch (old_entry_state (w, r)) {
      case OLD_ENTRY_WAITING:
        w->reserved_free_since[r] = 0;
        return 0;
      case OLD_ENTRY_STOPPED:
        return 1;
      case OLD_ENTRY_LEFT:
        /* as if its lock were free: a reader that closes the old
         * segment before reopening adopts within the grace */
        break;
    }
  }
  /* The grace runs from when we first see the old lock free, not from the
   * replace: draining the old segment may take its reader any time. */
  now = monotonic_ns ();
  if (w->reserved_free_since[r] == 0) {
    w->reserved_free_since[r] = now;
    return 0;
  }
  return now - w->reserved_free_since[r] > RESERVED_GRACE_NS;
}

int
sweep_locked (struct doradma_writer *w)
{
  uint64_t candidates = 0, bit;
  uint32_t s, n = w->desc.slot_count;
  int r, reclaimed = 0;

  w->last_sweep = monotonic_ns ();
  for (s = 0; s < n; s++)
    candidates |= dr_load_relaxed (&w->ctl->lease[s].readers);
  candidates |= dr_load_relaxed (&w->ctl->active);
  for (r = 0; r < (int) DORADMA_MAX_READERS; r++)
    if (dr_load_relaxed (&w->ctl->readers[r].state) != DORADMA_READER_FREE)
      candidates |= 1ull << r;

  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    struct doradma_shm_reader *e = &w->ctl->readers[r];
    bit = 1ull << r;
    if (!(candidates & bit))
      continue;
    /* A RESERVED entry is not even probed before its grace is over: our
     * brief hold of its lock would make its reader's adoption fail. */
    if (dr_load_relaxed (&e->state) == DORADMA_READER_RESERVED &&
        !reserved_expired (w, r))
      continue;
    /* Taking the entry's lock proves its owner is gone, and keeps a new
     * reader from claiming the entry while we clear it. */
    if (ofd_trylock (w->ctl_fd, r) != 0)
      continue;
    for (s = 0; s < DORADMA_MAX_SLOTS; s++)
      dr_fetch_and_relaxed (&w->ctl->lease[s].readers, ~bit);
    dr_fetch_and_relaxed (&w->ctl->active, ~bit);
    dr_store_relaxed (&e->flags, 0);
    dr_store_relaxed (&e->consumed_seq, 0);
    dr_store_relaxed (&e->token, 0);
    dr_store_release (&e->state, DORADMA_READER_FREE);
    ofd_unlock (w->ctl_fd, r);
    w->carried &= ~bit;
    reclaimed++;
  }
  w->stats.reclaimed += reclaimed;
  return reclaimed;
}

/* RESERVED entries we did not carry over are a peer's scribble, and they
 * lock joiners out (joiners never probe RESERVED entries) until a sweep
 * frees them; acquire sweeps only when it runs short of slots, which a
 * latest writer never does. So publish looks once a second. */
void
sweep_forged_locked (struct doradma_writer *w, uint64_t now)
{
  int r;

  if (now - w->last_forged_check < SWEEP_INTERVAL_NS)
    return;
  w->last_forged_check = now;
  for (r = 0; r < (int) DORADMA_MAX_READERS; r++)
    if (dr_load_relaxed (&w->ctl->readers[r].state) ==
        DORADMA_READER_RESERVED && !(w->carried & (1ull << r))) {
      sweep_locked (w);
      return;
    }
}

DORADMA_API int
doradma_writer_sweep (struct doradma_writer *w)
{
  KEEP_ERRNO;
  int n;

  pthread_mutex_lock (&w->lock);
  n = sweep_locked (w);
  pthread_mutex_unlock (&w->lock);
  return n;
}

/* Lowest consumed_seq of the readers a lossless writer waits for, clamped
 * to what was published (a reader can write anything there). */
uint64_t
min_consumed_locked (struct doradma_writer *w)
{
  uint64_t active = dr_load_acquire (&w->ctl->active);
  uint64_t min = w->last_seq;

  /* Only the active entries: once per lossless acquire, not 64 tests. */
  for (; active != 0; active &= active - 1) {
    struct doradma_shm_reader *e = &w->ctl->readers[__builtin_ctzll (active)];
    uint32_t st;
    uint64_t c;

    st = dr_load_relaxed (&e->state);
    if ((st != DORADMA_READER_ACTIVE && st != DORADMA_READER_RESERVED) ||
        !(dr_load_relaxed (&e->flags) & DORADMA_READER_BACKPRESSURE))
      continue;
    /* ACQUIRE pairs with the reader's RELEASE after it is done with the
     * frame (copy mode: after the copy). */
    c = dr_load_acquire (&e->consumed_seq);
    if (c < min)
      min = c;
  }
  return min;
}

/* Marks the entries in `which` EVICTED (their leases stay honoured: only
 * back-pressure stops), their pids into diag. Returns how many. */
int
evict_locked (struct doradma_writer *w, uint64_t which,
    struct doradma_diag *diag)
{
  int r, n = 0;
  size_t off = 0;

  if (diag) {
    diag->field = "readers";
    diag->msg[0] = '\0';
  }
  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    struct doradma_shm_reader *e = &w->ctl->readers[r];
    if (!(which & (1ull << r)))
      continue;
    dr_store_release (&e->state, DORADMA_READER_EVICTED);
    if (diag && off < sizeof diag->msg)
      off += snprintf (diag->msg + off, sizeof diag->msg - off,
          "%sreader %d (pid %u)", n ? ", " : "evicted ", r,
          dr_load_relaxed (&e->pid));
    n++;
  }
  w->stats.evicted += n;
  return n;
}

DORADMA_API int
doradma_writer_evict_stalled (struct doradma_writer *w,
    struct doradma_diag *diag)
{
  KEEP_ERRNO;
  uint64_t active, min, stalled = 0;
  int r, n;

  pthread_mutex_lock (&w->lock);
  min = min_consumed_locked (w);
  active = dr_load_acquire (&w->ctl->active);
  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    struct doradma_shm_reader *e = &w->ctl->readers[r];
    uint32_t st;
    if (!(active & (1ull << r)) ||
        !(dr_load_relaxed (&e->flags) & DORADMA_READER_BACKPRESSURE))
      continue;
    st = dr_load_relaxed (&e->state);
    if (st != DORADMA_READER_ACTIVE && st != DORADMA_READER_RESERVED)
      continue;
    if (dr_load_acquire (&e->consumed_seq) > min || min >= w->last_seq)
      continue;
    stalled |= 1ull << r;
  }
  n = evict_locked (w, stalled, diag);
  pthread_mutex_unlock (&w->lock);
  if (n)
    eventcount_bump (&w->ctl->notify);
  return n;
}

uint32_t
active_readers (struct doradma_writer *w)
{
  uint64_t active = dr_load_acquire (&w->ctl->active);
  uint32_t n = 0;
  int r;

  for (r = 0; r < (int) DORADMA_MAX_READERS; r++)
    if ((active & (1ull << r)) &&
        dr_load_relaxed (&w->ctl->readers[r].state) == DORADMA_READER_ACTIVE)
      n++;
  return n;
}

DORADMA_API int
doradma_writer_wait_readers (struct doradma_writer *w, uint32_t n,
    int64_t timeout_ns, const int *cancel)
{
  KEEP_ERRNO;
  uint64_t start = monotonic_ns ();

  for (;;) {
    /* Snapshot before counting: a join bumps `space` after it is ACTIVE. */
    uint32_t v = eventcount_snapshot (&w->ctl->space);
    uint64_t now;

    if (active_readers (w) >= n)
      return 0;
    if (g_atomic_int_get (&w->interrupted) ||
        (cancel != NULL && __atomic_load_n (cancel, __ATOMIC_ACQUIRE)))
      return -EINTR;
    now = monotonic_ns ();
    if (timeout_ns == 0)
      return -EAGAIN;
    if (timeout_ns > 0 && now - start >= (uint64_t) timeout_ns)
      return -ETIMEDOUT;
    /* Dead readers' entries would count until reclaimed: at most one
     * sweep per wait slice however often `space` moves (each costs a lock
     * probe per entry). */
    pthread_mutex_lock (&w->lock);
    if (now - w->last_sweep > (uint64_t) WAIT_SLICE_NS)
      sweep_locked (w);
    pthread_mutex_unlock (&w->lock);
    eventcount_wait (&w->ctl->space, v,
        wait_slice (start, now, timeout_ns, WAIT_SLICE_NS));
  }
}
