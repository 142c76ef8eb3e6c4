/* Description: ring.h's promise that no function changes the caller's
 * errno (finding N6 of reviews/round3/lib-and-dora-pools.md): errno is set
 * to a value no system call gives before each call and checked after, for
 * calls that succeed and calls that fail inside system calls (a missing
 * channel: ENOENT; a wait with no frame: ETIMEDOUT).
 */
#include <errno.h>

#include "helpers.h"

#define SENTINEL 4242

static int failures;

#define KEPT(call, what) do { \
    int ret_, err_; \
    errno = SENTINEL; \
    ret_ = (call); \
    err_ = errno; \
    T_EXPECT (failures, err_ == SENTINEL, "%s (%s): errno is %d after", \
        what, t_errname (ret_), err_); \
  } while (0)

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc, missing;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_frame f;
  char ch[64], *dir;
  uint32_t slot;
  int err;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "errno");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "en");
  t_writer_config (&wc, ch, dir, 2, 4096);
  t_reader_config (&rc, ch, dir, 0);
  t_reader_config (&missing, "errno-none", dir, 0);

  KEPT (doradma_writer_create (&wc, &w, NULL), "writer_create");
  if (w == NULL)
    return T_EXIT_FAIL;
  KEPT (doradma_reader_open (&rc, &r, NULL), "reader_open");
  KEPT (doradma_reader_open (&missing, &r2, NULL), "reader_open (missing)");
  if (r != NULL)
    KEPT (doradma_reader_next (r, DORADMA_READ_NEXT, 20000000, &f, NULL),
        "reader_next (no frame, 20 ms)");
  KEPT (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot),
      "writer_acquire");
  KEPT (doradma_writer_wait_readers (w, 2, 10000000, NULL),
      "wait_readers (timeout)");
  errno = SENTINEL;
  doradma_reader_close (r);
  err = errno;
  T_EXPECT (failures, err == SENTINEL, "reader_close: errno %d", err);
  errno = SENTINEL;
  doradma_writer_close (w);
  err = errno;
  T_EXPECT (failures, err == SENTINEL, "writer_close: errno %d", err);
  if (t_shm_dir_remove (dir) != 0)
    failures++;
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
