/* Per reader entry: frames delivered against frames published, skipped
 * frames, and its state in one word (docs/cli.md, "Reader states"), judged
 * from one look or, better, two. The same words go to text and JSON. */
#include "tool.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A frame waiting this long for a reader that takes none: stalled. */
#define STALL_NS 1000000000ull

static const char *const health_names[] = {
  [TOOL_KEEPING_UP] = "keeping-up",
  [TOOL_SKIPPING] = "skipping",
  [TOOL_STALLED] = "stalled",
  [TOOL_DEAD] = "dead",
  [TOOL_UNKNOWN] = "unknown",
  [TOOL_STOPPED] = "stopped",
};

const char *
tool_health_name (enum tool_health h)
{
  return h < G_N_ELEMENTS (health_names) ? health_names[h] : "unknown";
}

gboolean
tool_reader_in_use (const struct doradma_inspect_reader *rd)
{
  return rd->entry.state != DORADMA_READER_FREE || rd->active_bit
      || rd->leases != 0 || rd->alive == 1;
}

/* The read mode: `next` asks for every frame (a lossless writer waits
 * for it; a latest writer does not, and the reader skips when lapped). */
const char *
tool_reader_mode (const struct doradma_inspect_reader *rd)
{
  return rd->entry.flags & DORADMA_READER_BACKPRESSURE ? "next" : "latest";
}

gboolean
tool_has_live_reader (const struct doradma_inspect *in)
{
  guint32 r;

  for (r = 0; r < DORADMA_MAX_READERS; r++)
    if (in->readers[r].alive == 1)
      return TRUE;
  return FALSE;
}

void
tool_look_take (struct tool_look *look, const struct doradma_inspect *in,
    guint64 now)
{
  guint32 r;

  memset (look, 0, sizeof *look);
  if (in->object.rc != 0 || in->segment.rc != 0)
    return;
  look->dev = in->dev;
  look->ino = in->ino;
  look->when = now;
  look->newest = doradma_inspect_newest_seq (in);
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    look->token[r] = in->readers[r].entry.token;
    look->delivered[r] = in->readers[r].entry.delivered;
    look->skipped[r] = in->readers[r].entry.skipped;
  }
}

gboolean
tool_look_same (const struct tool_look *prev, const struct doradma_inspect *in)
{
  return prev != NULL && prev->when != 0 && prev->dev == in->dev
      && prev->ino == in->ino;
}

/* Since when a reader has had a frame to take and took none: the publish
 * time of the frame after its last one when a slot still holds it (not
 * before its last delivery), else (overwritten: it was too slow for it)
 * its last delivery. */
static guint64
waiting_since (const struct doradma_inspect *in, guint64 last_seq,
    guint64 last_time)
{
  guint32 s;

  for (s = 0; s < in->slot_count; s++) {
    const struct doradma_inspect_slot *sl = &in->slots[s];
    if (sl->state == DORADMA_INSPECT_SLOT_FRAME && sl->rec.seq == last_seq + 1)
      return MAX (sl->rec.publish_time, last_time);
  }
  return last_time;
}

void
tool_reader_view (const struct doradma_inspect *in, guint32 r,
    const struct tool_look *prev, guint64 now, struct tool_reader_view *v)
{
  const struct doradma_inspect_reader *rd = &in->readers[r];
  const struct doradma_shm_reader *e = &rd->entry;
  guint64 newest = doradma_inspect_newest_seq (in), since;
  gboolean two_looks = tool_look_same (prev, in) && prev->token[r] == e->token
      && e->delivered >= prev->delivered[r] && e->skipped >= prev->skipped[r]
      && now > prev->when;

  memset (v, 0, sizeof *v);
  v->counted = e->last_time != 0;
  v->delivered = e->delivered;
  v->skipped = e->skipped;
  v->lag = newest > e->last_seq ? newest - e->last_seq : 0;
  v->published = v->delivered + v->skipped + v->lag;
  v->delivered_rate = v->skipped_rate = v->published_rate = -1;
  if (two_looks) {
    double dt = (now - prev->when) / 1e9;
    v->delivered_rate = (e->delivered - prev->delivered[r]) / dt;
    v->skipped_rate = (e->skipped - prev->skipped[r]) / dt;
    v->published_rate = newest >= prev->newest ?
        (newest - prev->newest) / dt : 0;
  }

  if (rd->alive == 0) {
    v->health = TOOL_DEAD;
    v->why = "its entry lock is free: the process is gone";
  } else if (e->state == DORADMA_READER_STOPPED) {
    v->health = TOOL_STOPPED;
    v->why = rd->leases ? "its application stopped reading; frames it still "
        "holds pin their slots (no back-pressure)" :
        "its application stopped reading (no back-pressure)";
  } else if (rd->alive < 0) {
    v->health = TOOL_UNKNOWN;
    v->why = "its entry lock could not be queried";
  } else if (!v->counted) {
    v->health = TOOL_UNKNOWN;
    v->why = "a reader without delivery counters (an older libdoradma)";
  } else if (v->lag > 0 && (since = waiting_since (in, e->last_seq,
              e->last_time), now > since && now - since >= STALL_NS)) {
    v->health = TOOL_STALLED;
    v->why = "frames wait for it and it took none for over 1 s";
  } else if (two_looks) {
    v->health = v->skipped_rate > 0 ? TOOL_SKIPPING : TOOL_KEEPING_UP;
    v->why = v->skipped_rate > 0 ? "it skipped frames between the two looks" :
        "it got every frame between the two looks";
  } else if (v->skipped == 0) {
    v->health = TOOL_KEEPING_UP;
    v->why = "it got every frame since it joined";
  } else {
    v->health = TOOL_UNKNOWN;
    v->why = "it skipped frames since it joined; one look cannot tell "
        "whether it still does (--interval)";
  }
}

void
tool_reader_tally (const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now, struct tool_tally *t)
{
  guint32 r, s;

  memset (t, 0, sizeof *t);
  if (in->object.rc != 0 || in->segment.rc != 0 || in->ctl_object.rc != 0)
    return;
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    struct tool_reader_view v;

    if (!tool_reader_in_use (&in->readers[r]))
      continue;
    tool_reader_view (in, r, prev, now, &v);
    t->count[v.health]++;
    for (s = 0; s < in->slot_count; s++) {
      if (!(in->slots[s].leases & (1ull << r)))
        continue;
      if (v.health == TOOL_DEAD)
        t->pinned_by_dead |= 1ull << s;
      else if (v.health == TOOL_STOPPED)
        t->pinned_by_stopped |= 1ull << s;
    }
  }
}

guint32
tool_popcount (guint64 bits)
{
  return (guint32) __builtin_popcountll (bits);
}

char *
tool_tally_text (const struct tool_tally *t)
{
  GString *s = g_string_new (NULL);
  guint h;

  for (h = 0; h < TOOL_N_HEALTH; h++) {
    if (t->count[h] == 0)
      continue;
    g_string_append_printf (s, "%s%u %s", s->len ? ", " : "", t->count[h],
        tool_health_name (h));
    if (h == TOOL_DEAD || h == TOOL_STOPPED) {
      guint64 pinned = h == TOOL_DEAD ? t->pinned_by_dead :
          t->pinned_by_stopped;

      if (pinned)
        g_string_append_printf (s, " (pinning %u slot%s)",
            tool_popcount (pinned), tool_popcount (pinned) == 1 ? "" : "s");
    }
  }
  return g_string_free (s, FALSE);
}

char *
tool_rate_text (double rate)
{
  return rate < 0 ? g_strdup ("-") : g_strdup_printf ("%.1f", rate);
}

static void
m_rate (JsonBuilder * b, const char *name, double rate)
{
  json_builder_set_member_name (b, name);
  if (rate < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, rate);
}

void
tool_json_reader_view (JsonBuilder * b, const struct tool_reader_view *v)
{
  json_builder_set_member_name (b, "state");
  json_builder_add_string_value (b, tool_health_name (v->health));
  json_builder_set_member_name (b, "state_reason");
  json_builder_add_string_value (b, v->why);
  json_builder_set_member_name (b, "frames");
  json_builder_begin_object (b);
  if (v->counted) {
    tool_json_uint (b, "delivered", v->delivered);
    tool_json_uint (b, "skipped", v->skipped);
    tool_json_uint (b, "published", v->published);
    tool_json_uint (b, "behind", v->lag);
  }
  m_rate (b, "delivered_per_s", v->delivered_rate);
  m_rate (b, "skipped_per_s", v->skipped_rate);
  m_rate (b, "published_per_s", v->published_rate);
  json_builder_end_object (b);
}

void
tool_json_readers_brief (JsonBuilder * b, const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now)
{
  guint32 r;

  json_builder_set_member_name (b, "reader_entries");
  json_builder_begin_array (b);
  for (r = 0; in->ctl_object.rc == 0 && r < DORADMA_MAX_READERS; r++) {
    const struct doradma_inspect_reader *rd = &in->readers[r];
    struct tool_reader_view v;

    if (!tool_reader_in_use (rd))
      continue;
    tool_reader_view (in, r, prev, now, &v);
    json_builder_begin_object (b);
    tool_json_uint (b, "index", r);
    tool_json_uint (b, "pid", rd->entry.pid);
    json_builder_set_member_name (b, "mode");
    json_builder_add_string_value (b, tool_reader_mode (rd));
    tool_json_reader_view (b, &v);
    tool_json_uint (b, "leases", rd->leases);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}

void
tool_json_tally (JsonBuilder * b, const struct tool_tally *t)
{
  guint h;

  json_builder_set_member_name (b, "reader_states");
  json_builder_begin_object (b);
  for (h = 0; h < TOOL_N_HEALTH; h++)
    tool_json_uint (b, tool_health_name (h), t->count[h]);
  json_builder_end_object (b);
  tool_json_uint (b, "slots_pinned_by_dead_readers",
      tool_popcount (t->pinned_by_dead));
  tool_json_uint (b, "slots_pinned_by_stopped_readers",
      tool_popcount (t->pinned_by_stopped));
}
