/* Description: a dora reader of the FORK-B variant, which takes word
 * 96 + 8 s of the header as slot s's generation (s < 20), fails closed on
 * every slot of a doradma segment (review #13): all twenty words at bytes
 * 96..256 are odd ("being written"), not only word 96.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  uint64_t words[20];
  char ch[64], *dir, path[512];
  int fd = -1, ret = T_EXIT_FAIL;

  dir = t_shm_dir_new (NULL, "forkb");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "fb");
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  T_CHECK (fd >= 0 && pread (fd, words, sizeof words, 96) == sizeof words,
      "read bytes 96..256 of %s", path);
  for (int s = 0; s < 20; s++)
    T_CHECK (words[s] & 1, "word %d (byte %d) is %llu, even: a FORK-B dora "
        "reader takes slot %d as complete", s, 96 + 8 * s,
        (unsigned long long) words[s], s);
  ret = T_EXIT_PASS;
err:
  if (fd >= 0)
    close (fd);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
