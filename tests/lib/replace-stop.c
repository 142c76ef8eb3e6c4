/* Description: a back-pressure reader that stops (doradma_reader_stop)
 * just after a replace carried its entry (issue 32, the stop/replace
 * race). The replace read the entry while it was still ACTIVE with
 * BACKPRESSURE and made it RESERVED in the new segment; then the reader
 * stopped, keeping its entry lock in the old segment while the application
 * holds a frame. The RESERVED entry expired only once that lock was free,
 * so the new segment's lossless writer waited for a reader that never
 * reads again. Now the writer reads the old entry: STOPPED frees the
 * carried entry at the next sweep, while a carried reader that did not
 * stop is still waited for and adopts its entry. The interleaving is
 * forced by doing the steps in that order (replace, then stop); the
 * stopped reader's frame stays intact throughout.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define BYTES 8192
#define SLOTS 4
#define MS 1000000ll

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *stopping = NULL, *staying = NULL, *adopted = NULL;
  struct doradma_frame held, f;
  struct doradma_diag diag = { 0 };
  char ch[64], *dir;
  uint64_t token, s, next;
  int i, n;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "replace-stop");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "rstop");
  T_RC (t_open_pair (dir, ch, SLOTS, BYTES, 1, &a, &stopping), 0, "open");
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &staying, &diag), 0, diag.msg);
  token = doradma_reader_token (staying);
  T_RC (t_publish_as (a, DORADMA_POLICY_LOSSLESS, 0, BYTES, 1, NULL), 0,
      "publish frame 1 on A");
  /* the application keeps frame 1's view */
  T_RC (doradma_reader_next (stopping, DORADMA_READ_NEXT, 500 * MS, &held,
          &diag), 0, diag.msg);

  t_step ("replace A by B: both readers' entries are carried");
  t_writer_config (&wc, ch, dir, SLOTS, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, &diag), 0, diag.msg);
  T_RC (doradma_writer_wait_carried (b, 0, NULL), -EAGAIN,
      "B waits for its carried readers");

  t_step ("the first reader stops after the replace read its entry");
  doradma_reader_stop (stopping);
  /* Before the fix the sweep freed nothing: the stopped reader's old lock
   * is held while it holds frame 1. */
  n = doradma_writer_sweep (b);
  T_CHECK (n == 1, "the sweep after the stop reclaimed %d carried entries, "
      "want 1 (the stopped reader's)", n);
  T_RC (doradma_writer_wait_carried (b, 0, NULL), -EAGAIN,
      "the reader that did not stop is still waited for");

  t_step ("the other reader drains A and adopts its entry in B");
  T_RC (doradma_reader_next (staying, DORADMA_READ_NEXT, 500 * MS, &f,
          &diag), 0, diag.msg);
  T_CHECK (f.info.seq == 1, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (staying, f.slot);
  T_RC (doradma_reader_next (staying, DORADMA_READ_NEXT, 0, &f, NULL),
      -ESTALE, "A drained");
  rc.token = token;
  T_RC (doradma_reader_open (&rc, &adopted, &diag), 0, diag.msg);
  T_CHECK (doradma_reader_token (adopted) == token, "the entry was not "
      "adopted");
  doradma_reader_close (staying);
  staying = NULL;
  T_RC (doradma_writer_wait_carried (b, 0, NULL), 0, "nothing left to wait "
      "for");

  t_step ("B publishes lossless, held back by the adopting reader only");
  next = 2;
  for (i = 0; i < 3 * SLOTS; i++) {
    T_RC (t_publish_as (b, DORADMA_POLICY_LOSSLESS, 0, BYTES, next, NULL), 0,
        "lossless publish on B (no wait)");
    next++;
    T_RC (doradma_reader_next (adopted, DORADMA_READ_NEXT, 500 * MS, &f,
            &diag), 0, diag.msg);
    s = f.info.seq;
    T_CHECK (s == next - 1 && f.skipped == 0, "seq %llu skipped %llu, want "
        "%llu, none skipped", (unsigned long long) s,
        (unsigned long long) f.skipped, (unsigned long long) next - 1);
    doradma_reader_release (adopted, f.slot);
  }
  T_CHECK (t_check_stamps (held.data, BYTES, 1, NULL) == 0,
      "the stopped reader's frame 1 changed under its lease");

  doradma_reader_release (stopping, held.slot);
  doradma_reader_close (stopping);
  doradma_reader_close (adopted);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return t_shm_dir_remove (dir) ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  doradma_reader_close (stopping);
  doradma_reader_close (staying);
  doradma_reader_close (adopted);
  doradma_writer_close (b);
  doradma_writer_close (a);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
