/* Description: doradma_writer_replace (caps change that does not fit, or a
 * new segment for any reason). Old segment A gets final_seq and SUPERSEDED:
 * its back-pressure reader drains every frame up to final_seq, then gets
 * -ESTALE (and again). The new segment B continues the sequence numbers;
 * the reader's entry is carried over as RESERVED with its token, so the
 * lossless writer B waits for it (nothing is lost while the reader drains
 * A); reopening with the token adopts the entry and the reader goes on at
 * final_seq + 1 without a gap. A refuses new frames (-ESTALE). Closing A
 * never unlinks B.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define BYTES 8192
#define SEC 1000000000ll

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  struct doradma_segment_info si;
  uint64_t token, next_seq;
  uint32_t slot;
  char ch[64], *dir;
  int n_b = 0, ret = T_EXIT_FAIL;

  t_watchdog (50);
  dir = t_shm_dir_new (NULL, "supersede");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "sup");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &a, &diag), 0, diag.msg);
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &r, &diag), 0, diag.msg);
  for (int i = 0; i < 3; i++)
    T_RC (t_publish (a, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, NULL), 0,
        "publish on A");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), 0, "next");
  T_CHECK (f.info.seq == 1, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (r, f.slot);
  doradma_reader_consume (r, 1);
  token = doradma_reader_token (r);
  T_CHECK (token != 0, "reader token 0");

  /* Replace: bigger slots, fewer of them. */
  t_writer_config (&wc, ch, dir, 3, 2 * BYTES);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_replace (a, &wc, &b, &diag), 0, diag.msg);
  /* A is done: nobody would read a frame past its final_seq. */
  T_RC (doradma_writer_acquire (a, DORADMA_POLICY_LATEST, 0, &slot), -ESTALE,
      "acquire on the replaced writer");

  /* B continues at 4, and waits for the carried-over reader. */
  next_seq = 4;
  while (n_b < 10 && t_publish_as (b, DORADMA_POLICY_LOSSLESS, 0, 2 * BYTES,
          next_seq, NULL) == 0) {
    n_b++;
    next_seq++;
  }
  t_log ("B published %d frames before waiting for the reserved entry", n_b);
  T_CHECK (n_b >= 1 && n_b <= 3, "B published %d frames into 3 slots while "
      "the carried-over reader had consumed none", n_b);
  T_RC (doradma_writer_acquire (b, DORADMA_POLICY_LOSSLESS, 0, &slot), -EAGAIN,
      "B must wait for the RESERVED entry");

  /* The reader drains A to final_seq 3, then -ESTALE. */
  for (uint64_t s = 2; s <= 3; s++) {
    memset (&diag, 0, sizeof diag);
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, &diag), 0,
        "drain A");
    T_CHECK (f.info.seq == s && t_check_stamps (f.data, BYTES, s, NULL) == 0,
        "drained seq %llu, want %llu", (unsigned long long) f.info.seq,
        (unsigned long long) s);
    doradma_reader_release (r, f.slot);
    doradma_reader_consume (r, s);
  }
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), -ESTALE,
      "A drained");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), -ESTALE,
      "A drained (again)");
  T_CHECK (doradma_reader_last_seq (r) == 3, "last_seq %llu",
      (unsigned long long) doradma_reader_last_seq (r));

  /* Reopen with the token: adopt the entry, continue at 4. */
  rc.token = token;
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_reader_open (&rc, &r2, &diag), 0, diag.msg);
  doradma_reader_set_last_seq (r2, doradma_reader_last_seq (r));
  doradma_reader_close (r);
  r = NULL;
  doradma_reader_segment_info (r2, &si);
  T_CHECK (si.slot_count == 3 && si.slot_stride == 2 * BYTES,
      "reopened the old segment? slots %u stride %llu", si.slot_count,
      (unsigned long long) si.slot_stride);
  T_CHECK (doradma_reader_token (r2) == token, "entry not adopted: token "
      "%llx, want %llx", (unsigned long long) doradma_reader_token (r2),
      (unsigned long long) token);
  for (uint64_t s = 4; s < 4 + (uint64_t) n_b; s++) {
    T_RC (doradma_reader_next (r2, DORADMA_READ_NEXT, SEC, &f, NULL), 0,
        "next on B");
    T_CHECK (f.info.seq == s && f.skipped == 0 &&
        t_check_stamps (f.data, 2 * BYTES, s, NULL) == 0,
        "B frame %llu (skipped %llu), want %llu", (unsigned long long)
        f.info.seq, (unsigned long long) f.skipped, (unsigned long long) s);
    doradma_reader_release (r2, f.slot);
    doradma_reader_consume (r2, s);
  }
  /* Consumed: B goes on. */
  T_RC (t_publish_as (b, DORADMA_POLICY_LOSSLESS, SEC, 2 * BYTES, next_seq,
          NULL), 0, "B after the adopted reader consumed");
  T_RC (doradma_reader_next (r2, DORADMA_READ_NEXT, SEC, &f, NULL), 0, "next");
  T_CHECK (f.info.seq == next_seq, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (r2, f.slot);

  /* Closing A leaves B. */
  doradma_writer_close (a);
  a = NULL;
  {
    char path[700];
    snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
    T_CHECK (access (path, F_OK) == 0, "closing A unlinked B's data object");
    snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
    T_CHECK (access (path, F_OK) == 0, "closing A unlinked B's ctl object");
  }
  doradma_reader_close (r2);
  r2 = NULL;
  doradma_writer_close (b);
  b = NULL;
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_reader_close (r2);
  doradma_writer_close (a);
  doradma_writer_close (b);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
