/* Description: a looping player. The producer plays [0, 1 s) into
 * doradmasink, reaches EOS, seeks (FLUSH) back to 0 and plays it again. A
 * consumer that joins after the EOS, during the replay, gets every frame of
 * the replay (equal to a local reference) and then EOS, instead of EOS at
 * once.
 *
 * Specifies gst-elements.md finding 4 (EOS on the ring is permanent: EOS
 * followed by a flushing seek must start a new stream consumers follow).
 */
#include "conf.h"

#define N_FRAMES 30
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
/* [0, 1 s): frames 0..29 */
#define STOP_MS "1000"
#define PLAY "videotestsrc pattern=ball ! " CAPS

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *ref_opts[] = { "--stop-ms", STOP_MS, NULL };
  static const gchar *prod_opts[] = { "--stop-ms", STOP_MS, "--replay", NULL };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref = NULL, *got = NULL;
  gchar *line;
  int rp, rc;

  mp_init ("eos-seek-replay", needed);
  ref = conf_reference (ref_opts, PLAY " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");

  /* lossless: the replay waits (wait-for-readers=1, set by the app at EOS)
   * for the consumer and then gives it every frame */
  prod = conf_app (prod_opts, PLAY " ! doradmasink name=sink channel=%C "
      "mode=lossless timeout=30000000000");
  line = conf_wait_line (prod, "replaying", 60);
  MP_CHECK (line != NULL, "the producer never reached EOS and replayed");
  g_free (line);
  /* the seek's flush went through the sink; let the replay's first frame
   * reach it (it waits there for a reader) */
  g_usleep (G_USEC_PER_SEC / 4);

  cons = conf_app (NULL, "doradmasrc name=src channel=%C "
      "timeout=30000000000 ! appsink name=out sync=false");
  rc = mp_wait (cons, 60);
  rp = mp_wait (prod, 60);
  got = mp_checksums (cons);
  g_print ("consumer: exit %d, %u frames; producer exit %d\n", rc, got->len,
      rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  MP_CHECK (mp_equal (got, ref, "consumer (joined at the replay) vs "
          "reference"), "the late consumer did not get the replay");
  MP_CHECK (conf_line (cons, "eos") != NULL, "no EOS after the replay");
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == 2 * N_FRAMES,
      "producer published %" G_GINT64_FORMAT " frames, expected 2 x %d",
      (gint64) mp_stat (prod, "doradmasink-stats", "frames"), N_FRAMES);
  return conf_end (TRUE, 2, prod, cons);

err:
  return conf_end (FALSE, 2, prod, cons);
}
