/* Description: slots held in this process, cancellable acquire, signalled
 * reader joins and waiting for a dead writer's successor.
 *
 * - doradma_writer_hold: a held slot (a decoder's reference frame still in
 *   use upstream) is never chosen by acquire, whatever its age; releasing
 *   the hold wakes an acquire waiting in another thread.
 * - doradma_writer_acquire_cancellable: setting *cancel and calling
 *   doradma_writer_wake ends a wait with -EINTR (and leaves other callers'
 *   waits alone).
 * - doradma_writer_wait_readers: a reader's join wakes it (no polling).
 * - doradma_channel_wait_new: returns once the name resolves to another
 *   object than the dead writer's, times out otherwise.
 * Every wait in this file has a 10 s bound that the behaviour must beat by
 * far; none of the assertions is about time.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define LONG_NS (10ll * 1000000000ll)
#define BYTES 4096

static char *dir;

static int
publish_into (struct doradma_writer *w, uint32_t * slot)
{
  struct doradma_frame_info info;
  int ret = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, slot);

  if (ret < 0)
    return ret;
  t_frame_info (&info, BYTES);
  return doradma_writer_publish (w, *slot, &info);
}

static int
test_held_slot_never_chosen (void)
{
  struct doradma_writer_config cfg;
  struct doradma_writer *w = NULL;
  char ch[64];
  uint32_t s0, s, i;
  int ret = T_EXIT_FAIL;

  t_writer_config (&cfg, t_channel (ch, sizeof ch, "hold"), dir, 3, BYTES);
  T_RC (doradma_writer_create (&cfg, &w, NULL), 0, "create");
  T_RC (publish_into (w, &s0), 0, "first publish");
  T_RC (doradma_writer_hold (w, s0, 1), 0, "hold");
  T_RC (doradma_writer_hold (w, 3, 1), -EINVAL, "hold past the slot count");
  /* s0 is the oldest frame after a few laps: acquire would pick it first. */
  for (i = 0; i < 20; i++) {
    T_RC (publish_into (w, &s), 0, "publish while held");
    T_CHECK (s != s0, "lap %u chose held slot %u", i, s0);
  }
  T_RC (doradma_writer_hold (w, s0, 0), 0, "unhold");
  /* the oldest eligible slot is s0 now (its frame is the first one) */
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &s), 0,
      "acquire after unhold");
  T_CHECK (s == s0, "after unhold got slot %u, want the oldest %u", s, s0);
  T_RC (doradma_writer_abandon (w, s), 0, "abandon");
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return ret;
}

struct waiter
{
  struct doradma_writer *w;
  const int *cancel;
  uint32_t n_readers;
  int ret;
  uint32_t slot;
};

static void *
acquire_thread (void *data)
{
  struct waiter *wt = data;

  wt->ret = doradma_writer_acquire_cancellable (wt->w,
      DORADMA_POLICY_LOSSLESS, LONG_NS, wt->cancel, &wt->slot);
  return NULL;
}

static void *
wait_readers_thread (void *data)
{
  struct waiter *wt = data;

  wt->ret = doradma_writer_wait_readers (wt->w, wt->n_readers, LONG_NS, NULL);
  return NULL;
}

static int
test_unhold_wakes_and_cancel_interrupts (void)
{
  struct doradma_writer_config cfg;
  struct doradma_writer *w = NULL;
  struct waiter wt = { 0 };
  pthread_t th;
  char ch[64];
  uint32_t a, b;
  int cancel = 0, ret = T_EXIT_FAIL;

  t_writer_config (&cfg, t_channel (ch, sizeof ch, "wake"), dir, 2, BYTES);
  T_RC (doradma_writer_create (&cfg, &w, NULL), 0, "create");
  T_RC (publish_into (w, &a), 0, "publish a");
  T_RC (publish_into (w, &b), 0, "publish b");
  /* b is newest, a is held: nothing can be chosen */
  T_RC (doradma_writer_hold (w, a, 1), 0, "hold a");
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LOSSLESS, 0, &a), -EAGAIN,
      "acquire with every slot held or newest");

  wt.w = w;
  wt.cancel = &cancel;
  pthread_create (&th, NULL, acquire_thread, &wt);
  usleep (20000);
  T_RC (doradma_writer_hold (w, a, 0), 0, "unhold a");
  pthread_join (th, NULL);
  T_RC (wt.ret, 0, "waiting acquire after the hold was released");
  T_CHECK (wt.slot == a, "got slot %u, want %u", wt.slot, a);
  T_RC (doradma_writer_abandon (w, wt.slot), 0, "abandon");

  /* cancel: hold again, wait, set the flag and wake */
  T_RC (doradma_writer_hold (w, a, 1), 0, "hold a again");
  pthread_create (&th, NULL, acquire_thread, &wt);
  usleep (20000);
  __atomic_store_n (&cancel, 1, __ATOMIC_RELEASE);
  doradma_writer_wake (w);
  pthread_join (th, NULL);
  T_RC (wt.ret, -EINTR, "cancelled acquire");
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return ret;
}

static int
test_reader_join_wakes_wait_readers (void)
{
  struct doradma_writer_config cfg;
  struct doradma_reader_config rcfg;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct waiter wt = { 0 };
  pthread_t th;
  char ch[64];
  int ret = T_EXIT_FAIL;

  t_writer_config (&cfg, t_channel (ch, sizeof ch, "join"), dir, 2, BYTES);
  T_RC (doradma_writer_create (&cfg, &w, NULL), 0, "create");
  T_RC (doradma_writer_wait_readers (w, 1, 0, NULL), -EAGAIN,
      "no reader yet, no wait");
  wt.w = w;
  wt.n_readers = 1;
  pthread_create (&th, NULL, wait_readers_thread, &wt);
  usleep (20000);
  t_reader_config (&rcfg, ch, dir, 0);
  T_RC (doradma_reader_open (&rcfg, &r, NULL), 0, "reader open");
  pthread_join (th, NULL);
  T_RC (wt.ret, 0, "wait_readers woken by the join");
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return ret;
}

static int
test_wait_for_successor (void)
{
  struct doradma_writer_config cfg;
  struct doradma_reader_config rcfg;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_segment_info si;
  char ch[64];
  pid_t child;
  int status, ret = T_EXIT_FAIL;

  t_writer_config (&cfg, t_channel (ch, sizeof ch, "succ"), dir, 2, BYTES);
  child = fork ();
  if (child == 0) {
    struct doradma_writer *cw;
    if (doradma_writer_create (&cfg, &cw, NULL) != 0)
      _exit (1);
    pause ();                   /* killed below: a stale channel remains */
    _exit (0);
  }
  t_child_add (child, "writer, killed to leave a stale channel");
  t_reader_config (&rcfg, ch, dir, 0);
  while (doradma_channel_wait (dir, ch, LONG_NS, -1) == 0 &&
      doradma_reader_open (&rcfg, &r, NULL) != 0)
    usleep (1000);
  T_CHECK (r != NULL, "could not open the child's channel");
  doradma_reader_segment_info (r, &si);
  kill (child, SIGKILL);
  waitpid (child, &status, 0);

  T_RC (doradma_channel_wait_new (dir, ch, si.dev, si.ino, 50000000ll, -1),
      -ETIMEDOUT, "nobody replaced the dead writer's object");
  T_RC (doradma_channel_wait (dir, ch, 0, -1), 0,
      "the stale name itself is still there");
  T_RC (doradma_writer_create (&cfg, &w, NULL), 0, "successor reclaims");
  T_RC (doradma_channel_wait_new (dir, ch, si.dev, si.ino, LONG_NS, -1), 0,
      "the successor is seen");
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return ret;
}

int
main (void)
{
  int ret = T_EXIT_PASS;

  t_watchdog (50);              /* below meson's 60 s */
  dir = t_shm_dir_new (NULL, "hold");
  if (dir == NULL)
    return T_EXIT_FAIL;
  if (test_held_slot_never_chosen () != T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  if (test_unhold_wakes_and_cancel_interrupts () != T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  if (test_reader_join_wakes_wait_readers () != T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  if (test_wait_for_successor () != T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
