/* Description: a reader validates the header and the JSON before it maps
 * anything (review #7). A data object of our own uid that is one
 * ftruncate to 256 MiB (sparse) with a bad header is refused naming the
 * header field, in well under the time a mapping of it would take, and
 * allocates nothing: st_blocks is unchanged. An object whose size is not
 * the one its header and JSON describe is refused ("object.size") before
 * it is mapped, so it allocates nothing either. A well-formed segment whose
 * slot area its owner made a hole (finding N4 of
 * reviews/round3/lib-and-dora-pools.md) is opened without prefaulting the
 * hole: the open allocates at most a few pages, not 256 MiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#define MIB (1024ull * 1024ull)

static char ch[64], *dir;

/* Opens a reader on `path` and checks the verdict, the time and st_blocks. */
static int
refused (const char *path, const char *field)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  struct stat before, after;
  uint64_t t0, us;
  int ret;

  T_CHECK (stat (path, &before) == 0, "stat");
  t_reader_config (&rc, ch, dir, 0);
  t0 = t_now_ns ();
  ret = doradma_reader_open (&rc, &r, &diag);
  us = (t_now_ns () - t0) / 1000;
  T_CHECK (stat (path, &after) == 0, "stat");
  t_log ("%s: %s after %llu us, %lld -> %lld blocks: %s", field,
      t_errname (ret), (unsigned long long) us, (long long) before.st_blocks,
      (long long) after.st_blocks, diag.msg);
  T_RC (ret, -EBADMSG, "reader_open");
  T_CHECK (diag.field && strcmp (diag.field, field) == 0, "field %s, want %s",
      diag.field ? diag.field : "(null)", field);
  T_CHECK (after.st_blocks == before.st_blocks, "the open allocated %lld "
      "blocks of the object", (long long) (after.st_blocks - before.st_blocks));
  /* Mapping and prefaulting 256 MiB takes hundreds of ms; reading 64 KiB
   * takes microseconds. The bound leaves room for a loaded machine. */
  T_CHECK (us < 50000, "refusing took %llu us", (unsigned long long) us);
  return 0;
err:
  doradma_reader_close (r);
  return -1;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  char path[512];
  int fd, failed = 0;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "sparse");
  if (dir == NULL)
    return T_EXIT_FAIL;

  /* 256 MiB of holes, "DORADMA\0" missing. */
  t_channel (ch, sizeof ch, "sparse");
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  T_EXPECT (failed, fd >= 0 && ftruncate (fd, 256 * MIB) == 0, "create");
  T_EXPECT (failed, write (fd, "NOTMAGIC", 8) == 8, "write");
  close (fd);
  T_EXPECT (failed, refused (path, "header.magic") == 0, "bad magic");
  unlink (path);

  /* A valid segment grown to 256 MiB: the size is wrong. */
  t_channel (ch, sizeof ch, "grown");
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_EXPECT (failed, doradma_writer_create (&wc, &w, NULL) == 0, "create");
  if (w != NULL) {
    T_EXPECT (failed, ftruncate (doradma_writer_fd (w), 256 * MIB) == 0,
        "grow");
    T_EXPECT (failed, refused (path, "object.size") == 0, "grown object");
    doradma_writer_close (w);
  }

  /* Well-formed, 16 x 16 MiB slots, the slot area punched to a hole. */
  t_channel (ch, sizeof ch, "holed");
  t_writer_config (&wc, ch, dir, 16, 16 * MIB);
  w = NULL;
  T_EXPECT (failed, doradma_writer_create (&wc, &w, NULL) == 0, "create");
  if (w != NULL) {
    struct doradma_reader_config rc;
    struct doradma_reader *r = NULL;
    struct doradma_diag diag = { 0 };
    struct stat before, after;
    int wfd = doradma_writer_fd (w), ret;
    uint64_t area = 16 * doradma_writer_slot_stride (w);

    T_EXPECT (failed, fallocate (wfd, FALLOC_FL_PUNCH_HOLE |
            FALLOC_FL_KEEP_SIZE, 8192, area - 4096) == 0, "punch");
    fstat (wfd, &before);
    t_reader_config (&rc, ch, dir, 0);
    ret = doradma_reader_open (&rc, &r, &diag);
    fstat (wfd, &after);
    t_log ("well-formed holed segment: %s; %lld -> %lld KiB allocated",
        t_errname (ret), (long long) before.st_blocks / 2,
        (long long) after.st_blocks / 2);
    T_EXPECT (failed, ret == 0, "open: %s", diag.msg);
    T_EXPECT (failed, (after.st_blocks - before.st_blocks) / 2 < 1024,
        "the open allocated %lld KiB of the hole (prefaulted)",
        (long long) (after.st_blocks - before.st_blocks) / 2);
    doradma_reader_close (r);
    doradma_writer_close (w);
  }
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
