/* Channel facts in words and JSON members, shared by list, show, watch. */
#include "tool.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *
tool_caps_now (const struct doradma_inspect *in)
{
  const struct doradma_inspect_caps *c;

  if (in->segment.rc != 0)
    return "";
  /* The newest epoch's table entry when it is intact, else the JSON's. */
  c = &in->caps_table[in->rcb.caps_epoch % DORADMA_CAPS_ENTRIES];
  if (c->consistent && c->valid.rc == 0 && c->entry.gen != 0
      && c->entry.epoch == in->rcb.caps_epoch)
    return c->entry.caps;
  return in->caps;
}

char *
tool_bytes (guint64 bytes)
{
  if (bytes >= (1ull << 30))
    return g_strdup_printf ("%.1f GiB", bytes / 1073741824.0);
  if (bytes >= (1ull << 20))
    return g_strdup_printf ("%.1f MiB", bytes / 1048576.0);
  if (bytes >= (1ull << 10))
    return g_strdup_printf ("%.1f KiB", bytes / 1024.0);
  return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
}

char *
tool_duration (guint64 ns)
{
  if (ns == DORADMA_TIME_NONE)
    return g_strdup ("-");
  if (ns >= 1000000000ull)
    return g_strdup_printf ("%.3f s", ns / 1e9);
  if (ns >= 1000000ull)
    return g_strdup_printf ("%.1f ms", ns / 1e6);
  return g_strdup_printf ("%.1f us", ns / 1e3);
}

const char *
tool_reader_state (guint32 state)
{
  switch (state) {
    case DORADMA_READER_FREE:
      return "free";
    case DORADMA_READER_RESERVED:
      return "reserved";
    case DORADMA_READER_ACTIVE:
      return "active";
    case DORADMA_READER_EVICTED:
      return "evicted";
    case DORADMA_READER_STOPPED:
      return "stopped";
    default:
      return "unknown";
  }
}

guint64
tool_now_mono (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void
tool_json_verdict (JsonBuilder * b, const char *member,
    const struct doradma_inspect_verdict *v)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "valid");
  json_builder_add_boolean_value (b, v->rc == 0);
  if (v->rc != 0) {
    json_builder_set_member_name (b, "errno");
    json_builder_add_string_value (b, g_strerror (-v->rc));
    json_builder_set_member_name (b, "field");
    if (v->diag.field)
      json_builder_add_string_value (b, v->diag.field);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "message");
    json_builder_add_string_value (b, v->diag.msg);
  }
  json_builder_end_object (b);
}

void
tool_json_uint (JsonBuilder * b, const char *name, guint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) v);
}

const char *
tool_status (const struct doradma_inspect *in)
{
  if (in->object.rc == -EACCES || in->object.rc == -EPERM)
    return "unreadable";
  return doradma_inspect_status (in);
}

int
tool_writer_alive (const struct doradma_inspect *in)
{
  /* Asked through the data object's fd: none, no answer. */
  if (in->object.rc != 0 || in->writer_alive < 0)
    return -1;
  return in->writer_alive == 1;
}

void
tool_json_begin (JsonBuilder * b)
{
  json_builder_begin_object (b);
  tool_json_uint (b, "schema", TOOL_JSON_SCHEMA);
  json_builder_set_member_name (b, "tool_version");
  json_builder_add_string_value (b, DORADMA_TOOL_VERSION);
}

void
tool_json_summary (JsonBuilder * b, const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now)
{
  const struct doradma_inspect_verdict *err = doradma_inspect_first_error (in);
  int valid = in->segment.rc == 0 && in->object.rc == 0;
  int alive = tool_writer_alive (in);
  struct tool_tally tally;

  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, in->channel);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, in->data_path);
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, tool_status (in));
  json_builder_set_member_name (b, "valid");
  json_builder_add_boolean_value (b, err == NULL);
  json_builder_set_member_name (b, "error");
  if (err) {
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "field");
    if (err->diag.field)
      json_builder_add_string_value (b, err->diag.field);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "message");
    json_builder_add_string_value (b, err->diag.msg);
    json_builder_end_object (b);
  } else {
    json_builder_add_null_value (b);
  }
  json_builder_set_member_name (b, "writer");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "pid");
  if (valid)
    json_builder_add_int_value (b, in->writer_pid);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "alive");
  if (alive < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_boolean_value (b, alive == 1);
  json_builder_end_object (b);
  if (!valid)
    return;
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b, doradma_inspect_state_name (in->rcb.state));
  json_builder_set_member_name (b, "transport");
  json_builder_add_string_value (b, in->transport);
  json_builder_set_member_name (b, "caps");
  json_builder_add_string_value (b, tool_caps_now (in));
  tool_json_uint (b, "caps_epoch", in->rcb.caps_epoch);
  json_builder_set_member_name (b, "slots");
  json_builder_begin_object (b);
  tool_json_uint (b, "count", in->slot_count);
  tool_json_uint (b, "stride", in->slot_stride);
  json_builder_end_object (b);
  tool_json_uint (b, "readers", doradma_inspect_live_readers (in));
  tool_reader_tally (in, prev, now, &tally);
  tool_json_tally (b, &tally);
  tool_json_uint (b, "first_seq", in->rcb.first_seq);
  tool_json_uint (b, "newest_seq", doradma_inspect_newest_seq (in));
  tool_json_uint (b, "frames_published", doradma_inspect_published (in));
  json_builder_set_member_name (b, "rate");
  if (tool_look_same (prev, in) && now > prev->when
      && doradma_inspect_newest_seq (in) >= prev->newest)
    json_builder_add_double_value (b, (doradma_inspect_newest_seq (in) -
            prev->newest) * 1e9 / (now - prev->when));
  else
    json_builder_add_null_value (b);
}

static void
json_print (JsonBuilder * b, gboolean pretty)
{
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root = json_builder_get_root (b);
  char *text;

  json_generator_set_pretty (gen, pretty);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  g_free (text);
  json_node_unref (root);
  g_object_unref (gen);
}

void
tool_json_print (JsonBuilder * b)
{
  json_print (b, TRUE);
}

void
tool_json_print_line (JsonBuilder * b)
{
  json_print (b, FALSE);
}

void
tool_json_channel (JsonBuilder * b, const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now)
{
  json_builder_begin_object (b);
  tool_json_summary (b, in, prev, now);
  if (in->object.rc == 0 && in->segment.rc == 0)
    tool_json_readers_brief (b, in, prev, now);
  json_builder_end_object (b);
}

const char *
tool_error_text (const struct doradma_inspect *in)
{
  const struct doradma_inspect_verdict *v = doradma_inspect_first_error (in);

  return v ? v->diag.msg : NULL;
}

/* Bytes outside printable ASCII become '.': segment text (JSON, caps,
 * messages quoting them) could otherwise carry terminal escapes. */
void
tool_printable (char *s)
{
  for (; *s; s++)
    if ((unsigned char) *s < 0x20 || (unsigned char) *s > 0x7e)
      *s = '.';
}

void
tool_sanitize (struct doradma_inspect *in)
{
  guint32 i;

  tool_printable (in->object.diag.msg);
  tool_printable (in->segment.diag.msg);
  tool_printable (in->ctl_object.diag.msg);
  tool_printable (in->ctl_valid.diag.msg);
  for (i = 0; i < DORADMA_MAX_SLOTS; i++)
    tool_printable (in->slots[i].valid.diag.msg);
  for (i = 0; i < DORADMA_CAPS_ENTRIES; i++) {
    tool_printable (in->caps_table[i].valid.diag.msg);
    in->caps_table[i].entry.caps[DORADMA_CAPS_MAX - 1] = '\0';
    tool_printable (in->caps_table[i].entry.caps);
  }
  if (in->json)
    tool_printable (in->json);
}

/* Inspects and sanitizes: what every subcommand shows. */
int
tool_inspect (const char *channel, struct doradma_inspect *in)
{
  int ret = doradma_inspect_channel (tool_shm_dir (), channel, in);

  tool_sanitize (in);
  return ret;
}
