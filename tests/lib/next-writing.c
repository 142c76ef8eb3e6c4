/* Description: a `next` reader never stalls behind a slot the writer is
 * rewriting (review #4). A latest-policy writer may take the slot of an
 * unread frame (upstream holds it as a pool buffer for frame times); the
 * frames in the other slots are delivered at once, in order, the lost one
 * counted as skipped, by lease and by copy alike; and EOS comes only after
 * every frame up to final_seq that still exists was delivered.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define BYTES 4096
#define MS 1000000ll

static int
run (int copy)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  static uint8_t buf[BYTES];
  char ch[64], *dir = t_shm_dir_new (NULL, "nextwr");
  uint32_t held;
  uint64_t want;
  int i, ret, res = -1;

  if (dir == NULL)
    return -1;
  t_channel (ch, sizeof ch, "nextwr");
  T_RC (t_open_pair (dir, ch, 4, BYTES, 1, &w, &r), 0, "open");
  for (i = 0; i < 4; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
  /* The oldest slot, frame 1 unread, is WRITING from now on. */
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &held), 0,
      "acquire");
  T_RC (doradma_writer_eos (w), 0, "eos");
  for (want = 2; want <= 4; want++) {
    uint64_t t0 = t_now_ns ();

    ret = copy ? doradma_reader_copy_next (r, DORADMA_READ_NEXT, 300 * MS,
        buf, sizeof buf, &f, NULL) :
        doradma_reader_next (r, DORADMA_READ_NEXT, 300 * MS, &f, NULL);
    T_RC (ret, 0, copy ? "copy_next beside a WRITING slot" :
        "next beside a WRITING slot");
    T_CHECK (t_now_ns () - t0 < 100 * MS, "frame %llu took %llu ms",
        (unsigned long long) want,
        (unsigned long long) (t_now_ns () - t0) / MS);
    T_CHECK (f.info.seq == want, "got seq %llu, want %llu",
        (unsigned long long) f.info.seq, (unsigned long long) want);
    T_CHECK (f.skipped == (want == 2 ? 1u : 0u), "seq %llu skipped %llu",
        (unsigned long long) want, (unsigned long long) f.skipped);
    if (!copy)
      doradma_reader_release (r, f.slot);
  }
  ret = doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL);
  T_RC (ret, -EPIPE, "EOS after the last frame");
  T_RC (doradma_writer_abandon (w, held), 0, "abandon");
  res = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return res;
}

int
main (void)
{
  int failed = 0;

  t_watchdog (30);
  T_EXPECT (failed, run (0) == 0, "lease reader");
  T_EXPECT (failed, run (1) == 0, "copy reader");
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
