/* The channel's shm objects: names, creation and checks; see segment.h. */
#include "segment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "liveness.h"

uint64_t
page_size (void)
{
  long p = sysconf (_SC_PAGESIZE);

  return p > 0 ? (uint64_t) p : 4096;
}

int
segment_paths_init (struct segment_paths *p, const char *shm_dir,
    const char *channel, struct doradma_diag *diag)
{
  int ret = doradma_name_validate (channel, diag);
  const char *dir;

  if (ret < 0)
    return ret;
  dir = doradma_shm_dir (shm_dir);
  if (strlen (dir) + strlen (channel) + 32 >= PATH_MAX)
    return diag_set (diag, -ENAMETOOLONG, "shm_dir",
        "shm directory path \"%s\" is too long", dir);
  snprintf (p->dir, sizeof p->dir, "%s", dir);
  snprintf (p->label, sizeof p->label, "doradma.%s", channel);
  snprintf (p->data, sizeof p->data, "%s/doradma.%s", dir, channel);
  snprintf (p->ctl, sizeof p->ctl, "%s/doradma.%s~ctl", dir, channel);
  return 0;
}

static void
format_bytes (char *buf, size_t len, uint64_t bytes)
{
  if (bytes >= (1ull << 20))
    snprintf (buf, len, "%.1f MiB", bytes / 1048576.0);
  else
    snprintf (buf, len, "%.1f KiB", bytes / 1024.0);
}

int
segment_object_create (const char *dir, const char *label, uint64_t size,
    uint32_t mode, int *fd_out, void **map_out, struct doradma_diag *diag)
{
  int fd, err;
  void *map;

  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    return diag_set (diag, -errno, "shm_dir",
        "%s: cannot create an object in %s: %s", label, dir, strerror (errno));
  err = posix_fallocate (fd, 0, (off_t) size);
  if (err == ENOSPC || err == EFBIG) {
    struct statvfs vfs;
    char need[32], avail[32] = "unknown";

    format_bytes (need, sizeof need, size);
    if (fstatvfs (fd, &vfs) == 0)
      format_bytes (avail, sizeof avail,
          (uint64_t) vfs.f_bavail * vfs.f_frsize);
    close (fd);
    return diag_set (diag, -ENOSPC, "shm_dir",
        "%s: %s has %s free but the channel needs %s; enlarge it "
        "(docker --shm-size, a larger tmpfs) or use fewer or smaller slots",
        label, dir, avail, need);
  } else if (err != 0) {
    close (fd);
    return diag_set (diag, -err, "shm_dir", "%s: posix_fallocate in %s: %s",
        label, dir, strerror (err));
  }
  if (fchmod (fd, mode) != 0) {
    err = -errno;
    close (fd);
    return diag_set (diag, err, "permissions", "%s: fchmod %04o: %s", label,
        mode, strerror (-err));
  }
  map = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
      fd, 0);
  if (map == MAP_FAILED) {
    err = -errno;
    close (fd);
    return diag_set (diag, err, NULL, "%s: mmap of %llu bytes: %s", label,
        (unsigned long long) size, strerror (-err));
  }
  *fd_out = fd;
  *map_out = map;
  return 0;
}

int
segment_object_link (int fd, const char *path)
{
  char proc[64];

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat (AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0)
    return -errno;
  return 0;
}

int
segment_object_link_temp (int fd, const char *path, char *tmp, size_t len)
{
  /* '~' cannot occur in a channel name, so the temporary name never
   * collides with another channel. */
  snprintf (tmp, len, "%s~new.%d.%llx", path, (int) getpid (),
      (unsigned long long) random_token ());
  return segment_object_link (fd, tmp);
}

int
segment_object_link_replace (int fd, const char *path)
{
  char tmp[SEGMENT_TEMP_MAX];
  int ret;

  ret = segment_object_link_temp (fd, path, tmp, sizeof tmp);
  if (ret < 0)
    return ret;
  if (rename (tmp, path) != 0) {
    ret = -errno;
    unlink (tmp);
    return ret;
  }
  return 0;
}

int
segment_path_is (const char *path, const struct stat *st)
{
  struct stat now;

  return stat (path, &now) == 0 && now.st_ino == st->st_ino &&
      now.st_dev == st->st_dev;
}

void
segment_remove_leftovers (const struct segment_paths *p)
{
  char data_prefix[DORADMA_NAME_MAX + 32], ctl_prefix[DORADMA_NAME_MAX + 40];
  DIR *dir = opendir (p->dir);
  struct dirent *de;

  if (dir == NULL)
    return;
  snprintf (data_prefix, sizeof data_prefix, "%s~new.", p->label);
  snprintf (ctl_prefix, sizeof ctl_prefix, "%s~ctl~new.", p->label);
  while ((de = readdir (dir)) != NULL) {
    struct stat st;

    if (strncmp (de->d_name, data_prefix, strlen (data_prefix)) != 0 &&
        strncmp (de->d_name, ctl_prefix, strlen (ctl_prefix)) != 0)
      continue;
    /* only what one of our writers left (R4-6): a regular file of ours,
     * never another user's, a link or a directory under such a name */
    if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG (st.st_mode) && st.st_uid == geteuid ())
      unlinkat (dirfd (dir), de->d_name, 0);
  }
  closedir (dir);
}

int
segment_size_check (int fd, const struct stat *st, const char *label,
    struct doradma_diag *diag)
{
  uint64_t len = (uint64_t) st->st_size, expected = 0;
  size_t avail = len < DORADMA_HEADER_SIZE + DORADMA_JSON_MAX ?
      (size_t) len : DORADMA_HEADER_SIZE + DORADMA_JSON_MAX;
  uint8_t *head;
  ssize_t n;
  int ret;

  if (len < DORADMA_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "object.size",
        "%s is truncated: %llu bytes, at least %u expected", label,
        (unsigned long long) len, DORADMA_HEADER_SIZE);
  head = malloc (avail);
  if (head == NULL)
    return diag_set (diag, -ENOMEM, NULL, "%s: out of memory", label);
  n = pread (fd, head, avail, 0);
  if (n != (ssize_t) avail) {
    free (head);
    return diag_set (diag, -EBADMSG, "object.size",
        "%s: read %zd of its first %zu bytes", label, n, avail);
  }
  ret = segment_expected_size (head, avail, len, &expected, diag);
  free (head);
  if (ret < 0)
    return ret;
  if (len != expected)
    return diag_set (diag, -EBADMSG, "object.size",
        "%s: %llu bytes, but the layout its header and JSON describe has "
        "%llu", label, (unsigned long long) len, (unsigned long long) expected);
  return 0;
}
