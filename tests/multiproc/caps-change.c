/* Description: a caps change mid-stream inside one producer, twice: to a
 * smaller size (in band, new caps epoch) and to a larger one (new segment).
 * The consumer follows both, every frame byte for byte, and exits 0.
 */
#include <stdlib.h>

#include "mp.h"

int
main (void)
{
  static const gchar *needed[] = { "videotestsrc", "checksumsink", NULL };
  MpProc *prod = NULL, *cons = NULL;
  GPtrArray *ref, *got;
  const gchar *bin = g_getenv ("DORADMA_CAPSPROD");
  gchar *argv[3];
  int r;

  mp_init ("caps", needed);
  if (bin == NULL) {
    g_print ("SKIP: DORADMA_CAPSPROD not set\n");
    return T_EXIT_SKIP;
  }

  cons = mp_launch ("doradmasrc channel=%C timeout=20000000000 ! "
      "checksumsink sync=false");
  argv[0] = (gchar *) bin;
  argv[1] = (gchar *) mp_channel ();
  argv[2] = NULL;
  prod = mp_spawn_argv (argv);
  r = mp_wait (prod, 40);
  MP_CHECK (r == 0, "producer exited %d", r);
  r = mp_wait (cons, 40);
  MP_CHECK (r == 0, "consumer exited %d", r);

  ref = mp_checksums (prod);
  got = mp_checksums (cons);
  MP_CHECK (ref->len == 90, "producer rendered %u frames", ref->len);
  MP_CHECK (mp_equal (got, ref, "consumer vs producer"), "frames differ");
  MP_CHECK (mp_shm_clean (), "leftovers in /dev/shm");
  g_print ("PASS\n");
  return T_EXIT_PASS;

err:
  mp_dump (prod);
  mp_dump (cons);
  mp_free (prod);
  mp_free (cons);
  mp_shm_clean ();
  return T_EXIT_FAIL;
}
