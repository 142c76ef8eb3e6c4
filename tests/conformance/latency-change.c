/* Description: a live producer's latency grows while it runs (its sink's
 * processing-deadline goes from 20 to 200 ms after 1.5 s). The consumer
 * (appsink sync=true, started first) follows: its configured latency is the
 * producer's latency plus its own deadlines (src 20 ms + sink 20 ms), first
 * 53.3 + 40 ms, then, from the frame after the one with which the producer
 * itself knew its new latency, 233.3 + 40 ms. A stale value renders every
 * frame late. Before the producer's sink had its new latency, no consumer
 * frame can have the new one: that is judged by the clock (CLOCK_MONOTONIC,
 * both processes), not by frame numbers, which a busy machine shifts.
 *
 * Specifies gst-elements.md finding 3 (a changed producer latency is
 * re-announced by the consumer with a LATENCY message).
 */
#include "conf.h"

#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
#define DEADLINES (G_GUINT64_CONSTANT (40000000))

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *change[] = { "--set-after-ms", "1500", "--set",
    "sink:processing-deadline=200000000", NULL
  };
  MpProc *prod = NULL, *cons = NULL;
  GArray *got = NULL;
  guint64 p1, p2, n1 = 0, n2 = 0;
  gint64 old_until;
  guint before = 0;
  int rc;

  mp_init ("latency-change", needed);
  cons = conf_app (NULL, "doradmasrc name=src channel=%C timeout=30000000000 "
      "processing-deadline=20000000 ! appsink name=out sync=true "
      "processing-deadline=20000000");
  g_usleep (G_USEC_PER_SEC / 2);
  prod = conf_app (change, "videotestsrc is-live=true pattern=ball "
      "num-buffers=90 ! " CAPS " ! doradmasink name=sink channel=%C");
  rc = mp_wait (prod, 60);
  MP_CHECK (rc == 0, "producer exited %d", rc);
  rc = mp_wait (cons, 30);
  MP_CHECK (rc == 0, "consumer exited %d", rc);
  p1 = conf_producer_latency (prod, 0, 1, &n1);
  p2 = conf_producer_latency (prod, 1, 1, &n2);
  MP_CHECK (p1 != G_MAXUINT64 && p2 != G_MAXUINT64, "the producer's latency "
      "did not change");
  g_print ("producer latency %.1f ms from its frame %" G_GUINT64_FORMAT
      ", %.1f ms from its frame %" G_GUINT64_FORMAT "\n", p1 / 1e6, n1,
      p2 / 1e6, n2);
  MP_CHECK (p2 > p1 && n2 > n1 + 10, "not the change expected");

  /* the consumer joined before the first frame: its frame k is the
   * producer's frame k (or a later one, were one skipped). Until old_until
   * the producer's sink had its old latency, and it publishes the new one
   * only after its sink has it: a consumer frame whose latency was read
   * before old_until (its `at`) must show the old one. After it, the frames
   * the consumer's sink still held may show either; from the producer's
   * frame n2 + 1 on, only the new one. */
  old_until = conf_producer_old_until (prod, 1);
  got = conf_frames (cons);
  MP_CHECK (old_until > 0, "no time for the producer's old latency");
  for (guint i = (guint) n1; i < got->len; i++) {
    ConfFrame *f = &g_array_index (got, ConfFrame, i);

    if (f->at >= old_until)
      break;
    MP_CHECK (f->latency == p1 + DEADLINES, "frame %u, %" G_GINT64_FORMAT
        " us before the producer's change: configured latency %.1f ms, "
        "expected %.1f ms", i + 1, old_until - f->at, f->latency / 1e6,
        (p1 + DEADLINES) / 1e6);
    before++;
  }
  MP_CHECK (before >= 3, "only %u frames before the change", before);
  g_print ("%u frames read the old latency before the producer's change\n",
      before);
  MP_CHECK (conf_latency_is (got, 0, (guint) n2 + 1, 0, p2 + DEADLINES,
          "after the change"), "the consumer's latency did not follow the "
      "producer's");
  return conf_end (TRUE, 2, prod, cons);

err:
  return conf_end (FALSE, 2, prod, cons);
}
