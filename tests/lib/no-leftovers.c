/* Description: run last (meson priority -1000, alone): fails if any
 * doradma* object is left in the run's directory ($DORADMA_TEST_RUN_DIR,
 * where tests/isolate.sh gives every test a private directory) after every
 * other test, or if a test's private directory is still there (its wrapper
 * was killed before it could remove it). A test that leaks an object, or a
 * clean stop that forgets to unlink, shows up here by name. /dev/shm itself
 * is not looked at: every test works in the run's directory, and what else
 * is in /dev/shm belongs to other runs and to live pipelines. A run
 * directory of a plain `meson test` (DORADMA_TEST_RUN_DIR_AUTO) is removed
 * here when it is clean; scripts/test.sh removes its own.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

/* Counts the doradma* objects under `dir` (every depth) and, at depth 0,
 * the test directories other than `own`. */
static int
scan (const char *dir, const char *own, int depth)
{
  struct dirent *de;
  DIR *d = opendir (dir);
  int n = 0;

  if (d == NULL)
    return 0;
  while ((de = readdir (d)) != NULL) {
    char path[4096];
    struct stat st;

    if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
      continue;
    snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
    if (own != NULL && strcmp (path, own) == 0)
      continue;
    if (strncmp (de->d_name, "doradma", 7) == 0) {
      t_log ("left over: %s", path);
      n++;
    } else if (depth == 0 && strncmp (de->d_name, "t-", 2) == 0) {
      t_log ("left over: %s (a test's private directory: its wrapper was "
          "killed)", path);
      n++;
    }
    if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode) && depth < 8)
      n += scan (path, NULL, depth + 1);
  }
  closedir (d);
  return n;
}

int
main (void)
{
  const char *run = getenv ("DORADMA_TEST_RUN_DIR");
  const char *own = getenv ("DORADMA_SHM_DIR");
  const char *autodir = getenv ("DORADMA_TEST_RUN_DIR_AUTO");
  int n;

  if (run == NULL || run[0] == '\0') {
    t_log ("no DORADMA_TEST_RUN_DIR (not run through tests/isolate.sh, "
        "meson test --setup plain?): skipped");
    return T_EXIT_SKIP;
  }
  n = scan (run, own, 0);
  if (n > 0) {
    t_log ("%d object(s) left over in %s: a test or a clean stop leaked "
        "them", n, run);
    return T_EXIT_FAIL;
  }
  t_log ("%s: nothing left over", run);
  if (autodir != NULL && strcmp (autodir, "1") == 0) {
    char cmd[4200];

    /* our own directory goes with it: tests/isolate.sh tolerates that */
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", run);
    if (system (cmd) != 0)
      t_log ("could not remove %s", run);
  }
  return T_EXIT_PASS;
}
