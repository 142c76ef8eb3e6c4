/* Description: `doradmasink permissions=0666` (438) makes objects that
 * every reader refuses (o+w, docs/threat-model.md): the sink refuses such a
 * mode when it starts, with an error from the sink that names it, and
 * creates nothing in the shm directory.
 *
 * Specifies gst-elements.md finding 7 (the sink refuses modes writable by
 * others at start).
 */
#include "conf.h"

#include <string.h>

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", NULL };
  MpProc *prod = NULL;
  gchar *line = NULL;
  int rc;

  mp_init ("sink-permissions", needed);
  prod = conf_app (NULL, "videotestsrc num-buffers=30 ! "
      "video/x-raw,format=I420,width=64,height=48,framerate=30/1 ! "
      "doradmasink name=sink channel=%C permissions=438 sync=false");
  rc = mp_wait (prod, 30);
  line = conf_line (prod, "ERROR ");
  g_print ("producer exit %d: %s\n", rc, line ? line : "(no error)");
  MP_CHECK (rc == 1 && line != NULL, "the sink accepted permissions=0666");
  MP_CHECK (strstr (line, "from=sink:") != NULL, "the error is not the "
      "sink's");
  MP_CHECK (strstr (line, "0666") != NULL, "the error does not name the "
      "mode 0666");
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == G_MAXUINT64 ||
      mp_stat (prod, "doradmasink-stats", "frames") == 0, "frames were "
      "published");
  g_free (line);
  return conf_end (TRUE, 1, prod);

err:
  g_free (line);
  return conf_end (FALSE, 1, prod);
}
