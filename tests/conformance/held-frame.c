/* Description: a consumer app keeps one buffer after setting its pipeline
 * to NULL (review round 4, R4-P1). The lossless producer (on-reader-stall
 * error after 2 s) keeps publishing to its end: the stopped consumer holds
 * no back-pressure. The held frame's slot stays pinned: its bytes are the
 * same after the producer wrote 80 more frames, and `doradma show` counts
 * one slot pinned by a stopped reader. Before the fix the producer died
 * 2 s after the consumer's NULL ("a lossless reader stalled").
 */
#include "conf.h"

#include <signal.h>
#include <string.h>

#define N_FRAMES 90
#define HOLD_AT 5
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"

/* `doradma show --json CHANNEL`: its stdout, or NULL */
static gchar *
show_json (void)
{
  const gchar *tool = g_getenv ("DORADMA_TOOL");
  gchar *argv[] = { (gchar *) tool, (gchar *) "show", (gchar *) "--json",
    (gchar *) mp_channel (), NULL
  };
  gchar *out = NULL;

  if (tool == NULL || !g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT,
          NULL, NULL, &out, NULL, NULL, NULL))
    return NULL;
  return out;
}

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *hold_opts[] = { "--frames", G_STRINGIFY (HOLD_AT),
    "--hold-last", "--timeout", "50", NULL
  };
  MpProc *prod = NULL, *cons = NULL;
  gchar *holding = NULL, *held = NULL, *json = NULL, *stopping = NULL;
  int rp, rc;

  mp_init ("held-frame", needed);
  if (g_getenv ("DORADMA_TOOL") == NULL) {
    g_print ("SKIP: no DORADMA_TOOL\n");
    return T_EXIT_SKIP;
  }
  /* max-leases well above what appsink holds (its preroll buffer, the
   * sample pulled, one queued): frame 5 is a leased slot, never a copy */
  cons = conf_app (hold_opts, "doradmasrc name=src channel=%C "
      "timeout=30000000000 max-leases=8 ! appsink name=out sync=false "
      "max-buffers=1 enable-last-sample=false");
  prod = conf_app (NULL, "videotestsrc is-live=true pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink channel=%C "
      "mode=lossless wait-for-readers=1 slots=4 timeout=2000000000 "
      "on-reader-stall=error");
  holding = conf_wait_line (cons, "holding sha1=", 40);
  MP_CHECK (holding != NULL, "the consumer never held a frame past NULL");

  /* the producer is still running (3 s of frames left): the held slot is
   * shown pinned by a stopped reader */
  json = show_json ();
  MP_CHECK (json != NULL, "doradma show did not run");
  MP_CHECK (g_regex_match_simple ("\"slots_pinned_by_stopped_readers\"\\s*:"
          "\\s*1\\b", json, 0, 0), "doradma show does not count the held "
      "slot as pinned by a stopped reader");
  MP_CHECK (g_regex_match_simple ("\"stopped\"\\s*:\\s*1\\b", json, 0, 0),
      "doradma show does not count one stopped reader");

  rp = mp_wait (prod, 40);
  MP_CHECK (rp == 0, "the producer exited %d while a stopped consumer held a "
      "frame", rp);
  MP_CHECK (mp_stat (prod, "doradmasink-stats", "frames") == N_FRAMES,
      "the producer published %" G_GUINT64_FORMAT " frames, not "
      G_STRINGIFY (N_FRAMES), mp_stat (prod, "doradmasink-stats", "frames"));

  kill (cons->pid, SIGTERM);
  rc = mp_wait (cons, 20);
  MP_CHECK (rc == 0, "the consumer exited %d", rc);
  /* the hold lasted until our signal: the comparison below spans the
   * producer's 85 later frames */
  stopping = conf_line (cons, "stopping on a signal");
  MP_CHECK (stopping != NULL, "the consumer ended its hold before it was "
      "signalled");
  held = conf_line (cons, "held sha1=");
  MP_CHECK (held != NULL, "no held line");
  MP_CHECK (strcmp (held + strlen ("held "), holding + strlen ("holding ")) ==
      0, "the held frame changed while the producer wrote on: %s, then %s",
      holding, held);
  g_free (holding);
  g_free (held);
  g_free (json);
  g_free (stopping);
  return conf_end (TRUE, 2, prod, cons);

err:
  g_free (holding);
  g_free (held);
  g_free (stopping);
  g_printerr ("%s\n", json ? json : "");
  g_free (json);
  return conf_end (FALSE, 2, prod, cons);
}
