/* Description: a lossless writer waiting for space sweeps for dead readers
 * at most once per wait slice (review #16), however often `space` moves:
 * each sweep probes the lock of every reader entry in use (fcntl under the
 * writer's mutex), and every release or consume of every reader wakes the
 * waiter. Built with -Wl,--wrap=fcntl to count the lock probes while a
 * thread wakes the waiter every millisecond for 300 ms (and
 * -Wl,--wrap=fcntl64, its name with _FILE_OFFSET_BITS=64). The same holds
 * for a writer waiting for readers (doradma_writer_wait_readers; finding
 * N8 of reviews/round3/lib-and-dora-pools.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <unistd.h>

#include "helpers.h"

#define MS 1000000ll

static unsigned long lock_calls;
static int counting, waking = 1;        /* atomic */

int __real_fcntl (int fd, int cmd, ...);
int __real_fcntl64 (int fd, int cmd, ...);

static void
count (int cmd)
{
  if (__atomic_load_n (&counting, __ATOMIC_RELAXED) &&
      (cmd == F_OFD_SETLK || cmd == F_OFD_GETLK))
    __atomic_fetch_add (&lock_calls, 1, __ATOMIC_RELAXED);
}

/* With _FILE_OFFSET_BITS=64 glibc's fcntl is fcntl64: wrap both. */
int
__wrap_fcntl (int fd, int cmd, ...)
{
  va_list ap;
  void *arg;

  va_start (ap, cmd);
  arg = va_arg (ap, void *);
  va_end (ap);
  count (cmd);
  return __real_fcntl (fd, cmd, arg);
}

int
__wrap_fcntl64 (int fd, int cmd, ...)
{
  va_list ap;
  void *arg;

  va_start (ap, cmd);
  arg = va_arg (ap, void *);
  va_end (ap);
  count (cmd);
  return __real_fcntl64 (fd, cmd, arg);
}

static void *
waker (void *arg)
{
  struct doradma_writer *w = arg;

  /* hold (.., 0) bumps `space`, as a reader's release or consume does. */
  while (__atomic_load_n (&waking, __ATOMIC_RELAXED)) {
    doradma_writer_hold (w, 0, 0);
    usleep (1000);
  }
  return NULL;
}

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  char ch[64], *dir;
  pthread_t th;
  uint32_t slot;
  unsigned long calls;
  int ret = T_EXIT_FAIL, started = 0;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "sweeprate");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "sr");
  T_RC (t_open_pair (dir, ch, 2, 4096, 1, &w, &r), 0, "open");
  /* The reader consumes nothing: the lossless writer is full. */
  while (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, 4096, NULL, NULL) == 0);
  pthread_create (&th, NULL, waker, w);
  started = 1;
  __atomic_store_n (&counting, 1, __ATOMIC_RELAXED);
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LOSSLESS, 300 * MS, &slot),
      -ETIMEDOUT, "acquire while the reader consumes nothing");
  __atomic_store_n (&counting, 0, __ATOMIC_RELAXED);
  calls = __atomic_load_n (&lock_calls, __ATOMIC_RELAXED);
  t_log ("%lu lock probes in a 300 ms wait woken every ms", calls);
  /* One live entry: one probe per sweep, 300 / 50 slices (+ the first). */
  T_CHECK (calls <= 10, "%lu lock probes: a sweep per wake", calls);

  /* wait_readers (2) with one live reader, woken every ms. */
  __atomic_store_n (&lock_calls, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&counting, 1, __ATOMIC_RELAXED);
  T_RC (doradma_writer_wait_readers (w, 2, 300 * MS, NULL), -ETIMEDOUT,
      "wait_readers (2) with one reader");
  __atomic_store_n (&counting, 0, __ATOMIC_RELAXED);
  calls = __atomic_load_n (&lock_calls, __ATOMIC_RELAXED);
  t_log ("wait_readers: %lu lock probes in a 300 ms wait woken every ms",
      calls);
  T_CHECK (calls <= 10, "wait_readers: %lu lock probes: a sweep per wake",
      calls);
  ret = T_EXIT_PASS;
err:
  __atomic_store_n (&waking, 0, __ATOMIC_RELAXED);
  if (started)
    pthread_join (th, NULL);
  doradma_reader_close (r);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
