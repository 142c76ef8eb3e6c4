/* Description: run last (meson priority -1000, alone): fails if any
 * doradma* object is left in /dev/shm (and in $DORADMA_SHM_DIR if it names
 * another directory) after every other test. A test that leaks an object,
 * or a clean stop that forgets to unlink, shows up here by name. Objects
 * that existed before the run started (scripts/test.sh lists them, name
 * and inode, in $DORADMA_LEFTOVERS_BASELINE) are reported and ignored.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers.h"

static int
in_baseline (const char *path, ino_t ino)
{
  const char *file = getenv ("DORADMA_LEFTOVERS_BASELINE");
  char line[1024], name[1000];
  unsigned long long i;
  int found = 0;
  FILE *f;

  if (file == NULL || (f = fopen (file, "r")) == NULL)
    return 0;
  while (!found && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "%999s %llu", name, &i) == 2 && strcmp (name, path) == 0
        && (ino_t) i == ino)
      found = 1;
  fclose (f);
  return found;
}

static int
scan (const char *dir)
{
  struct dirent *de;
  DIR *d = opendir (dir);
  int n = 0;

  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL) {
    char path[1000];
    struct stat st;

    if (strncmp (de->d_name, "doradma", 7) != 0)
      continue;
    snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
    if (stat (path, &st) == 0 && in_baseline (path, st.st_ino)) {
      t_log ("%s existed before this run: ignored", path);
      continue;
    }
    t_log ("left over: %s", path);
    n++;
  }
  closedir (d);
  return n;
}

int
main (void)
{
  const char *env = getenv ("DORADMA_SHM_DIR");
  int n = scan ("/dev/shm");

  if (n < 0) {
    t_log ("cannot read /dev/shm: skipped");
    return T_EXIT_SKIP;
  }
  if (env != NULL && env[0] != '\0' && strcmp (env, "/dev/shm") != 0) {
    int m = scan (env);
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
