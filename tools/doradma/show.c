/* doradma show <channel>: every part of the segment decoded, each with the
 * verdict of the lib's validator for it. A part that failed is still shown
 * field by field (never trusted: only printed). */
#include "tool.h"

#include <doradma/file-type.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static gboolean opt_json;
static double opt_interval = 0.5;

/* The look before the one shown (when.. == 0: none) and when this one was
 * taken. */
static struct tool_look prev_look;
static guint64 look_time;

/* "ok", or the lib's words led by the field at fault, as the reader's diag
 * names it (one buffer: one call per printf). */
static const char *
verdict_text (const struct doradma_inspect_verdict *v)
{
  static char text[sizeof v->diag.msg + 64];

  if (v->rc == 0)
    return "ok";
  if (v->diag.field == NULL)
    return v->diag.msg;
  snprintf (text, sizeof text, "[%s] %s", v->diag.field, v->diag.msg);
  return text;
}

static const char *
slot_state_name (enum doradma_inspect_slot_state s)
{
  switch (s) {
    case DORADMA_INSPECT_SLOT_EMPTY:
      return "empty";
    case DORADMA_INSPECT_SLOT_FRAME:
      return "frame";
    case DORADMA_INSPECT_SLOT_WRITING:
      return "writing";
    case DORADMA_INSPECT_SLOT_TORN:
      return "torn";
  }
  return "?";
}

/* Consumed lag of a reader: frames published after what it consumed. Only
 * back-pressure readers keep consumed_seq current. */
static gint64
reader_lag (const struct doradma_inspect *in,
    const struct doradma_inspect_reader *rd)
{
  guint64 newest = doradma_inspect_newest_seq (in);

  if (!(rd->entry.flags & DORADMA_READER_BACKPRESSURE))
    return -1;
  return rd->entry.consumed_seq >= newest ? 0 :
      (gint64) (newest - rd->entry.consumed_seq);
}

/* Exit code: 3 when any part, record or caps entry in use failed. */
static int
show_exit (const struct doradma_inspect *in)
{
  return doradma_inspect_first_error (in) ? TOOL_EXIT_INVALID : TOOL_EXIT_OK;
}

/* ------------------------------------------------------------------------ */
/* text                                                                     */
/* ------------------------------------------------------------------------ */

static void
text_header (const struct doradma_inspect *in)
{
  const struct doradma_shm_header *h = &in->header;
  char magic[40];
  size_t i, o = 0;

  for (i = 0; i < sizeof h->magic; i++)
    o += snprintf (magic + o, sizeof magic - o, "%02x", h->magic[i]);
  printf ("header\n  magic %s  json_len %" PRIu64 "  data_offset %" PRIu64
      "  ipc_flag %" PRIu64 "  dora_gen %" PRIu64 "\n", magic, h->json_len,
      h->data_offset, h->ipc_flag, h->dora_gen);
  if (in->json) {
    char *json = g_strchomp (g_strdup (in->json));
    printf ("json (%" PRIu64 " bytes, padding not shown)\n  %s\n",
        in->json_read, json);
    g_free (json);
  } else {
    printf ("json  not read (json_len outside the object)\n");
  }
}

static void
text_rcb (const struct doradma_inspect *in)
{
  const struct doradma_shm_rcb *r = &in->rcb;
  char *lat = tool_duration (r->latency);

  printf ("rcb at %" PRIu64 "%s\n", in->rcb_at, in->segment.rc == 0 ? "" :
      "  (segment invalid: shown as read, not trusted)");
  printf ("  magic 0x%016" PRIx64 "  layout_version %u  page_size %u  "
      "compat 0x%" PRIx64 "  incompat 0x%" PRIx64 "\n", r->magic,
      r->layout_version, r->page_size, r->compat_flags, r->incompat_flags);
  printf ("  slot_count %u  slot_stride %" PRIu64 "  slots_offset %" PRIu64
      "  writer_pid %u  writer_start %" PRIu64 "  ctl_token 0x%016" PRIx64
      "\n", r->slot_count, r->slot_stride, r->slots_offset, r->writer_pid,
      r->writer_start, r->ctl_token);
  printf ("  state %s (%u)  caps_epoch %u  newest seq %" PRIu64 " slot %u  "
      "first_seq %" PRIu64 "  final_seq %" PRIu64 "  latency %s\n",
      doradma_inspect_state_name (r->state), r->state, r->caps_epoch,
      (guint64) DORADMA_NEWEST_SEQ (r->newest), DORADMA_NEWEST_SLOT (r->newest),
      r->first_seq, r->final_seq, lat);
  g_free (lat);
}

static void
text_caps (const struct doradma_inspect *in)
{
  guint32 e;

  printf ("caps table\n");
  for (e = 0; e < DORADMA_CAPS_ENTRIES; e++) {
    const struct doradma_inspect_caps *c = &in->caps_table[e];

    if (c->entry.gen == 0) {
      printf ("  [%u] unused\n", e);
      continue;
    }
    if (!c->consistent) {
      printf ("  [%u] gen %" PRIu64 " being written\n", e, c->entry.gen);
      continue;
    }
    printf ("  [%u] gen %" PRIu64 "  epoch %u  length %u  %s\n      %.*s\n",
        e, c->entry.gen, c->entry.epoch, c->entry.length,
        verdict_text (&c->valid), (int) strnlen (c->entry.caps,
            sizeof c->entry.caps), c->entry.caps);
  }
}

static void
text_slots (const struct doradma_inspect *in, guint64 now)
{
  guint32 s, p;

  printf ("slots (%u x %" PRIu64 " bytes at %" PRIu64 ")\n", in->slot_count,
      in->slot_stride, in->slots_offset);
  for (s = 0; s < in->slot_count; s++) {
    const struct doradma_inspect_slot *sl = &in->slots[s];
    const struct doradma_shm_slot *r = &sl->rec;
    char *pts, *age;

    printf ("  [%u] %-7s gen %" PRIu64 "  leases 0x%" PRIx64, s,
        slot_state_name (sl->state), r->gen, sl->leases);
    if (sl->state != DORADMA_INSPECT_SLOT_FRAME) {
      printf ("\n");
      continue;
    }
    pts = tool_duration (r->pts);
    age = tool_duration (now > r->publish_time ? now - r->publish_time : 0);
    printf ("  seq %" PRIu64 "  caps_epoch %u  %ux%u  planes %u  payload %"
        PRIu64 "  pts %s  published %s ago  flags 0x%x  %s\n", r->seq,
        r->caps_epoch, r->width, r->height, r->n_planes, r->payload_bytes,
        pts, age, r->flags, verdict_text (&sl->valid));
    g_free (pts);
    g_free (age);
    for (p = 0; p < r->n_planes && p < DORADMA_MAX_PLANES; p++)
      printf ("      plane %u: offset %" PRIu64 " stride %u rows %u row_bytes "
          "%u\n", p, r->planes[p].offset, r->planes[p].stride,
          r->planes[p].rows, r->planes[p].row_bytes);
    if (r->crop_width)
      printf ("      crop %ux%u at (%u,%u)\n", r->crop_width, r->crop_height,
          r->crop_x, r->crop_y);
  }
}

static void
text_ctl (const struct doradma_inspect *in)
{
  guint32 r;

  printf ("control object %s: %s\n", in->ctl_path, in->ctl_object.rc != 0 ?
      verdict_text (&in->ctl_object) : verdict_text (&in->ctl_valid));
  if (in->ctl_object.rc != 0)
    return;
  printf ("  magic 0x%016" PRIx64 "  layout_version %u  slot_count %u  "
      "token 0x%016" PRIx64 "\n  notify %u  space %u  active 0x%016" PRIx64
      "\n", in->ctl.magic, in->ctl.layout_version, in->ctl.slot_count,
      in->ctl.token, in->ctl.notify, in->ctl.space, in->ctl.active);
  printf ("readers\n");
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    const struct doradma_inspect_reader *rd = &in->readers[r];
    gint64 lag = reader_lag (in, rd);
    struct tool_reader_view v;
    char lagtext[48] = "";
    char *dr, *pr, *sr;

    if (!tool_reader_in_use (rd))
      continue;
    tool_reader_view (in, r, &prev_look, look_time, &v);
    if (lag >= 0)
      snprintf (lagtext, sizeof lagtext, "  consumed %" PRIu64 "  lag %"
          G_GINT64_FORMAT "  lost %" PRIu64, rd->entry.consumed_seq, lag,
          doradma_inspect_lost (in, r));
    printf ("  [%u] pid %u  %s  %s  %s  %s (%s)\n", r, rd->entry.pid,
        rd->alive == 1 ? "alive" : rd->alive == 0 ? "dead" : "alive?",
        tool_reader_state (rd->entry.state), tool_reader_mode (rd),
        tool_health_name (v.health), v.why);
    dr = tool_rate_text (v.delivered_rate);
    pr = tool_rate_text (v.published_rate);
    sr = tool_rate_text (v.skipped_rate);
    if (v.counted)
      printf ("      delivered %" PRIu64 " (%s/s) of %" PRIu64 " published "
          "(%s/s) since it joined  skipped %" PRIu64 " (%s/s)  behind %"
          PRIu64 "%s  leases %u  token 0x%016" PRIx64 "\n", v.delivered, dr,
          v.published, pr, v.skipped, sr, v.lag, lagtext, rd->leases,
          rd->entry.token);
    else
      printf ("      no delivery counters%s  leases %u  token 0x%016" PRIx64
          "\n", lagtext, rd->leases, rd->entry.token);
    g_free (dr);
    g_free (pr);
    g_free (sr);
  }
}

static void
print_text (const struct doradma_inspect *in)
{
  int alive = tool_writer_alive (in);
  struct stat st;

  printf ("channel %s  (%s)\n", in->channel, in->data_path);
  if (in->object.rc != 0) {
    if (lstat (in->data_path, &st) == 0)
      printf ("object  %s  %" PRIu64 " bytes  uid %u  mode %04o  inode %"
          PRIu64 ": %s\n", doradma_file_type (st.st_mode)->word,
          (guint64) st.st_size, (unsigned) st.st_uid,
          (unsigned) st.st_mode & 07777, (guint64) st.st_ino,
          verdict_text (&in->object));
    else
      printf ("object  %s\n", verdict_text (&in->object));
    printf ("status  %s  writer %s (nothing else was read)\n",
        tool_status (in), alive < 0 ? "liveness unknown" : "dead");
    return;
  }
  printf ("object  %" PRIu64 " bytes  uid %u  mode %04o  inode %" PRIu64
      ": %s\n", in->size, in->uid, in->mode, in->ino,
      verdict_text (&in->object));
  if (in->segment.rc != 0 && !in->rcb_read)
    /* no writer pid was read: none to name, dead or alive (R4-C1) */
    printf ("writer  none (no doradma header to name one)%s  status %s\n",
        alive == 1 ? "  but something holds the writer lock" : "",
        tool_status (in));
  else
    printf ("writer  pid %u  %s  status %s\n", in->segment.rc == 0 ?
        in->writer_pid : in->rcb.writer_pid, alive == 1 ?
        "alive (holds the writer lock)" : alive == 0 ?
        "dead (writer lock free)" : "liveness unknown", tool_status (in));
  printf ("segment (header, JSON, RCB line 0, default caps): %s\n",
      verdict_text (&in->segment));
  if (in->header_read)
    text_header (in);
  if (in->rcb_read)
    text_rcb (in);
  if (in->segment.rc == 0) {
    text_caps (in);
    text_slots (in, look_time);
  }
  text_ctl (in);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */
/* ------------------------------------------------------------------------ */

static void
m_uint (JsonBuilder * b, const char *name, guint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) v);
}

/* Times and words that may be DORADMA_TIME_NONE / over 2^63: null or hex. */
static void
m_time (JsonBuilder * b, const char *name, guint64 v)
{
  json_builder_set_member_name (b, name);
  if (v == DORADMA_TIME_NONE)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, (gint64) v);
}

static void
m_hex (JsonBuilder * b, const char *name, guint64 v)
{
  char buf[24];

  snprintf (buf, sizeof buf, "0x%016" PRIx64, v);
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, buf);
}

static void
json_header (JsonBuilder * b, const struct doradma_inspect *in)
{
  const struct doradma_shm_header *h = &in->header;

  json_builder_set_member_name (b, "header");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "magic_ok");
  json_builder_add_boolean_value (b, memcmp (h->magic, DORADMA_MAGIC, 8) == 0);
  m_uint (b, "json_len", h->json_len);
  m_uint (b, "data_offset", h->data_offset);
  m_uint (b, "ipc_flag", h->ipc_flag);
  m_uint (b, "dora_gen", h->dora_gen);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "json");
  if (in->json) {
    char *s = g_utf8_make_valid (in->json, in->json_read);
    json_builder_add_string_value (b, g_strchomp (s));
    g_free (s);
  } else
    json_builder_add_null_value (b);
}

static void
json_rcb (JsonBuilder * b, const struct doradma_inspect *in)
{
  const struct doradma_shm_rcb *r = &in->rcb;

  json_builder_set_member_name (b, "rcb");
  json_builder_begin_object (b);
  m_uint (b, "offset", in->rcb_at);
  m_hex (b, "magic", r->magic);
  m_uint (b, "layout_version", r->layout_version);
  m_uint (b, "page_size", r->page_size);
  m_hex (b, "compat_flags", r->compat_flags);
  m_hex (b, "incompat_flags", r->incompat_flags);
  m_uint (b, "slot_count", r->slot_count);
  m_uint (b, "writer_pid", r->writer_pid);
  m_uint (b, "slot_stride", r->slot_stride);
  m_uint (b, "slots_offset", r->slots_offset);
  m_hex (b, "ctl_token", r->ctl_token);
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b, doradma_inspect_state_name (r->state));
  m_uint (b, "caps_epoch", r->caps_epoch);
  m_uint (b, "newest_seq", DORADMA_NEWEST_SEQ (r->newest));
  m_uint (b, "newest_slot", DORADMA_NEWEST_SLOT (r->newest));
  m_uint (b, "first_seq", r->first_seq);
  m_uint (b, "final_seq", r->final_seq);
  m_time (b, "latency_ns", r->latency);
  m_uint (b, "writer_start", r->writer_start);
  json_builder_end_object (b);
}

static void
json_caps (JsonBuilder * b, const struct doradma_inspect *in)
{
  guint32 e;

  json_builder_set_member_name (b, "caps_table");
  json_builder_begin_array (b);
  for (e = 0; e < DORADMA_CAPS_ENTRIES; e++) {
    const struct doradma_inspect_caps *c = &in->caps_table[e];

    json_builder_begin_object (b);
    m_uint (b, "index", e);
    m_uint (b, "gen", c->entry.gen);
    json_builder_set_member_name (b, "consistent");
    json_builder_add_boolean_value (b, c->consistent);
    if (c->consistent && c->entry.gen != 0) {
      m_uint (b, "epoch", c->entry.epoch);
      m_uint (b, "length", c->entry.length);
      json_builder_set_member_name (b, "caps");
      /* Printable by construction only when valid: bound and keep UTF-8. */
      {
        char *s = g_utf8_make_valid (c->entry.caps, strnlen (c->entry.caps,
                sizeof c->entry.caps));
        json_builder_add_string_value (b, s);
        g_free (s);
      }
      tool_json_verdict (b, "validation", &c->valid);
    }
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

static void
json_slots (JsonBuilder * b, const struct doradma_inspect *in, guint64 now)
{
  guint32 s, p;

  json_builder_set_member_name (b, "slot_records");
  json_builder_begin_array (b);
  for (s = 0; s < in->slot_count; s++) {
    const struct doradma_inspect_slot *sl = &in->slots[s];
    const struct doradma_shm_slot *r = &sl->rec;

    json_builder_begin_object (b);
    m_uint (b, "index", s);
    json_builder_set_member_name (b, "state");
    json_builder_add_string_value (b, slot_state_name (sl->state));
    m_uint (b, "gen", r->gen);
    m_hex (b, "lease_bits", sl->leases);
    if (sl->state == DORADMA_INSPECT_SLOT_FRAME) {
      m_uint (b, "seq", r->seq);
      m_uint (b, "caps_epoch", r->caps_epoch);
      m_uint (b, "width", r->width);
      m_uint (b, "height", r->height);
      m_uint (b, "n_planes", r->n_planes);
      json_builder_set_member_name (b, "planes");
      json_builder_begin_array (b);
      for (p = 0; p < r->n_planes && p < DORADMA_MAX_PLANES; p++) {
        json_builder_begin_object (b);
        m_uint (b, "offset", r->planes[p].offset);
        m_uint (b, "stride", r->planes[p].stride);
        m_uint (b, "rows", r->planes[p].rows);
        m_uint (b, "row_bytes", r->planes[p].row_bytes);
        json_builder_end_object (b);
      }
      json_builder_end_array (b);
      json_builder_set_member_name (b, "crop");
      json_builder_begin_object (b);
      m_uint (b, "x", r->crop_x);
      m_uint (b, "y", r->crop_y);
      m_uint (b, "width", r->crop_width);
      m_uint (b, "height", r->crop_height);
      json_builder_end_object (b);
      m_uint (b, "payload_bytes", r->payload_bytes);
      m_time (b, "pts", r->pts);
      m_time (b, "dts", r->dts);
      m_time (b, "duration", r->duration);
      m_time (b, "mono_pts", r->mono_pts);
      m_uint (b, "publish_time", r->publish_time);
      m_uint (b, "age_ns", now > r->publish_time ? now - r->publish_time : 0);
      m_uint (b, "flags", r->flags);
      tool_json_verdict (b, "validation", &sl->valid);
    }
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

static void
json_ctl (JsonBuilder * b, const struct doradma_inspect *in)
{
  guint32 r;

  json_builder_set_member_name (b, "ctl");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, in->ctl_path);
  tool_json_verdict (b, "object", &in->ctl_object);
  if (in->ctl_object.rc == 0) {
    tool_json_verdict (b, "validation", &in->ctl_valid);
    m_hex (b, "magic", in->ctl.magic);
    m_uint (b, "layout_version", in->ctl.layout_version);
    m_uint (b, "slot_count", in->ctl.slot_count);
    m_hex (b, "token", in->ctl.token);
    m_uint (b, "notify", in->ctl.notify);
    m_uint (b, "space", in->ctl.space);
    m_hex (b, "active", in->ctl.active);
  }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "reader_entries");
  json_builder_begin_array (b);
  for (r = 0; in->ctl_object.rc == 0 && r < DORADMA_MAX_READERS; r++) {
    const struct doradma_inspect_reader *rd = &in->readers[r];
    gint64 lag = reader_lag (in, rd);
    struct tool_reader_view v;

    if (!tool_reader_in_use (rd))
      continue;
    json_builder_begin_object (b);
    m_uint (b, "index", r);
    m_uint (b, "pid", rd->entry.pid);
    json_builder_set_member_name (b, "alive");
    if (rd->alive < 0)
      json_builder_add_null_value (b);
    else
      json_builder_add_boolean_value (b, rd->alive == 1);
    tool_reader_view (in, r, &prev_look, look_time, &v);
    tool_json_reader_view (b, &v);
    json_builder_set_member_name (b, "entry_state");
    json_builder_add_string_value (b, tool_reader_state (rd->entry.state));
    json_builder_set_member_name (b, "mode");
    json_builder_add_string_value (b, tool_reader_mode (rd));
    json_builder_set_member_name (b, "backpressure");
    json_builder_add_boolean_value (b,
        (rd->entry.flags & DORADMA_READER_BACKPRESSURE) != 0);
    json_builder_set_member_name (b, "active_bit");
    json_builder_add_boolean_value (b, rd->active_bit);
    m_uint (b, "consumed_seq", rd->entry.consumed_seq);
    json_builder_set_member_name (b, "lag");
    if (lag >= 0)
      json_builder_add_int_value (b, lag);
    else
      json_builder_add_null_value (b);
    json_builder_set_member_name (b, "lost");
    if (lag >= 0)
      json_builder_add_int_value (b, (gint64) doradma_inspect_lost (in, r));
    else
      json_builder_add_null_value (b);
    m_uint (b, "leases", rd->leases);
    m_hex (b, "token", rd->entry.token);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

/* Only what was read: an object that could not be opened as a regular
 * file yields its lstat and the verdict, nothing more. */
static void
json_object (JsonBuilder * b, const struct doradma_inspect *in)
{
  struct stat st;

  json_builder_set_member_name (b, "object");
  json_builder_begin_object (b);
  if (in->object.rc == 0) {
    json_builder_set_member_name (b, "type");
    json_builder_add_string_value (b, "regular file");
    m_uint (b, "size", in->size);
    m_uint (b, "uid", in->uid);
    m_uint (b, "mode", in->mode);
    m_uint (b, "inode", in->ino);
  } else if (lstat (in->data_path, &st) == 0) {
    json_builder_set_member_name (b, "type");
    json_builder_add_string_value (b, doradma_file_type (st.st_mode)->word);
    m_uint (b, "size", st.st_size);
    m_uint (b, "uid", st.st_uid);
    m_uint (b, "mode", st.st_mode & 07777);
    m_uint (b, "inode", st.st_ino);
  }
  tool_json_verdict (b, "validation", &in->object);
  json_builder_end_object (b);
}

static void
print_json (const struct doradma_inspect *in)
{
  JsonBuilder *b = json_builder_new ();

  tool_json_begin (b);
  tool_json_summary (b, in, &prev_look, look_time);
  json_object (b, in);
  if (in->object.rc == 0) {
    tool_json_verdict (b, "segment", &in->segment);
    if (in->header_read)
      json_header (b, in);
    if (in->rcb_read)
      json_rcb (b, in);
    if (in->segment.rc == 0) {
      json_caps (b, in);
      json_slots (b, in, look_time);
    }
    json_ctl (b, in);
  }
  json_builder_end_object (b);
  tool_json_print (b);
  g_object_unref (b);
}

/* Takes the look shown: a second one `opt_interval` after the first when
 * a reader lives (its state needs two), the first kept as prev_look. */
static int
look (const char *channel, struct doradma_inspect *in)
{
  int ret = tool_inspect (channel, in);

  look_time = tool_now_mono ();
  if (ret != 0 || opt_interval <= 0 || !tool_has_live_reader (in))
    return ret;
  tool_look_take (&prev_look, in, look_time);
  doradma_inspect_clear (in);
  g_usleep ((gulong) (opt_interval * G_USEC_PER_SEC));
  ret = tool_inspect (channel, in);
  look_time = tool_now_mono ();
  return ret;
}

int
tool_show (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
        "One JSON document (schema in docs/cli.md)", NULL},
    {"interval", 'i', 0, G_OPTION_ARG_DOUBLE, &opt_interval,
        "With live readers, look twice SECONDS apart for their rates and "
          "states (default 0.5; 0: one look)", "SECONDS"},
    {NULL}
  };
  struct doradma_inspect in;
  int ret, code;

  if (!tool_parse ("show", "CHANNEL", "Decodes a channel's segment: header, "
          "JSON, RCB, caps table, every slot, every reader entry, each with "
          "its validation result. Read-only; exit 3 if a part is invalid.",
          entries, &argc, &argv))
    return TOOL_EXIT_USAGE;
  if (argc != 2) {
    fprintf (stderr, "doradma show: give exactly one channel name (see "
        "doradma list)\n");
    return TOOL_EXIT_USAGE;
  }
  if (!tool_interval_ok (opt_interval, 0, 60)) {
    fprintf (stderr, "doradma show: --interval must be 0..60 seconds\n");
    return TOOL_EXIT_USAGE;
  }
  if (!tool_name_ok ("show", argv[1]))
    return TOOL_EXIT_USAGE;
  ret = look (argv[1], &in);
  if (ret == -EINVAL) {
    fprintf (stderr, "doradma show: %s\n", in.object.diag.msg);
    return TOOL_EXIT_USAGE;
  }
  if (ret == -ENOENT) {
    tool_not_found ("show", argv[1]);
    return TOOL_EXIT_NOT_FOUND;
  }
  if (opt_json)
    print_json (&in);
  else
    print_text (&in);
  if (g_strcmp0 (tool_status (&in), "unreadable") == 0)
    code = TOOL_EXIT_NOT_FOUND;
  else
    code = ret < 0 ? TOOL_EXIT_INVALID : show_exit (&in);
  doradma_inspect_clear (&in);
  return code;
}
