/* Description: an application producer (appsrc, frames made by the app in
 * its own buffers) and an application consumer (appsink) in two processes,
 * lossless: the consumer gets every frame, equal byte for byte (visible
 * bytes at the default layout) to the same app's frames run locally
 * without doradma, then EOS; the producer counts them all.
 */
#include "conf.h"

#define N_FRAMES 40
/* odd size: the default layout has row padding (stride 100, chroma 52) */
#define CAPS "video/x-raw,format=I420,width=99,height=31,framerate=30/1"
#define APPSRC "appsrc name=in format=time caps=" CAPS

int
main (void)
{
  static const gchar *needed[] = { "appsrc", "appsink", NULL };
  static const gchar *push[] = { "--appsrc-frames", G_STRINGIFY (N_FRAMES),
    NULL
  };
  MpProc *prod = NULL, *cons = NULL, *refp = NULL;
  GPtrArray *ref = NULL, *got = NULL;
  int rp, rc;

  mp_init ("appsrc-appsink", needed);
  refp = conf_app (push, APPSRC " ! appsink name=out sync=false");
  rc = mp_wait (refp, 60);
  MP_CHECK (rc == 0, "reference exited %d", rc);
  ref = mp_checksums (refp);
  MP_CHECK (ref->len == N_FRAMES, "reference has %u frames", ref->len);

  cons = conf_app (NULL, "doradmasrc name=src channel=%C "
      "timeout=30000000000 ! appsink name=out sync=false");
  prod = conf_app (push, APPSRC " ! doradmasink name=sink channel=%C "
      "mode=lossless wait-for-readers=1 sync=false timeout=30000000000");
  rp = mp_wait (prod, 60);
  rc = mp_wait (cons, 60);
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  got = mp_checksums (cons);
  MP_CHECK (mp_equal (got, ref, "consumer vs reference"), "frames differ");
  MP_CHECK (conf_line (cons, "eos") != NULL, "the consumer got no EOS");
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == N_FRAMES,
      "producer published %" G_GINT64_FORMAT " frames",
      (gint64) mp_stat (prod, "doradmasink-stats", "frames"));
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  mp_free (refp);
  mp_free (prod);
  mp_free (cons);
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_free (refp);
  mp_free (prod);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
