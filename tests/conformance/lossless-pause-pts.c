/* Description: a `next` consumer app pauses for 1 s on a lossless channel
 * (review round 4, D3). Frames published during the pause are dropped at
 * the resume (live semantics, one DISCONT); the producer waited for the
 * consumer meanwhile, so the frames captured during the pause but
 * published after the resume come out after it. Their PTS keep the
 * writer's spacing: frame numbers (of the local reference) increase, and
 * consecutive PTS are as far apart as their capture times (k frames apart:
 * k periods, 2 ms tolerance). Before the fix that backlog came out 1 ns
 * apart (each PTS clamped to just after the previous one).
 */
#include "conf.h"

#define N_FRAMES 75
#define FPS 30
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
#define PAUSE_AFTER 15
#define PAUSE_MS 1000
#define DUR (G_GINT64_CONSTANT (1000000000) / FPS)

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
  guint backlog = 0;
  int rp, rc;

  mp_init ("lossless-pause-pts", needed);
  ref = conf_reference (NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");

  cons = conf_app (pause_opts, "doradmasrc name=src channel=%C "
      "timeout=30000000000 ! appsink name=out sync=true");
  prod = conf_app (NULL, "videotestsrc is-live=true pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink "
      "channel=%C mode=lossless wait-for-readers=1 slots=8 sync=false "
      "timeout=10000000000");
  rp = mp_wait (prod, 40);
  rc = mp_wait (cons, 40);
  MP_CHECK (rp == 0, "producer exited %d", rp);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  MP_CHECK (conf_line (cons, "resumed") != NULL, "the consumer never paused "
      "and resumed");

  got = conf_frames (cons);
  MP_CHECK (got->len > PAUSE_AFTER + 10, "only %u frames", got->len);
  for (guint i = 0; i < got->len; i++) {
    ConfFrame *f = &g_array_index (got, ConfFrame, i);
    ConfFrame *prev = i ? &g_array_index (got, ConfFrame, i - 1) : NULL;
    gint k = conf_index (ref, f->sha1), pk;

    MP_CHECK (k >= 0, "frame %u is no frame of the reference", i);
    if (prev == NULL)
      continue;
    pk = conf_index (ref, prev->sha1);
    MP_CHECK (k > pk, "frame %u is reference frame %d, after %d", i, k, pk);
    MP_CHECK (k == pk + 1 || f->discont, "frame %u follows lost frames "
        "(reference %d after %d) but is not DISCONT", i, k, pk);
    if (f->resumes)
      backlog++;
    MP_CHECK (ABS (f->pts - prev->pts - (k - pk) * DUR) <= 2000000,
        "frame %u (reference %d)%s: PTS %" G_GINT64_FORMAT " ns after "
        "reference %d's, not %d frame periods", i, k,
        f->resumes ? " (after the resume)" : "", f->pts - prev->pts, pk,
        k - pk);
  }
  /* the consumer went to the end, lossless after the resume */
  MP_CHECK (conf_index (ref, g_array_index (got, ConfFrame,
              got->len - 1).sha1) == N_FRAMES - 1, "the last frame is not "
      "the producer's last");
  MP_CHECK (backlog >= 10, "only %u frames after the resume", backlog);
  g_print ("%u frames after the resume, PTS keep the capture spacing\n",
      backlog);
  return conf_end (TRUE, 2, prod, cons);

err:
  return conf_end (FALSE, 2, prod, cons);
}
