/* Description: three consumers read one lossless producer at once; each
 * gets every frame, equal to the reference byte for byte.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", NULL };
  MpProc *prod = NULL, *cons[3] = { NULL, NULL, NULL };
  GPtrArray *ref;
  int i, r;

  mp_init ("three", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=50 ! " CAPS
      " ! checksumsink");

  for (i = 0; i < 3; i++)
    cons[i] = mp_launch (i == 2 ?
        "doradmasrc channel=%C timeout=20000000000 copy=true ! "
        "checksumsink sync=false" :
        "doradmasrc channel=%C timeout=20000000000 ! checksumsink sync=false");
  prod = mp_launch ("videotestsrc pattern=ball num-buffers=50 ! " CAPS
      " ! doradmasink channel=%C mode=lossless wait-for-readers=3 sync=false");
  r = mp_wait (prod, 30);
  MP_CHECK (r == 0, "producer exited %d", r);
  for (i = 0; i < 3; i++) {
    GPtrArray *got;

    r = mp_wait (cons[i], 30);
    MP_CHECK (r == 0, "consumer %d exited %d", i, r);
    got = mp_checksums (cons[i]);
    MP_CHECK (mp_equal (got, ref, "consumer vs reference"), "consumer %d", i);
  }
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  for (i = 0; i < 3; i++) {
    mp_dump (cons[i]);
    mp_free (cons[i]);
  }
  mp_free (prod);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
