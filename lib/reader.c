/* The reader: open and validate a channel (one mapping per data object per
 * process), join a reader entry (its OFD lock is our liveness), close, stop,
 * and the reader's own accessors. Its other parts: reader-frames.c (find a
 * frame, lease or copy it, wait on the notify eventcount), reader-consume.c
 * (leases released, frames consumed, eviction, the position), reader-stream.c
 * (caps epochs, latency, the writer's stop). reader-private.h holds the
 * state they share. */
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
#include "reader-private.h"
#include "segment.h"

#define CTL_OPEN_ATTEMPTS 200
/* How long a reopening reader keeps trying the lock of the RESERVED entry
 * that carries its token: only brief holders (a joiner's probe) take it. */
#define ADOPT_WAIT_NS 200000000ull

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

unsigned
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
