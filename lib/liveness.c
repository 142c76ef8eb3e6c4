/* OFD-lock liveness and message helpers; see liveness.h. */
#include "liveness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

static int
ofd_setlk (int fd, off_t byte, short type)
{
  struct flock fl;

  memset (&fl, 0, sizeof fl);
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = byte;
  fl.l_len = 1;
  if (fcntl (fd, F_OFD_SETLK, &fl) == 0)
    return 0;
  return (errno == EACCES || errno == EAGAIN) ? -EAGAIN : -errno;
}

int
ofd_trylock (int fd, off_t byte)
{
  return ofd_setlk (fd, byte, F_WRLCK);
}

int
ofd_unlock (int fd, off_t byte)
{
  return ofd_setlk (fd, byte, F_UNLCK);
}

int
ofd_is_locked (int fd, off_t byte)
{
  struct flock fl;

  memset (&fl, 0, sizeof fl);
  /* Ask "could I take a read lock?": works through an O_RDONLY fd and
   * conflicts with any write lock. */
  fl.l_type = F_RDLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = byte;
  fl.l_len = 1;
  if (fcntl (fd, F_OFD_GETLK, &fl) != 0)
    return -errno;
  return fl.l_type != F_UNLCK;
}

uint64_t
process_start_time (void)
{
  char buf[1024];
  FILE *f = fopen ("/proc/self/stat", "re");
  size_t n;
  char *p;
  unsigned long long start = 0;
  int field;

  if (f == NULL)
    return 0;
  n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  p = strrchr (buf, ')');
  if (p == NULL)
    return 0;
  /* After ')': field 3 (state) onwards; start time is field 22. */
  p++;
  for (field = 2; field < 21 && p != NULL; field++)
    p = strchr (p + 1, ' ');
  if (p != NULL)
    start = strtoull (p + 1, NULL, 10);
  return start;
}

uint64_t
random_token (void)
{
  uint64_t t = 0;

  while (t == 0) {
    if (getrandom (&t, sizeof t, 0) != (ssize_t) sizeof t)
      t = (uint64_t) getpid () * 0x9e3779b97f4a7c15ull ^ (uint64_t) & t;
  }
  return t;
}
