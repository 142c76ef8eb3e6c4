/* The writer: channel creation and replacement, slot choice with the lease
 * handshake, publish, abandon, caps epochs, EOS, dead-reader reclaim.
 *
 * The writer never reads its own state back from shared memory (gen, newest,
 * state live in private copies) and distrusts every reader-written word:
 * only lease words of slots in use are read, consumed_seq is clamped. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "door.h"
#include "fork-guard.h"
#include "futex.h"
#include "keep-errno.h"
#include "liveness.h"
#include "segment.h"
#include "seqlock.h"

#define SLOT_FREE 0
#define SLOT_WRITING 1

#define SWEEP_INTERVAL_NS 1000000000ull
#define WAIT_SLICE_NS 50000000ll
/* A RESERVED entry not adopted this long after its old lock was first seen
 * free is freed: its reader died during the switch. */
#define RESERVED_GRACE_NS 2000000000ull
/* Predecessors' ctl objects whose entry locks tell a RESERVED entry's
 * liveness: the one replaced, and those its own RESERVED entries came from
 * (two quick replaces A -> B -> C: C's entries from A still live on A's). */
#define OLD_CTL_MAX 4

struct doradma_writer
{
  struct segment_paths paths;
  int data_fd;
  int ctl_fd;
  uint8_t *map;
  uint64_t map_size;
  struct doradma_shm_ctl *ctl;
  uint64_t ctl_size;
  struct doradma_shm_rcb *rcb;
  struct doradma_segment_desc desc;
  struct stat data_st, ctl_st;

  pthread_mutex_t lock;         /* slot choice + mark: one marker at a time */
  uint64_t gen[DORADMA_MAX_SLOTS];      /* private copies of the gen words */
  uint64_t seq[DORADMA_MAX_SLOTS];      /* private copies of published seqs */
  uint8_t state[DORADMA_MAX_SLOTS];
  uint64_t held;                /* slots referenced in this process (upstream) */
  uint64_t caps_gen[DORADMA_CAPS_ENTRIES];
  uint32_t caps_epoch;
  uint32_t newest_slot;         /* UINT32_MAX: none */
  uint32_t slot_epoch[DORADMA_MAX_SLOTS];       /* caps epoch of w->seq[s] */
  uint64_t next_seq;
  uint64_t last_seq;
  int superseded;               /* a successor owns the names now */
  int eos;                      /* doradma_writer_eos was called */
  int interrupted;              /* atomic */
  pid_t pid;                    /* creator: a forked child never unlinks */
  struct fork_guard guard;

  /* RESERVED entries: entry r's reader holds byte r of old_ctl_fd[
   * reserved_ctl[r]], where its entry (old_ctl[...], read-only) carries
   * reserved_token[r] until it leaves; reserved_free_since[r] is when that
   * lock was first seen free (0: not yet). */
  int old_ctl_fd[OLD_CTL_MAX];
  const struct doradma_shm_ctl *old_ctl[OLD_CTL_MAX];
  uint64_t carried;             /* entries we made RESERVED at the replace */
  uint8_t reserved_ctl[DORADMA_MAX_READERS];
  uint64_t reserved_token[DORADMA_MAX_READERS];
  uint64_t reserved_free_since[DORADMA_MAX_READERS];

  uint64_t last_sweep;
  uint64_t last_forged_check;   /* publish's look for forged RESERVED */
  uint64_t spin_ns;             /* atomic: poll this long before sleeping */
  struct doradma_writer_stats stats;
};

/* ------------------------------------------------------------------------ */
/* fork                                                                     */
/* ------------------------------------------------------------------------ */

/* A child forked without exec shares our data object's open file
 * description, through the fd and the mapping, hence our writer lock:
 * while it lives, the writer would look alive after we die. In the child
 * the data fd becomes /dev/null and the data mapping anonymous memory
 * (fork-guard.h), and close never unlinks (w->pid). */
static void
writer_child (struct fork_guard *g)
{
  struct doradma_writer *w = (struct doradma_writer *) ((char *) g -
      offsetof (struct doradma_writer, guard));

  fork_guard_detach (w->data_fd, w->map, w->map_size, false);
}

/* ------------------------------------------------------------------------ */
/* creation                                                                 */
/* ------------------------------------------------------------------------ */

static int
check_config (const struct doradma_writer_config *cfg,
    struct doradma_diag *diag)
{
  int ret;

  if (cfg == NULL)
    return diag_set (diag, -EINVAL, NULL, "no writer configuration");
  if (cfg->slots < 1 || cfg->slots > DORADMA_MAX_SLOTS)
    return diag_set (diag, -EINVAL, "slots",
        "slots=%u is outside 1..%u", cfg->slots, DORADMA_MAX_SLOTS);
  if (cfg->slot_size == 0 || cfg->slot_size > (1ull << 40))
    return diag_set (diag, -EINVAL, "slot_size",
        "slot size %llu bytes is outside 1..2^40",
        (unsigned long long) cfg->slot_size);
  if (cfg->first_seq > DORADMA_FIRST_SEQ_MAX)
    return diag_set (diag, -EINVAL, "first_seq",
        "first_seq %llu is past %llu: sequences have 56 bits",
        (unsigned long long) cfg->first_seq,
        (unsigned long long) DORADMA_FIRST_SEQ_MAX);
  if (cfg->caps == NULL)
    return diag_set (diag, -EINVAL, "caps", "no caps given");
  ret = caps_string_validate (cfg->caps, strlen (cfg->caps) + 1, diag);
  if (ret < 0)
    return ret;
  if (cfg->transport != NULL && strcmp (cfg->transport, "shmem") != 0 &&
      strcmp (cfg->transport, "unified") != 0 &&
      strcmp (cfg->transport, "ipc") != 0)
    return diag_set (diag, -EINVAL, "transport",
        "transport \"%s\" is not one of shmem, unified, ipc", cfg->transport);
  /* The door refuses objects writable by others (door.c): nobody could
   * reopen such a channel, not even its writer to restart it. */
  if (cfg->mode & S_IWOTH)
    return diag_set (diag, -EINVAL, "mode",
        "mode %04o makes the objects writable by others: refused (the "
        "door refuses such objects; drop o+w)", (unsigned) (cfg->mode & 07777));
  if ((cfg->ipc_handle != NULL) !=
      (cfg->transport != NULL && strcmp (cfg->transport, "ipc") == 0))
    return diag_set (diag, -EINVAL, "transport",
        "transport ipc needs an IPC handle and only ipc takes one");
  return 0;
}

/* Lays out the data object. meta_build finds the fixed point itself (the
 * JSON records data_offset, which its own length decides) when given
 * slots_offset 0; data_offset is then the next page multiple after it. With
 * pages over 64 KiB the JSON cap leaves zero bytes before data_offset. */
static char *
layout_segment (struct doradma_segment_desc *d, uint64_t * json_len)
{
  char *json;

  d->slots_offset = 0;
  d->rcb_offset = 0;
  json = meta_build (d, json_len);
  if (json == NULL)
    return NULL;
  d->json_len = *json_len;
  d->data_offset = round_up (DORADMA_HEADER_SIZE + *json_len, d->page_size);
  d->slots_offset = d->data_offset;
  d->rcb_offset =
      d->data_offset + (d->ipc ? 0 : d->slot_count * d->slot_stride);
  d->map_size =
      d->rcb_offset + round_up (sizeof (struct doradma_shm_rcb), d->page_size);
  return json;
}

static void
write_caps_entry (struct doradma_writer *w, uint32_t epoch, const char *caps)
{
  uint32_t e = epoch % DORADMA_CAPS_ENTRIES;
  struct doradma_shm_caps *c = &w->rcb->caps[e];
  size_t len = strlen (caps), i;
  uint64_t g = w->caps_gen[e];

  dr_store_relaxed (&c->gen, g + 1);
  /* Orders the odd gen before the entry's stores (copy readers see odd or
   * detect the change at their re-check). */
  dr_fence_release ();
  dr_store_relaxed (&c->epoch, epoch);
  dr_store_relaxed (&c->length, (uint32_t) len);
  for (i = 0; i < DORADMA_CAPS_MAX; i++)
    dr_store_relaxed (&c->caps[i], i < len ? caps[i] : '\0');
  /* RELEASE pairs with the reader's ACQUIRE of gen. */
  dr_store_release (&c->gen, g + 2);
  w->caps_gen[e] = g + 2;
}

static void
fill_objects (struct doradma_writer *w, const struct doradma_writer_config *cfg,
    const char *json)
{
  struct doradma_shm_header *h = (struct doradma_shm_header *) w->map;
  struct doradma_shm_rcb *rcb = w->rcb;
  struct doradma_shm_ctl *ctl = w->ctl;
  const struct doradma_segment_desc *d = &w->desc;

  /* Fresh tmpfs pages are zero: only non-zero fields are written. */
  memcpy (h->magic, DORADMA_MAGIC, 8);
  h->json_len = d->json_len;
  h->data_offset = d->data_offset;
  h->ipc_flag = d->ipc ? 1 : 0;
  if (d->ipc)
    memcpy (h->ipc_handle, cfg->ipc_handle, DORADMA_IPC_HANDLE_LEN);
  h->dora_gen = DORADMA_DORA_GEN_ODD;
  /* dora's FORK-B readers take word 96 + 8 s as slot s's gen: all odd. */
  for (size_t i = 0; i < G_N_ELEMENTS (h->dora_slot_gen); i++)
    h->dora_slot_gen[i] = DORADMA_DORA_GEN_ODD;
  memcpy (w->map + DORADMA_HEADER_SIZE, json, d->json_len);

  rcb->magic = DORADMA_RCB_MAGIC;
  rcb->layout_version = DORADMA_LAYOUT_VERSION;
  rcb->page_size = d->page_size;
  rcb->compat_flags = d->compat_flags;
  rcb->incompat_flags = d->incompat_flags;
  rcb->slot_count = d->slot_count;
  rcb->writer_pid = (uint32_t) getpid ();
  rcb->slot_stride = d->slot_stride;
  rcb->slots_offset = d->slots_offset;
  rcb->ctl_token = d->ctl_token;
  rcb->state = DORADMA_STATE_LIVE;
  rcb->writer_start = process_start_time ();
  rcb->first_seq = w->next_seq;
  /* before the name exists: a reader never reads a latency of 0 that the
   * writer did not mean */
  rcb->latency = cfg->latency;

  ctl->magic = DORADMA_CTL_MAGIC;
  ctl->layout_version = DORADMA_LAYOUT_VERSION;
  ctl->slot_count = d->slot_count;
  ctl->token = d->ctl_token;

  w->caps_epoch = 1;
  write_caps_entry (w, 1, cfg->caps);
  rcb->caps_epoch = 1;
}

static void
writer_free (struct doradma_writer *w)
{
  fork_guard_remove (&w->guard);
  if (w->map != NULL)
    munmap (w->map, w->map_size);
  if (w->ctl != NULL)
    munmap (w->ctl, w->ctl_size);
  if (w->data_fd >= 0)
    close (w->data_fd);         /* drops the writer lock */
  if (w->ctl_fd >= 0)
    close (w->ctl_fd);
  for (int i = 0; i < OLD_CTL_MAX; i++) {
    if (w->old_ctl[i] != NULL)
      munmap ((void *) w->old_ctl[i], sizeof (struct doradma_shm_ctl));
    if (w->old_ctl_fd[i] >= 0)
      close (w->old_ctl_fd[i]);
  }
  pthread_mutex_destroy (&w->lock);
  g_free (w);
}

static int
writer_build (const struct doradma_writer_config *cfg,
    struct doradma_writer **out, struct doradma_diag *diag)
{
  struct doradma_writer *w;
  uint64_t json_len = 0;
  char *json;
  void *map;
  uint32_t mode = cfg->mode ? cfg->mode : 0600;
  int ret, i;

  w = g_new0 (struct doradma_writer, 1);
  w->data_fd = w->ctl_fd = -1;
  for (i = 0; i < OLD_CTL_MAX; i++)
    w->old_ctl_fd[i] = -1;
  w->pid = getpid ();
  pthread_mutex_init (&w->lock, NULL);
  w->newest_slot = UINT32_MAX;
  w->next_seq = cfg->first_seq ? cfg->first_seq : 1;
  for (i = 0; i < (int) DORADMA_MAX_SLOTS; i++)
    w->gen[i] = 0;

  ret = segment_paths_init (&w->paths, cfg->shm_dir, cfg->channel, diag);
  if (ret < 0)
    goto fail;

  w->desc.page_size = (uint32_t) page_size ();
  w->desc.slot_count = cfg->slots;
  w->desc.slot_stride = round_up (cfg->slot_size, w->desc.page_size);
  w->desc.ipc = cfg->ipc_handle != NULL;
  w->desc.incompat_flags = w->desc.ipc ? DORADMA_INCOMPAT_DEVICE_SLOTS : 0;
  w->desc.ctl_token = random_token ();
  w->desc.writer_pid = (uint32_t) getpid ();
  snprintf (w->desc.transport, sizeof w->desc.transport, "%s",
      cfg->transport ? cfg->transport : "shmem");
  snprintf (w->desc.caps, sizeof w->desc.caps, "%s", cfg->caps);

  json = layout_segment (&w->desc, &json_len);
  if (json == NULL) {
    ret = diag_set (diag, -EINVAL, "json", "%s: cannot build the JSON metadata",
        w->paths.label);
    goto fail;
  }
  w->map_size = w->desc.map_size;
  ret = segment_object_create (w->paths.dir, w->paths.label, w->map_size,
      mode, &w->data_fd, &map, diag);
  if (ret < 0) {
    g_free (json);
    goto fail;
  }
  w->map = map;
  w->rcb = (struct doradma_shm_rcb *) (w->map + w->desc.rcb_offset);

  w->ctl_size = round_up (sizeof (struct doradma_shm_ctl), w->desc.page_size);
  ret = segment_object_create (w->paths.dir, w->paths.label, w->ctl_size,
      mode, &w->ctl_fd, &map, diag);
  if (ret < 0) {
    g_free (json);
    goto fail;
  }
  w->ctl = map;
  fill_objects (w, cfg, json);
  g_free (json);

  /* Guarded before the lock exists: a fork from another thread in between
   * would leave a child holding it. */
  w->guard.child = writer_child;
  fork_guard_add (&w->guard);
  /* The writer lock is held before the object gets a name. */
  ret = ofd_trylock (w->data_fd, 0);
  if (ret < 0) {
    ret = diag_set (diag, ret, NULL, "%s: cannot lock the new object: %s",
        w->paths.label, strerror (-ret));
    goto fail;
  }
  fstat (w->data_fd, &w->data_st);
  fstat (w->ctl_fd, &w->ctl_st);
  *out = w;
  return 0;

fail:
  writer_free (w);
  return ret;
}

/* Marks a stale (lock taken by us) or replaced segment SUPERSEDED and wakes
 * its readers, who then drain it and reopen the name. The old object is
 * validated first: it is untrusted like any other. */
static void
supersede_old (int old_fd, const struct segment_paths *paths,
    uint64_t final_seq, int have_final)
{
  struct stat st;
  uint8_t *map;
  struct doradma_segment_desc d;
  struct doradma_shm_rcb *rcb;
  struct door_rule rule = { -1, false, false, sizeof (struct doradma_shm_ctl) };
  struct stat cst;
  void *old_map, *ctl_map;
  int ctl_fd = -1;

  if (fstat (old_fd, &st) != 0 || segment_size_check (old_fd, &st,
          paths->label, NULL) < 0 || door_map (old_fd, &st, st.st_size,
          PROT_READ | PROT_WRITE, false, paths->label, &old_map, NULL) < 0)
    return;
  map = old_map;
  if (segment_parse (map, st.st_size, &d, NULL) == 0) {
    rcb = (struct doradma_shm_rcb *) (map + d.rcb_offset);
    if (!have_final)
      final_seq = DORADMA_NEWEST_SEQ (dr_load_relaxed (&rcb->newest));
    dr_store_relaxed (&rcb->final_seq, final_seq);
    /* RELEASE: final_seq is visible to whoever sees SUPERSEDED. */
    dr_store_release (&rcb->state, DORADMA_STATE_SUPERSEDED);
    if (door_open (paths->ctl, paths->label, O_RDWR, &rule, &ctl_fd, &cst,
            NULL) == 0) {
      struct doradma_shm_ctl *ctl = NULL;

      if (door_map (ctl_fd, &cst, sizeof *ctl, PROT_READ | PROT_WRITE, false,
              paths->label, &ctl_map, NULL) == 0)
        ctl = ctl_map;
      if (ctl != NULL) {
        if (ctl_parse ((const uint8_t *) ctl, sizeof *ctl, d.ctl_token,
                NULL) == 0)
          eventcount_bump (&ctl->notify);
        munmap (ctl, sizeof *ctl);
      }
      close (ctl_fd);
    }
  }
  munmap (map, st.st_size);
}

/* Reads the pid a live writer recorded, for the error message only. */
static uint32_t
live_writer_pid (int fd)
{
  struct stat st;
  uint8_t *map;
  struct doradma_segment_desc d;
  uint32_t pid = 0;
  void *m;

  if (fstat (fd, &st) != 0 || segment_size_check (fd, &st, "", NULL) < 0
      || door_map (fd, &st, st.st_size, PROT_READ, false, "", &m, NULL) < 0)
    return 0;
  map = m;
  if (segment_parse (map, st.st_size, &d, NULL) == 0)
    pid = d.writer_pid;
  munmap (map, st.st_size);
  return pid;
}

DORADMA_API int
doradma_writer_create (const struct doradma_writer_config *cfg,
    struct doradma_writer **out, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  struct segment_paths paths;
  struct doradma_writer *w = NULL;
  int ret, attempt;

  ret = check_config (cfg, diag);
  if (ret < 0)
    return ret;
  ret = segment_paths_init (&paths, cfg->shm_dir, cfg->channel, diag);
  if (ret < 0)
    return ret;

  for (attempt = 0; attempt < 16; attempt++) {
    struct stat st;
    struct door_rule rule = { -1, false, false, 0 };
    int old_fd = -1;

    ret = door_open (paths.data, paths.label, O_RDWR, &rule, &old_fd, &st,
        diag);
    if (ret == -EACCES) {
      struct stat lst;

      /* we may not open it, or it is o+w: another user's is EPERM */
      if (stat (paths.data, &lst) == 0 && lst.st_uid != getuid ())
        return diag_set (diag, -EPERM, "owner",
            "%s already exists and is owned by uid %u: another user holds "
            "this channel name", paths.label, (unsigned) lst.st_uid);
    }
    if (ret < 0 && ret != -ENOENT)
      return ret;
    if (old_fd >= 0) {
      ret = ofd_trylock (old_fd, 0);
      if (ret == -EAGAIN) {
        uint32_t pid = live_writer_pid (old_fd);
        close (old_fd);
        return diag_set (diag, -EBUSY, "writer",
            "%s has a live writer (pid %u): one writer per channel",
            paths.label, pid);
      }
      if (ret < 0 || !segment_path_is (paths.data, &st)) {
        /* Replaced under us: look again. */
        close (old_fd);
        continue;
      }
    }

    if (w == NULL) {
      ret = writer_build (cfg, &w, diag);
      if (ret < 0) {
        if (old_fd >= 0)
          close (old_fd);
        return ret;
      }
    }

    if (old_fd < 0) {
      ret = segment_object_link (w->data_fd, paths.data);
      if (ret == -EEXIST)
        continue;               /* another writer won the name: re-check it */
    } else {
      /* Stale channel: we hold its writer lock, so we may replace it. */
      ret = segment_object_link_replace (w->data_fd, paths.data);
      if (ret == 0)
        supersede_old (old_fd, &paths, 0, 0);
      close (old_fd);
    }
    if (ret < 0) {
      writer_free (w);
      return door_publish_failed (paths.data, paths.label, -ret, "channel",
          diag);
    }
    /* The data name is ours; a ctl name left by a dead writer is replaced. */
    ret = segment_object_link_replace (w->ctl_fd, paths.ctl);
    if (ret < 0) {
      char ctl_label[sizeof paths.label + 8];

      unlink (paths.data);
      writer_free (w);
      snprintf (ctl_label, sizeof ctl_label, "%s~ctl", paths.label);
      return door_publish_failed (paths.ctl, ctl_label, -ret, "ctl", diag);
    }
    segment_remove_leftovers (&paths);
    /* the door's ENOENT probe of a new name left its words: a success
     * carries no diagnostic */
    if (diag) {
      diag->field = NULL;
      diag->msg[0] = '\0';
    }
    *out = w;
    return 0;
  }
  if (w != NULL)
    writer_free (w);
  return diag_set (diag, -EBUSY, "writer",
      "%s: the name kept changing while we tried to create it", paths.label);
}

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

DORADMA_API void
doradma_writer_close (struct doradma_writer *w)
{
  KEEP_ERRNO;
  if (w == NULL)
    return;
  /* A clean stop, not a death: readers that find our lock gone read this
   * (RELEASE: before the lock goes with writer_free). */
  if (!w->superseded && getpid () == w->pid)
    dr_store_release (&w->rcb->stopped, 1);
  /* Unlink only names that still resolve to our inodes, while our lock is
   * held. ~ctl first: while the data name is ours (and locked) no other
   * writer can create the channel and link a ctl we would then remove.
   * A forked child never unlinks its parent's names. */
  if (!w->superseded && getpid () == w->pid) {
    if (segment_path_is (w->paths.ctl, &w->ctl_st))
      unlink (w->paths.ctl);
    if (segment_path_is (w->paths.data, &w->data_st))
      unlink (w->paths.data);
  }
  /* Readers asleep notice the writer is gone within their slice. */
  if (getpid () == w->pid)
    eventcount_bump (&w->ctl->notify);
  writer_free (w);
}

/* ------------------------------------------------------------------------ */
/* readers seen by the writer                                               */
/* ------------------------------------------------------------------------ */

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

static int
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
static void
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
static uint64_t
min_consumed_locked (struct doradma_writer *w)
{
  uint64_t active = dr_load_acquire (&w->ctl->active);
  uint64_t min = w->last_seq;
  int r;

  for (r = 0; r < (int) DORADMA_MAX_READERS; r++) {
    struct doradma_shm_reader *e = &w->ctl->readers[r];
    uint32_t st;
    uint64_t c;
    if (!(active & (1ull << r)))
      continue;
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

DORADMA_API int
doradma_writer_fd (const struct doradma_writer *w)
{
  KEEP_ERRNO;
  return w->data_fd;
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

/* Would writing `epoch` overwrite the caps of a frame still in the ring? */
static int
caps_entry_in_use_locked (struct doradma_writer *w, uint32_t epoch)
{
  uint32_t s;

  for (s = 0; s < w->desc.slot_count; s++)
    if (w->seq[s] != 0 && w->slot_epoch[s] != epoch &&
        w->slot_epoch[s] % DORADMA_CAPS_ENTRIES == epoch % DORADMA_CAPS_ENTRIES)
      return 1;
  return 0;
}

DORADMA_API int
doradma_writer_set_caps (struct doradma_writer *w, const char *caps,
    uint32_t * epoch)
{
  KEEP_ERRNO;
  int ret;

  if (caps == NULL)
    return -EINVAL;
  if (strlen (caps) >= DORADMA_CAPS_MAX)
    return -E2BIG;
  ret = caps_string_validate (caps, strlen (caps) + 1, NULL);
  if (ret < 0)
    return -EINVAL;
  pthread_mutex_lock (&w->lock);
  if (caps_entry_in_use_locked (w, w->caps_epoch + 1)) {
    pthread_mutex_unlock (&w->lock);
    return -EBUSY;
  }
  w->caps_epoch++;
  write_caps_entry (w, w->caps_epoch, caps);
  dr_store_release (&w->rcb->caps_epoch, w->caps_epoch);
  if (epoch)
    *epoch = w->caps_epoch;
  pthread_mutex_unlock (&w->lock);
  return 0;
}

DORADMA_API void
doradma_writer_set_latency (struct doradma_writer *w, uint64_t latency_ns)
{
  KEEP_ERRNO;
  dr_store_relaxed (&w->rcb->latency, latency_ns);
  eventcount_bump (&w->ctl->notify);
}

DORADMA_API int
doradma_writer_eos (struct doradma_writer *w)
{
  KEEP_ERRNO;
  pthread_mutex_lock (&w->lock);
  w->eos = 1;
  dr_store_relaxed (&w->rcb->final_seq, w->last_seq);
  /* RELEASE: a reader that sees EOS sees final_seq and every frame. */
  dr_store_release (&w->rcb->state, DORADMA_STATE_EOS);
  pthread_mutex_unlock (&w->lock);
  eventcount_bump (&w->ctl->notify);
  return 0;
}

/* Marks the entries in `which` EVICTED (their leases stay honoured: only
 * back-pressure stops), their pids into diag. Returns how many. */
static int
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

static uint32_t
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

DORADMA_API void
doradma_writer_interrupt (struct doradma_writer *w, int on)
{
  KEEP_ERRNO;
  g_atomic_int_set (&w->interrupted, on ? 1 : 0);
  if (on)
    eventcount_bump (&w->ctl->space);
}

DORADMA_API void
doradma_writer_get_stats (struct doradma_writer *w,
    struct doradma_writer_stats *st)
{
  KEEP_ERRNO;
  pthread_mutex_lock (&w->lock);
  *st = w->stats;
  pthread_mutex_unlock (&w->lock);
  st->readers = active_readers (w);
}
