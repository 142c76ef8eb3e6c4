/* Description: publish after doradma_writer_eos is refused with -EPIPE
 * (review #11): readers stop at final_seq, so a frame published after it
 * would be delivered to some and make the others report EOS while the
 * writer goes on. The slot stays WRITING and can be abandoned; the reader
 * gets every frame up to final_seq, then -EPIPE.
 */
#include <errno.h>

#include "helpers.h"

#define MS 1000000ll

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame_info info;
  struct doradma_frame f;
  char ch[64], *dir;
  uint32_t slot;
  int ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "pubeos");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "pe");
  T_RC (t_open_pair (dir, ch, 4, 4096, 0, &w, &r), 0, "open");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0, "pub 1");
  T_RC (doradma_writer_eos (w), 0, "eos");
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot), 0,
      "acquire");
  t_frame_info (&info, 4096);
  T_RC (doradma_writer_publish (w, slot, &info), -EPIPE, "publish after EOS");
  T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 100 * MS, &f, NULL), 0,
      "frame 1");
  T_CHECK (f.info.seq == 1, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (r, f.slot);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 100 * MS, &f, NULL), -EPIPE,
      "EOS");
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
