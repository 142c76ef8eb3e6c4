/* doradma watch [<channel>]: a refreshing view like top(1), plain ANSI.
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

static volatile sig_atomic_t stop_signal;

/* The previous look at one channel, for rates. */
struct prev
{
  guint64 dev, ino, when, newest;
  guint64 consumed[DORADMA_MAX_READERS];
};

static void
on_signal (int sig)
{
  stop_signal = sig;
}

static double
per_second (guint64 now_v, guint64 then_v, guint64 dt_ns)
{
  if (dt_ns == 0 || now_v < then_v)
    return 0;
  return (now_v - then_v) * 1e9 / dt_ns;
}

static void
render_channel (GString * out, const struct doradma_inspect *in,
    struct prev *pv, guint64 now)
{
  guint64 newest = doradma_inspect_newest_seq (in), dt;
  int same = pv->ino == in->ino && pv->dev == in->dev && pv->when != 0;
  guint32 r, slot = DORADMA_NEWEST_SLOT (in->rcb.newest);
  char *stride, *age = NULL, *capture = NULL, *lat;

  dt = same ? now - pv->when : 0;
  if (in->object.rc != 0 || in->segment.rc != 0) {
    g_string_append_printf (out, "\033[1m%s\033[0m  invalid: %s\n\n",
        in->channel, tool_error_text (in));
    return;
  }
  stride = tool_bytes (in->slot_stride);
  g_string_append_printf (out, "\033[1m%s\033[0m  %s  writer %u %s  %u x %s"
      "  %s\n", in->channel, doradma_inspect_status (in), in->writer_pid,
      in->writer_alive == 1 ? "alive" : "DEAD", in->slot_count, stride,
      tool_caps_now (in));
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
  g_string_append_printf (out, "  frames/s %-8.1f newest seq %-10" PRIu64
      " age %-10s capture->publish %-10s producer latency %s\n",
      same ? per_second (newest, pv->newest, dt) : 0.0, newest,
      age ? age : "-", capture ? capture : "-", lat);
  g_free (age);
  g_free (capture);
  g_free (lat);
  g_string_append_printf (out, "  %-6s %-8s %-6s %-16s %-9s %-6s %-11s %-9s "
      "%s\n", "READER", "PID", "ALIVE", "MODE", "STATE", "LAG", "CONSUMED/S",
      "LOST", "LEASES");
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    const struct doradma_inspect_reader *rd = &in->readers[r];
    int bp = (rd->entry.flags & DORADMA_READER_BACKPRESSURE) != 0;
    char lag[24] = "n/a", rate[24] = "n/a", lost[24] = "n/a";

    if (rd->entry.state == DORADMA_READER_FREE && rd->leases == 0)
      continue;
    if (bp) {
      snprintf (lag, sizeof lag, "%" PRIu64, rd->entry.consumed_seq >= newest ?
          0 : newest - rd->entry.consumed_seq);
      if (same)
        snprintf (rate, sizeof rate, "%.1f",
            per_second (rd->entry.consumed_seq, pv->consumed[r], dt));
      snprintf (lost, sizeof lost, "%" PRIu64, doradma_inspect_lost (in, r));
    }
    g_string_append_printf (out, "  %-6u %-8u %-6s %-16s %-9s %-6s %-11s %-9s "
        "%u\n", r, rd->entry.pid, rd->alive == 1 ? "yes" : "NO",
        bp ? "backpressure" : "no-backpressure",
        tool_reader_state (rd->entry.state), lag, rate, lost, rd->leases);
  }
  g_string_append (out, "\n");
  pv->dev = in->dev;
  pv->ino = in->ino;
  pv->when = now;
  pv->newest = newest;
  for (r = 0; r < DORADMA_MAX_READERS; r++)
    pv->consumed[r] = in->readers[r].entry.consumed_seq;
}

/* One refresh of every channel (or the one asked for). Returns FALSE when
 * the one channel asked for is gone. */
static gboolean
render (GString * out, const char *only, GHashTable * prevs)
{
  GPtrArray *entries = NULL;
  GError *err = NULL;
  char clock[16];
  time_t t = time (NULL);
  guint i, shown = 0;

  strftime (clock, sizeof clock, "%H:%M:%S", localtime (&t));
  g_string_append_printf (out, "\033[H\033[2Jdoradma watch  %s  every %.1f s"
      "  (q or Ctrl-C quits)  %s\n\n", tool_shm_dir (), opt_interval, clock);
  if (only == NULL && (entries = tool_scan (&err)) == NULL) {
    g_string_append_printf (out, "%s\n", err->message);
    g_error_free (err);
    return TRUE;
  }
  for (i = 0; only != NULL ? i < 1 : i < entries->len; i++) {
    const char *ch = only;
    struct doradma_inspect in;
    struct prev *pv;

    if (only == NULL) {
      const struct tool_entry *e = g_ptr_array_index (entries, i);
      if (e->kind != DORADMA_OBJECT_DATA)
        continue;
      ch = e->channel;
    }
    if (tool_inspect (ch, &in) != 0) {
      if (only != NULL)
        g_string_append_printf (out, "%s: %s\n", ch, in.object.diag.msg);
      continue;
    }
    pv = g_hash_table_lookup (prevs, ch);
    if (pv == NULL) {
      pv = g_new0 (struct prev, 1);
      g_hash_table_insert (prevs, g_strdup (ch), pv);
    }
    render_channel (out, &in, pv, tool_now_mono ());
    doradma_inspect_clear (&in);
    shown++;
  }
  if (shown == 0 && only == NULL)
    g_string_append (out, "no channels\n");
  if (entries)
    g_ptr_array_unref (entries);
  return TRUE;
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
    {"iterations", 'n', 0, G_OPTION_ARG_INT, &opt_iterations,
        "Quit after N refreshes (default: until q or Ctrl-C)", "N"},
    {NULL}
  };
  struct termios saved, raw;
  struct sigaction sa;
  sigset_t mask;
  gboolean tty, stdin_open = TRUE;
  GHashTable *prevs;
  int i;

  if (!tool_parse ("watch", "[CHANNEL]", "A live view of the channels (or "
          "one): frames/s, lag and consumed rate per reader, age of the "
          "newest frame. q or Ctrl-C quits. Read-only.", entries, &argc, &argv))
    return TOOL_EXIT_USAGE;
  if (argc > 2 || opt_interval < 0.05 || opt_interval > 3600
      || opt_iterations < 0) {
    fprintf (stderr, "doradma watch: %s\n", argc > 2 ? "at most one channel" :
        "--interval must be 0.05..3600 s, --iterations >= 0");
    return TOOL_EXIT_USAGE;
  }
  if (argc == 2 && doradma_name_validate (argv[1], NULL) < 0) {
    fprintf (stderr, "doradma watch: \"%s\" is not a channel name\n", argv[1]);
    return TOOL_EXIT_USAGE;
  }

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
  prevs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (i = 0; opt_iterations == 0 || i < opt_iterations; i++) {
    GString *out = g_string_new (NULL);

    render (out, argc == 2 ? argv[1] : NULL, prevs);
    fwrite (out->str, 1, out->len, stdout);
    fflush (stdout);
    g_string_free (out, TRUE);
    if (wait_for_quit ((int) (opt_interval * 1000), &stdin_open))
      break;
  }
  g_hash_table_destroy (prevs);
  if (tty)
    tcsetattr (STDIN_FILENO, TCSANOW, &saved);
  return TOOL_EXIT_OK;
}
