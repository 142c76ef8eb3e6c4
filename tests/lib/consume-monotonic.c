/* Description: doradma_reader_consume is monotonic (DESIGN §3 "Lossless":
 * consumed_seq only grows): buffers released out of order (consume 5, then
 * 3) leave consumed_seq at 5, so a lossless writer never waits again for
 * frames a reader already let go. Read from the control object. */
#include <errno.h>

#include "helpers.h"

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "consume");
  char ch[64];
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_reader_stats st;
  struct doradma_shm_ctl *ctl = NULL;
  uint64_t c;
  int ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "consume");
  T_CHECK (t_open_pair (dir, ch, 2, 4096, 1, &w, &r) == 0, "open");
  doradma_reader_get_stats (r, &st);
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  doradma_reader_consume (r, 5);
  doradma_reader_consume (r, 3);
  c = __atomic_load_n (&ctl->readers[st.entry].consumed_seq, __ATOMIC_ACQUIRE);
  T_CHECK (c == 5, "consume 5 then 3 left consumed_seq %llu",
      (unsigned long long) c);
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
