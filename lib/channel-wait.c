/* Waiting for a channel to appear, or for a dead writer's object to be
 * replaced: inotify on the shm directory, no polling. A writer publishes
 * with linkat (IN_CREATE) or rename over a stale one (IN_MOVED_TO). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "futex.h"
#include "keep-errno.h"
#include "segment.h"

/* Does `path` exist, as another inode than (dev, ino) when ino != 0?
 * lstat, as the door judges the name: anything there (a dangling symlink
 * too) is present, and the open that follows names what squats it. */
static int
present (const char *path, uint64_t dev, uint64_t ino)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return 0;
  return ino == 0 || st.st_ino != ino || st.st_dev != dev;
}

DORADMA_API int
doradma_channel_wait (const char *shm_dir, const char *channel,
    int64_t timeout_ns, int cancel_fd)
{
  KEEP_ERRNO;
  return doradma_channel_wait_new (shm_dir, channel, 0, 0, timeout_ns,
      cancel_fd);
}

DORADMA_API int
doradma_channel_wait_new (const char *shm_dir, const char *channel,
    uint64_t dev, uint64_t ino, int64_t timeout_ns, int cancel_fd)
{
  KEEP_ERRNO;
  struct segment_paths paths;
  uint64_t start = monotonic_ns ();
  int fd, ret = -ETIMEDOUT;

  ret = segment_paths_init (&paths, shm_dir, channel, NULL);
  if (ret < 0)
    return ret;
  fd = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  if (fd < 0)
    return -errno;
  if (inotify_add_watch (fd, paths.dir,
          IN_CREATE | IN_MOVED_TO | IN_DELETE) < 0) {
    ret = -errno;
    close (fd);
    return ret;
  }
  /* Checked after the watch is in place, so a create in between is seen. */
  for (;;) {
    struct pollfd pfd[2] = { {fd, POLLIN, 0}, {cancel_fd, POLLIN, 0} };
    char buf[4096]
        __attribute__((aligned (__alignof__ (struct inotify_event))));
    int timeout_ms = -1, n;

    if (present (paths.data, dev, ino)) {
      ret = 0;
      break;
    }
    if (timeout_ns >= 0) {
      uint64_t spent = monotonic_ns () - start;
      if (spent >= (uint64_t) timeout_ns) {
        ret = -ETIMEDOUT;
        break;
      }
      timeout_ms = (int) ((timeout_ns - spent + 999999) / 1000000);
    }
    n = poll (pfd, cancel_fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0 && errno != EINTR) {
      ret = -errno;
      break;
    }
    if (cancel_fd >= 0 && (pfd[1].revents & POLLIN)) {
      ret = -EINTR;
      break;
    }
    /* Drain; the name check happens at the top of the loop. */
    while (read (fd, buf, sizeof buf) > 0);
  }
  close (fd);
  return ret;
}
