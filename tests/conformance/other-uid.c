/* Description: sharing a channel with another user, as documented
 * (docs/threat-model.md: a common group, mode 0660, the readers'
 * allowed_uid set to the writer's uid). Root runs the producer with group
 * nogroup and `permissions=0660` (432); consumers run as nobody:nogroup
 * (setpriv). Without `allowed-uid` (default: our own uid) the consumer
 * refuses the channel with an error and gets no frame; with
 * `allowed-uid=0` it gets every frame, equal to a local reference, and EOS.
 * Needs root (exits 77 otherwise).
 *
 * Specifies gst-elements.md finding 7 (doradmasrc allowed-uid).
 */
#include "conf.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N_FRAMES 30
#define NOBODY 65534
#define CAPS "video/x-raw,format=I420,width=160,height=120,framerate=30/1"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "appsink", NULL };
  static const gchar *as_group[] = { "setpriv", "--regid=" G_STRINGIFY (NOBODY),
    "--clear-groups", NULL
  };
  const gchar *as_nobody[10];
  MpProc *prod = NULL, *cons = NULL, *r;
  GPtrArray *ref = NULL, *got = NULL;
  gchar *home = NULL, *reg_env = NULL, *home_env = NULL, *path = NULL;
  gchar *line = NULL, *setpriv;
  struct stat st;
  int rc;

  if (geteuid () != 0) {
    g_print ("SKIP: needs root to run a consumer as another user\n");
    return T_EXIT_SKIP;
  }
  setpriv = g_find_program_in_path ("setpriv");
  if (setpriv == NULL) {
    g_print ("SKIP: setpriv (util-linux) not found\n");
    return T_EXIT_SKIP;
  }
  g_free (setpriv);
  mp_init ("other-uid", needed);

  /* nobody needs a registry and a HOME it can write */
  home = g_build_filename (conf_dir (), "nobody", NULL);
  MP_CHECK (chmod (conf_dir (), 0711) == 0 && mkdir (home, 0700) == 0 &&
      chown (home, NOBODY, NOBODY) == 0, "cannot make %s for nobody", home);
  reg_env = g_strdup_printf ("GST_REGISTRY_1_0=%s/registry.bin", home);
  home_env = g_strdup_printf ("HOME=%s", home);
  {
    const gchar *a[] = { "setpriv", "--reuid=" G_STRINGIFY (NOBODY),
      "--regid=" G_STRINGIFY (NOBODY), "--clear-groups", "env", reg_env,
      home_env, NULL
    };
    memcpy (as_nobody, a, sizeof (a));
  }

  ref = conf_reference (NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! appsink name=out sync=false",
      N_FRAMES);
  MP_CHECK (ref != NULL, "no reference");
  /* can nobody run this build tree at all? (not, e.g., under a 0700 home) */
  r = conf_app_as (as_nobody, NULL, "videotestsrc num-buffers=1 ! "
      "appsink name=out");
  rc = mp_wait (r, 60);
  if (rc != 0) {
    mp_dump (r);
    mp_free (r);
    mp_shm_clean ();
    conf_cleanup ();
    g_print ("SKIP: uid %d cannot run the build tree (exit %d)\n", NOBODY, rc);
    return T_EXIT_SKIP;
  }
  mp_free (r);

  /* lossless and waiting for one reader: the allowed consumer gets all */
  prod = conf_app_as (as_group, NULL, "videotestsrc pattern=ball num-buffers="
      G_STRINGIFY (N_FRAMES) " ! " CAPS " ! doradmasink name=sink "
      "channel=%C permissions=432 mode=lossless wait-for-readers=1 "
      "sync=false timeout=30000000000");
  MP_CHECK (mp_wait_channel (mp_channel (), 30), "no channel");
  path = g_strdup_printf ("%s/doradma.%s", g_getenv ("DORADMA_SHM_DIR") ?
      g_getenv ("DORADMA_SHM_DIR") : "/dev/shm", mp_channel ());
  MP_CHECK (stat (path, &st) == 0 && (st.st_mode & 0777) == 0660 &&
      st.st_uid == 0 && st.st_gid == NOBODY, "%s: mode %o, owner %u:%u; "
      "expected 0660 root:nogroup", path, st.st_mode & 0777, st.st_uid,
      st.st_gid);

  /* default allowed-uid: only our own uid may own the channel */
  cons = conf_app_as (as_nobody, NULL, "doradmasrc name=src channel=%C "
      "timeout=10000000000 ! appsink name=out sync=false");
  rc = mp_wait (cons, 60);
  line = conf_line (cons, "ERROR ");
  g_print ("nobody without allowed-uid: exit %d, %s\n", rc,
      line ? line : "(no error)");
  MP_CHECK (rc == 1 && line && strstr (line, "from=src"), "a consumer of "
      "another uid without allowed-uid did not refuse the channel");
  MP_CHECK (conf_line (cons, "frame ") == NULL, "it pushed a frame");
  mp_free (cons);

  cons = conf_app_as (as_nobody, NULL, "doradmasrc name=src channel=%C "
      "allowed-uid=0 timeout=10000000000 ! appsink name=out sync=false");
  rc = mp_wait (cons, 60);
  got = mp_checksums (cons);
  g_print ("nobody with allowed-uid=0: exit %d, %u frames\n", rc, got->len);
  MP_CHECK (rc == 0, "consumer with allowed-uid=0 exited %d", rc);
  MP_CHECK (mp_equal (got, ref, "consumer (nobody) vs reference"),
      "frames differ");
  MP_CHECK (conf_line (cons, "eos") != NULL, "no EOS");
  rc = mp_wait (prod, 60);
  MP_CHECK (rc == 0, "producer exited %d", rc);
  return conf_end (TRUE, 2, prod, cons);

err:
  return conf_end (FALSE, 2, prod, cons);
}
