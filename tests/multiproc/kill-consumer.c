/* Description: kill -9 of a consumer mid-stream: the lossless producer
 * reclaims its reader entry (OFD lock gone) and continues to the end
 * instead of stalling; a second consumer still gets every frame.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink",
    "identity", NULL
  };
  MpProc *prod = NULL, *victim = NULL, *cons = NULL;
  GPtrArray *ref, *got;
  int r;

  mp_init ("killcons", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=120 ! " CAPS
      " ! checksumsink");

  victim = mp_launch ("doradmasrc channel=%C timeout=20000000000 ! "
      "identity sleep-time=20000 ! checksumsink sync=false");
  cons = mp_launch ("doradmasrc channel=%C timeout=20000000000 ! "
      "checksumsink sync=false");
  /* on-reader-stall=error with 3 s: a dead reader that is not reclaimed
   * makes the producer fail */
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=120 ! " CAPS
      " ! doradmasink channel=%C mode=lossless wait-for-readers=2 "
      "timeout=3000000000 on-reader-stall=error sync=false");
  MP_CHECK (mp_wait_lines (victim, 10, 20), "victim got no frames");
  mp_kill9 (victim);

  r = mp_wait (prod, 30);
  MP_CHECK (r == 0, "producer exited %d after the consumer was killed", r);
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == 120, "frames");
  r = mp_wait (cons, 30);
  MP_CHECK (r == 0, "consumer exited %d", r);
  got = mp_checksums (cons);
  MP_CHECK (mp_equal (got, ref, "survivor vs reference"), "frames differ");
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (victim);
  mp_dump (cons);
  mp_free (prod);
  mp_free (victim);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
