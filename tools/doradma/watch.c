/* doradma watch [<channel>]: a refreshing view like top(1), plain ANSI on
 * a terminal, plain text otherwise.
 * Every refresh inspects the channels again (read-only) and compares with
 * the previous look for rates. q or Ctrl-C quits and restores the
 * terminal. */
#include "tool.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static double opt_interval = 1.0;
static int opt_iterations;
static gboolean opt_json;

static volatile sig_atomic_t stop_signal;

/* Terminal escapes only when stdout is a terminal: set in tool_watch. */
static const char *bold = "", *plain = "", *home_clear = "";

static void
on_signal (int sig)
{
  stop_signal = sig;
}

static void
render_channel (GString * out, const struct doradma_inspect *in,
    struct tool_look *pv, guint64 now)
{
  guint64 newest = doradma_inspect_newest_seq (in);
  gboolean same = tool_look_same (pv, in) && now > pv->when;
  guint32 r, slot = DORADMA_NEWEST_SLOT (in->rcb.newest);
  char *stride, *age = NULL, *capture = NULL, *lat, *fps;
  int alive = tool_writer_alive (in);

  if (in->object.rc != 0 || in->segment.rc != 0) {
    g_string_append_printf (out, "%s%s%s  %s: %s\n\n", bold, in->channel,
        plain, tool_status (in), tool_error_text (in));
    return;
  }
  stride = tool_bytes (in->slot_stride);
  g_string_append_printf (out, "%s%s%s  %s  writer %u %s  %u x %s  %s\n",
      bold, in->channel, plain, tool_status (in), in->writer_pid,
      alive == 1 ? "alive" : alive == 0 ? "DEAD" : "unknown",
      in->slot_count, stride, tool_caps_now (in));
  g_free (stride);
  if (newest != 0 && slot < in->slot_count
      && in->slots[slot].state == DORADMA_INSPECT_SLOT_FRAME
      && in->slots[slot].rec.seq == newest) {
    const struct doradma_shm_slot *rec = &in->slots[slot].rec;
    age = tool_duration (now > rec->publish_time ? now - rec->publish_time : 0);
    if (rec->mono_pts != DORADMA_TIME_NONE
        && rec->publish_time >= rec->mono_pts)
      capture = tool_duration (rec->publish_time - rec->mono_pts);
  }
  lat = tool_duration (in->rcb.latency);
  /* No rate before a second look at the same object. */
  fps = tool_rate_text (same && newest >= pv->newest ?
      (newest - pv->newest) * 1e9 / (now - pv->when) : -1);
  g_string_append_printf (out,
      "  frames/s %-8s newest seq %-10" G_GUINT64_FORMAT
      " age %-10s capture->publish %-10s producer latency %s\n", fps, newest,
      age ? age : "-", capture ? capture : "-", lat);
  g_free (fps);
  g_free (age);
  g_free (capture);
  g_free (lat);
  g_string_append_printf (out, "  %-6s %-8s %-6s %-10s %-12s %-12s %-10s "
      "%-10s %-9s %-6s %s\n", "READER", "PID", "MODE", "STATE", "DELIVERED/S",
      "PUBLISHED/S", "SKIPPED/S", "DELIVERED", "SKIPPED", "BEHIND", "LEASES");
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    const struct doradma_inspect_reader *rd = &in->readers[r];
    struct tool_reader_view v;
    char *dr, *pr, *sr, dn[24] = "-", sn[24] = "-", bn[24] = "-";

    if (!tool_reader_in_use (rd))
      continue;
    tool_reader_view (in, r, pv, now, &v);
    dr = tool_rate_text (v.delivered_rate);
    pr = tool_rate_text (v.published_rate);
    sr = tool_rate_text (v.skipped_rate);
    if (v.counted) {
      snprintf (dn, sizeof dn, "%" G_GUINT64_FORMAT, v.delivered);
      snprintf (sn, sizeof sn, "%" G_GUINT64_FORMAT, v.skipped);
      snprintf (bn, sizeof bn, "%" G_GUINT64_FORMAT, v.lag);
    }
    g_string_append_printf (out, "  %-6u %-8u %-6s %-10s %-12s %-12s %-10s "
        "%-10s %-9s %-6s %u\n", r, rd->entry.pid,
        rd->entry.flags & DORADMA_READER_BACKPRESSURE ? "next" : "latest",
        tool_health_name (v.health), dr, pr, sr, dn, sn, bn, rd->leases);
    g_free (dr);
    g_free (pr);
    g_free (sr);
  }
  g_string_append (out, "\n");
  tool_look_take (pv, in, now);
}

/* One refresh of every channel (or the one asked for): text into `out`,
 * or with `b` (--json) one document into b and only what went wrong into
 * `out`. Returns FALSE when the one channel asked for is not there (or not
 * readable). */
static gboolean
render (GString * out, const char *only, GHashTable * prevs, JsonBuilder * b)
{
  GPtrArray *entries = NULL;
  GError *err = NULL;
  char clock[16];
  time_t t = time (NULL);
  guint i, shown = 0;
  gboolean found = TRUE;

  if (b) {
    tool_json_begin (b);
    json_builder_set_member_name (b, "shm_dir");
    json_builder_add_string_value (b, tool_shm_dir ());
    json_builder_set_member_name (b, "channels");
    json_builder_begin_array (b);
  } else {
    strftime (clock, sizeof clock, "%H:%M:%S", localtime (&t));
    g_string_append_printf (out, "%sdoradma watch  %s  every %.1f s"
        "  (q or Ctrl-C quits)  %s\n\n", home_clear, tool_shm_dir (),
        opt_interval, clock);
  }
  if (only == NULL && (entries = tool_scan (&err)) == NULL) {
    g_string_append_printf (out, "%s\n", err->message);
    g_error_free (err);
  }
  for (i = 0; only != NULL ? i < 1 : entries && i < entries->len; i++) {
    const char *ch = only;
    struct doradma_inspect in;
    struct tool_look *pv;
    guint64 now;
    int ret;

    if (only == NULL) {
      const struct tool_entry *e = g_ptr_array_index (entries, i);
      if (e->kind != DORADMA_OBJECT_DATA)
        continue;
      ch = e->channel;
    }
    ret = tool_inspect (ch, &in);
    if (ret != 0 && only != NULL) {
      g_string_append_printf (out, "%s: %s\n", ch, in.object.diag.msg);
      doradma_inspect_clear (&in);
      found = FALSE;
      break;
    }
    if (ret != 0)
      continue;
    pv = g_hash_table_lookup (prevs, ch);
    if (pv == NULL) {
      pv = g_new0 (struct tool_look, 1);
      g_hash_table_insert (prevs, g_strdup (ch), pv);
    }
    now = tool_now_mono ();
    if (b) {
      tool_json_channel (b, &in, pv, now);
      tool_look_take (pv, &in, now);
    } else {
      render_channel (out, &in, pv, now);
    }
    doradma_inspect_clear (&in);
    shown++;
  }
  if (shown == 0 && only == NULL && entries && b == NULL)
    g_string_append (out, "no channels\n");
  if (b) {
    json_builder_end_array (b);
    json_builder_end_object (b);
  }
  if (entries)
    g_ptr_array_unref (entries);
  return found;
}

/* Waits up to ms for 'q' on stdin (other keys are ignored; at EOF it just
 * sleeps). Returns TRUE to quit. */
static gboolean
wait_for_quit (int ms, gboolean * stdin_open)
{
  guint64 end = tool_now_mono () + (guint64) ms * 1000000;

  while (stop_signal == 0) {
    struct pollfd pfd = { STDIN_FILENO, POLLIN, 0 };
    guint64 now = tool_now_mono ();
    int left;
    char c;

    if (now >= end)
      return FALSE;
    left = (int) ((end - now) / 1000000) + 1;
    if (!*stdin_open) {
      g_usleep ((gulong) left * 1000);
      continue;
    }
    if (poll (&pfd, 1, left) <= 0)
      continue;
    if (read (STDIN_FILENO, &c, 1) <= 0)
      *stdin_open = FALSE;
    else if (c == 'q' || c == 'Q')
      return TRUE;
  }
  return TRUE;
}

int
tool_watch (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"interval", 'i', 0, G_OPTION_ARG_DOUBLE, &opt_interval,
        "Seconds between refreshes (default 1)", "SECONDS"},
    {"json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
        "One JSON document per refresh, each on one line (schema in "
          "docs/cli.md)", NULL},
    {"iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations,
        "Quit after N refreshes (default 0: until q or Ctrl-C)", "N"},
    {NULL}
  };
  struct termios saved, raw;
  struct sigaction sa;
  sigset_t mask;
  gboolean tty, stdin_open = TRUE, found = TRUE;
  GHashTable *prevs;
  int i;

  if (!tool_parse ("watch", "[CHANNEL]", "A live view of the channels (or "
          "one): per reader the frames/s delivered, published and skipped, "
          "the totals and how far behind it is; the newest frame's age. q or "
          "Ctrl-C quits. Read-only.", entries, &argc, &argv))
    return TOOL_EXIT_USAGE;
  if (argc > 2 || !tool_interval_ok (opt_interval, 0.05, 3600)
      || opt_iterations < 0) {
    fprintf (stderr, "doradma watch: %s\n", argc > 2 ? "at most one channel" :
        opt_iterations < 0 ? "--iterations must be 0 (until q or Ctrl-C) or "
        "more" : "--interval must be 0.05..3600 seconds");
    return TOOL_EXIT_USAGE;
  }
  if (argc == 2 && !tool_name_ok ("watch", argv[1]))
    return TOOL_EXIT_USAGE;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  /* A parent may have started us with them blocked: Ctrl-C must work. */
  sigemptyset (&mask);
  sigaddset (&mask, SIGINT);
  sigaddset (&mask, SIGTERM);
  sigprocmask (SIG_UNBLOCK, &mask, NULL);
  tty = isatty (STDIN_FILENO) && tcgetattr (STDIN_FILENO, &saved) == 0;
  if (tty) {
    /* Keys without Enter, no echo; ISIG stays so Ctrl-C is SIGINT. */
    raw = saved;
    raw.c_lflag &= ~(ICANON | ECHO);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    tcsetattr (STDIN_FILENO, TCSANOW, &raw);
  }
  if (isatty (STDOUT_FILENO) && !opt_json) {
    bold = "\033[1m";
    plain = "\033[0m";
    home_clear = "\033[H\033[2J";
  }
  prevs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (i = 0; opt_iterations == 0 || i < opt_iterations; i++) {
    GString *out = g_string_new (NULL);
    JsonBuilder *b = opt_json ? json_builder_new () : NULL;

    found = render (out, argc == 2 ? argv[1] : NULL, prevs, b);
    /* --json: stdout has only the documents, what went wrong is on stderr */
    fwrite (out->str, 1, out->len, found && !b ? stdout : stderr);
    if (b && found)
      tool_json_print_line (b);
    fflush (stdout);
    g_clear_object (&b);
    g_string_free (out, TRUE);
    if (!found || wait_for_quit ((int) (opt_interval * 1000), &stdin_open))
      break;
  }
  g_hash_table_destroy (prevs);
  if (tty)
    tcsetattr (STDIN_FILENO, TCSANOW, &saved);
  return found ? TOOL_EXIT_OK : TOOL_EXIT_NOT_FOUND;
}
