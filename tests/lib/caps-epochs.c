/* Description: a caps epoch still carried by a frame in the ring is never
 * overwritten (review #10). The caps table has 4 entries, epoch e in entry
 * e % 4: a fifth caps change while a frame of epoch 1 is unread would make
 * that frame's caps unreadable (-ENOENT) for a lagging lossless reader. It
 * is refused (-EBUSY: the sink then replaces the segment), and allowed once
 * that frame has left the ring.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define MS 1000000ll

static const char *
caps_of (int i)
{
  static char buf[128];

  snprintf (buf, sizeof buf, "video/x-raw, format=(string)GRAY8, "
      "width=(int)%d, height=(int)1", 4096 - i);
  return buf;
}

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  char ch[64], *dir, caps[1024];
  uint32_t epoch;
  int i, ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "capsep");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "ce");
  T_RC (t_open_pair (dir, ch, 8, 4096, 1, &w, &r), 0, "open");
  /* Epochs 1..4, one lossless frame each; the reader reads none yet. */
  T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, 4096, NULL, NULL), 0, "pub");
  for (i = 2; i <= 4; i++) {
    T_RC (doradma_writer_set_caps (w, caps_of (i), &epoch), 0, "set_caps");
    T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, 4096, NULL, NULL), 0,
        "pub");
  }
  T_RC (doradma_writer_set_caps (w, caps_of (5), &epoch), -EBUSY,
      "caps epoch 5 while a frame of epoch 1 is unread");
  /* The reader gets every frame with its own caps. */
  for (i = 1; i <= 4; i++) {
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 100 * MS, &f, NULL), 0,
        "next");
    T_RC (doradma_reader_caps (r, f.info.caps_epoch, caps, sizeof caps, NULL),
        0, "caps of the frame's epoch");
    T_CHECK (f.info.caps_epoch == (uint32_t) i, "epoch %u", f.info.caps_epoch);
    doradma_reader_release (r, f.slot);
  }
  /* Frame 1 leaves the ring once its slot is reused. */
  for (i = 0; i < 8; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0, "pub");
  T_RC (doradma_writer_set_caps (w, caps_of (5), &epoch), 0,
      "caps epoch 5 once no frame of epoch 1 is left");
  T_CHECK (epoch == 5, "epoch %u", epoch);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
