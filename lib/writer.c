/* The writer: channel creation (over a stale channel too), close, and the
 * writer's own accessors. Its other parts: writer-slots.c (slot choice with
 * the lease handshake, publish, abandon), writer-readers.c (the reader table:
 * dead-reader reclaim, the lossless writer's wait, eviction),
 * writer-replace.c (a successor takes over the channel and its readers),
 * writer-stream.c (caps epochs, latency, EOS). writer-private.h holds the
 * state they share. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
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
#include "writer-private.h"

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

int
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

void
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

int
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
  /* Readers asleep wake and read `stopped` (a forked child's close wakes
   * nobody: its parent is the writer). */
  if (getpid () == w->pid)
    eventcount_bump (&w->ctl->notify);
  writer_free (w);
}

DORADMA_API int
doradma_writer_fd (const struct doradma_writer *w)
{
  KEEP_ERRNO;
  return w->data_fd;
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
