/* Description: one process, threads only, so that ThreadSanitizer sees both
 * sides: a writer thread rewrites slots with plain (non-atomic) stores while
 * two copy readers (doradma_reader_copy_next) and one lease reader
 * (doradma_reader_next) run. Checks that no delivered frame is torn and
 * that torn copies were detected and discarded, not delivered.
 *
 * Under TSan (scripts/sanitize.sh) the only report this may produce is the
 * deliberate seqlock race of the copy path (tests/tsan.supp suppresses
 * exactly that); any other report fails the test. */
#include "helpers.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOT_BYTES (16 * 4096)
#define SLOTS 3
#define RUN_NS 1500000000ull

static char *dir;
static char ch[64];
static int stop;
static int failed;

/* Plain stores on purpose: the copy readers race with these. */
static void
stamp_plain (uint8_t * p, uint64_t seq)
{
  for (uint64_t off = 0; off < SLOT_BYTES; off += 4096) {
    memset (p + off, (int) (seq & 0xff), 4096);
    memcpy (p + off, &seq, 8);
    memcpy (p + off + 4088, &seq, 8);
  }
}

static int
check_plain (const uint8_t * p, uint64_t seq)
{
  for (uint64_t off = 0; off < SLOT_BYTES; off += 4096) {
    uint64_t a, b;
    memcpy (&a, p + off, 8);
    memcpy (&b, p + off + 4088, 8);
    if (a != seq || b != seq || p[off + 2048] != (uint8_t) (seq & 0xff))
      return -1;
  }
  return 0;
}

static void *
writer_thread (void *arg)
{
  struct doradma_writer *w = arg;
  struct doradma_frame_info info;
  struct doradma_writer_stats st;
  uint32_t slot;

  while (!__atomic_load_n (&stop, __ATOMIC_RELAXED)) {
    if (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot) != 0) {
      sched_yield ();
      continue;
    }
    doradma_writer_get_stats (w, &st);
    stamp_plain (doradma_writer_slot_data (w, slot), st.last_seq + 1);
    t_frame_info (&info, SLOT_BYTES);
    if (doradma_writer_publish (w, slot, &info) != 0)
      __atomic_store_n (&failed, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

struct rd
{
  int copy;
  uint64_t frames, torn;
};

static void *
reader_thread (void *arg)
{
  struct rd *a = arg;
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_reader_stats st;
  struct doradma_frame f;
  struct doradma_diag diag;
  uint8_t *buf = malloc (SLOT_BYTES);
  uint64_t last = 0;
  int ret;

  t_reader_config (&rc, ch, dir, 0);
  if (doradma_reader_open (&rc, &r, &diag) != 0) {
    t_log ("reader_open: %s", diag.msg);
    __atomic_store_n (&failed, 1, __ATOMIC_RELAXED);
    free (buf);
    return NULL;
  }
  while (!__atomic_load_n (&stop, __ATOMIC_RELAXED)) {
    if (a->copy)
      ret = doradma_reader_copy_next (r, DORADMA_READ_NEXT, 50000000, buf,
          SLOT_BYTES, &f, &diag);
    else
      ret = doradma_reader_next (r, DORADMA_READ_LATEST, 50000000, &f, &diag);
    if (ret == -ETIMEDOUT)
      continue;
    if (ret != 0) {
      t_log ("reader (%s): %s: %s", a->copy ? "copy" : "lease",
          t_errname (ret), diag.msg);
      __atomic_store_n (&failed, 1, __ATOMIC_RELAXED);
      break;
    }
    if (check_plain (a->copy ? buf : f.data, f.info.seq) != 0) {
      t_log ("TORN frame %llu delivered (%s)", (unsigned long long) f.info.seq,
          a->copy ? "copy" : "lease");
      __atomic_store_n (&failed, 1, __ATOMIC_RELAXED);
    }
    if (f.info.seq <= last) {
      t_log ("sequence went back: %llu after %llu",
          (unsigned long long) f.info.seq, (unsigned long long) last);
      __atomic_store_n (&failed, 1, __ATOMIC_RELAXED);
    }
    last = f.info.seq;
    if (!a->copy)
      doradma_reader_release (r, f.slot);
    a->frames++;
  }
  doradma_reader_get_stats (r, &st);
  a->torn = st.torn;
  doradma_reader_close (r);
  free (buf);
  return NULL;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  struct doradma_diag diag;
  struct rd rds[3] = { {1, 0, 0}, {1, 0, 0}, {0, 0, 0} };
  pthread_t tw, tr[3];
  uint64_t t0;
  int i, ret = T_EXIT_PASS;

  t_watchdog (100);
  dir = t_shm_dir_new (NULL, "copythr");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "copythr");
  t_writer_config (&wc, ch, dir, SLOTS, SLOT_BYTES);
  if (doradma_writer_create (&wc, &w, &diag) != 0) {
    t_log ("writer_create: %s", diag.msg);
    return T_EXIT_FAIL;
  }
  for (i = 0; i < 3; i++)
    pthread_create (&tr[i], NULL, reader_thread, &rds[i]);
  pthread_create (&tw, NULL, writer_thread, w);
  t0 = t_now_ns ();
  while (t_now_ns () - t0 < RUN_NS)
    usleep (10000);
  __atomic_store_n (&stop, 1, __ATOMIC_RELAXED);
  pthread_join (tw, NULL);
  for (i = 0; i < 3; i++)
    pthread_join (tr[i], NULL);
  doradma_writer_close (w);
  for (i = 0; i < 3; i++) {
    t_log ("reader %d (%s): %llu frames, %llu torn copies discarded", i,
        rds[i].copy ? "copy" : "lease", (unsigned long long) rds[i].frames,
        (unsigned long long) rds[i].torn);
    if (rds[i].frames == 0)
      ret = T_EXIT_FAIL;
  }
  if (failed)
    ret = T_EXIT_FAIL;
  if (t_shm_dir_remove (dir) > 0)
    ret = T_EXIT_FAIL;
  return ret;
}
