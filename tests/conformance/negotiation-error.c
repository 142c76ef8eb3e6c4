/* Description: a consumer whose downstream accepts only RGBA
 * (`doradmasrc ! video/x-raw,format=RGBA ! appsink`) against an I420
 * writer. The src posts a CORE/NEGOTIATION error naming the writer's caps
 * (I420) and what downstream accepts (RGBA), not a generic "Internal data
 * stream error", and no frame is pushed.
 *
 * Specifies gst-elements.md finding 6.
 */
#include "conf.h"

#include <signal.h>
#include <string.h>

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  MpProc *prod = NULL, *cons = NULL;
  gchar *err = NULL;
  int rc;

  mp_init ("negotiation-error", needed);
  prod = conf_app (NULL, "videotestsrc is-live=true num-buffers=150 ! "
      "video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! "
      "doradmasink name=sink channel=%C");
  cons = conf_app (NULL, "doradmasrc name=src channel=%C timeout=30000000000 "
      "! video/x-raw,format=RGBA ! appsink name=out");
  rc = mp_wait (cons, 30);
  err = conf_line (cons, "ERROR ");
  g_print ("consumer exit %d: %s\n", rc, err ? err : "(no error)");
  MP_CHECK (rc == 1 && err != NULL, "the consumer did not fail with an error");
  MP_CHECK (strstr (err, " (GST_CORE_ERROR_NEGOTIATION) from=src:") != NULL,
      "not a CORE/NEGOTIATION error from doradmasrc");
  MP_CHECK (strstr (err, "I420") != NULL, "the error does not name the "
      "writer's caps (I420)");
  MP_CHECK (strstr (err, "RGBA") != NULL, "the error does not name what "
      "downstream accepts (RGBA)");
  MP_CHECK (conf_line (cons, "frame ") == NULL, "a frame was pushed");
  kill (prod->pid, SIGTERM);
  rc = mp_wait (prod, 30);
  MP_CHECK (rc == 0, "producer exited %d", rc);
  g_free (err);
  return conf_end (TRUE, 2, prod, cons);

err:
  g_free (err);
  return conf_end (FALSE, 2, prod, cons);
}
