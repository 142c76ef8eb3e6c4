/* doradma clean <channel> | --all: removes the objects of channels whose
 * writer is provably dead (its OFD lock is free) and whose data object
 * validates as a doradma segment, under the writer's own rule
 * (doradma_clean_channel); a live channel is never touched. --force also
 * removes what does not validate and objects of other users. Prints what
 * it removed and what it left alone; the exit code says which. */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static gboolean opt_all, opt_force;

enum outcome
{
  CLEAN_REMOVED,                /* a dead doradma channel's objects */
  CLEAN_REMOVED_FORCED,         /* something that did not validate (--force) */
  CLEAN_REMOVED_CTL,            /* an orphan control object only */
  CLEAN_NOTHING,                /* the name went away meanwhile */
  CLEAN_LIVE,                   /* left alone: a live writer */
  CLEAN_LEFT,                   /* left alone: not provably ours and dead */
  CLEAN_NOT_FOUND,
};

/* Why the data object is not a dead doradma channel we may remove, or
 * NULL when it is one; *forcible says whether --force may remove it. */
static const char *
refusal (const struct doradma_inspect *in, gboolean * forcible)
{
  *forcible = FALSE;
  if (in->object.rc != 0)
    return in->object.diag.msg; /* unreadable, FIFO, link, directory */
  if (in->writer_alive == 1)
    return NULL;                /* the lib names the live writer */
  if (in->writer_alive < 0)
    return "its writer's liveness cannot be queried";
  if (in->segment.rc != 0) {
    *forcible = TRUE;
    return in->segment.diag.msg;
  }
  return NULL;
}

/* *objects: how many objects it removed (a channel's data, control and
 * leftover names, or an orphan control object alone). */
static enum outcome
clean_one (const char *channel, guint * objects)
{
  struct doradma_clean_report rep;
  struct doradma_diag diag = { 0 };
  struct doradma_inspect in;
  gboolean forcible, forced = FALSE;
  const char *why;
  guint32 pid = 0;
  int ret;

  *objects = 0;
  ret = tool_inspect (channel, &in);
  if (ret == 0 || ret == -EACCES || ret == -EPERM) {
    why = refusal (&in, &forcible);
    if (why && !(forcible && opt_force)) {
      printf ("left   doradma.%s: not removed: %s%s\n", channel, why,
          forcible ? " (not a doradma segment: --force removes it)" : "");
      doradma_inspect_clear (&in);
      return CLEAN_LEFT;
    }
    forced = why != NULL;
    if (in.segment.rc == 0)
      pid = in.writer_pid;
  }
  doradma_inspect_clear (&in);

  ret = doradma_clean_channel_flags (tool_shm_dir (), channel,
      opt_force ? DORADMA_CLEAN_ANY_OWNER : 0, &rep, &diag);
  tool_printable (diag.msg);
  if (ret == -ENOENT)
    return CLEAN_NOT_FOUND;
  if (ret < 0) {
    printf ("left   %s%s\n", diag.msg, ret == -EPERM && !opt_force ?
        " (--force removes objects of other users)" : "");
    return ret == -EBUSY ? CLEAN_LIVE : CLEAN_LEFT;
  }
  if (rep.removed_data && forced)
    printf ("removed doradma.%s (not a doradma segment, --force)\n", channel);
  else if (rep.removed_data)
    printf ("removed doradma.%s (writer pid %u dead)\n", channel, pid);
  if (rep.removed_ctl)
    printf ("removed doradma.%s~ctl%s\n", channel, rep.removed_data ? "" :
        " (control object without a data object)");
  if (rep.removed_leftovers)
    printf ("removed %d leftover name%s of doradma.%s\n",
        rep.removed_leftovers, rep.removed_leftovers > 1 ? "s" : "", channel);
  *objects = (guint) (rep.removed_data + rep.removed_ctl +
      rep.removed_leftovers);
  if (*objects == 0)
    return CLEAN_NOTHING;
  if (!rep.removed_data)
    return CLEAN_REMOVED_CTL;
  return forced ? CLEAN_REMOVED_FORCED : CLEAN_REMOVED;
}

int
tool_clean (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"all", 'a', 0, G_OPTION_ARG_NONE, &opt_all,
        "Every channel of the shm directory whose writer is dead", NULL},
    {"force", 'f', 0, G_OPTION_ARG_NONE, &opt_force,
        "Also remove data objects that are not doradma segments and "
          "objects of other users (never a live writer's)", NULL},
    {NULL}
  };
  GPtrArray *objects;
  GError *err = NULL;
  guint i, removed = 0, forced = 0, left = 0, n_removed = 0, n;
  enum outcome o;

  if (!tool_parse ("clean", "CHANNEL | --all", "Removes the objects of "
          "channels whose writer is dead (its OFD lock is free, checked "
          "under the writer's own rule) and whose data object is a doradma "
          "segment; a live channel is never touched. Exit 0: removed, 1: no "
          "such channel, 4: left alone, its writer lives, 5: left alone, "
          "not provably a dead doradma channel of ours (see --force).",
          entries, &argc, &argv))
    return TOOL_EXIT_USAGE;
  if ((argc == 2) == opt_all || argc > 2) {
    fprintf (stderr, "doradma clean: give one channel or --all\n");
    return TOOL_EXIT_USAGE;
  }
  if (!opt_all) {
    if (doradma_name_validate (argv[1], NULL) < 0) {
      fprintf (stderr, "doradma clean: \"%s\" is not a channel name\n",
          argv[1]);
      return TOOL_EXIT_USAGE;
    }
    o = clean_one (argv[1], &n);
    if (o == CLEAN_NOT_FOUND) {
      tool_not_found ("clean", argv[1]);
      return TOOL_EXIT_NOT_FOUND;
    }
    return o == CLEAN_LIVE ? TOOL_EXIT_LIVE : o == CLEAN_LEFT ?
        TOOL_EXIT_LEFT : TOOL_EXIT_OK;
  }

  objects = tool_scan (&err);
  if (objects == NULL) {
    fprintf (stderr, "doradma clean: %s\n", err->message);
    g_error_free (err);
    return TOOL_EXIT_NOT_FOUND;
  }
  for (i = 0; i < objects->len; i++) {
    const struct tool_entry *e = g_ptr_array_index (objects, i);

    /* Each channel once: by its data object, or by a lone control object. */
    if (!(e->kind == DORADMA_OBJECT_DATA || (e->kind == DORADMA_OBJECT_CTL
                && !tool_has_data (objects, e->channel))))
      continue;
    o = clean_one (e->channel, &n);
    n_removed += n;
    removed += o == CLEAN_REMOVED;
    forced += o == CLEAN_REMOVED_FORCED;
    left += o == CLEAN_LEFT;
  }
  /* what was removed, counted as objects: an orphan control object is
   * one, and no channel cleaned (R4-C1) */
  printf ("%u object%s removed, %u channel%s cleaned", n_removed,
      n_removed == 1 ? "" : "s", removed, removed == 1 ? "" : "s");
  if (forced)
    printf (", %u object%s that were not doradma segments removed", forced,
        forced == 1 ? "" : "s");
  if (left)
    printf (", %u left alone (see above)", left);
  printf (" in %s\n", tool_shm_dir ());
  g_ptr_array_unref (objects);
  return left ? TOOL_EXIT_LEFT : TOOL_EXIT_OK;
}
