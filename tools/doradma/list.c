/* doradma list: one line per channel (or one JSON document); with
 * --interval, two looks that far apart give each channel's frame rate. */
#include "tool.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static gboolean opt_json;
static double opt_interval;
static gboolean opt_interval_set;       /* unset: 0.5 s when readers live */

struct row
{
  struct doradma_inspect in;
  int rc;                       /* doradma_inspect_channel */
  struct tool_look prev;        /* the first look (when == 0: one look) */
  guint64 when;                 /* of the look in `in` */
};

static void
row_free (gpointer p)
{
  struct row *r = p;

  doradma_inspect_clear (&r->in);
  g_free (r);
}

static GPtrArray *
inspect_all (GPtrArray * entries)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (row_free);
  guint i;

  for (i = 0; i < entries->len; i++) {
    const struct tool_entry *e = g_ptr_array_index (entries, i);
    struct row *r;

    if (e->kind != DORADMA_OBJECT_DATA)
      continue;
    r = g_new0 (struct row, 1);
    r->rc = tool_inspect (e->channel, &r->in);
    r->when = tool_now_mono ();
    if (r->rc == -ENOENT) {
      row_free (r);             /* gone since the directory was read */
      continue;
    }
    g_ptr_array_add (rows, r);
  }
  return rows;
}

/* Second look, `interval` seconds later, at every channel: rates and
 * reader states compare the two (a replaced segment is not compared). */
static void
look_again (GPtrArray * rows, double interval)
{
  guint i;

  g_usleep ((gulong) (interval * G_USEC_PER_SEC));
  for (i = 0; i < rows->len; i++) {
    struct row *r = g_ptr_array_index (rows, i);
    struct doradma_inspect later;

    if (r->rc != 0 || tool_inspect (r->in.channel, &later) != 0) {
      if (r->rc == 0)
        doradma_inspect_clear (&later);
      continue;
    }
    tool_look_take (&r->prev, &r->in, r->when);
    doradma_inspect_clear (&r->in);
    r->in = later;
    r->when = tool_now_mono ();
  }
}

/* What `clean` would do with a control object without a data object. */
static const char *
orphan_fate (const struct tool_entry *e)
{
  return e->regular ? "doradma clean removes it" :
      "not a regular file: doradma clean leaves it, remove it by hand";
}

static void
print_text (GPtrArray * rows, GPtrArray * entries, gboolean rates)
{
  guint i;

  printf ("%-24s %-10s %-14s %-16s %-7s %-9s %s%s\n", "CHANNEL", "STATUS",
      "WRITER", "SLOTS", "READERS", "FRAMES", rates ? "RATE     " : "", "CAPS");
  for (i = 0; i < rows->len; i++) {
    struct row *r = g_ptr_array_index (rows, i);
    struct doradma_inspect *in = &r->in;
    char writer[32], slots[48], rate[16] = "";
    struct tool_tally tally;
    int alive = tool_writer_alive (in);

    if (rates) {
      if (tool_look_same (&r->prev, in) && r->when > r->prev.when)
        snprintf (rate, sizeof rate, "%-8.1f ",
            (doradma_inspect_newest_seq (in) - r->prev.newest) * 1e9 /
            (r->when - r->prev.when));
      else
        snprintf (rate, sizeof rate, "%-8s ", "-");
    }
    if (r->rc != 0 || in->object.rc != 0 || in->segment.rc != 0) {
      printf ("%-24s %-10s %-14s %s\n", in->channel, tool_status (in),
          alive < 0 ? "unknown" : alive == 1 ? "alive" : "-",
          tool_error_text (in));
      continue;
    }
    snprintf (writer, sizeof writer, "%u %s", in->writer_pid,
        alive == 1 ? "alive" : "dead");
    {
      char *stride = tool_bytes (in->slot_stride);
      snprintf (slots, sizeof slots, "%u x %s", in->slot_count, stride);
      g_free (stride);
    }
    printf ("%-24s %-10s %-14s %-16s %-7u %-9" G_GUINT64_FORMAT " %s%s\n",
        in->channel, tool_status (in), writer, slots,
        doradma_inspect_live_readers (in), doradma_inspect_published (in),
        rate, tool_caps_now (in));
    tool_reader_tally (in, &r->prev, r->when, &tally);
    if (tally.count[TOOL_KEEPING_UP] != tally.count[TOOL_KEEPING_UP] +
        tally.count[TOOL_SKIPPING] + tally.count[TOOL_STALLED] +
        tally.count[TOOL_DEAD] + tally.count[TOOL_UNKNOWN] +
        tally.count[TOOL_STOPPED]) {
      char *t = tool_tally_text (&tally);
      printf ("%-24s   readers: %s\n", "", t);
      g_free (t);
    }
    if (tool_error_text (in))
      printf ("%-24s   ! %s\n", "", tool_error_text (in));
  }
  for (i = 0; i < entries->len; i++) {
    const struct tool_entry *e = g_ptr_array_index (entries, i);
    char *size = tool_bytes (e->size);

    if (e->kind == DORADMA_OBJECT_DORA_POOL)
      printf ("%-24s %-10s %s\n", e->name, "dora pool", size);
    else if (e->kind == DORADMA_OBJECT_CTL && !tool_has_data (entries,
            e->channel))
      printf ("%-24s %-10s %s: control object without a data object (%s)\n",
          e->channel, "orphan", e->name, orphan_fate (e));
    else if (e->kind == DORADMA_OBJECT_LEFTOVER)
      printf ("%-24s %-10s %s, left by a writer killed while replacing the "
          "channel\n", e->name, "leftover", size);
    g_free (size);
  }
}

static void
print_json (GPtrArray * rows, GPtrArray * entries)
{
  JsonBuilder *b = json_builder_new ();
  guint i;

  tool_json_begin (b);
  json_builder_set_member_name (b, "shm_dir");
  json_builder_add_string_value (b, tool_shm_dir ());
  json_builder_set_member_name (b, "channels");
  json_builder_begin_array (b);
  for (i = 0; i < rows->len; i++) {
    struct row *r = g_ptr_array_index (rows, i);

    tool_json_channel (b, &r->in, &r->prev, r->when);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "others");
  json_builder_begin_array (b);
  for (i = 0; i < entries->len; i++) {
    const struct tool_entry *e = g_ptr_array_index (entries, i);
    const char *kind = NULL;

    if (e->kind == DORADMA_OBJECT_DORA_POOL)
      kind = "dora-pool";
    else if (e->kind == DORADMA_OBJECT_CTL && !tool_has_data (entries,
            e->channel))
      kind = "orphan-control";
    else if (e->kind == DORADMA_OBJECT_LEFTOVER)
      kind = "leftover";
    if (kind == NULL)
      continue;
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "name");
    json_builder_add_string_value (b, e->name);
    json_builder_set_member_name (b, "kind");
    json_builder_add_string_value (b, kind);
    json_builder_set_member_name (b, "size");
    json_builder_add_int_value (b, (gint64) e->size);
    json_builder_set_member_name (b, "regular_file");
    json_builder_add_boolean_value (b, e->regular);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
  tool_json_print (b);
  g_object_unref (b);
}

/* --interval: whether it was given is told apart from any value of it
 * (a default of -1 made "--interval -1" a silent "unset": R4-C2) */
static gboolean
set_interval (const gchar * name, const gchar * value, gpointer data,
    GError ** error)
{
  char *end;

  opt_interval = g_ascii_strtod (value, &end);
  opt_interval_set = TRUE;
  if (end == value || *end != '\0') {
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
        "%s: \"%s\" is not a number of seconds", name, value);
    return FALSE;
  }
  return TRUE;
}

int
tool_list (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
        "One JSON document (schema in docs/cli.md)", NULL},
    {"interval", 'i', 0, G_OPTION_ARG_CALLBACK, (gpointer) set_interval,
        "Look twice, SECONDS apart: frames/s and reader states (default: 0.5 "
          "when a reader lives; 0: one look)", "SECONDS"},
    {NULL}
  };
  GPtrArray *objects, *rows;
  GError *err = NULL;
  gboolean again = FALSE;
  guint i;

  if (!tool_parse ("list", "", "Lists every channel in the shm directory: "
          "writer pid and liveness, status, slots, readers and their states, "
          "frames, caps. Read-only.", entries, &argc, &argv))
    return TOOL_EXIT_USAGE;
  if (argc > 1 || (opt_interval_set && !tool_interval_ok (opt_interval, 0,
              3600))) {
    fprintf (stderr, "doradma list: %s\n", argc > 1 ?
        "takes no channel (use doradma show)" :
        "--interval must be 0..3600 seconds");
    return TOOL_EXIT_USAGE;
  }
  objects = tool_scan (&err);
  if (objects == NULL) {
    fprintf (stderr, "doradma list: %s\n", err->message);
    g_error_free (err);
    return TOOL_EXIT_NOT_FOUND;
  }
  rows = inspect_all (objects);
  /* Asked for, or needed to tell the state of a live reader. */
  if (opt_interval > 0)
    again = TRUE;
  for (i = 0; !opt_interval_set && i < rows->len; i++)
    if (tool_has_live_reader (&((struct row *) g_ptr_array_index (rows,
                    i))->in))
      again = TRUE;
  if (again)
    look_again (rows, opt_interval > 0 ? opt_interval : 0.5);
  if (opt_json)
    print_json (rows, objects);
  else
    print_text (rows, objects, again);
  g_ptr_array_unref (rows);
  g_ptr_array_unref (objects);
  return TOOL_EXIT_OK;
}
