/* Description: a record the reader refuses (slot_record_validate fails)
 * moves the reader entry's tool counters (docs/format.md, reader entry):
 * skipped counts it, last_seq and last_time move to it, delivered does
 * not; so doradma watch/show do not see a stalled reader. Lease and copy
 * paths both. */
#include <errno.h>
#include <sys/mman.h>

#include "helpers.h"

static uint64_t
relaxed (const uint64_t * word)
{
  return __atomic_load_n (word, __ATOMIC_RELAXED);
}

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "refused");
  char ch[64];
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_shm_ctl *ctl = NULL;
  struct doradma_reader_stats st;
  struct doradma_frame f;
  struct doradma_diag diag;
  uint8_t *map = NULL, buf[4096];
  size_t len = 0;
  uint64_t seq, stride, before;
  uint32_t slot;
  int copy, ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "refused");
  T_RC (t_open_pair (dir, ch, 4, 4096, 0, &w, &r), 0, "open");
  stride = doradma_writer_slot_stride (w);
  map = t_data_map_rw (dir, ch, &len);
  T_CHECK (map != NULL, "map the data object");
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  doradma_reader_get_stats (r, &st);

  /* One good frame: delivered 1, last_seq its seq. */
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, &slot), 0,
      "publish good");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, &diag), 0, "next");
  doradma_reader_release (r, f.slot);
  T_CHECK (relaxed (&ctl->readers[st.entry].delivered) == 1, "delivered %llu",
      (unsigned long long) relaxed (&ctl->readers[st.entry].delivered));

  for (copy = 0; copy < 2; copy++) {
    const struct doradma_shm_reader *ent = &ctl->readers[st.entry];
    struct doradma_shm_header *h = (struct doradma_shm_header *) map;
    struct doradma_shm_rcb *rcb =
        (struct doradma_shm_rcb *) (map + h->data_offset + 4 * stride);
    uint64_t skipped = relaxed (&ent->skipped);

    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, &slot), 0,
        "publish bad");
    rcb->slots[slot].n_planes = 5;
    before = t_now_ns ();
    ret = copy ? doradma_reader_copy_next (r, DORADMA_READ_NEXT, 0, buf,
        sizeof buf, &f, &diag) : doradma_reader_next (r, DORADMA_READ_NEXT, 0,
        &f, &diag);
    T_RC (ret, -EBADMSG, copy ? "copy_next of the bad record" :
        "next of the bad record");
    ret = T_EXIT_FAIL;
    T_CHECK (relaxed (&ent->skipped) == skipped + 1,
        "%s: entry skipped %llu, want %llu", copy ? "copy" : "lease",
        (unsigned long long) relaxed (&ent->skipped),
        (unsigned long long) skipped + 1);
    T_CHECK (relaxed (&ent->last_seq) == seq,
        "%s: entry last_seq %llu, want %llu", copy ? "copy" : "lease",
        (unsigned long long) relaxed (&ent->last_seq),
        (unsigned long long) seq);
    T_CHECK (relaxed (&ent->last_time) >= before,
        "%s: entry last_time %llu before the refusal (%llu)",
        copy ? "copy" : "lease", (unsigned long long) relaxed (&ent->last_time),
        (unsigned long long) before);
    T_CHECK (relaxed (&ent->delivered) == 1, "%s: delivered %llu, want 1",
        copy ? "copy" : "lease",
        (unsigned long long) relaxed (&ent->delivered));
  }
  ret = T_EXIT_PASS;
err:
  if (map)
    munmap (map, len);
  if (ctl)
    t_ctl_unmap (ctl);
  doradma_reader_close (r);
  if (w)
    doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
