/* Description: a delivered frame costs one clock reading: next_common
 * takes one per attempt and the reader entry's last_time (docs/format.md)
 * is stamped with it, not with a second clock_gettime on the hot path.
 * Built with -Wl,--wrap=clock_gettime to count the library's readings
 * (libdoradma is static) while a reader takes ready frames without
 * waiting (timeout 0, lease and copy); last_time lies within the call. */
#include <errno.h>
#include <time.h>

#include "helpers.h"

#define FRAMES 8

static unsigned long clock_reads;
static int counting;

int __real_clock_gettime (clockid_t id, struct timespec *ts);

int
__wrap_clock_gettime (clockid_t id, struct timespec *ts)
{
  if (counting)
    clock_reads++;
  return __real_clock_gettime (id, ts);
}

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "clock");
  char ch[64];
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_shm_ctl *ctl = NULL;
  struct doradma_reader_stats st;
  struct doradma_frame f;
  struct doradma_diag diag;
  static uint8_t buf[4096];
  int copy, ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "clock");
  T_RC (t_open_pair (dir, ch, FRAMES, 4096, 0, &w, &r), 0, "open");
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  doradma_reader_get_stats (r, &st);
  for (copy = 0; copy < 2; copy++) {
    for (int i = 0; i < FRAMES; i++)
      T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
          "publish");
    for (int i = 0; i < FRAMES; i++) {
      uint64_t before = t_now_ns (), after, last_time;
      unsigned long reads;
      int rc;

      clock_reads = 0;
      counting = 1;
      rc = copy ? doradma_reader_copy_next (r, DORADMA_READ_NEXT, 0, buf,
          sizeof buf, &f, &diag) : doradma_reader_next (r, DORADMA_READ_NEXT,
          0, &f, &diag);
      counting = 0;
      reads = clock_reads;
      after = t_now_ns ();
      T_RC (rc, 0, copy ? "copy_next of a ready frame" :
          "next of a ready frame");
      if (!copy)
        doradma_reader_release (r, f.slot);
      T_CHECK (reads == 1, "%s frame %d: %lu clock readings, want 1",
          copy ? "copy" : "lease", i, reads);
      last_time = __atomic_load_n (&ctl->readers[st.entry].last_time,
          __ATOMIC_RELAXED);
      T_CHECK (last_time >= before && last_time <= after,
          "last_time %llu outside the call [%llu, %llu]",
          (unsigned long long) last_time, (unsigned long long) before,
          (unsigned long long) after);
    }
  }
  ret = T_EXIT_PASS;
err:
  if (ctl)
    t_ctl_unmap (ctl);
  doradma_reader_close (r);
  if (w)
    doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
