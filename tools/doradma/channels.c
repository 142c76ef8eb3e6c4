/* What the shm directory holds: names classified by the lib
 * (doradma_object_classify), sorted, with their sizes. */
#include "tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

static void
entry_free (gpointer p)
{
  struct tool_entry *e = p;

  g_free (e->name);
  g_free (e);
}

static gint
entry_cmp (gconstpointer a, gconstpointer b)
{
  const struct tool_entry *x = *(const struct tool_entry * const *) a;
  const struct tool_entry *y = *(const struct tool_entry * const *) b;

  return strcmp (x->name, y->name);
}

GPtrArray *
tool_scan (GError ** error)
{
  const char *path = tool_shm_dir ();
  GPtrArray *out;
  DIR *dir = opendir (path);
  struct dirent *de;

  if (dir == NULL) {
    int err = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "cannot read the shm directory %s: %s", path, g_strerror (err));
    return NULL;
  }
  out = g_ptr_array_new_with_free_func (entry_free);
  while ((de = readdir (dir)) != NULL) {
    struct tool_entry e, *copy;
    struct stat st;

    memset (&e, 0, sizeof e);
    e.kind = doradma_object_classify (de->d_name, e.channel);
    if (e.kind == DORADMA_OBJECT_OTHER)
      continue;
    /* lstat: sizes only, never follows a planted link. */
    if (fstatat (dirfd (dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      e.size = st.st_size;
      e.regular = S_ISREG (st.st_mode);
    }
    e.name = g_strdup (de->d_name);
    copy = g_new (struct tool_entry, 1);
    *copy = e;
    g_ptr_array_add (out, copy);
  }
  closedir (dir);
  g_ptr_array_sort (out, entry_cmp);
  return out;
}

gboolean
tool_has_data (GPtrArray * entries, const char *channel)
{
  guint i;

  for (i = 0; i < entries->len; i++) {
    const struct tool_entry *e = g_ptr_array_index (entries, i);
    if (e->kind == DORADMA_OBJECT_DATA && strcmp (e->channel, channel) == 0)
      return TRUE;
  }
  return FALSE;
}
