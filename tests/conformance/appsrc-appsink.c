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
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref = NULL, *got = NULL;
  int rp, rc;

  mp_init ("appsrc-appsink", needed);
  ref = conf_reference (push, APPSRC " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");

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
  return conf_end (TRUE, 2, prod, cons);

err:
  return conf_end (FALSE, 2, prod, cons);
}
