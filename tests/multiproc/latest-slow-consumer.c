/* Description: latest mode with slow consumers: the producer never waits,
 * the next-mode consumer counts skipped frames, and nothing it delivers is
 * torn (every frame equals a reference frame, in order). A copy-mode
 * consumer likewise delivers only whole frames.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink",
    "identity", NULL
  };
  MpProc *prod = NULL, *cons = NULL, *copy = NULL;
  GPtrArray *ref, *got, *got2;
  int r;

  mp_init ("latest", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=150 ! " CAPS
      " ! checksumsink");

  cons = mp_launch ("doradmasrc channel=%C read-mode=next "
      "timeout=20000000000 ! identity sleep-time=15000 ! "
      "checksumsink sync=false");
  copy = mp_launch ("doradmasrc channel=%C read-mode=next copy=true "
      "timeout=20000000000 ! identity sleep-time=15000 ! "
      "checksumsink sync=false");
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=150 ! " CAPS
      " ! identity sleep-time=2000 ! doradmasink channel=%C slots=4 "
      "mode=latest wait-for-readers=2 sync=false");
  r = mp_wait (prod, 40);
  MP_CHECK (r == 0, "producer exited %d", r);
  r = mp_wait (cons, 40);
  MP_CHECK (r == 0, "consumer exited %d", r);
  r = mp_wait (copy, 40);
  MP_CHECK (r == 0, "copy consumer exited %d", r);

  MP_CHECK (mp_stat (prod, "doradmasink-stats", "full-ring-waits") == 0,
      "latest producer waited");
  got = mp_checksums (cons);
  got2 = mp_checksums (copy);
  g_print ("consumer got %u, copy consumer %u of 150\n", got->len, got2->len);
  MP_CHECK (got->len > 0 && got->len < 150, "got %u frames", got->len);
  MP_CHECK (mp_is_subsequence (got, ref), "torn or reordered frame");
  MP_CHECK (mp_is_subsequence (got2, ref), "torn or reordered frame (copy)");
  MP_CHECK (mp_stat (cons, "doradmasrc-stats", "skipped") > 0,
      "skips not counted");
  MP_CHECK (mp_stat (cons, "doradmasrc-stats", "frames") == got->len,
      "frames stat");
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_dump (copy);
  mp_free (prod);
  mp_free (cons);
  mp_free (copy);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
