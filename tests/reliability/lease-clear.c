/* Description: what write access to a channel's control object grants
 * (review #3; docs/threat-model.md, "ctl write access"). Lease words live
 * in the control object, which every reader may write: a peer that can
 * write it can clear another reader's lease bit, and the writer then
 * rewrites a frame that reader still reads zero-copy. The library does not
 * prevent this; it tells the reader when someone other than the writer and
 * itself may write the control object (doradma_reader_ctl_writable_by_others:
 * a group write bit, or an owner that is neither), so that doradmasrc
 * copies by default there. A copy reader is not affected: its seqlock
 * check discards the rewritten copy.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define BYTES 16384
#define MS 1000000ll

static char *dir;

static int
attack (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *victim = NULL;
  struct doradma_reader_stats st;
  struct doradma_shm_ctl *ctl = NULL;
  struct doradma_frame f;
  char ch[64];
  uint64_t bad = 0, n;
  int i, res = -1;

  t_channel (ch, sizeof ch, "lc");
  T_RC (t_open_pair (dir, ch, 4, BYTES, 0, &w, &victim), 0, "open");
  T_CHECK (doradma_reader_ctl_writable_by_others (victim) == 0, "mode 0600, "
      "one uid: nobody else may write the control object");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
  T_RC (doradma_reader_next (victim, DORADMA_READ_LATEST, 100 * MS, &f, NULL),
      0, "lease frame 1");
  /* Honest writer: the leased frame survives any number of publishes. */
  for (i = 0; i < 10; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
  T_CHECK (t_check_stamps (f.data, BYTES, f.info.seq, &bad) == 0,
      "the leased frame was rewritten by an honest writer");
  /* The peer clears the victim's lease bit in the control object. */
  doradma_reader_get_stats (victim, &st);
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  __atomic_fetch_and (&ctl->lease[f.slot].readers, ~(1ull << st.entry),
      __ATOMIC_SEQ_CST);
  for (i = 0; i < 4; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
  n = t_check_stamps (f.data, BYTES, f.info.seq, &bad);
  t_log ("after the peer cleared the lease bit: %llu of %d pages of leased "
      "frame %llu rewritten (now seq %llu)", (unsigned long long) n,
      BYTES / 4096, (unsigned long long) f.info.seq, (unsigned long long) bad);
  T_CHECK (n > 0, "the documented limit no longer holds: update "
      "docs/threat-model.md");
  doradma_reader_release (victim, f.slot);
  res = 0;
err:
  if (ctl)
    t_ctl_unmap (ctl);
  doradma_reader_close (victim);
  doradma_writer_close (w);
  return res;
}

static int
query (uint32_t mode, int want)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  char ch[64];
  int res = -1;

  t_channel (ch, sizeof ch, "lq");
  t_writer_config (&wc, ch, dir, 2, 4096);
  wc.mode = mode;
  T_RC (doradma_writer_create (&wc, &w, NULL), 0, "create");
  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  T_CHECK (doradma_reader_ctl_writable_by_others (r) == want,
      "mode %04o: writable by others %d, want %d", mode,
      doradma_reader_ctl_writable_by_others (r), want);
  res = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return res;
}

int
main (void)
{
  int failed = 0;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "leaseclear");
  if (dir == NULL)
    return T_EXIT_FAIL;
  T_EXPECT (failed, attack () == 0, "lease clearing");
  T_EXPECT (failed, query (0600, 0) == 0, "0600");
  T_EXPECT (failed, query (0640, 0) == 0, "0640: the group may only read");
  T_EXPECT (failed, query (0660, 1) == 0, "0660: the group may write");
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
