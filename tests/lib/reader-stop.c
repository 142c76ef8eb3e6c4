/* Description: doradma_reader_stop (review round 4, R4-P1). A back-pressure
 * reader that stops while it still holds a leased frame (a view kept past
 * its pipeline's NULL) leaves back-pressure at once: a lossless writer
 * publishes on without waiting for it, and its entry no longer counts as a
 * reader; the leased slot stays pinned (never rewritten) until released,
 * and only that slot; the entry reads STOPPED for tools with its lease;
 * reads after the stop are refused (-ESHUTDOWN); the release, then the
 * close, free everything.
 */
#include <errno.h>
#include <glib.h>
#include <string.h>

#include <doradma/inspect.h>

#include "helpers.h"

#define BYTES 8192
#define SEC 1000000000ll

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame held, f;
  struct doradma_inspect *in = NULL;
  struct doradma_diag diag;
  char ch[64], *dir;
  uint32_t slot, e;
  uint64_t other_slots = 0;
  int i;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "reader-stop");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "stop");
  T_RC (t_open_pair (dir, ch, 4, BYTES, 1, &w, &r), 0, "open");
  T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, NULL), 0, "pub");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &held, NULL), 0,
      "next");
  e = 0;
  {
    struct doradma_reader_stats st;
    doradma_reader_get_stats (r, &st);
    e = st.entry;
  }

  doradma_reader_stop (r);
  doradma_reader_stop (r);      /* idempotent */

  /* Far more frames than slots, none waited for: the stopped reader holds
   * no back-pressure (before the fix, acquire gave -EAGAIN at frame 4). */
  for (i = 0; i < 20; i++) {
    T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, &slot), 0,
        "LOSSLESS publish with the reader stopped");
    T_CHECK (slot != held.slot, "the writer took the held slot %u", slot);
    other_slots |= 1ull << slot;
  }
  /* only the held slot is kept out: the three others all took frames */
  T_CHECK (__builtin_popcountll (other_slots) == 3, "the writer used %d "
      "slots besides the held one, not 3", __builtin_popcountll (other_slots));
  T_CHECK (t_check_stamps (held.data, BYTES, held.info.seq, NULL) == 0,
      "the held frame was overwritten");
  T_RC (doradma_writer_wait_readers (w, 1, 0, NULL), -EAGAIN,
      "a stopped reader is no reader");

  /* tools see the entry STOPPED, still holding its lease, no flag */
  in = g_new0 (struct doradma_inspect, 1);
  T_RC (doradma_inspect_channel (dir, ch, in), 0, "inspect");
  T_CHECK (in->readers[e].entry.state == DORADMA_READER_STOPPED,
      "entry %u state %u, not STOPPED", e, in->readers[e].entry.state);
  T_CHECK (!(in->readers[e].entry.flags & DORADMA_READER_BACKPRESSURE),
      "the stopped entry keeps its BACKPRESSURE flag");
  T_CHECK (in->readers[e].leases == 1, "the stopped entry holds %u leases",
      in->readers[e].leases);
  T_CHECK (in->readers[e].alive == 1, "the stopped entry's lock is gone");
  doradma_inspect_clear (in);

  memset (&diag, 0, sizeof diag);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, &diag), -ESHUTDOWN,
      "a read after the stop");
  T_CHECK (diag.msg[0] != '\0', "no message for the refused read");

  /* the release frees the slot: the writer may use all four again */
  doradma_reader_release (r, held.slot);
  other_slots = 0;
  for (i = 0; i < 8; i++) {
    T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, &slot), 0,
        "publish after the release");
    other_slots |= 1ull << slot;
  }
  T_CHECK (other_slots == 0xf, "slots used after the release: 0x%llx",
      (unsigned long long) other_slots);
  doradma_reader_close (r);
  r = NULL;
  T_RC (doradma_inspect_channel (dir, ch, in), 0, "inspect");
  T_CHECK (in->readers[e].entry.state == DORADMA_READER_FREE,
      "entry %u state %u after the close", e, in->readers[e].entry.state);
  doradma_writer_close (w);
  doradma_inspect_clear (in);
  g_free (in);
  return t_shm_dir_remove (dir) ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (in)
    doradma_inspect_clear (in);
  g_free (in);
  doradma_reader_close (r);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
