/* Description: an in-place producer (videotestsrc writes into the slots)
 * shows 0 copies; the consumer's frames equal a reference run byte for byte;
 * at EOS both gst-launch processes exit 0; nothing is left in /dev/shm.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", NULL };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref, *got = NULL;
  int rp, rc;

  mp_init ("inplace", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=60 ! " CAPS
      " ! checksumsink");
  MP_CHECK (ref->len == 60, "reference has %u frames", ref->len);

  cons = mp_launch ("doradmasrc channel=%C timeout=20000000000 ! "
      "checksumsink sync=false");
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=60 ! " CAPS
      " ! doradmasink channel=%C mode=lossless wait-for-readers=1 sync=false");
  rp = mp_wait (prod, 30);
  rc = mp_wait (cons, 30);
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);

  got = mp_checksums (cons);
  MP_CHECK (mp_equal (got, ref, "consumer vs reference"), "frames differ");
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == 60, "frames");
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "copies") == 0,
      "copies = %" G_GUINT64_FORMAT, mp_stat (prod, "doradmasink-stats",
          "copies"));
  MP_CHECK (mp_stat (cons, "doradmasrc-stats", "copies") == 0, "src copies");
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
