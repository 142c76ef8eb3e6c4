/* The reader: open and validate a channel, join a reader entry (its OFD lock
 * is our liveness), lease or copy frames, wait on the notify eventcount. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "door.h"
#include "fork-guard.h"
#include "futex.h"
#include "keep-errno.h"
#include "liveness.h"
#include "segment.h"
#include "seqlock.h"

#define WAIT_SLICE_NS 100000000ll
#define STAT_ADD(f, n) __atomic_fetch_add (&(f), (n), __ATOMIC_RELAXED)
#define STAT_GET(f) __atomic_load_n (&(f), __ATOMIC_RELAXED)
#define LEASE_ATTEMPTS 64
#define CTL_OPEN_ATTEMPTS 200
/* How long a reopening reader keeps trying the lock of the RESERVED entry
 * that carries its token: only brief holders (a joiner's probe) take it. */
#define ADOPT_WAIT_NS 200000000ull

struct doradma_reader
{
  struct segment_paths paths;
  int data_fd;
  int ctl_fd;
  const uint8_t *map;
  uint64_t map_size;
  struct doradma_shm_ctl *ctl;
  uint64_t ctl_size;
  const struct doradma_shm_rcb *rcb;
  struct doradma_segment_desc desc;
  struct stat data_st;
  unsigned fork_gen;            /* releases in a forked child are no-ops */
  struct fork_guard guard;      /* a forked child drops our entry lock */

  uint32_t entry;
  uint64_t bit;
  uint64_t token;
  int backpressure;
  int adopted;                  /* took over the RESERVED entry of our token */
  uint64_t first_seq;           /* rcb.first_seq, untrusted: compared only */

  pthread_mutex_t lock;         /* refs[] and the lease handshake */
  uint32_t refs[DORADMA_MAX_SLOTS];
  uint32_t n_leases;

  uint64_t last_seq;
  uint64_t evict_skipped;       /* frames an eviction jumped over, counted
                                 * with the next frame delivered or refused */
  int writer_lost;              /* seen once: every later wait says so at once */
  int stopped;                  /* atomic: doradma_reader_stop */
  int interrupted;              /* atomic */
  uint64_t spin_ns;             /* atomic: poll this long before sleeping */
  struct doradma_reader_stats stats;
};

/* A forked child inherits our mappings but not our entry lock: it must not
 * clear our lease bits. getpid () is a system call per frame; a counter
 * bumped in every child by pthread_atfork costs nothing. */
static unsigned fork_gen_counter;
static pthread_once_t fork_gen_once = PTHREAD_ONCE_INIT;

static void
fork_gen_child (void)
{
  __atomic_fetch_add (&fork_gen_counter, 1, __ATOMIC_RELAXED);
}

static void
fork_gen_register (void)
{
  pthread_atfork (NULL, NULL, fork_gen_child);
}

static unsigned
fork_generation (void)
{
  pthread_once (&fork_gen_once, fork_gen_register);
  return __atomic_load_n (&fork_gen_counter, __ATOMIC_RELAXED);
}

/* One read-only mapping per data object per process, shared by every
 * reader of it (several doradmasrc in one application map and, with CUDA,
 * register the segment once). Keyed by (st_dev, st_ino). */
struct shared_map
{
  dev_t dev;
  ino_t ino;
  uint64_t size;
  const uint8_t *base;
  unsigned refs;
  struct shared_map *next;
};
static pthread_mutex_t shared_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_map *shared_maps;

static const uint8_t *
shared_map_get (int fd, const struct stat *st, const char *label,
    int *err, struct doradma_diag *diag)
{
  struct shared_map *m;
  void *base;

  pthread_mutex_lock (&shared_maps_lock);
  for (m = shared_maps; m != NULL; m = m->next) {
    if (m->dev == st->st_dev && m->ino == st->st_ino &&
        m->size == (uint64_t) st->st_size) {
      m->refs++;
      pthread_mutex_unlock (&shared_maps_lock);
      return m->base;
    }
  }
  /* Prefaulted (the first lap costs no page faults) when fully backed;
   * st_size was validated against the header by segment_size_check. */
  *err = door_map (fd, st, st->st_size, PROT_READ, true, label, &base, diag);
  if (*err < 0) {
    pthread_mutex_unlock (&shared_maps_lock);
    return NULL;
  }
  m = g_new0 (struct shared_map, 1);
  m->dev = st->st_dev;
  m->ino = st->st_ino;
  m->size = st->st_size;
  m->base = base;
  m->refs = 1;
  m->next = shared_maps;
  shared_maps = m;
  pthread_mutex_unlock (&shared_maps_lock);
  return base;
}

static void
shared_map_put (const uint8_t * base)
{
  struct shared_map **pm, *m;

  pthread_mutex_lock (&shared_maps_lock);
  for (pm = &shared_maps; (m = *pm) != NULL; pm = &m->next) {
    if (m->base != base)
      continue;
    if (--m->refs == 0) {
      *pm = m->next;
      munmap ((void *) m->base, m->size);
      g_free (m);
    }
    break;
  }
  pthread_mutex_unlock (&shared_maps_lock);
}

/* ------------------------------------------------------------------------ */
/* open / close                                                             */
/* ------------------------------------------------------------------------ */

/* A child forked without exec shares the ctl object's open file
 * description, through ctl_fd and the ctl mapping, hence our entry lock:
 * after we die the entry would look alive while the child runs, and a
 * lossless writer would wait for it. In the child, ctl_fd becomes
 * /dev/null and the ctl mapping a private copy (fork-guard.h). */
static void
reader_child (struct fork_guard *g)
{
  struct doradma_reader *r = (struct doradma_reader *) ((char *) g -
      offsetof (struct doradma_reader, guard));

  fork_guard_detach (r->ctl_fd, r->ctl, r->ctl_size, true);
}

static void
reader_free (struct doradma_reader *r)
{
  fork_guard_remove (&r->guard);
  if (r->map != NULL)
    shared_map_put (r->map);
  if (r->ctl != NULL)
    munmap (r->ctl, r->ctl_size);
  if (r->data_fd >= 0)
    close (r->data_fd);
  if (r->ctl_fd >= 0)
    close (r->ctl_fd);          /* drops the entry lock */
  pthread_mutex_destroy (&r->lock);
  g_free (r);
}

/* Opens the ctl object that belongs to our data object. Right after a
 * create or replace the writer publishes the data name first, so for a
 * moment the ctl name may be missing or still the predecessor's. */
static int
open_ctl (struct doradma_reader *r, int64_t allowed_uid,
    struct doradma_diag *diag)
{
  char ctl_label[sizeof r->paths.label + 8];
  struct doradma_diag parsed;
  struct stat st;
  int attempt, ret = -ENOENT;
  void *map;

  snprintf (ctl_label, sizeof ctl_label, "%s~ctl", r->paths.label);
  for (attempt = 0; attempt < CTL_OPEN_ATTEMPTS; attempt++) {
    struct timespec ms = { 0, 1000000 };
    struct door_rule rule = { allowed_uid, false, false,
      sizeof (struct doradma_shm_ctl)
    };
    int fd = -1;

    ret = door_open (r->paths.ctl, ctl_label, O_RDWR, &rule, &fd, &st, diag);
    if (ret == -ENOENT) {
      ret = diag_set (diag, -ENOENT, "ctl", "%s: no such object", ctl_label);
      nanosleep (&ms, NULL);
      continue;
    }
    /* Readable data but no write access to ~ctl: the field is the object
     * at fault (the message names its owner and mode). */
    if (ret == -EACCES && diag != NULL && diag->field != NULL &&
        strcmp (diag->field, "owner") == 0)
      diag->field = "ctl";
    if (ret < 0)
      return ret;
    ret = door_map (fd, &st, sizeof (struct doradma_shm_ctl),
        PROT_READ | PROT_WRITE, true, ctl_label, &map, diag);
    if (ret < 0) {
      close (fd);
      return ret;
    }
    memset (&parsed, 0, sizeof parsed);
    ret = ctl_parse (map, sizeof (struct doradma_shm_ctl), r->desc.ctl_token,
        &parsed);
    /* Only a token of another segment is a moment of a replace: a ctl
     * object is complete before its name exists, so a bad magic or layout
     * version is what it is (a peer wrote it), not worth retrying. */
    if (ret < 0 && (parsed.field == NULL ||
            strcmp (parsed.field, "ctl.token") != 0)) {
      munmap (map, sizeof (struct doradma_shm_ctl));
      close (fd);
      return diag_set (diag, ret, parsed.field, "%s: %s", ctl_label,
          parsed.msg);
    }
    if (ret == 0) {
      r->ctl_fd = fd;
      r->ctl = map;
      r->ctl_size = sizeof (struct doradma_shm_ctl);
      /* before join takes the entry lock */
      r->guard.child = reader_child;
      fork_guard_add (&r->guard);
      return 0;
    }
    munmap (map, sizeof (struct doradma_shm_ctl));
    close (fd);
    nanosleep (&ms, NULL);
  }
  /* whether the data object's writer still holds it tells a switch in
   * progress (or a peer's scribble over a live channel) from a leftover */
  return ret == -EBADMSG ? diag_set (diag, -ESTALE, "ctl.token",
      "%s~ctl belongs to another segment (the writer is switching; the "
      "data object's writer lock is %s)", r->paths.label,
      ofd_is_locked (r->data_fd, 0) == 1 ? "held" : "free") : ret;
}

/* The entry's counters for tools (doradma watch): zero at a fresh join; an
 * adopted entry (carried over a supersede) keeps counting. */
static void
tool_counters_reset (struct doradma_shm_reader *ent, uint64_t last_seq)
{
  dr_store_relaxed (&ent->delivered, 0);
  dr_store_relaxed (&ent->skipped, 0);
  dr_store_relaxed (&ent->last_seq, last_seq);
  dr_store_relaxed (&ent->last_time, monotonic_ns ());
}

static void
clear_our_bit_everywhere (struct doradma_reader *r)
{
  uint32_t s;

  for (s = 0; s < DORADMA_MAX_SLOTS; s++)
    dr_fetch_and_release (&r->ctl->lease[s].readers, ~r->bit);
}

static int
reserved_for (struct doradma_reader *r, int e, uint64_t token)
{
  struct doradma_shm_reader *ent = &r->ctl->readers[e];

  return dr_load_relaxed (&ent->state) == DORADMA_READER_RESERVED &&
      dr_load_relaxed (&ent->token) == token;
}

/* Takes the lock of the RESERVED entry carrying our token, retrying for a
 * bounded time: a joiner or a writer's sweep may hold it for a moment. */
static int
adopt_lock (struct doradma_reader *r, int e, uint64_t token)
{
  uint64_t deadline = monotonic_ns () + ADOPT_WAIT_NS;

  for (;;) {
    struct timespec ms = { 0, 1000000 };

    if (ofd_trylock (r->ctl_fd, e) == 0) {
      if (reserved_for (r, e, token))
        return 1;
      ofd_unlock (r->ctl_fd, e);
      return 0;
    }
    if (!reserved_for (r, e, token) || monotonic_ns () > deadline)
      return 0;
    nanosleep (&ms, NULL);
  }
}

/* Joins a reader entry: the entry is ours once we hold its byte lock. */
static int
join (struct doradma_reader *r, const struct doradma_reader_config *cfg,
    struct doradma_diag *diag)
{
  uint64_t newest_seq;
  int e, chosen = -1, adopted = 0;
  size_t off;

  if (cfg->token != 0) {
    for (e = 0; e < (int) DORADMA_MAX_READERS && chosen < 0; e++) {
      if (reserved_for (r, e, cfg->token) && adopt_lock (r, e, cfg->token)) {
        chosen = e;
        adopted = 1;
      }
    }
  }
  for (e = 0; e < (int) DORADMA_MAX_READERS && chosen < 0; e++) {
    /* Not even a probe of RESERVED entries: our brief hold would make
     * their own reader's adoption fail. */
    if (dr_load_relaxed (&r->ctl->readers[e].state) == DORADMA_READER_RESERVED)
      continue;
    if (ofd_trylock (r->ctl_fd, e) != 0)
      continue;
    /* Unlocked RESERVED entries wait for their own reader. */
    if (dr_load_relaxed (&r->ctl->readers[e].state) == DORADMA_READER_RESERVED) {
      ofd_unlock (r->ctl_fd, e);
      continue;
    }
    chosen = e;
  }
  if (chosen < 0) {
    if (diag) {
      unsigned reserved = 0, live;

      /* RESERVED entries carry no pid: count them apart, so a table full
       * of them (a replace's carried readers, or a peer's forgeries) is
       * not read as 64 live readers of pid 0 */
      for (e = 0; e < (int) DORADMA_MAX_READERS; e++)
        reserved += dr_load_relaxed (&r->ctl->readers[e].state) ==
            DORADMA_READER_RESERVED;
      live = DORADMA_MAX_READERS - reserved;
      diag->field = "readers";
      off = snprintf (diag->msg, sizeof diag->msg,
          "%s: all %u reader entries are taken: %u RESERVED (kept for a "
          "replaced writer's readers, or forged), %u by readers%s",
          r->paths.label, DORADMA_MAX_READERS, reserved, live,
          live ? ", pids:" : "");
      for (e = 0; e < (int) DORADMA_MAX_READERS && off < sizeof diag->msg; e++)
        if (dr_load_relaxed (&r->ctl->readers[e].state) !=
            DORADMA_READER_RESERVED)
          off += snprintf (diag->msg + off, sizeof diag->msg - off, " %u",
              dr_load_relaxed (&r->ctl->readers[e].pid));
    }
    return -EUSERS;
  }

  r->entry = (uint32_t) chosen;
  r->bit = 1ull << chosen;
  r->adopted = adopted;
  /* Bits a dead predecessor left under this index would read as ours. */
  clear_our_bit_everywhere (r);

  {
    struct doradma_shm_reader *ent = &r->ctl->readers[chosen];
    r->token = adopted ? cfg->token : random_token ();
    dr_store_relaxed (&ent->token, r->token);
    dr_store_relaxed (&ent->pid, (uint32_t) getpid ());
    dr_store_relaxed (&ent->flags,
        r->backpressure ? DORADMA_READER_BACKPRESSURE : 0);
    newest_seq = DORADMA_NEWEST_SEQ (dr_load_acquire (&r->rcb->newest));
    if (!adopted) {
      /* A late joiner starts with the newest frame; the writer never waits
       * for older ones. */
      uint64_t c = newest_seq ? newest_seq - 1 : 0;
      dr_store_release (&ent->consumed_seq, c);
    }
    dr_store_release (&ent->state, DORADMA_READER_ACTIVE);
    /* RELEASE: the writer that sees our active bit sees the entry. */
    dr_fetch_or_release (&r->ctl->active, r->bit);
    /* A writer waiting for readers (wait-for-readers) sleeps on `space`. */
    eventcount_bump (&r->ctl->space);
    r->last_seq = newest_seq ? newest_seq - 1 : 0;
    if (adopted)
      r->last_seq = dr_load_relaxed (&ent->consumed_seq);
    else
      tool_counters_reset (ent, r->last_seq);
  }
  r->stats.entry = r->entry;
  return 0;
}

DORADMA_API int
doradma_reader_open (const struct doradma_reader_config *cfg,
    struct doradma_reader **out, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  struct doradma_reader *r;
  int ret;

  if (cfg == NULL)
    return diag_set (diag, -EINVAL, NULL, "no reader configuration");
  r = g_new0 (struct doradma_reader, 1);
  r->data_fd = r->ctl_fd = -1;
  pthread_mutex_init (&r->lock, NULL);
  r->fork_gen = fork_generation ();
  r->backpressure = cfg->backpressure;
  ret = segment_paths_init (&r->paths, cfg->shm_dir, cfg->channel, diag);
  if (ret < 0)
    goto fail;

  {
    struct door_rule rule = { cfg->allowed_uid, false, false,
      DORADMA_HEADER_SIZE
    };

    ret = door_open (r->paths.data, r->paths.label, O_RDONLY, &rule,
        &r->data_fd, &r->data_st, diag);
  }
  if (ret == -ENOENT)
    ret = diag_set (diag, -ENOENT, "channel",
        "%s: no such channel (no writer has created it yet)", r->paths.label);
  if (ret < 0)
    goto fail;
  ret = segment_size_check (r->data_fd, &r->data_st, r->paths.label, diag);
  if (ret < 0)
    goto fail;
  r->map_size = (uint64_t) r->data_st.st_size;
  /* PROT_READ: a reader can neither corrupt other readers' frames nor the
   * RCB. */
  r->map = shared_map_get (r->data_fd, &r->data_st, r->paths.label, &ret, diag);
  if (r->map == NULL)
    goto fail;
  ret = segment_parse (r->map, r->map_size, &r->desc, diag);
  if (ret < 0)
    goto fail;
  r->rcb = (const struct doradma_shm_rcb *) (r->map + r->desc.rcb_offset);
  r->first_seq = dr_load_relaxed (&r->rcb->first_seq);

  ret = open_ctl (r, cfg->allowed_uid, diag);
  if (ret < 0)
    goto fail;
  ret = join (r, cfg, diag);
  if (ret < 0)
    goto fail;
  *out = r;
  return 0;

fail:
  reader_free (r);
  return ret;
}

DORADMA_API void
doradma_reader_close (struct doradma_reader *r)
{
  KEEP_ERRNO;
  struct doradma_shm_reader *ent;

  if (r == NULL)
    return;
  if (r->ctl != NULL && r->bit != 0 && fork_generation () == r->fork_gen) {
    ent = &r->ctl->readers[r->entry];
    clear_our_bit_everywhere (r);
    dr_fetch_and_release (&r->ctl->active, ~r->bit);
    dr_store_relaxed (&ent->flags, 0);
    dr_store_relaxed (&ent->token, 0);
    dr_store_release (&ent->state, DORADMA_READER_FREE);
    /* A lossless writer may be waiting for us. */
    eventcount_bump (&r->ctl->space);
  }
  reader_free (r);
}

DORADMA_API void
doradma_reader_stop (struct doradma_reader *r)
{
  KEEP_ERRNO;
  struct doradma_shm_reader *ent;

  if (r == NULL || __atomic_exchange_n (&r->stopped, 1, __ATOMIC_RELAXED))
    return;
  if (r->ctl == NULL || r->bit == 0 || fork_generation () != r->fork_gen)
    return;
  ent = &r->ctl->readers[r->entry];
  /* The writer waits only for ACTIVE/RESERVED entries with the flag and
   * the active bit: dropping the flag first ends back-pressure even if an
   * eviction racing with us overwrites the state. The lease bits stay
   * (the writer never rewrites a leased slot); our entry lock stays, so
   * no sweep frees the entry under them. */
  r->backpressure = 0;
  dr_store_relaxed (&ent->flags, 0);
  dr_fetch_and_release (&r->ctl->active, ~r->bit);
  dr_store_release (&ent->state, DORADMA_READER_STOPPED);
  /* A lossless writer may be waiting for us. */
  eventcount_bump (&r->ctl->space);
}

/* ------------------------------------------------------------------------ */
/* frames                                                                   */
/* ------------------------------------------------------------------------ */

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
static void
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

/* Only R[r] writes these words; tools read them relaxed. A refused record
 * moves last_seq/last_time like a delivery (the reader is not stalled) but
 * counts as skipped, not delivered. `now` is next_common's clock reading:
 * no second clock read per frame on the hot path. */
static void
tool_counters_add (struct doradma_shm_reader *ent, uint64_t seq,
    uint64_t delivered, uint64_t skipped, uint64_t now)
{
  if (delivered)
    dr_store_relaxed (&ent->delivered,
        dr_load_relaxed (&ent->delivered) + delivered);
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

DORADMA_API int
doradma_reader_writer_stopped (struct doradma_reader *r)
{
  /* ACQUIRE: pairs with the writer's store before its lock went */
  return dr_load_acquire (&r->rcb->stopped) == 1;
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

DORADMA_API int
doradma_reader_caps (struct doradma_reader *r, uint32_t epoch, char *buf,
    size_t len, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  const struct doradma_shm_caps *c =
      &r->rcb->caps[epoch % DORADMA_CAPS_ENTRIES];
  char local[DORADMA_CAPS_MAX];
  int attempt;

  for (attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
    uint64_t g = seqlock_read_begin (&c->gen);
    uint32_t e, i;

    if (g & 1)
      continue;
    e = dr_load_relaxed (&c->epoch);
    for (i = 0; i < DORADMA_CAPS_MAX; i++)
      local[i] = dr_load_relaxed (&c->caps[i]);
    if (!seqlock_read_ok (&c->gen, g))
      continue;
    if (e != epoch || g == 0)
      return diag_set (diag, -ENOENT, "rcb.caps",
          "%s: caps epoch %u is no longer in the caps table", r->paths.label,
          epoch);
    {
      int ret = caps_string_validate (local, sizeof local, diag);
      if (ret < 0)
        return ret;
    }
    if (strlen (local) + 1 > len)
      return -ENOBUFS;
    memcpy (buf, local, strlen (local) + 1);
    return 0;
  }
  return diag_set (diag, -EAGAIN, "rcb.caps",
      "%s: caps entry kept changing while read", r->paths.label);
}

DORADMA_API uint64_t
doradma_reader_latency (struct doradma_reader *r)
{
  KEEP_ERRNO;
  return dr_load_relaxed (&r->rcb->latency);
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

DORADMA_API void
doradma_reader_get_stats (struct doradma_reader *r,
    struct doradma_reader_stats *st)
{
  KEEP_ERRNO;
  /* Counters are bumped by the streaming thread and read from any thread. */
  st->frames = STAT_GET (r->stats.frames);
  st->skipped = STAT_GET (r->stats.skipped);
  st->torn = STAT_GET (r->stats.torn);
  st->lease_retries = STAT_GET (r->stats.lease_retries);
  st->spins = STAT_GET (r->stats.spins);
  st->sleeps = STAT_GET (r->stats.sleeps);
  st->entry = r->stats.entry;
  st->evicted = STAT_GET (r->stats.evicted);
}

DORADMA_API void
doradma_reader_segment_info (struct doradma_reader *r,
    struct doradma_segment_info *info)
{
  KEEP_ERRNO;
  memset (info, 0, sizeof *info);
  info->slot_count = r->desc.slot_count;
  info->slot_stride = r->desc.slot_stride;
  info->slots_offset = r->desc.slots_offset;
  info->map_size = r->map_size;
  info->map_base = r->map;
  info->ipc = r->desc.ipc;
  memcpy (info->ipc_handle, r->desc.ipc_handle, sizeof info->ipc_handle);
  snprintf (info->transport, sizeof info->transport, "%s", r->desc.transport);
  info->ino = r->data_st.st_ino;
  info->dev = r->data_st.st_dev;
  info->writer_pid = r->desc.writer_pid;
}

DORADMA_API int
doradma_reader_ctl_writable_by_others (const struct doradma_reader *r)
{
  KEEP_ERRNO;
  struct stat st;

  if (fstat (r->ctl_fd, &st) != 0)
    return 1;
  /* A group write bit: any member may write it (o+w is refused at open). */
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return 1;
  return st.st_uid != r->data_st.st_uid && st.st_uid != getuid ();
}

DORADMA_API int
doradma_reader_fd (const struct doradma_reader *r)
{
  KEEP_ERRNO;
  return r->data_fd;
}

DORADMA_API uint64_t
doradma_reader_token (const struct doradma_reader *r)
{
  KEEP_ERRNO;
  return r->token;
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
