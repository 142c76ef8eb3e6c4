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

static gboolean opt_all, opt_force, opt_json;

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

/* What clean did with one channel. */
struct cleaned
{
  enum outcome o;
  char *left;                   /* left alone: why, as said (g_free) */
  gboolean forced;              /* what it removed was not a doradma segment */
  guint32 pid;                  /* the dead writer's (0: none read) */
  struct doradma_clean_report rep;
  guint objects;                /* removed: data, control, leftover names */
};

static void
clean_one (const char *channel, struct cleaned *c)
{
  struct doradma_diag diag = { 0 };
  struct doradma_inspect in;
  gboolean forcible;
  const char *why;
  int ret;

  memset (c, 0, sizeof *c);
  ret = tool_inspect (channel, &in);
  if (ret == 0 || ret == -EACCES || ret == -EPERM) {
    why = refusal (&in, &forcible);
    if (why && !(forcible && opt_force)) {
      c->left = g_strdup_printf ("doradma.%s: not removed: %s%s", channel,
          why, forcible ? " (not a doradma segment: --force removes it)" : "");
      doradma_inspect_clear (&in);
      c->o = CLEAN_LEFT;
      return;
    }
    c->forced = why != NULL;
    if (in.segment.rc == 0)
      c->pid = in.writer_pid;
  }
  doradma_inspect_clear (&in);

  ret = doradma_clean_channel_flags (tool_shm_dir (), channel,
      opt_force ? DORADMA_CLEAN_ANY_OWNER : 0, &c->rep, &diag);
  tool_printable (diag.msg);
  if (ret == -ENOENT) {
    c->o = CLEAN_NOT_FOUND;
    return;
  }
  if (ret < 0) {
    c->left = g_strdup_printf ("%s%s", diag.msg, ret == -EPERM && !opt_force ?
        " (--force removes objects of other users)" : "");
    c->o = ret == -EBUSY ? CLEAN_LIVE : CLEAN_LEFT;
    return;
  }
  c->objects = (guint) (c->rep.removed_data + c->rep.removed_ctl +
      c->rep.removed_leftovers);
  if (c->objects == 0)
    c->o = CLEAN_NOTHING;
  else if (!c->rep.removed_data)
    c->o = CLEAN_REMOVED_CTL;
  else
    c->o = c->forced ? CLEAN_REMOVED_FORCED : CLEAN_REMOVED;
}

static void
say (const char *channel, const struct cleaned *c)
{
  const struct doradma_clean_report *rep = &c->rep;

  if (c->left) {
    printf ("left   %s\n", c->left);
    return;
  }
  if (rep->removed_data && c->forced)
    printf ("removed doradma.%s (not a doradma segment, --force)\n", channel);
  else if (rep->removed_data)
    printf ("removed doradma.%s (writer pid %u dead)\n", channel, c->pid);
  if (rep->removed_ctl)
    printf ("removed doradma.%s~ctl%s\n", channel, rep->removed_data ? "" :
        " (control object without a data object)");
  if (rep->removed_leftovers)
    printf ("removed %d leftover name%s of doradma.%s\n",
        rep->removed_leftovers, rep->removed_leftovers > 1 ? "s" : "", channel);
}

static const char *const outcome_names[] = {
  [CLEAN_REMOVED] = "removed",
  [CLEAN_REMOVED_FORCED] = "removed-forced",
  [CLEAN_REMOVED_CTL] = "removed-control",
  [CLEAN_NOTHING] = "nothing",
  [CLEAN_LIVE] = "live",
  [CLEAN_LEFT] = "left",
  [CLEAN_NOT_FOUND] = "not-found",
};

/* --json: one element of "channels", what say() prints as members */
static void
say_json (JsonBuilder * b, const char *channel, const struct cleaned *c)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, channel);
  json_builder_set_member_name (b, "outcome");
  json_builder_add_string_value (b, outcome_names[c->o]);
  json_builder_set_member_name (b, "reason");
  if (c->left)
    json_builder_add_string_value (b, c->left);
  else
    json_builder_add_null_value (b);
  /* as read from the segment: null when none was */
  json_builder_set_member_name (b, "writer_pid");
  if (c->pid)
    json_builder_add_int_value (b, c->pid);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "removed");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "data");
  json_builder_add_boolean_value (b, c->rep.removed_data != 0);
  json_builder_set_member_name (b, "control");
  json_builder_add_boolean_value (b, c->rep.removed_ctl != 0);
  tool_json_uint (b, "leftovers", (guint64) c->rep.removed_leftovers);
  json_builder_end_object (b);
  json_builder_end_object (b);
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
    {"json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
        "One JSON document (schema in docs/cli.md)", NULL},
    {NULL}
  };
  GPtrArray *objects = NULL;
  GError *err = NULL;
  JsonBuilder *b = NULL;
  guint i, removed = 0, forced = 0, left = 0, n_removed = 0;
  struct cleaned c;
  int code = TOOL_EXIT_OK;

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
  if (!opt_all && !tool_name_ok ("clean", argv[1]))
    return TOOL_EXIT_USAGE;
  if (opt_all && (objects = tool_scan (&err)) == NULL) {
    fprintf (stderr, "doradma clean: %s\n", err->message);
    g_error_free (err);
    return TOOL_EXIT_NOT_FOUND;
  }
  if (opt_json) {
    b = json_builder_new ();
    tool_json_begin (b);
    json_builder_set_member_name (b, "shm_dir");
    json_builder_add_string_value (b, tool_shm_dir ());
    json_builder_set_member_name (b, "channels");
    json_builder_begin_array (b);
  }
  for (i = 0; opt_all ? i < objects->len : i < 1; i++) {
    const char *channel = argv[1];

    if (opt_all) {
      const struct tool_entry *e = g_ptr_array_index (objects, i);

      /* Each channel once: by its data object, or by a lone control
       * object. */
      if (!(e->kind == DORADMA_OBJECT_DATA || (e->kind == DORADMA_OBJECT_CTL
                  && !tool_has_data (objects, e->channel))))
        continue;
      channel = e->channel;
    }
    clean_one (channel, &c);
    if (!opt_all && c.o == CLEAN_NOT_FOUND) {
      tool_not_found ("clean", channel);
      g_clear_object (&b);
      return TOOL_EXIT_NOT_FOUND;
    }
    if (!opt_all)
      code = c.o == CLEAN_LIVE ? TOOL_EXIT_LIVE : c.o == CLEAN_LEFT ?
          TOOL_EXIT_LEFT : TOOL_EXIT_OK;
    if (b && c.o != CLEAN_NOT_FOUND)
      say_json (b, channel, &c);
    else if (!b)
      say (channel, &c);
    g_free (c.left);
    n_removed += c.objects;
    removed += c.o == CLEAN_REMOVED;
    forced += c.o == CLEAN_REMOVED_FORCED;
    left += c.o == CLEAN_LEFT;
  }
  if (opt_all)
    code = left ? TOOL_EXIT_LEFT : TOOL_EXIT_OK;
  if (b) {
    json_builder_end_array (b);
    tool_json_uint (b, "objects_removed", n_removed);
    tool_json_uint (b, "channels_cleaned", removed);
    tool_json_uint (b, "forced_removed", forced);
    tool_json_uint (b, "left_alone", left);
    json_builder_end_object (b);
    tool_json_print (b);
    g_object_unref (b);
  } else if (opt_all) {
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
  }
  if (objects)
    g_ptr_array_unref (objects);
  return code;
}
