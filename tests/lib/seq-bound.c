/* Description: sequences are bounded where they could wrap (review round
 * 4, R4-5). `newest` packs the sequence in 56 bits: a writer created with
 * first_seq past DORADMA_FIRST_SEQ_MAX is refused (-EINVAL naming
 * first_seq) instead of publishing frames no reader ever gets (readers
 * timed out for ever while every publish returned 0); at the largest
 * first_seq allowed, next and latest readers get every frame.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define SEC 1000000000ll

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_reader_config rc;
  struct doradma_reader *rn = NULL, *rl = NULL;
  struct doradma_diag diag;
  struct doradma_frame f;
  char ch[64], *dir;
  uint64_t seq;
  int i, failed = 0;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "seq-bound");
  if (dir == NULL)
    return T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "wrap");
  t_writer_config (&wc, ch, dir, 4, 4096);
  wc.first_seq = UINT64_C (0xfffffffffffffe);   /* the review's case */
  memset (&diag, 0, sizeof diag);
  T_EXPECT_DIAG (failed, doradma_writer_create (&wc, &w, &diag), -EINVAL,
      &diag, "first_seq", "first_seq 2^56 - 2");
  if (w != NULL)
    doradma_writer_close (w);
  w = NULL;

  t_channel (ch, sizeof ch, "high");
  t_writer_config (&wc, ch, dir, 4, 4096);
  wc.first_seq = DORADMA_FIRST_SEQ_MAX;
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &rn, &diag), 0, diag.msg);
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &rl, &diag), 0, diag.msg);
  for (i = 0; i < 6; i++) {
    T_RC (t_publish_as (w, DORADMA_POLICY_LOSSLESS, SEC, 4096,
            DORADMA_FIRST_SEQ_MAX + i, NULL), 0, "publish");
    seq = DORADMA_FIRST_SEQ_MAX + i;
    T_RC (doradma_reader_next (rn, DORADMA_READ_NEXT, SEC, &f, &diag), 0,
        "next reader");
    T_CHECK (f.info.seq == seq, "next reader got %llu, not %llu",
        (unsigned long long) f.info.seq, (unsigned long long) seq);
    doradma_reader_release (rn, f.slot);
    T_RC (doradma_reader_next (rl, DORADMA_READ_LATEST, SEC, &f, &diag), 0,
        "latest reader");
    T_CHECK (f.info.seq == seq, "latest reader got %llu",
        (unsigned long long) f.info.seq);
    doradma_reader_release (rl, f.slot);
  }
  doradma_reader_close (rn);
  doradma_reader_close (rl);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  doradma_reader_close (rn);
  doradma_reader_close (rl);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
