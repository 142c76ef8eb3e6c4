/* Description: the pool's owner shrinks its dora pool while a reader copies
 * a frame out of it (F5 of reviews/round4/dora.md). The copy reads the
 * payload with pread from the pool's fd: a shrink is a short read, and
 * doradma_pool_reader_copy_rects returns -EBADMSG naming the pool and its
 * size now, where a memcpy from the mapping died of SIGBUS. The race is
 * forced, not timed: this program's fstat (the lib is linked in
 * statically, so its calls come here) cuts the pool right after the
 * first fstat of the pool's fd once armed, i.e. after the copy's size
 * check and before its payload is read. Each case runs in a child: a
 * SIGBUS is a failure, not the end of the test.
 * - cut to 4096 bytes between the check and a whole-frame copy;
 * - cut in the middle of a packed plane copied into padded rows (the F7
 *   layout, gathered 64 rows a read);
 * - cut to 0 bytes (no header left, so no generation word to load) before
 *   a copy: refused by the size check of the generation's load;
 * - with no cut: the padded copy of 200 rows and a copy of rows apart in
 *   the source are byte-exact.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doradma/dora-pool.h>

#include "pool-test.h"

static int failed;
static char dir[] = "/dev/shm/dora-poolshrink-XXXXXX";

/* the hook: after the first fstat of `cut_fd`, the pool at `cut_path` is
 * cut to `cut_to` bytes (through a descriptor of its own), once */
static int cut_fd = -1;
static off_t cut_to;
static char cut_path[512];

static void
cut_now (void)
{
  int fd = open (cut_path, O_RDWR | O_CLOEXEC);

  if (fd < 0 || ftruncate (fd, cut_to) != 0)
    fprintf (stderr, "cut %s to %jd: %s\n", cut_path, (intmax_t) cut_to,
        strerror (errno));
  if (fd >= 0)
    close (fd);
}

/* after an fstat of any of glibc's names: the cut, once armed */
static int
after_stat (int fd, int ret)
{
  if (fd >= 0 && fd == cut_fd) {
    cut_fd = -1;
    cut_now ();
  }
  return ret;
}

typedef int (*stat_fn) (int, struct stat *);
typedef int (*xstat_fn) (int, int, struct stat *);

/* glibc's names for fstat: with and without _FILE_OFFSET_BITS=64, and
 * (before glibc 2.33, e.g. Debian 11) the __fxstat its inline fstat calls */
int
hook_fstat (int fd, struct stat *st)
__asm__ ("fstat");
     int hook_fstat64 (int fd, struct stat *st) __asm__ ("fstat64");
     int hook_fxstat (int ver, int fd, struct stat *st) __asm__ ("__fxstat");
     int hook_fxstat64 (int ver, int fd,
    struct stat *st) __asm__ ("__fxstat64");

     int hook_fstat (int fd, struct stat *st)
{
  return after_stat (fd, ((stat_fn) dlsym (RTLD_NEXT, "fstat")) (fd, st));
}

int
hook_fstat64 (int fd, struct stat *st)
{
  return after_stat (fd, ((stat_fn) dlsym (RTLD_NEXT, "fstat64")) (fd, st));
}

int
hook_fxstat (int ver, int fd, struct stat *st)
{
  return after_stat (fd, ((xstat_fn) dlsym (RTLD_NEXT, "__fxstat")) (ver, fd,
          st));
}

int
hook_fxstat64 (int ver, int fd, struct stat *st)
{
  return after_stat (fd, ((xstat_fn) dlsym (RTLD_NEXT, "__fxstat64")) (ver,
          fd, st));
}

static void
put64 (uint8_t * p, uint64_t v)
{
  int i;

  for (i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

/* Writes pool `name` with a `size`-byte payload of bytes (i * 7 + 1),
 * generation 2. Returns its data_offset. */
static uint64_t
plant (const char *name, uint64_t size)
{
  char js[128];
  size_t json_len = (size_t) snprintf (js, sizeof js,
      "{\"size\":%" PRIu64 ",\"dtype\":\"uint8\"}", size);
  uint64_t off = doradma_pool_data_offset_for (json_len), i;
  size_t len = off + size;
  uint8_t *seg = calloc (1, len);
  char path[600];
  int fd;

  memcpy (seg, "DORADMA", 8);
  put64 (seg + 8, json_len);
  put64 (seg + 16, off);
  put64 (seg + 96, 2);
  memcpy (seg + 256, js, json_len);
  for (i = 0; i < size; i++)
    seg[off + i] = (uint8_t) (i * 7 + 1);
  snprintf (path, sizeof path, "%s/%s", dir, name);
  unlink (path);
  fd = open (path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 || write (fd, seg, len) != (ssize_t) len)
    perror ("plant");
  if (fd >= 0)
    close (fd);
  free (seg);
  return off;
}

static uint8_t
byte_at (uint64_t i)
{
  return (uint8_t) (i * 7 + 1);
}

/* In a child: opens `name`, arms the cut (cut_at >= 0: to that size after
 * the copy's first fstat; cut_before >= 0: to that size now), copies `n`
 * rects, expects `want` and, for -EBADMSG, "now has <size> bytes". */
static void
copy_case (const char *what, const char *name,
    const struct doradma_pool_rect *rects, unsigned n, size_t dst_len,
    off_t cut_at, off_t cut_before, int want)
{
  int st = 0;
  pid_t pid;

  pid = fork ();
  if (pid == 0) {
    struct doradma_pool_reader *r = NULL;
    struct doradma_diag diag = { 0 };
    uint8_t *dst = calloc (1, dst_len);
    char size_now[64];
    uint64_t g = 0;
    int ret;

    failed = 0;                 /* this child's checks only */
    snprintf (cut_path, sizeof cut_path, "%s/%s", dir, name);
    ret = doradma_pool_reader_open (dir, name, -1, &r, &diag);
    EXPECT (ret == 0, "%s: open: %d (%s)", what, ret, diag.msg);
    if (r == NULL)
      _exit (1);
    if (cut_before >= 0) {
      cut_to = cut_before;
      cut_now ();
    }
    if (cut_at >= 0) {
      cut_to = cut_at;
      cut_fd = doradma_pool_reader_fd (r);
    }
    ret = doradma_pool_reader_copy_rects (r, dst, dst_len, rects, n,
        UINT64_MAX, &g, &diag);
    /* an fstat under another name than those hooked would cut nothing */
    EXPECT (cut_fd == -1, "%s: the copy made no fstat of the pool that this "
        "test's hook saw", what);
    EXPECT (ret == want, "%s: copy: %d (%s), expected %d", what, ret,
        diag.msg, want);
    snprintf (size_now, sizeof size_now, "now has %jd bytes",
        (intmax_t) (cut_before >= 0 ? cut_before : cut_at));
    if (want == -EBADMSG)
      EXPECT (strstr (diag.msg, "shrank below its payload") &&
          strstr (diag.msg, name) && strstr (diag.msg, size_now),
          "%s: the message names the pool and its size (%s): %s", what,
          size_now, diag.msg);
    if (want == 0) {
      unsigned k;
      size_t i, j;

      for (k = 0; k < n; k++)
        for (i = 0; i < rects[k].rows; i++)
          for (j = 0; j < rects[k].row_bytes; j++)
            if (dst[rects[k].dst_offset + i * rects[k].dst_pitch + j] !=
                byte_at (rects[k].src_offset + i * rects[k].src_pitch + j)) {
              EXPECT (0, "%s: rect %u row %zu byte %zu", what, k, i, j);
              i = rects[k].rows;
              break;
            }
    }
    doradma_pool_reader_close (r);
    free (dst);
    _exit (failed ? 1 : 0);
  }
  if (pid < 0 || waitpid (pid, &st, 0) != pid) {
    EXPECT (0, "%s: fork/wait: %s", what, strerror (errno));
    return;
  }
  EXPECT (WIFEXITED (st) && WEXITSTATUS (st) == 0, "%s: the reader %s %d%s",
      what, WIFSIGNALED (st) ? "died of signal" : "exited",
      WIFSIGNALED (st) ? WTERMSIG (st) : WEXITSTATUS (st),
      WIFSIGNALED (st) && WTERMSIG (st) == SIGBUS ? " (SIGBUS: the copy "
      "read a shrunk pool through its mapping)" : "");
}

int
main (void)
{
  /* a frame of 64 pages: the cut to 4096 leaves the header, not the
   * payload */
  const uint64_t big = 64 * 4096;
  const struct doradma_pool_rect whole = {
    .src_pitch = big,.dst_pitch = big,.row_bytes = big,.rows = 1
  };
  /* a packed plane of 200 rows of 1000 bytes into rows 1024 apart */
  const struct doradma_pool_rect padded = {
    .src_pitch = 1000,.dst_pitch = 1024,.row_bytes = 1000,.rows = 200
  };
  /* 100 rows of 900 bytes, 1000 apart in the source, 1024 in dst */
  const struct doradma_pool_rect gaps = {
    .src_pitch = 1000,.dst_pitch = 1024,.row_bytes = 900,.rows = 100
  };
  uint64_t off;
  char cmd[600];

  if (mkdtemp (dir) == NULL)
    return 1;
  plant ("dora_pool_df_node_whole", big);
  copy_case ("cut to 4096 between the check and the copy",
      "dora_pool_df_node_whole", &whole, 1, big, 4096, -1, -EBADMSG);
  off = plant ("dora_pool_df_node_padded", 200 * 1000);
  /* 130 rows left: the third read of 64 rows ends short */
  copy_case ("cut in the middle of a packed plane into padded rows",
      "dora_pool_df_node_padded", &padded, 1, 200 * 1024,
      (off_t) (off + 130 * 1000), -1, -EBADMSG);
  plant ("dora_pool_df_node_empty", big);
  copy_case ("cut to 0 bytes before a copy", "dora_pool_df_node_empty",
      &whole, 1, big, -1, 0, -EBADMSG);
  plant ("dora_pool_df_node_exact", 200 * 1000);
  copy_case ("packed rows into padded rows, no cut",
      "dora_pool_df_node_exact", &padded, 1, 200 * 1024, -1, -1, 0);
  copy_case ("rows apart in the source, no cut", "dora_pool_df_node_exact",
      &gaps, 1, 100 * 1024, -1, -1, 0);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    failed++;
  if (failed)
    fprintf (stderr, "%d checks failed\n", failed);
  return failed ? 1 : 0;
}
