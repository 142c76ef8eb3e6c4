/* Description: a consumer joins a live producer that has been publishing
 * for a second. It gets no run of frames stamped PTS 0: every frame is a
 * frame of the local reference, frame numbers and PTS strictly increase,
 * and from the second frame on PTS is the capture time (PTS minus frame
 * number x 1/30 s is one constant; the first frame may be clipped to 0).
 * The producer has 233 ms of latency (processing-deadline 200 ms, like an
 * encoding pipeline): the frames it publishes in the first ~200 ms after
 * the join were captured before the consumer's running time 0, whatever
 * the load on the machine (without it, a consumer slow to join after
 * PLAYING would not meet the case). The consumer does not sync (a recorder:
 * muxers refuse equal timestamps), so it reads those frames as they come.
 *
 * Specifies gst-elements.md finding 9.
 */
#include "conf.h"

#define N_FRAMES 90
#define FPS 30
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
#define DUR (G_GINT64_CONSTANT (1000000000) / FPS)
#define N_GOT 20

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *cons_opts[] = { "--frames", G_STRINGIFY (N_GOT), NULL };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref = NULL;
  GArray *got = NULL;
  gint64 offset = 0;
  gchar *line = NULL;
  int rp, rc;

  mp_init ("late-joiner-pts", needed);
  ref = conf_reference (NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");

  prod = conf_app (NULL, "videotestsrc is-live=true pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink "
      "channel=%C processing-deadline=200000000");
  /* "sink-latency" comes with the first frame at the sink */
  line = conf_wait_line (prod, "sink-latency", 30);
  MP_CHECK (line != NULL, "the producer never published");
  g_usleep (G_USEC_PER_SEC);

  cons = conf_app (cons_opts, "doradmasrc name=src channel=%C "
      "timeout=30000000000 ! appsink name=out sync=false");
  rc = mp_wait (cons, 60);
  rp = mp_wait (prod, 60);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  MP_CHECK (rp == 0, "producer exited %d", rp);

  got = conf_frames (cons);
  MP_CHECK (got->len == N_GOT, "%u frames, expected %d", got->len, N_GOT);
  for (guint i = 0; i < got->len; i++) {
    ConfFrame *f = &g_array_index (got, ConfFrame, i);
    gint k = conf_index (ref, f->sha1);

    g_print ("frame %u: reference frame %d, PTS %.1f ms%s\n", i, k,
        f->pts / 1e6, f->discont ? " DISCONT" : "");
    MP_CHECK (k >= 0, "frame %u (%s) is no frame of the reference", i, f->sha1);
    if (i == 0) {
      /* joined late: not the first frames of the stream */
      MP_CHECK (k >= FPS / 2, "the first frame is reference frame %d: the "
          "consumer did not join late", k);
      continue;
    }
    {
      ConfFrame *prev = &g_array_index (got, ConfFrame, i - 1);

      MP_CHECK (f->pts > prev->pts, "PTS did not increase at frame %u: %.1f "
          "ms after %.1f ms", i, f->pts / 1e6, prev->pts / 1e6);
      MP_CHECK (k > conf_index (ref, prev->sha1), "frame %u is reference "
          "frame %d, after reference frame %d", i, k,
          conf_index (ref, prev->sha1));
    }
    if (i == 1)
      offset = f->pts - k * DUR;
    MP_CHECK (ABS (f->pts - k * DUR - offset) <= 2000000, "frame %u "
        "(reference frame %d) has PTS %.1f ms, %.1f ms off its capture time",
        i, k, f->pts / 1e6, (f->pts - k * DUR - offset) / 1e6);
  }
  g_free (line);
  return conf_end (TRUE, 2, prod, cons);

err:
  g_free (line);
  return conf_end (FALSE, 2, prod, cons);
}
