/* Description: a consumer that joins a running producer gets the caps and
 * the newest frame first (not the oldest in the ring), then the frames
 * after it, in order.
 */
#include "mp.h"

#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", NULL };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref, *got;
  guint first = 0;
  int r;

  mp_init ("late", needed);
  ref = mp_reference ("videotestsrc pattern=ball num-buffers=90 ! " CAPS
      " ! checksumsink");

  /* a live producer at 30 frames/s for 3 s */
  prod = mp_launch ("videotestsrc pattern=ball is-live=true num-buffers=90 ! "
      CAPS " ! doradmasink channel=%C slots=8");
  MP_CHECK (mp_wait_channel (mp_channel (), 10), "no channel");
  g_usleep (G_USEC_PER_SEC);
  cons = mp_launch ("doradmasrc channel=%C num-buffers=5 ! "
      "checksumsink sync=false");
  r = mp_wait (cons, 20);
  MP_CHECK (r == 0, "consumer exited %d", r);
  got = mp_checksums (cons);
  MP_CHECK (got->len == 5, "consumer got %u frames", got->len);
  MP_CHECK (mp_is_subsequence (got, ref), "frames not from the producer");
  for (first = 0; first < ref->len; first++)
    if (g_str_equal (ref->pdata[first], got->pdata[0]))
      break;
  /* joined after ~1 s = frame ~30; the ring has 8 slots: an oldest-first
   * reader would start more than 5 frames back */
  MP_CHECK (first >= 15, "first frame delivered is frame %u", first);
  r = mp_wait (prod, 20);
  MP_CHECK (r == 0, "producer exited %d", r);
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS (joined at frame %u)\n", first);
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_free (prod);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
