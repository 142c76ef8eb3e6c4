/* Description: a reader's per-slot reference count (DESIGN §3: only 0 -> 1
 * runs the lease handshake, only 1 -> 0 clears the bit): a frame referenced
 * twice (doradma_reader_ref_slot) keeps its lease through the first
 * release, so the writer cannot take its slot, and loses it at the second;
 * the slot, taken and abandoned, is empty (seq 0).
 * Single-threaded: the writer's answer is deterministic. */
#include <errno.h>

#include "helpers.h"

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "leaserefs");
  char ch[64];
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  uint64_t seq;
  uint32_t slot;
  int ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "leaserefs");
  T_CHECK (t_open_pair (dir, ch, 3, 4096, 0, &w, &r) == 0, "open");
  T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL) == 0,
      "publish 1");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), 0, "next");
  slot = f.slot;
  doradma_reader_ref_slot (r, slot);
  /* another frame, so that the leased slot is not the newest */
  T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL) == 0,
      "publish 2");

  doradma_reader_release (r, slot);
  T_CHECK (doradma_reader_leases (r) == 1, "leases after the first "
      "release: %u", doradma_reader_leases (r));
  T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST, slot), -EBUSY,
      "the writer took a slot still referenced once");
  doradma_reader_release (r, slot);
  T_CHECK (doradma_reader_leases (r) == 0, "leases after the second "
      "release: %u", doradma_reader_leases (r));
  T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST, slot), 0,
      "the writer could not take the released slot");
  T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
  /* abandoned: an empty slot, never the old frame's record again */
  T_CHECK (t_reader_rcb (r)->slots[slot].seq == 0, "abandoned slot still "
      "holds seq %llu", (unsigned long long) t_reader_rcb (r)->slots[slot].seq);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  if (w)
    doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
