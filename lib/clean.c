/* Removal of a dead channel's objects, for tools; see doradma/inspect.h.
 *
 * The rules are the writer's (docs/format.md, "Create"/"Replace"): a name
 * may be changed only by the holder of the OFD lock of the data object it
 * currently resolves to. While we hold that lock and the name still
 * resolves to our inode, no writer can link or rename anything over the
 * channel's names, and every control object or leftover there belongs to a
 * dead writer. The control object is removed before the data object: once
 * the data name is gone a new writer may link its own control object. */
#include <doradma/inspect.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "door.h"
#include "keep-errno.h"
#include "liveness.h"
#include "segment.h"

#define CLEAN_ATTEMPTS 16

static int
count_leftovers (const struct segment_paths *p, const char *channel)
{
  char ch[DORADMA_NAME_MAX + 1];
  DIR *dir = opendir (p->dir);
  struct dirent *de;
  int n = 0;

  if (dir == NULL)
    return 0;
  while ((de = readdir (dir)) != NULL)
    if (doradma_object_classify (de->d_name, ch) == DORADMA_OBJECT_LEFTOVER
        && strcmp (ch, channel) == 0)
      n++;
  closedir (dir);
  return n;
}

/* Our own regular file, whatever its mode, clean removes it; --force
 * (DORADMA_CLEAN_ANY_OWNER) also another user's (door.h). */
static void
clean_rule (unsigned flags, struct door_rule *rule)
{
  *rule = (struct door_rule) { -1, (flags & DORADMA_CLEAN_ANY_OWNER) != 0,
    true, 0
  };
}

/* Another user's object, which we leave alone: if we can open it at all
 * (root can) and its writer lives, that is the answer (-EBUSY, as for ours;
 * --force would not remove it either), else `ret` (R4-C1). */
static int
live_before_owner (const struct segment_paths *p, int ret,
    struct doradma_diag *diag)
{
  struct door_rule any = { -1, true, true, 0 };
  struct stat st;
  int fd;

  if (door_open (p->data, p->label, O_RDWR, &any, &fd, &st, NULL) < 0)
    return ret;
  if (ofd_trylock (fd, 0) == -EAGAIN)
    ret = diag_set (diag, -EBUSY, "writer", "%s has a live writer: left "
        "alone", p->label);
  close (fd);                   /* drops a lock taken just now */
  return ret;
}

/* Moves the object door_open judged at `path` (fstat `judged`) to a name of
 * our own, `aside`, and checks it is still that object: a name can change
 * between the door's look and a rename by path, and only the object judged
 * may be removed (R4-6). Anything else found there goes back
 * (RENAME_NOREPLACE: never over a newer one) and -EAGAIN names it. */
static int
move_judged_aside (const char *path, const char *label,
    const struct stat *judged, char *aside, size_t aside_len,
    struct doradma_diag *diag)
{
  struct stat now;

  snprintf (aside, aside_len, "%s~clean.%d", path, (int) getpid ());
  if (rename (path, aside) != 0)
    return diag_set (diag, -errno, "ctl", "%s: rename: %s", label,
        strerror (errno));
  if (lstat (aside, &now) == 0 && now.st_dev == judged->st_dev
      && now.st_ino == judged->st_ino)
    return 0;
  if (renameat2 (AT_FDCWD, aside, AT_FDCWD, path, RENAME_NOREPLACE) != 0)
    return diag_set (diag, -EAGAIN, "ctl", "%s changed while we looked at "
        "it; what replaced it was moved to %s and left there", label, aside);
  return diag_set (diag, -EAGAIN, "ctl", "%s changed while we looked at it: "
      "left in place", label);
}

/* A control object whose data object is gone (a writer killed between the
 * two unlinks of its close). No lock guards this name, so it is moved aside
 * first (rename is atomic); if a data object appeared meanwhile, a writer is
 * starting and the object goes back (RENAME_NOREPLACE: never over a newer
 * one), else it belonged to no live writer and is removed. */
static int
clean_orphan_ctl (const struct segment_paths *p, unsigned flags,
    struct doradma_clean_report *rep, struct doradma_diag *diag)
{
  char aside[PATH_MAX + 64], label[PATH_MAX + 8];
  struct door_rule rule;
  struct stat st;
  int fd, ret;

  /* Messages name the object itself, the control object. */
  snprintf (label, sizeof label, "%s~ctl", p->label);
  clean_rule (flags, &rule);
  ret = door_open (p->ctl, label, O_RDONLY, &rule, &fd, &st, diag);
  if (ret == -ENOENT)
    return diag_set (diag, -ENOENT, "channel", "%s: no such channel", p->label);
  if (ret < 0)
    return ret;
  close (fd);
  ret = move_judged_aside (p->ctl, label, &st, aside, sizeof aside, diag);
  if (ret < 0)
    return ret;
  if (access (p->data, F_OK) != 0 && errno == ENOENT) {
    unlink (aside);
    rep->removed_ctl = 1;
    return 0;
  }
  if (renameat2 (AT_FDCWD, aside, AT_FDCWD, p->ctl, RENAME_NOREPLACE) != 0)
    unlink (aside);             /* a newer writer's control object is there */
  return diag_set (diag, -EBUSY, "writer",
      "%s: a writer is starting: its control object was left in place", label);
}

/* The control object of a channel whose data lock we hold, judged by the
 * door like the data object and removed only when it is ours (or another
 * user's with DORADMA_CLEAN_ANY_OWNER), and still the object judged: 1 when
 * removed, 0 when absent, else the refusal naming what is there, and
 * nothing is removed. */
static int
remove_ctl (const struct segment_paths *p, unsigned flags,
    struct doradma_diag *diag)
{
  char aside[PATH_MAX + 64], label[PATH_MAX + 8];
  struct door_rule rule;
  struct stat st;
  int fd, ret;

  snprintf (label, sizeof label, "%s~ctl", p->label);
  clean_rule (flags, &rule);
  ret = door_open (p->ctl, label, O_RDONLY, &rule, &fd, &st, diag);
  if (ret == -ENOENT)
    return 0;
  if (ret < 0)
    return ret == -EACCES ? -EPERM : ret;
  close (fd);
  ret = move_judged_aside (p->ctl, label, &st, aside, sizeof aside, diag);
  if (ret < 0)
    return ret;
  return unlink (aside) == 0 ? 1 : 0;
}

DORADMA_API int
doradma_clean_channel (const char *shm_dir, const char *channel,
    struct doradma_clean_report *rep, struct doradma_diag *diag)
{
  return doradma_clean_channel_flags (shm_dir, channel, 0, rep, diag);
}

DORADMA_API int
doradma_clean_channel_flags (const char *shm_dir, const char *channel,
    unsigned flags, struct doradma_clean_report *rep, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  struct door_rule rule;
  struct segment_paths p;
  struct stat st;
  int attempt, fd, ret;

  memset (rep, 0, sizeof *rep);
  ret = segment_paths_init (&p, shm_dir, channel, diag);
  if (ret < 0)
    return ret;

  for (attempt = 0; attempt < CLEAN_ATTEMPTS; attempt++) {
    int before;

    /* Counted before the lock, to hold it for two unlinks only in the
     * common case (a writer starting meanwhile meets it: -EBUSY). Only a
     * holder of the lock makes such names, so none appear meanwhile. */
    before = count_leftovers (&p, channel);
    /* O_RDWR: an OFD write lock needs a writable fd. */
    clean_rule (flags, &rule);
    ret = door_open (p.data, p.label, O_RDWR, &rule, &fd, &st, diag);
    if (ret == -ENOENT)
      return clean_orphan_ctl (&p, flags, rep, diag);
    if (ret == -EACCES)
      ret = -EPERM;             /* someone else's: left alone */
    if (ret == -EPERM)
      return live_before_owner (&p, ret, diag);
    if (ret < 0)
      return ret;
    ret = ofd_trylock (fd, 0);
    if (ret == -EAGAIN) {
      close (fd);
      return diag_set (diag, -EBUSY, "writer",
          "%s has a live writer: left alone", p.label);
    }
    if (ret < 0 || !segment_path_is (p.data, &st)) {
      close (fd);               /* replaced under us: look again */
      continue;
    }
    /* The names are frozen while we hold this lock, but what sits at the
     * control name is judged by the door like the data object (R4-6):
     * someone else's object or a non-file there is named, and nothing is
     * removed. */
    ret = remove_ctl (&p, flags, diag);
    if (ret < 0) {
      close (fd);
      return ret;
    }
    rep->removed_ctl = ret;
    if (before > 0) {
      segment_remove_leftovers (&p);
      rep->removed_leftovers = before - count_leftovers (&p, channel);
    }
    if (unlink (p.data) == 0)
      rep->removed_data = 1;
    close (fd);                 /* drops the lock */
    return 0;
  }
  return diag_set (diag, -EBUSY, "writer",
      "%s: the name kept changing while we looked at it", p.label);
}
