/* Runs one gst-launch pipeline and measures it, for the network
 * comparison (compare.sh): an element named "stamp" gets each frame's
 * CLOCK_MONOTONIC send time and its number (0, 1, ...) written into its
 * first 16 bytes; an element named "meter" reads them back (both
 * namespaces of a run share the clock). Only the frames numbered in
 * --window FIRST:END (FIRST <= number < END; default all) count, so that
 * every transport is measured over the same frames whatever it lost while
 * connecting. At the end it prints one line:
 *   frames=N stamped=M fps=F p50_us=A p99_us=B cpu_s=C cpu_win_s=W
 * frames: window frames metered; stamped: window frames stamped; fps and
 * latency over the metered ones; cpu_s: this process in all; cpu_win_s:
 * this process while it handled the window (a meter: from the first
 * window frame metered to the last; else from the first window frame
 * stamped to the end of the stream), so start-up and idle time are left
 * out. It stops at EOS, after --idle seconds without a frame once frames
 * came, or at --deadline. --hold NAME starts the pipeline paused and
 * plays it only once element NAME (a tcpserversink) has a client, so that
 * no frame is made before the receiver can get it, and after EOS waits
 * for that client to leave: the sink queues frames it has not written
 * yet, and stopping at once would drop them.
 *   net-probe [--idle S] [--deadline S] [--window F:E] [--hold NAME]
 *     PIPELINE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gst/gst.h>

#define MAX_SAMPLES (1u << 20)

static guint64 *lat;
static guint n_frames, n_lat, n_stamped;
static guint64 first_arrival, last_arrival;
static guint64 win_first = 0, win_end = G_MAXUINT64, next_seq;
/* process CPU (ns) at the window's first and last frame */
static guint64 cpu_win_start, cpu_win_last;
static gint clients;

static guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static guint64
cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (guint64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
      (guint64) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
}

static gboolean
in_window (guint64 seq)
{
  return seq >= win_first && seq < win_end;
}

static GstPadProbeReturn
stamp (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  guint64 mark[2] = { now_ns (), next_seq++ };

  if (in_window (mark[1]) && n_stamped++ == 0)
    cpu_win_start = cpu_ns ();
  gst_buffer_fill (buf, 0, mark, sizeof (mark));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
meter (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 mark[2] = { 0, 0 }, now = now_ns ();

  /* a frame without a readable mark, or outside the window, is not counted */
  if (gst_buffer_extract (buf, 0, mark, sizeof (mark)) != sizeof (mark)
      || !in_window (mark[1]))
    return GST_PAD_PROBE_OK;
  if (mark[0] > 0 && mark[0] <= now && now - mark[0] < 10 * GST_SECOND
      && n_lat < MAX_SAMPLES)
    lat[n_lat++] = now - mark[0];
  cpu_win_last = cpu_ns ();
  if (n_frames++ == 0) {
    first_arrival = now;
    cpu_win_start = cpu_win_last;
  }
  last_arrival = now;
  return GST_PAD_PROBE_OK;
}

static void
client_added (GstElement * sink, GObject * client, gpointer data)
{
  g_atomic_int_inc (&clients);
}

static void
client_removed (GstElement * sink, GObject * client, gint status, gpointer data)
{
  g_atomic_int_add (&clients, -1);
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* TRUE when the pipeline has an element NAME (now probed) */
static gboolean
probe (GstElement * pipe, const char *name, GstPadProbeCallback cb)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *pad;

  if (e == NULL)
    return FALSE;
  pad = gst_element_get_static_pad (e, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, cb, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
  return TRUE;
}

int
main (int argc, char **argv)
{
  double idle = 2, deadline = 120;
  GError *err = NULL;
  GstElement *pipe;
  GstBus *bus;
  GString *desc = g_string_new (NULL);
  const char *hold = NULL;
  gboolean metering, held = FALSE, ended = FALSE;
  guint64 start, cpu_end = 0, p50 = 0, p99 = 0;
  int i, rc = 0;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--idle") == 0 && i + 1 < argc)
      idle = atof (argv[++i]);
    else if (strcmp (argv[i], "--deadline") == 0 && i + 1 < argc)
      deadline = atof (argv[++i]);
    else if (strcmp (argv[i], "--window") == 0 && i + 1 < argc) {
      char *end;

      win_first = g_ascii_strtoull (argv[++i], &end, 10);
      if (*end == ':')
        win_end = g_ascii_strtoull (end + 1, NULL, 10);
    } else if (strcmp (argv[i], "--hold") == 0 && i + 1 < argc)
      hold = argv[++i];
    else
      g_string_append_printf (desc, "%s ", argv[i]);
  }
  lat = g_new (guint64, MAX_SAMPLES);
  pipe = gst_parse_launch (desc->str, &err);
  if (pipe == NULL) {
    fprintf (stderr, "net-probe: %s\n", err->message);
    return 2;
  }
  probe (pipe, "stamp", stamp);
  metering = probe (pipe, "meter", meter);
  bus = gst_element_get_bus (pipe);
  if (hold) {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), hold);

    if (e == NULL) {
      fprintf (stderr, "net-probe: no element %s to hold for\n", hold);
      return 2;
    }
    held = TRUE;
    g_signal_connect (e, "client-added", G_CALLBACK (client_added), NULL);
    g_signal_connect (e, "client-removed", G_CALLBACK (client_removed), NULL);
    gst_object_unref (e);
    /* a live source makes nothing while paused; the sink listens */
    gst_element_set_state (pipe, GST_STATE_PAUSED);
  } else
    gst_element_set_state (pipe, GST_STATE_PLAYING);
  start = now_ns ();
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    guint64 now = now_ns ();

    if (held && g_atomic_int_get (&clients) > 0) {
      gst_element_set_state (pipe, GST_STATE_PLAYING);
      held = FALSE;
    }
    if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS && hold) {
      gst_message_unref (m);
      m = NULL;
      ended = TRUE;
    }
    if (ended && g_atomic_int_get (&clients) == 0)
      break;
    if (m) {
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        gst_message_parse_error (m, &err, NULL);
        fprintf (stderr, "net-probe: %s\n", err->message);
        rc = 1;
      }
      gst_message_unref (m);
      break;
    }
    if (n_frames && now - last_arrival > idle * 1e9)
      break;
    if (now - start > deadline * 1e9)
      break;
  }
  /* a sender's window ends with its stream, before the teardown */
  if (!metering && n_stamped)
    cpu_end = cpu_ns ();
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (metering && n_frames)
    cpu_end = cpu_win_last;
  if (n_lat) {
    qsort (lat, n_lat, sizeof (*lat), cmp_u64);
    p50 = lat[n_lat / 2];
    p99 = lat[(guint64) n_lat * 99 / 100];
  }
  printf ("frames=%u stamped=%u fps=%.1f p50_us=%.0f p99_us=%.0f cpu_s=%.3f "
      "cpu_win_s=%.4f\n", n_frames, n_stamped,
      n_frames > 1 ? (n_frames - 1) * 1e9 / (last_arrival -
          first_arrival) : 0.0, p50 / 1e3, p99 / 1e3, cpu_ns () / 1e9,
      cpu_end > cpu_win_start ? (cpu_end - cpu_win_start) / 1e9 : 0.0);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return rc;
}
