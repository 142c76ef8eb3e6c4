/* Description: a reader never delivers the same frame twice, in every read
 * mode (next, latest, copy) and whether it still holds the frame's lease or
 * has released it: after the newest frame, the next attempt finds nothing
 * (-EAGAIN) until another frame is published. Single-threaded: no timing. */
#include <errno.h>
#include <string.h>

#include "helpers.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;


#define BYTES 4096

static void
publish_n (struct doradma_writer *w, int n, uint64_t * last)
{
  for (int i = 0; i < n; i++)
    T_EXPECT (failures, t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, last,
            NULL) == 0, "publish");
}

/* Reads with `mode` (copy into dst when not NULL); returns the sequence or
 * 0 on -EAGAIN; *slot gets the leased slot. */
static uint64_t
read_one (struct doradma_reader *r, enum doradma_read_mode mode, void *dst,
    uint32_t * slot)
{
  struct doradma_frame f;
  struct doradma_diag diag = { 0 };
  int rc = dst ? doradma_reader_copy_next (r, mode, 0, dst, BYTES, &f, &diag)
      : doradma_reader_next (r, mode, 0, &f, &diag);

  if (rc == -EAGAIN)
    return 0;
  T_EXPECT_RC (failures, rc, 0, "read");
  if (rc != 0)
    return 0;
  if (slot)
    *slot = f.slot;
  return f.info.seq;
}

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "nodup");
  char ch[64];
  struct doradma_writer *w;
  struct doradma_reader *r;
  uint64_t last = 0, seq, want;
  uint32_t slot, held[3];
  static uint8_t copy[BYTES];
  int i;

  t_watchdog (30);
  t_channel (ch, sizeof ch, "nodup");
  T_CHECK (t_open_pair (dir, ch, 6, BYTES, 0, &w, &r) == 0, "open");

  /* next, leases held: 1, 2, 3 once each, then nothing. */
  publish_n (w, 3, &last);
  for (i = 0; i < 3; i++) {
    seq = read_one (r, DORADMA_READ_NEXT, NULL, &held[i]);
    T_EXPECT (failures, seq == last - 2 + i, "next with leases held: frame "
        "%d is seq %llu, want %llu", i, (unsigned long long) seq,
        (unsigned long long) (last - 2 + i));
  }
  seq = read_one (r, DORADMA_READ_NEXT, NULL, &slot);
  T_EXPECT (failures, seq == 0, "next after the newest (leases held) "
      "delivered seq %llu again", (unsigned long long) seq);
  for (i = 0; i < 3; i++)
    doradma_reader_release (r, held[i]);

  /* next, released: nothing again. */
  seq = read_one (r, DORADMA_READ_NEXT, NULL, &slot);
  T_EXPECT (failures, seq == 0, "next after the newest (released) "
      "delivered seq %llu again", (unsigned long long) seq);

  /* latest: the newest once, then nothing. */
  publish_n (w, 2, &last);
  seq = read_one (r, DORADMA_READ_LATEST, NULL, &slot);
  T_EXPECT (failures, seq == last, "latest: seq %llu, want %llu",
      (unsigned long long) seq, (unsigned long long) last);
  want = seq;
  seq = read_one (r, DORADMA_READ_LATEST, NULL, &held[0]);
  T_EXPECT (failures, seq == 0, "latest (lease held) delivered seq %llu "
      "again", (unsigned long long) seq);
  doradma_reader_release (r, slot);
  seq = read_one (r, DORADMA_READ_LATEST, NULL, &held[0]);
  T_EXPECT (failures, seq == 0, "latest (released) delivered seq %llu "
      "again after %llu", (unsigned long long) seq, (unsigned long long) want);

  /* copy mode, next and latest. */
  publish_n (w, 1, &last);
  seq = read_one (r, DORADMA_READ_NEXT, copy, NULL);
  T_EXPECT (failures, seq == last, "copy next: seq %llu, want %llu",
      (unsigned long long) seq, (unsigned long long) last);
  seq = read_one (r, DORADMA_READ_NEXT, copy, NULL);
  T_EXPECT (failures, seq == 0, "copy next delivered seq %llu again",
      (unsigned long long) seq);
  seq = read_one (r, DORADMA_READ_LATEST, copy, NULL);
  T_EXPECT (failures, seq == 0, "copy latest delivered seq %llu again",
      (unsigned long long) seq);

  T_EXPECT (failures, doradma_reader_leases (r) == 0, "leases left: %u",
      doradma_reader_leases (r));
  doradma_reader_close (r);
  doradma_writer_close (w);
  T_EXPECT (failures, t_shm_dir_remove (dir) == 0, "leftovers");
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
