/* Description: consumed_seq of a back-pressure reader (DESIGN §3
 * "Lossless"): a late joiner starts at the newest frame, so a lossless
 * writer does not wait for it to consume older ones (it can take the
 * oldest slot at once); and doradma_reader_consume is monotonic: buffers
 * released out of order (consume 5, then 3) leave consumed_seq at 5; a
 * reader that consumed every frame is not evicted as stalled. */
#include <errno.h>

#include "helpers.h"

int
main (void)
{
  char *dir = t_shm_dir_new (NULL, "consume");
  char ch[64];
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_reader_stats st;
  struct doradma_shm_ctl *ctl = NULL;
  uint64_t c;
  int ret = T_EXIT_FAIL;

  t_channel (ch, sizeof ch, "consume");
  T_CHECK (t_open_pair (dir, ch, 3, 4096, 1, &w, NULL) == 0, "writer");
  for (int i = 0; i < 3; i++)
    T_CHECK (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &c, NULL) == 0,
        "publish %d", i);
  {
    struct doradma_reader_config rc;
    uint32_t slot;

    t_reader_config (&rc, ch, dir, 1);
    T_RC (doradma_reader_open (&rc, &r, NULL), 0, "late back-pressure reader");
    T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LOSSLESS, 0, &slot), 0,
        "lossless acquire after a late joiner");
    T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
  }
  doradma_reader_get_stats (r, &st);
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  /* Two back-pressure readers, one stalled at the frame before the
   * newest, one that consumed every frame: only the stalled one goes. */
  {
    struct doradma_reader_config rc2;

    t_reader_config (&rc2, ch, dir, 1);
    T_RC (doradma_reader_open (&rc2, &r2, NULL), 0, "second reader");
    doradma_reader_consume (r, c);
    T_RC (doradma_writer_evict_stalled (w, NULL), 1, "evicted other than "
        "the one stalled reader");
  }
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
  doradma_reader_close (r2);
  if (w)
    doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
