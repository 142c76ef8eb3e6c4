/* Description: run last (meson priority -1000, alone): fails if any
 * doradma* object is left in /dev/shm (and in $DORADMA_SHM_DIR if it names
 * another directory) after every other test. A test that leaks an object,
 * or a clean stop that forgets to unlink, shows up here by name.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

int
main (void)
{
  const char *env = getenv ("DORADMA_SHM_DIR");
  int n = t_leftovers ("/dev/shm", NULL);

  if (n < 0) {
    t_log ("cannot read /dev/shm: %d: skipped", n);
    return T_EXIT_SKIP;
  }
  if (env != NULL && env[0] != '\0' && strcmp (env, "/dev/shm") != 0) {
    int m = t_leftovers (env, NULL);
    if (m > 0)
      n += m;
  }
  if (n > 0) {
    t_log ("%d doradma object(s) left over: a test or a clean stop leaked "
        "them (remove them by hand before the next run)", n);
    return T_EXIT_FAIL;
  }
  return T_EXIT_PASS;
}
