/* Description: kill -9 of the producer: the consumer warns and waits
 * (on-writer-lost=wait); a new producer at another resolution takes the
 * channel over and the consumer continues with the new caps, every frame of
 * the new producer byte for byte, then exits 0 at its EOS.
 */
#include <string.h>
#include <unistd.h>

#include "mp.h"

#define CAPS1 "video/x-raw,format=I420,width=320,height=240,framerate=30/1"
#define CAPS2 "video/x-raw,format=I420,width=160,height=120,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", NULL };
  MpProc *prod1 = NULL, *prod2 = NULL, *cons = NULL;
  GPtrArray *ref1, *ref2, *got, *tail;
  gchar *out;
  int r;

  mp_init ("killprod", needed);
  ref1 = mp_reference ("videotestsrc pattern=ball num-buffers=300 ! " CAPS1
      " ! checksumsink");
  ref2 = mp_reference ("videotestsrc pattern=smpte num-buffers=30 ! " CAPS2
      " ! checksumsink");

  prod1 = mp_launch ("videotestsrc pattern=ball is-live=true num-buffers=300 "
      "! " CAPS1 " ! doradmasink channel=%C");
  cons = mp_launch ("doradmasrc channel=%C timeout=20000000000 "
      "on-writer-lost=wait ! checksumsink sync=false");
  MP_CHECK (mp_wait_lines (cons, 10, 20), "consumer got no frames");
  mp_kill9 (prod1);

  /* the consumer survives the loss and waits */
  g_usleep (500 * 1000);
  MP_CHECK (mp_alive (cons), "consumer exited when the writer died");

  prod2 = mp_launch ("videotestsrc pattern=smpte num-buffers=30 ! " CAPS2
      " ! doradmasink channel=%C mode=lossless wait-for-readers=1 sync=false");
  r = mp_wait (prod2, 30);
  MP_CHECK (r == 0, "second producer exited %d", r);
  r = mp_wait (cons, 30);
  MP_CHECK (r == 0, "consumer exited %d", r);

  got = mp_checksums (cons);
  MP_CHECK (got->len >= 10 + 30, "consumer got %u frames", got->len);
  tail = g_ptr_array_new ();
  for (guint i = got->len - 30; i < got->len; i++)
    g_ptr_array_add (tail, got->pdata[i]);
  MP_CHECK (mp_equal (tail, ref2, "after the new producer"), "frames differ");
  g_ptr_array_set_size (got, got->len - 30);
  MP_CHECK (mp_is_subsequence (got, ref1), "frames of the first producer");
  out = mp_output (cons);
  MP_CHECK (strstr (out, "died") != NULL, "no warning about the lost writer");
  g_free (out);
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod1);
  mp_dump (prod2);
  mp_dump (cons);
  mp_free (prod1);
  mp_free (prod2);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
