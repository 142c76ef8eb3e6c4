/* The one door to objects a peer can name; the rules are in door.h. */
#include "door.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "doradma/file-type.h"
#include "segment-desc.h"       /* diag_set */

static const char *
user_name (uid_t uid)
{
  struct passwd *pw = getpwuid (uid);

  return pw ? pw->pw_name : "?";
}

static int
squatter_diag (const struct stat *st, const char *label,
    struct doradma_diag *diag)
{
  return diag_set (diag, -EBADMSG, "object.type",
      "%s is %s owned by user %s (uid %u), not a shared memory object: "
      "someone squats the name", label, doradma_file_type (st->st_mode)->phrase,
      user_name (st->st_uid), (unsigned) st->st_uid);
}

/* A failed open: say what is at the name when it is not a regular file (a
 * socket gives ENXIO, a symbolic link ELOOP), or who owns what we may not
 * open. */
static int
open_failed (const char *path, const char *label, int err,
    struct doradma_diag *diag)
{
  struct stat st;

  if (err == ENOENT)
    return diag_set (diag, -ENOENT, "channel", "%s: no such object", label);
  if (lstat (path, &st) == 0 && !S_ISREG (st.st_mode))
    return squatter_diag (&st, label, diag);
  if (err == EACCES && lstat (path, &st) == 0)
    return diag_set (diag, -EACCES, "owner",
        "%s is owned by user %s (uid %u) with mode %04o: we (uid %u) may "
        "not open it", label, user_name (st.st_uid), (unsigned) st.st_uid,
        (unsigned) (st.st_mode & 07777), (unsigned) getuid ());
  return diag_set (diag, -err, NULL, "%s: open: %s", label, strerror (err));
}

int
door_publish_failed (const char *path, const char *label, int err,
    const char *field, struct doradma_diag *diag)
{
  struct stat st;

  if (lstat (path, &st) == 0 && (!S_ISREG (st.st_mode) ||
          st.st_uid != getuid ()))
    return diag_set (diag, -err, field,
        "%s is %s owned by user %s (uid %u), which we (uid %u) cannot "
        "replace (%s): someone squats the name", label,
        doradma_file_type (st.st_mode)->phrase, user_name (st.st_uid),
        (unsigned) st.st_uid, (unsigned) getuid (), strerror (err));
  return diag_set (diag, -err, field, "%s: cannot publish the name: %s",
      label, strerror (err));
}

static int
admit (int fd, const char *label, const struct door_rule *rule,
    struct stat *st, struct doradma_diag *diag)
{
  if (fstat (fd, st) != 0)
    return diag_set (diag, -errno, NULL, "%s: fstat: %s", label,
        strerror (errno));
  if (!S_ISREG (st->st_mode))
    return squatter_diag (st, label, diag);
  if (!rule->any_owner && st->st_uid != getuid () &&
      (rule->allowed_uid < 0 || st->st_uid != (uid_t) rule->allowed_uid)) {
    char allowed[48] = "";

    /* the allowed uid is named, unless it is ours (F9) */
    if (rule->allowed_uid >= 0 && (uid_t) rule->allowed_uid != getuid ())
      snprintf (allowed, sizeof allowed, " nor by the allowed uid %lld",
          (long long) rule->allowed_uid);
    return diag_set (diag, -EPERM, "owner",
        "%s is owned by user %s (uid %u), not by us (uid %u)%s: refusing "
        "to use it", label, user_name (st->st_uid), (unsigned) st->st_uid,
        (unsigned) getuid (), allowed);
  }
  if (!rule->any_mode && (st->st_mode & S_IWOTH))
    return diag_set (diag, -EACCES, "mode",
        "%s is writable by others (mode %04o): refusing to use it", label,
        (unsigned) (st->st_mode & 07777));
  if ((uint64_t) st->st_size < rule->min_size)
    return diag_set (diag, -EBADMSG, "object.size",
        "%s is truncated: %llu bytes, at least %llu expected", label,
        (unsigned long long) st->st_size, (unsigned long long) rule->min_size);
  return 0;
}

int
door_open (const char *path, const char *label, int flags,
    const struct door_rule *rule, int *fd_out, struct stat *st,
    struct doradma_diag *diag)
{
  int fd, fl, ret;

  *fd_out = -1;
  fd = open (path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return open_failed (path, label, errno, diag);
  ret = admit (fd, label, rule, st, diag);
  if (ret < 0) {
    close (fd);
    return ret;
  }
  fl = fcntl (fd, F_GETFL);
  if (fl >= 0)
    fcntl (fd, F_SETFL, fl & ~O_NONBLOCK);
  *fd_out = fd;
  return 0;
}

int
door_map (int fd, const struct stat *st, uint64_t len, int prot,
    bool prefault, const char *label, void **map, struct doradma_diag *diag)
{
  int flags = MAP_SHARED;
  void *m;

  *map = NULL;
  if (len == 0 || len > (uint64_t) st->st_size)
    return diag_set (diag, -EBADMSG, "object.size",
        "%s: %llu bytes to map, the object has %llu", label,
        (unsigned long long) len, (unsigned long long) st->st_size);
  /* st_blocks counts 512-byte units whatever st_blksize says. */
  if (prefault && (uint64_t) st->st_blocks >= (len + 511) / 512)
    flags |= MAP_POPULATE;
  m = mmap (NULL, len, prot, flags, fd, 0);
  if (m == MAP_FAILED)
    return diag_set (diag, -errno, NULL, "%s: mmap of %llu bytes: %s", label,
        (unsigned long long) len, strerror (errno));
  *map = m;
  return 0;
}
