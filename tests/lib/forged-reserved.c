/* Description: RESERVED reader entries forged by a peer with write access
 * to ~ctl, whose author has exited, do not lock new readers out for as
 * long as the writer runs (finding N7 of
 * reviews/round3/lib-and-dora-pools.md): a latest writer that never runs
 * short of slots (so never sweeps from acquire) frees them within about a
 * second of publishing, and a reader joins.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define MS 1000000ull

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_diag diag = { 0 };
  struct doradma_shm_ctl *ctl;
  char ch[64], *dir, want[160];
  uint64_t t0, joined_after = 0;
  int e, ret = T_EXIT_FAIL, rc_open = -1;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "forged");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "fg");
  t_writer_config (&wc, ch, dir, 4, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);

  /* The hostile peer scribbles every entry RESERVED and is gone. */
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ~ctl");
  for (e = 0; e < (int) DORADMA_MAX_READERS; e++) {
    ctl->readers[e].token = 0x1234 + e;
    __atomic_store_n (&ctl->readers[e].state, DORADMA_READER_RESERVED,
        __ATOMIC_RELEASE);
  }
  t_ctl_unmap (ctl);

  t_reader_config (&rc, ch, dir, 0);
  T_RC (doradma_reader_open (&rc, &r, &diag), -EUSERS,
      "a join right after the forgery");
  /* R4-10: the refusal says the entries are RESERVED, not 64 pids 0 */
  T_CHECK (strstr (diag.msg, "64 RESERVED") != NULL &&
      strstr (diag.msg, "0 by readers") != NULL, "the refusal does not say "
      "the entries are RESERVED: %s", diag.msg);
  /* A 100 fps latest writer for up to 4 s, a join attempt every 100 ms. */
  t0 = t_now_ns ();
  while (t_now_ns () - t0 < 4000 * MS) {
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
        "publish");
    if ((t_now_ns () - t0) / MS % 100 < 10) {
      rc_open = doradma_reader_open (&rc, &r, &diag);
      if (rc_open == 0) {
        joined_after = (t_now_ns () - t0) / MS;
        break;
      }
    }
    usleep (10000);
  }
  t_log ("join after the forgery: %s after %llu ms", t_errname (rc_open),
      (unsigned long long) joined_after);
  T_CHECK (rc_open == 0, "forged RESERVED entries still lock readers out "
      "after 4 s of publishing: %s", diag.msg);
  T_CHECK (joined_after < 2500, "joined only after %llu ms",
      (unsigned long long) joined_after);

  /* R4-10, a mixed table: our reader's entry and 63 forged ones. The
   * refusal counts them apart and lists the pid of the live one only. */
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ~ctl");
  for (e = 0; e < (int) DORADMA_MAX_READERS; e++)
    if (__atomic_load_n (&ctl->readers[e].state, __ATOMIC_ACQUIRE) !=
        DORADMA_READER_ACTIVE)
      __atomic_store_n (&ctl->readers[e].state, DORADMA_READER_RESERVED,
          __ATOMIC_RELEASE);
  t_ctl_unmap (ctl);
  T_RC (doradma_reader_open (&rc, &r2, &diag), -EUSERS,
      "a second join into a table of one reader and 63 forgeries");
  t_log ("refusal: %s", diag.msg);
  snprintf (want, sizeof want, "63 RESERVED (kept for a replaced writer's "
      "readers, or forged), 1 by readers, pids: %u", (unsigned) getpid ());
  T_CHECK (strstr (diag.msg, want) != NULL && strstr (diag.msg, " 0") ==
      NULL, "want \"%s\" and no pid 0 in: %s", want, diag.msg);
  ret = T_EXIT_PASS;
err:
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
