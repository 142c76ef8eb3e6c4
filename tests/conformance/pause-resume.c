/* Description: a consumer app goes PAUSED for 1 s while a live producer
 * keeps publishing, then PLAYING again. No frame captured during the pause
 * is pushed after the resume, and PTS never goes backwards: every frame is
 * a frame of the local reference, frame numbers and PTS strictly increase,
 * after the resume every frame's PTS is its true capture time (PTS minus
 * frame number x 1/30 s is one constant: no stale frame re-stamped), and
 * that capture time is not before the running time the pipeline paused at
 * (where it resumes) but for the newest frames published by then: captured
 * at most the producer's latency plus two frame periods before it (the
 * bug: a run of frames up to 8 slots old, PTS going back ~230 ms).
 *
 * Specifies gst-elements.md finding 5.
 */
#include "conf.h"

#include <string.h>

#define N_FRAMES 150
#define FPS 30
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
#define PAUSE_AFTER 20
#define PAUSE_MS 1000
#define DUR (G_GINT64_CONSTANT (1000000000) / FPS)
/* frames in flight when the pause began (in the src, prerolled in the
 * sink) may come after the resume: they were captured before the pause */
#define IN_FLIGHT 2

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *pause_opts[] = { "--pause-after",
    G_STRINGIFY (PAUSE_AFTER), "--pause-ms", G_STRINGIFY (PAUSE_MS), NULL
  };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref = NULL;
  GArray *got = NULL;
  gint last_before = -1, first_after = -1;
  gint64 offset_after = 0, paused_at, newest;
  gchar *line = NULL;
  gboolean have_offset = FALSE;
  int rp, rc;

  mp_init ("pause-resume", needed);
  ref = conf_reference (NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");

  /* the consumer first: it joins before the first frame, so what a late
   * joiner sees (finding 9, late-joiner-pts) plays no part here */
  cons = conf_app (pause_opts, "doradmasrc name=src channel=%C "
      "timeout=30000000000 ! appsink name=out sync=true");
  g_usleep (G_USEC_PER_SEC / 2);
  prod = conf_app (NULL, "videotestsrc is-live=true pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink "
      "channel=%C");
  rp = mp_wait (prod, 60);
  rc = mp_wait (cons, 60);
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  MP_CHECK (conf_line (cons, "resumed") != NULL, "the consumer never paused "
      "and resumed");
  line = conf_line (cons, "paused start-time=");
  MP_CHECK (line != NULL, "no paused line");
  paused_at = g_ascii_strtoll (line + strlen ("paused start-time="), NULL, 10);
  newest = (gint64) conf_producer_latency (prod, 0, 1, NULL);
  MP_CHECK (newest != (gint64) G_MAXUINT64, "no producer latency");
  /* the oldest capture time (running time) a frame published by the
   * resume may have */
  newest = paused_at - newest - 2 * DUR;

  got = conf_frames (cons);
  MP_CHECK (got->len > PAUSE_AFTER, "only %u frames", got->len);
  for (guint i = 0; i < got->len; i++) {
    ConfFrame *f = &g_array_index (got, ConfFrame, i);
    gint k = conf_index (ref, f->sha1);

    MP_CHECK (k >= 0, "frame %u (%s) is no frame of the reference", i, f->sha1);
    if (i > 0) {
      ConfFrame *prev = &g_array_index (got, ConfFrame, i - 1);

      MP_CHECK (f->pts > prev->pts, "PTS went backwards (or stood still) at "
          "frame %u (reference frame %d): %" G_GINT64_FORMAT " ms after %"
          G_GINT64_FORMAT " ms%s", i, k, f->pts / 1000000,
          prev->pts / 1000000, f->resumes ? " (after the resume)" : "");
      MP_CHECK (k > conf_index (ref, prev->sha1), "frame %u is reference "
          "frame %d, after reference frame %d", i, k,
          conf_index (ref, prev->sha1));
    }
    if (f->resumes == 0) {
      last_before = k;
      continue;
    }
    if (k <= last_before + IN_FLIGHT)
      continue;
    if (first_after < 0)
      first_after = k;
    /* captured after the resume: PTS is the capture time in this
     * pipeline's running time, so PTS - k x DUR is one constant */
    if (!have_offset) {
      offset_after = f->pts - k * DUR;
      have_offset = TRUE;
    }
    MP_CHECK (f->pts >= newest, "frame %u (reference frame %d) after the "
        "resume was captured during the pause: PTS %.1f ms, paused at %.1f "
        "ms, the newest frames then were captured from %.1f ms", i, k,
        f->pts / 1e6, paused_at / 1e6, newest / 1e6);
    MP_CHECK (ABS (f->pts - k * DUR - offset_after) <= 2000000,
        "frame %u (reference frame %d) after the resume has PTS %"
        G_GINT64_FORMAT " ms, %" G_GINT64_FORMAT " ms off its capture time: "
        "a stale frame re-stamped", i, k, f->pts / 1000000,
        (f->pts - k * DUR - offset_after) / 1000000);
  }
  g_print ("last frame before the pause: %d; first captured after the "
      "resume: %d\n", last_before, first_after);
  /* the pause really skipped frames (else this tested nothing) */
  MP_CHECK (first_after - last_before >= PAUSE_MS * FPS / 1000 / 2,
      "the resume continued at frame %d after %d: no frames were published "
      "during the pause?", first_after, last_before);
  g_free (line);
  return conf_end (TRUE, 2, prod, cons);

err:
  g_free (line);
  return conf_end (FALSE, 2, prod, cons);
}
