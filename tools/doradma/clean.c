/* doradma clean <channel> | --all: removes the objects of channels whose
 * writer is dead, under the writer's own OFD-lock rule
 * (doradma_clean_channel); a live channel is never touched. Prints what it
 * removed and what it left alone. */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static gboolean opt_all;

/* Cleans one channel and says so. Returns 1 if something was removed, 0 if
 * not, -ENOENT if there was nothing by that name. */
static int
clean_one (const char *channel)
{
  struct doradma_clean_report rep;
  struct doradma_diag diag = { 0 };
  struct doradma_inspect in;
  guint32 pid = 0;
  int ret;

  /* The pid of the dead writer, for the message only. */
  if (tool_inspect (channel, &in) == 0 && in.segment.rc == 0)
    pid = in.writer_pid;
  doradma_inspect_clear (&in);

  ret = doradma_clean_channel (tool_shm_dir (), channel, &rep, &diag);
  tool_printable (diag.msg);
  if (ret == -ENOENT)
    return -ENOENT;
  if (ret < 0) {
    printf ("left   doradma.%s: %s\n", channel, diag.msg);
    return 0;
  }
  if (rep.removed_data)
    printf ("removed doradma.%s (writer pid %u dead)\n", channel, pid);
  if (rep.removed_ctl)
    printf ("removed doradma.%s~ctl\n", channel);
  if (rep.removed_leftovers)
    printf ("removed %d leftover name%s of doradma.%s\n",
        rep.removed_leftovers, rep.removed_leftovers > 1 ? "s" : "", channel);
  return rep.removed_data || rep.removed_ctl || rep.removed_leftovers;
}

int
tool_clean (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"all", 'a', 0, G_OPTION_ARG_NONE, &opt_all,
        "Every channel of the shm directory whose writer is dead", NULL},
    {NULL}
  };
  GPtrArray *objects;
  GError *err = NULL;
  guint i, removed = 0;
  int ret;

  if (!tool_parse ("clean", "[CHANNEL]", "Removes the objects of channels "
          "whose writer is dead (its OFD lock is free, checked under the "
          "writer's own rule); a live channel is never touched.", entries,
          &argc, &argv))
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
    ret = clean_one (argv[1]);
    if (ret == -ENOENT) {
      fprintf (stderr, "doradma clean: no channel \"%s\" in %s\n", argv[1],
          tool_shm_dir ());
      return TOOL_EXIT_NOT_FOUND;
    }
    return TOOL_EXIT_OK;
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
    if (e->kind == DORADMA_OBJECT_DATA || (e->kind == DORADMA_OBJECT_CTL
            && !tool_has_data (objects, e->channel)))
      if (clean_one (e->channel) > 0)
        removed++;
  }
  printf ("%u channel%s cleaned in %s\n", removed, removed == 1 ? "" : "s",
      tool_shm_dir ());
  g_ptr_array_unref (objects);
  return TOOL_EXIT_OK;
}
