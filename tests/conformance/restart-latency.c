/* Description: a live producer at 30 fps is stopped and a new one starts on
 * the same channel at 5 fps, whose first frame comes 2.5 s after its ring
 * exists (a camera warming up; the consumer joins it in between). The
 * consumer (appsink sync=true) follows, and right afterwards its configured
 * latency is the new producer's latency plus the consumer's deadlines (src
 * 20 ms + sink 20 ms), as it was for the first producer: frames are not
 * rendered late. "Right afterwards": from the frame after the one with
 * which the new producer itself knew its latency (a live producer may
 * configure it only after its first buffers).
 *
 * Specifies gst-elements.md finding 3 (latency published when the segment
 * is created, re-announced with a LATENCY message when it changes).
 */
#include "conf.h"

#include <signal.h>

#define CAPS1 "video/x-raw,format=I420,width=160,height=120,framerate=30/1"
#define SIZE1 (160 * 120 * 3 / 2)
#define CAPS2 "video/x-raw,format=I420,width=320,height=240,framerate=5/1"
#define SIZE2 (320 * 240 * 3 / 2)
#define N2 10
#define DEADLINES (G_GUINT64_CONSTANT (40000000))

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  MpProc *prod1 = NULL, *prod2 = NULL, *cons = NULL;
  GArray *got = NULL;
  guint64 p1, p2, n1 = 0, n2 = 0;
  int rc;

  mp_init ("restart-latency", needed);
  prod1 = conf_app (NULL, "videotestsrc is-live=true pattern=ball ! " CAPS1
      " ! doradmasink name=sink channel=%C");
  p1 = conf_producer_latency (prod1, 0, 30, &n1);
  MP_CHECK (p1 != G_MAXUINT64, "producer 1 never published");
  g_usleep (G_USEC_PER_SEC / 2);

  cons = conf_app (NULL, "doradmasrc name=src channel=%C timeout=30000000000 "
      "processing-deadline=20000000 ! appsink name=out sync=true "
      "processing-deadline=20000000");
  MP_CHECK (mp_wait_lines (cons, 10, 30), "the consumer got no frames");
  kill (prod1->pid, SIGTERM);
  rc = mp_wait (prod1, 30);
  MP_CHECK (rc == 0, "producer 1 exited %d on SIGTERM", rc);

  /* its first frame is stamped 2.5 s: the live source waits that long
   * after negotiating (the ring exists) before it pushes anything */
  prod2 = conf_app (NULL, "videotestsrc is-live=true pattern=ball "
      "timestamp-offset=2500000000 num-buffers=" G_STRINGIFY (N2) " ! " CAPS2
      " ! doradmasink name=sink channel=%C");
  p2 = conf_producer_latency (prod2, 0, 30, &n2);
  MP_CHECK (p2 != G_MAXUINT64, "producer 2 never published");
  g_print ("producer latency: %.1f ms, then %.1f ms\n", p1 / 1e6, p2 / 1e6);
  MP_CHECK (p2 > p1, "the second producer's latency is not larger");
  rc = mp_wait (prod2, 60);
  MP_CHECK (rc == 0, "producer 2 exited %d", rc);
  rc = mp_wait (cons, 30);
  MP_CHECK (rc == 0, "consumer exited %d", rc);

  got = conf_frames (cons);
  /* from the second frame the consumer got (the first may come before its
   * LATENCY message was handled), and for the new producer from the frame
   * after the one its own latency was known at (a live pipeline configures
   * it after its first buffers: those were published with 0) */
  g_print ("producer 2 knew its latency at its frame %" G_GUINT64_FORMAT "\n",
      n2);
  MP_CHECK (conf_latency_is (got, SIZE1, 2, 0, p1 + DEADLINES,
          "first producer"), "wrong latency with the first producer");
  MP_CHECK (conf_latency_is (got, SIZE2, (guint) MAX (n2 + 1, 2), 0,
          p2 + DEADLINES, "after the restart"), "the consumer's latency "
      "did not follow the new producer");
  return conf_end (TRUE, 3, prod1, prod2, cons);

err:
  return conf_end (FALSE, 3, prod1, prod2, cons);
}
