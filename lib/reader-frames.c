/* A reader's frames: the next one found (by slot_seq or newest), leased
 * (zero-copy) or copied under the slot's seqlock, validated, delivered;
 * next_common waits for one on the notify eventcount and notices the
 * writer's end, supersede, stop or death. */
#include <errno.h>
#include <glib.h>
#include <pthread.h>
#include <string.h>

#include "atomic.h"
#include "futex.h"
#include "keep-errno.h"
#include "liveness.h"
#include "reader-private.h"
#include "segment.h"
#include "seqlock.h"

#define WAIT_SLICE_NS 100000000ll

/* Copies a slot record word by word (RELAXED: the writer stores it the same
 * way; the copy is trusted only after the seqlock or lease check). */
static void
load_record (const struct doradma_shm_slot *shm, struct doradma_shm_slot *rec)
{
  const uint64_t *src = (const uint64_t *) shm;
  uint64_t *dst = (uint64_t *) rec;
  size_t i;

  for (i = 0; i < sizeof *rec / 8; i++)
    dst[i] = dr_load_relaxed (&src[i]);
}

/* The deliberate race of a seqlock: the writer may rewrite the slot while
 * we copy; the caller's re-check detects it and discards the copy. Kept out
 * of line under this name so tests/tsan.supp can suppress exactly this. */
#define DORADMA_NOINLINE __attribute__ ((noinline))
static DORADMA_NOINLINE void
seqlock_copy_payload (void *dst, const uint8_t * src, uint64_t len)
{
  memcpy (dst, src, len);
}

/* Finds the slot of the frame to deliver next; returns 0 with *slot and
 * *seq, or -EAGAIN. */
static int
find_frame (struct doradma_reader *r, enum doradma_read_mode mode,
    uint64_t excluded, uint32_t * slot, uint64_t * seq)
{
  /* ACQUIRE pairs with the writer's RELEASE of newest: the slot's gen and
   * record of that frame are visible. */
  uint64_t newest = dr_load_acquire (&r->rcb->newest);
  uint64_t nseq = DORADMA_NEWEST_SEQ (newest), best_seq = 0;
  uint32_t nslot = DORADMA_NEWEST_SLOT (newest), s, best = UINT32_MAX;

  if (nseq == 0 || nseq <= r->last_seq)
    return -EAGAIN;
  if (mode == DORADMA_READ_LATEST) {
    if (nslot >= r->desc.slot_count)
      return -EAGAIN;
    *slot = nslot;
    *seq = nseq;
    return 0;
  }
  /* A reader that keeps up wants the newest frame, the only one past
   * last_seq: the scan below would pick its slot by the same tests, so
   * look at that slot alone, not at every slot's cache lines (the writer
   * is rewriting them). Otherwise (rewritten, lost) the scan decides. */
  if (nseq == r->last_seq + 1 && nslot < r->desc.slot_count &&
      !(excluded & (1ull << nslot)) &&
      dr_load_relaxed (&r->rcb->slot_seq[nslot]) == nseq &&
      !(dr_load_relaxed (&r->rcb->slots[nslot].gen) & 1)) {
    *slot = nslot;
    *seq = nseq;
    return 0;
  }
  for (s = 0; s < r->desc.slot_count; s++) {
    uint64_t q = dr_load_acquire (&r->rcb->slot_seq[s]);
    /* A slot being rewritten (odd gen) no longer holds frame q: waiting
     * for it would stall behind the writer while later frames are ready. */
    if ((excluded & (1ull << s)) ||
        (dr_load_relaxed (&r->rcb->slots[s].gen) & 1))
      continue;
    if (q > r->last_seq && q <= nseq && (best == UINT32_MAX || q < best_seq)) {
      best = s;
      best_seq = q;
    }
  }
  if (best == UINT32_MAX)
    return -EAGAIN;
  *slot = best;
  *seq = best_seq;
  return 0;
}

/* Takes a lease on `slot` holding frame `seq` and copies its record.
 * Returns 1 leased, 0 lost (rescan). */
static int
lease_slot (struct doradma_reader *r, uint32_t slot, uint64_t seq,
    struct doradma_shm_slot *rec)
{
  const struct doradma_shm_slot *shm = &r->rcb->slots[slot];
  uint64_t *lease = &r->ctl->lease[slot].readers;
  int ok = 0;

  pthread_mutex_lock (&r->lock);
  if (r->refs[slot] > 0) {
    /* Already ours: the slot cannot change under our lease. */
    load_record (shm, rec);
    if (rec->seq == seq) {
      r->refs[slot]++;
      ok = 1;
    }
  } else {
    uint64_t g = dr_load_acquire (&shm->gen);
    if (!(g & 1) && lease_try (lease, &shm->gen, g, r->bit)) {
      load_record (shm, rec);
      if (rec->seq == seq) {
        r->refs[slot] = 1;
        r->n_leases++;
        ok = 1;
      } else {
        lease_release (lease, r->bit);
      }
    }
  }
  pthread_mutex_unlock (&r->lock);
  if (!ok)
    STAT_ADD (r->stats.lease_retries, 1);
  return ok;
}

/* Only R[r] writes these words; tools read them relaxed. A refused record
 * moves last_seq/last_time like a delivery (the reader is not stalled) but
 * counts as skipped, not delivered. `now` is next_common's clock reading:
 * no second clock read per frame on the hot path. */
static void
tool_counters_add (struct doradma_shm_reader *ent, uint64_t seq,
    uint64_t delivered, uint64_t skipped, uint64_t now)
{
  if (delivered)
    dr_store_relaxed (&ent->delivered, dr_load_relaxed (&ent->delivered) +
        delivered);
  if (skipped)
    dr_store_relaxed (&ent->skipped, dr_load_relaxed (&ent->skipped) + skipped);
  dr_store_relaxed (&ent->last_seq, seq);
  dr_store_relaxed (&ent->last_time, now);
}

static void
deliver (struct doradma_reader *r, uint32_t slot, uint64_t seq,
    struct doradma_frame *frame, uint64_t now)
{
  frame->slot = slot;
  frame->data_offset =
      r->desc.slots_offset + r->desc.slot_stride * (uint64_t) slot;
  frame->data = r->desc.ipc ? NULL : r->map + frame->data_offset;
  frame->skipped = (seq > r->last_seq + 1 ? seq - r->last_seq - 1 : 0) +
      r->evict_skipped;
  r->evict_skipped = 0;
  STAT_ADD (r->stats.skipped, frame->skipped);
  STAT_ADD (r->stats.frames, 1);
  r->last_seq = seq;
  tool_counters_add (&r->ctl->readers[r->entry], seq, 1, frame->skipped, now);
}

/* A record that failed validation: skipped like a lapped frame (counted,
 * with the frames before it that were never delivered) and, for a
 * back-pressure reader, consumed, so that a lossless writer never waits
 * for a frame nobody will take. */
static void
skip_refused (struct doradma_reader *r, uint64_t seq, uint64_t now)
{
  uint64_t skipped = (seq > r->last_seq ? seq - r->last_seq : 0) +
      r->evict_skipped;

  r->evict_skipped = 0;
  STAT_ADD (r->stats.skipped, skipped);
  r->last_seq = seq;            /* never retried */
  tool_counters_add (&r->ctl->readers[r->entry], seq, 0, skipped, now);
  if (r->backpressure)
    doradma_reader_consume (r, seq);
}

/* One attempt at a frame without waiting. Returns 0, -EAGAIN, -EBADMSG.
 * `now`: the caller's latest clock reading, for the entry's last_time. */
static int
try_next (struct doradma_reader *r, enum doradma_read_mode mode, void *dst,
    size_t cap, struct doradma_frame *frame, uint64_t now,
    struct doradma_diag *diag)
{
  struct doradma_shm_slot rec;
  uint64_t excluded = 0;
  int attempt, ret;

  for (attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
    uint32_t slot;
    uint64_t seq;

    if (find_frame (r, mode, excluded, &slot, &seq) < 0)
      return -EAGAIN;
    /* A `next` reader that loses a slot to the writer looks at the other
     * slots first; the publish that ends the rewrite wakes it anyway. */
    if (mode == DORADMA_READ_NEXT)
      excluded |= 1ull << slot;

    if (dst == NULL) {
      if (!lease_slot (r, slot, seq, &rec))
        continue;
      ret = slot_record_validate (&rec, &r->desc, &frame->info, diag);
      if (ret < 0) {
        doradma_reader_release (r, slot);
        skip_refused (r, seq, now);
        return ret;
      }
      deliver (r, slot, seq, frame, now);
      if (r->backpressure)
        doradma_reader_consume (r, seq);
      return 0;
    } else {
      const struct doradma_shm_slot *shm = &r->rcb->slots[slot];
      uint64_t g = seqlock_read_begin (&shm->gen);

      if (g & 1)
        continue;
      load_record (shm, &rec);
      if (rec.seq != seq || !seqlock_read_ok (&shm->gen, g))
        continue;
      ret = slot_record_validate (&rec, &r->desc, &frame->info, diag);
      if (ret < 0) {
        skip_refused (r, seq, now);
        return ret;
      }
      if (frame->info.payload_bytes > cap)
        return -ENOBUFS;
      if (r->desc.ipc)
        return -ENOTSUP;
      seqlock_copy_payload (dst, r->map + r->desc.slots_offset +
          (uint64_t) slot * r->desc.slot_stride, frame->info.payload_bytes);
      if (!seqlock_read_ok (&shm->gen, g)) {
        STAT_ADD (r->stats.torn, 1);
        continue;
      }
      deliver (r, slot, seq, frame, now);
      /* Copy mode: consumed only after the copy is done (RELEASE). */
      if (r->backpressure)
        doradma_reader_consume (r, seq);
      return 0;
    }
  }
  return -EAGAIN;
}

static int
next_common (struct doradma_reader *r, enum doradma_read_mode mode,
    int64_t timeout_ns, void *dst, size_t cap, struct doradma_frame *frame,
    struct doradma_diag *diag)
{
  /* `now` is the one clock reading per attempt: try_next stamps a
   * delivery with it rather than reading the clock again. */
  uint64_t start = monotonic_ns (), live_checked = start, now = start;
  uint64_t spin_ns = __atomic_load_n (&r->spin_ns, __ATOMIC_RELAXED);
  int ret, spun = 0, slept = 0;

  if (__atomic_load_n (&r->stopped, __ATOMIC_RELAXED))
    return diag_set (diag, -ESHUTDOWN, "reader",
        "%s: this reader was stopped (doradma_reader_stop)", r->paths.label);
  /* In a child forked without exec our entry lock and ctl mapping are not
   * its own (fork-guard.h: a private copy): a lease taken there protects
   * nothing and no publish would wake it. */
  if (fork_generation () != r->fork_gen)
    return diag_set (diag, -EPERM, "fork",
        "%s: this reader was opened before a fork (by pid %u); open a new "
        "reader in this process", r->paths.label,
        dr_load_relaxed (&r->ctl->readers[r->entry].pid));
  for (;;) {
    /* Snapshot BEFORE looking for a frame: a publish after this point
     * moves the word and the wait returns at once (no lost wakeup). */
    uint32_t v = eventcount_snapshot (&r->ctl->notify);
    /* ACQUIRE: if we see EOS/SUPERSEDED, every frame up to final_seq is
     * visible to the search below. */
    uint32_t state = dr_load_acquire (&r->rcb->state);
    int64_t slice;

    check_evicted (r);
    ret = try_next (r, mode, dst, cap, frame, now, diag);
    if (ret == 0 && spun && !slept)
      STAT_ADD (r->stats.spins, 1);
    if (ret != -EAGAIN)
      return ret;
    if (state == DORADMA_STATE_EOS)
      return -EPIPE;
    if (state == DORADMA_STATE_SUPERSEDED)
      return -ESTALE;
    if (g_atomic_int_get (&r->interrupted))
      return -EINTR;
    /* A writer that stopped cleanly woke us (its close bumps notify): say
     * so now, not at the next liveness check a slice later. `stopped` is
     * read (ACQUIRE) before one more search, so a frame published before
     * the stop is still delivered. */
    if (!r->writer_lost && doradma_reader_writer_stopped (r)) {
      ret = try_next (r, mode, dst, cap, frame, now, diag);
      if (ret != -EAGAIN)
        return ret;
      r->writer_lost = 1;
    }
    if (r->writer_lost && doradma_reader_writer_stopped (r))
      return diag_set (diag, -EOWNERDEAD, "writer.stopped",
          "%s: the writer (pid %u) stopped", r->paths.label,
          r->desc.writer_pid);
    if (r->writer_lost)
      return diag_set (diag, -EOWNERDEAD, "writer",
          "%s: the writer (pid %u) is gone", r->paths.label,
          r->desc.writer_pid);
    if (timeout_ns == 0)
      return -EAGAIN;
    now = monotonic_ns ();
    if (timeout_ns > 0 && now - start >= (uint64_t) timeout_ns)
      return -ETIMEDOUT;
    slice = wait_slice (start, now, timeout_ns, WAIT_SLICE_NS);
    if (spin_ns > 0) {
      /* Poll in chunks of at most a slice, so that a dead writer is
       * noticed as soon as when sleeping; a publish, EOS, supersede and
       * interrupt all move the word and end the poll at once. */
      uint64_t chunk = MIN (spin_ns, (uint64_t) slice), t0 = now;

      spun = 1;
      if (eventcount_spin (&r->ctl->notify, v, chunk, &r->interrupted, NULL)) {
        now = monotonic_ns ();
        spin_ns -= MIN (spin_ns, now - t0);
        continue;
      }
      now = monotonic_ns ();
      spin_ns -= MIN (spin_ns, now - t0);
    } else {
      if (!slept) {
        slept = 1;
        STAT_ADD (r->stats.sleeps, 1);
      }
      eventcount_wait (&r->ctl->notify, v, slice);
      now = monotonic_ns ();
    }
    /* Liveness once per slice without a frame, however often somebody
     * wakes us: wake traffic must not hide a dead writer. */
    if (now - live_checked >= (uint64_t) WAIT_SLICE_NS) {
      live_checked = now;
      if (dr_load_acquire (&r->rcb->state) == DORADMA_STATE_LIVE &&
          ofd_is_locked (r->data_fd, 0) == 0 &&
          DORADMA_NEWEST_SEQ (dr_load_acquire (&r->rcb->newest)) <= r->last_seq)
        r->writer_lost = 1;     /* reported at the top of the loop */
    }
  }
}

DORADMA_API int
doradma_reader_next (struct doradma_reader *r, enum doradma_read_mode mode,
    int64_t timeout_ns, struct doradma_frame *frame, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  return next_common (r, mode, timeout_ns, NULL, 0, frame, diag);
}

DORADMA_API int
doradma_reader_copy_next (struct doradma_reader *r,
    enum doradma_read_mode mode, int64_t timeout_ns, void *dst, size_t cap,
    struct doradma_frame *frame, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  if (dst == NULL)
    return -EINVAL;
  return next_common (r, mode, timeout_ns, dst, cap, frame, diag);
}

DORADMA_API void
doradma_reader_set_spin (struct doradma_reader *r, uint64_t spin_ns)
{
  KEEP_ERRNO;
  __atomic_store_n (&r->spin_ns, spin_ns, __ATOMIC_RELAXED);
}

DORADMA_API void
doradma_reader_interrupt (struct doradma_reader *r, int on)
{
  KEEP_ERRNO;
  g_atomic_int_set (&r->interrupted, on ? 1 : 0);
  /* A bump moves the word: a reader between its flag check and FUTEX_WAIT
   * fails the wait's value check instead of sleeping out its slice. */
  if (on)
    eventcount_bump (&r->ctl->notify);
}
