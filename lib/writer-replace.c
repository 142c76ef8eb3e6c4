/* A successor takes over a live channel (doradma_writer_replace): both
 * names move in one step, back-pressure readers are carried over as
 * RESERVED entries, and the successor waits for them to adopt their
 * entries (or evicts them). */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "atomic.h"
#include "door.h"
#include "futex.h"
#include "keep-errno.h"
#include "segment.h"
#include "writer-private.h"

/* Keeps a predecessor's ctl object: its fd for the entry locks, and a
 * read-only mapping for the entries' states (reserved_expired). */
static void
keep_old_ctl (struct doradma_writer *w, int i, int fd)
{
  void *m;

  w->old_ctl_fd[i] = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  if (w->old_ctl_fd[i] < 0)
    return;
  m = mmap (NULL, sizeof (struct doradma_shm_ctl), PROT_READ, MAP_SHARED,
      w->old_ctl_fd[i], 0);
  if (m != MAP_FAILED)
    w->old_ctl[i] = m;
}

/* Moves both names from `old`'s objects to `w`'s, or neither: on failure
 * `old` keeps serving the channel. Data first (a reader that opens the new
 * data object waits for its ctl, reader.c open_ctl), then ~ctl; the old
 * data object gets a second name first, which a failure at ~ctl renames
 * back over the data name (one step: a reader finds one object or the
 * other there, never none). Only the holder of the current data object's
 * lock renames over the names: `old`, whose lock the caller holds. */
static int
publish_replacement (struct doradma_writer *old, struct doradma_writer *w,
    struct doradma_diag *diag)
{
  char keep[SEGMENT_TEMP_MAX], ctl_label[sizeof old->paths.label + 8];
  char tail[PATH_MAX + 128];
  int ret, undo;

  ret = segment_object_link_temp (old->data_fd, old->paths.data, keep,
      sizeof keep);
  if (ret < 0)
    return diag_set (diag, ret, "channel",
        "%s: cannot link the old data object at %s: %s", old->paths.label,
        keep, strerror (-ret));
  ret = segment_object_link_replace (w->data_fd, old->paths.data);
  if (ret < 0) {
    unlink (keep);
    return door_publish_failed (old->paths.data, old->paths.label, -ret,
        "channel", diag);
  }
  ret = segment_object_link_replace (w->ctl_fd, old->paths.ctl);
  if (ret == 0) {
    unlink (keep);
    return 0;
  }
  undo = rename (keep, old->paths.data) == 0 ? 0 : -errno;
  if (undo < 0)
    unlink (keep);
  /* as in create: a squatter at ~ctl (planted after ours was unlinked) is
   * named, not just the errno (R4-2) */
  snprintf (ctl_label, sizeof ctl_label, "%s~ctl", old->paths.label);
  ret = door_publish_failed (old->paths.ctl, ctl_label, -ret, "ctl", diag);
  if (diag != NULL) {
    if (undo == 0)
      snprintf (tail, sizeof tail,
          "; replace undone, the old writer keeps the channel");
    else
      snprintf (tail, sizeof tail,
          "; the old data object could not be renamed back to %s: %s",
          old->paths.data, strerror (-undo));
    g_strlcat (diag->msg, tail, sizeof diag->msg);
  }
  return ret;
}

DORADMA_API int
doradma_writer_replace (struct doradma_writer *old,
    const struct doradma_writer_config *cfg, struct doradma_writer **out,
    struct doradma_diag *diag)
{
  KEEP_ERRNO;
  struct doradma_writer_config c;
  struct doradma_writer *w;
  uint64_t final_seq, active;
  int ret, r, i;

  ret = check_config (cfg, diag);
  if (ret < 0)
    return ret;
  if (old->superseded || !segment_path_is (old->paths.data, &old->data_st))
    return diag_set (diag, -ESTALE, "writer",
        "%s: this writer no longer owns the name", old->paths.label);
  if (strcmp (cfg->channel, old->paths.label + strlen ("doradma.")) != 0)
    return diag_set (diag, -EINVAL, "channel",
        "replace must keep the channel name");

  pthread_mutex_lock (&old->lock);
  /* Not last_seq: a replacement that published nothing yet must not
   * restart the sequence (A -> B -> C with B empty). */
  final_seq = old->next_seq - 1;
  c = *cfg;
  c.first_seq = final_seq + 1;
  ret = writer_build (&c, &w, diag);
  if (ret < 0) {
    pthread_mutex_unlock (&old->lock);
    return ret;
  }

  /* Back-pressure readers are carried over as RESERVED entries with their
   * tokens: the writer keeps waiting for them until they adopt the entry in
   * the new segment or die. Same index, so their old lock tells liveness.
   * Entries still RESERVED in `old` (a replace just before) are carried
   * too, their liveness still on the ctl they came from. */
  keep_old_ctl (w, 0, old->ctl_fd);
  for (i = 0; i + 1 < OLD_CTL_MAX; i++)
    if (old->old_ctl_fd[i] >= 0)
      keep_old_ctl (w, i + 1, old->old_ctl_fd[i]);
  active = dr_load_acquire (&old->ctl->active);
  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    struct doradma_shm_reader *o = &old->ctl->readers[r];
    struct doradma_shm_reader *n = &w->ctl->readers[r];
    uint32_t st = dr_load_relaxed (&o->state);
    if (!(active & (1ull << r)) ||
        !(dr_load_relaxed (&o->flags) & DORADMA_READER_BACKPRESSURE))
      continue;
    if (st == DORADMA_READER_ACTIVE)
      w->reserved_ctl[r] = 0;
    else if (st == DORADMA_READER_RESERVED &&
        old->reserved_ctl[r] + 1 < OLD_CTL_MAX)
      w->reserved_ctl[r] = old->reserved_ctl[r] + 1;
    else
      continue;
    n->token = w->reserved_token[r] = dr_load_relaxed (&o->token);
    n->flags = DORADMA_READER_BACKPRESSURE;
    n->consumed_seq = final_seq;
    /* The tools' counters go on where they were (an adopting reader keeps
     * counting, reader.c); relaxed: R[r] may still be writing them. */
    n->delivered = dr_load_relaxed (&o->delivered);
    n->skipped = dr_load_relaxed (&o->skipped);
    n->last_seq = dr_load_relaxed (&o->last_seq);
    n->last_time = dr_load_relaxed (&o->last_time);
    n->state = DORADMA_READER_RESERVED;
    w->ctl->active |= 1ull << r;
    w->carried |= 1ull << r;
  }

  ret = publish_replacement (old, w, diag);
  if (ret < 0) {
    pthread_mutex_unlock (&old->lock);
    writer_free (w);
    return ret;
  }
  old->superseded = 1;
  dr_store_relaxed (&old->rcb->final_seq, final_seq);
  /* RELEASE: readers that see SUPERSEDED see final_seq. */
  dr_store_release (&old->rcb->state, DORADMA_STATE_SUPERSEDED);
  pthread_mutex_unlock (&old->lock);
  eventcount_bump (&old->ctl->notify);
  *out = w;
  return 0;
}

/* Entries doradma_writer_replace carried into this segment whose readers
 * have not adopted them yet: those readers are still in an older segment. */
static uint64_t
unadopted_locked (struct doradma_writer *w)
{
  uint64_t active = dr_load_acquire (&w->ctl->active), pending = 0;
  int r;

  for (r = 0; r < (int) DORADMA_MAX_READERS; r++)
    if ((w->carried & active & (1ull << r)) &&
        dr_load_relaxed (&w->ctl->readers[r].state) == DORADMA_READER_RESERVED)
      pending |= 1ull << r;
  return pending;
}

DORADMA_API int
doradma_writer_wait_carried (struct doradma_writer *w, int64_t timeout_ns,
    const int *cancel)
{
  KEEP_ERRNO;
  uint64_t start = monotonic_ns ();

  for (;;) {
    /* Snapshot before looking: an adoption bumps `space` once ACTIVE. */
    uint32_t v = eventcount_snapshot (&w->ctl->space);
    uint64_t pending, now = monotonic_ns ();
    int superseded;

    pthread_mutex_lock (&w->lock);
    superseded = w->superseded;
    /* A reader that died while draining frees its entry after its grace:
     * at most one sweep per wait slice. */
    if (now - w->last_sweep > (uint64_t) WAIT_SLICE_NS)
      sweep_locked (w);
    pending = unadopted_locked (w);
    pthread_mutex_unlock (&w->lock);
    if (superseded)
      return -ESTALE;
    if (pending == 0)
      return 0;
    if (g_atomic_int_get (&w->interrupted) ||
        (cancel != NULL && __atomic_load_n (cancel, __ATOMIC_ACQUIRE)))
      return -EINTR;
    if (timeout_ns == 0)
      return -EAGAIN;
    if (timeout_ns > 0 && now - start >= (uint64_t) timeout_ns)
      return -ETIMEDOUT;
    eventcount_wait (&w->ctl->space, v,
        wait_slice (start, now, timeout_ns, WAIT_SLICE_NS));
  }
}

DORADMA_API int
doradma_writer_evict_carried (struct doradma_writer *w,
    struct doradma_diag *diag)
{
  KEEP_ERRNO;
  int n;

  /* Not carried again by the next replace: their readers join that one at
   * its newest frame. */
  pthread_mutex_lock (&w->lock);
  n = evict_locked (w, unadopted_locked (w), diag);
  pthread_mutex_unlock (&w->lock);
  if (n)
    eventcount_bump (&w->ctl->notify);
  return n;
}
