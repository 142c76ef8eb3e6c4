/* Runs fuzz-validate.c's entry point over files and directories without
 * libFuzzer: the seed corpus and every past crash input (regressions/) are
 * thereby part of the ordinary test run, with any compiler. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

static int
run_file (const char *path)
{
  gchar *data;
  gsize len;
  guint8 *exact;

  if (!g_file_get_contents (path, &data, &len, NULL)) {
    fprintf (stderr, "cannot read %s\n", path);
    return 1;
  }
  /* An exact-size copy, so a sanitizer build catches over-reads. */
  exact = g_memdup2 (data, len ? len : 1);
  LLVMFuzzerTestOneInput (exact, len);
  g_free (exact);
  g_free (data);
  return 0;
}

int
main (int argc, char **argv)
{
  int i, files = 0, bad = 0;

  for (i = 1; i < argc; i++) {
    GDir *dir = g_dir_open (argv[i], 0, NULL);
    const char *name;

    if (dir == NULL) {
      bad |= run_file (argv[i]);
      files++;
      continue;
    }
    while ((name = g_dir_read_name (dir)) != NULL) {
      gchar *path;

      if (name[0] == '.' || strcmp (name, "README") == 0)
        continue;
      path = g_build_filename (argv[i], name, NULL);
      bad |= run_file (path);
      files++;
      g_free (path);
    }
    g_dir_close (dir);
  }
  printf ("%d inputs replayed\n", files);
  return bad || files == 0;
}
