/* Description: readers of one channel in one process share one read-only
 * mapping of the data object (one mmap, and with CUDA one registration, per
 * (device, inode) per process); it is unmapped when the last one closes, and
 * a replaced segment (new inode) gets its own mapping.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL, *w2 = NULL;
  struct doradma_reader *a = NULL, *b = NULL, *c = NULL;
  struct doradma_segment_info ia, ib, ic;
  char ch[64], *dir = t_shm_dir_new (NULL, "shmap");
  int ret = T_EXIT_FAIL;

  if (dir == NULL)
    return T_EXIT_FAIL;
  t_writer_config (&wc, t_channel (ch, sizeof ch, "shmap"), dir, 2, 4096);
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  T_RC (doradma_reader_open (&rc, &a, NULL), 0, "open a");
  T_RC (doradma_reader_open (&rc, &b, NULL), 0, "open b");
  doradma_reader_segment_info (a, &ia);
  doradma_reader_segment_info (b, &ib);
  T_CHECK (ia.map_base == ib.map_base, "two readers, two mappings: %p %p",
      (void *) ia.map_base, (void *) ib.map_base);
  T_CHECK (ia.ino == ib.ino, "same object expected");

  /* a closes: b's mapping must stay valid (reading it must not fault). */
  doradma_reader_close (a);
  a = NULL;
  T_CHECK (((volatile const uint8_t *) ib.map_base)[0] == 'D',
      "b's mapping lost its header after a closed");

  /* A new segment under the same name is another object, another map. */
  {
    struct doradma_writer_config wc2 = wc;
    wc2.slot_size = 8192;
    T_RC (doradma_writer_replace (w, &wc2, &w2, NULL), 0, "replace");
  }
  T_RC (doradma_reader_open (&rc, &c, NULL), 0, "open c");
  doradma_reader_segment_info (c, &ic);
  T_CHECK (ic.ino != ib.ino && ic.map_base != ib.map_base,
      "the replaced segment must be mapped on its own");
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (a);
  doradma_reader_close (b);
  doradma_reader_close (c);
  doradma_writer_close (w2);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
