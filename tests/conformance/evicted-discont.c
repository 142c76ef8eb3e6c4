/* Description: a slow `next` consumer of a lossless producer with
 * on-reader-stall=evict (review round 4, D1). The producer evicts it again
 * and again, and each time it resumes at the newest frame: every buffer
 * that follows lost frames is DISCONT, and the src's `skipped` counts at
 * least the frames lost between the buffers it delivered. Before the fix
 * only the first buffer was DISCONT and `skipped` stayed 0. Run leased and
 * with copy=true (the copy path).
 */
#include "conf.h"

#include <string.h>

#define N_FRAMES 120
#define TAKE 6
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"

/* One run; FALSE after printing why. */
static gboolean
run (GPtrArray * ref, const gchar * copy)
{
  static const gchar *opts[] = { "--frames", G_STRINGIFY (TAKE), NULL };
  MpProc *prod = NULL, *cons = NULL;
  GArray *got = NULL;
  gchar *pipeline, *final = NULL;
  guint64 gaps = 0, skipped;
  guint n_gaps = 0;
  gint prev = -1;
  int rp, rc;
  gboolean ok = FALSE;

  pipeline = g_strdup_printf ("doradmasrc name=src channel=%%C %s "
      "timeout=30000000000 ! identity sleep-time=300000 ! appsink name=out "
      "sync=false", copy);
  cons = conf_app (opts, pipeline);
  g_free (pipeline);
  prod = conf_app (NULL, "videotestsrc is-live=true pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink channel=%C "
      "mode=lossless wait-for-readers=1 slots=4 timeout=200000000 "
      "on-reader-stall=evict");
  rc = mp_wait (cons, 40);
  MP_CHECK (rc == 0, "consumer (%s) exited %d", copy, rc);
  rp = mp_wait (prod, 40);
  MP_CHECK (rp == 0, "producer exited %d", rp);

  got = conf_frames (cons);
  MP_CHECK (got->len == TAKE, "%u frames, not " G_STRINGIFY (TAKE), got->len);
  for (guint i = 0; i < got->len; i++) {
    ConfFrame *f = &g_array_index (got, ConfFrame, i);
    gint k = conf_index (ref, f->sha1);

    MP_CHECK (k >= 0, "frame %u is no frame of the reference", i);
    MP_CHECK (k > prev, "frame %u is reference frame %d, after %d", i, k, prev);
    if (prev >= 0 && k > prev + 1) {
      MP_CHECK (f->discont, "frame %u (reference frame %d) follows %d lost "
          "frames but is not DISCONT (%s)", i, k, k - prev - 1, copy);
      gaps += k - prev - 1;
      n_gaps++;
    }
    prev = k;
  }
  /* the scenario really lost frames (else it tested nothing) */
  MP_CHECK (n_gaps > 0, "no frame was lost: the consumer was never evicted");
  final = conf_line (cons, "final ");
  MP_CHECK (final != NULL && strstr (final, " skipped=(guint64)"),
      "no final stats");
  skipped = g_ascii_strtoull (strstr (final, " skipped=(guint64)") +
      strlen (" skipped=(guint64)"), NULL, 10);
  MP_CHECK (skipped >= gaps, "%s: skipped %" G_GUINT64_FORMAT ", but %"
      G_GUINT64_FORMAT " frames were lost between the buffers delivered",
      copy, skipped, gaps);
  g_print ("%s: %u gaps, %" G_GUINT64_FORMAT " frames lost, skipped %"
      G_GUINT64_FORMAT "\n", copy, n_gaps, gaps, skipped);
  ok = TRUE;

err:
  if (!ok) {
    mp_dump (prod);
    mp_dump (cons);
  }
  if (got)
    g_array_unref (got);
  g_free (final);
  mp_free (prod);
  mp_free (cons);
  return ok;
}

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", "identity",
    NULL
  };
  GPtrArray *ref;
  gboolean ok;

  mp_init ("evicted-discont", needed);
  ref = conf_reference (NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! appsink name=out sync=false",
      N_FRAMES);
  if (ref == NULL)
    return conf_end (FALSE, 0);
  ok = run (ref, "copy=false") && run (ref, "copy=true");
  return conf_end (ok, 0);
}
