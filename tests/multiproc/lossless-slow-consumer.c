/* Description: lossless mode with a consumer slower than the producer:
 * every frame arrives, in order, byte for byte; the producer had to wait.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink",
    "identity", NULL
  };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref, *got;
  int rp, rc;

  mp_init ("lossless", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=60 ! " CAPS
      " ! checksumsink");

  cons = mp_launch ("doradmasrc channel=%C read-mode=next "
      "timeout=20000000000 ! identity sleep-time=10000 ! "
      "checksumsink sync=false");
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=60 ! " CAPS
      " ! doradmasink channel=%C slots=4 mode=lossless wait-for-readers=1 "
      "sync=false");
  rp = mp_wait (prod, 40);
  rc = mp_wait (cons, 40);
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  got = mp_checksums (cons);
  MP_CHECK (mp_equal (got, ref, "consumer vs reference"), "frames differ");
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "full-ring-waits") > 0
      && mp_stat (prod, "doradmasink-stats", "full-ring-waits") != G_MAXUINT64,
      "the producer never waited");
  MP_CHECK (mp_stat (cons, "doradmasrc-stats", "skipped") == 0, "skipped");
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_free (prod);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
