/* Description: a consumer whose downstream holds many buffers (queue
 * max-size-buffers=200) does not stall a lossless producer: beyond
 * max-leases the consumer copies (counted), the ring keeps moving, and
 * every frame still arrives byte for byte.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", "queue",
    "identity", NULL
  };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref, *got;
  int r;

  mp_init ("queue", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=100 ! " CAPS
      " ! checksumsink");

  /* the queue fills up front: identity sleeps, so buffers pile up */
  cons = mp_launch ("doradmasrc channel=%C max-leases=4 timeout=20000000000 "
      "! queue max-size-buffers=200 max-size-bytes=0 max-size-time=0 ! "
      "identity sleep-time=5000 ! checksumsink sync=false");
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=100 ! " CAPS
      " ! doradmasink channel=%C slots=8 mode=lossless wait-for-readers=1 "
      "timeout=3000000000 on-reader-stall=error sync=false");
  r = mp_wait (prod, 30);
  MP_CHECK (r == 0, "producer exited %d (stalled by the queue?)", r);
  r = mp_wait (cons, 30);
  MP_CHECK (r == 0, "consumer exited %d", r);
  got = mp_checksums (cons);
  MP_CHECK (mp_equal (got, ref, "consumer vs reference"), "frames differ");
  MP_CHECK (mp_stat (cons, "doradmasrc-stats", "copies") > 0
      && mp_stat (cons, "doradmasrc-stats", "copies") != G_MAXUINT64,
      "no copies counted beyond max-leases");
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS (copies %" G_GUINT64_FORMAT ")\n",
      mp_stat (cons, "doradmasrc-stats", "copies"));
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_free (prod);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
