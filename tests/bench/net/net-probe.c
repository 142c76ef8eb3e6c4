/* Runs one gst-launch pipeline and measures it, for the network
 * comparison (compare.sh): an element named "stamp" gets each frame's
 * CLOCK_MONOTONIC send time written into its first 8 bytes; an element
 * named "meter" reads it back (both namespaces of a run share the clock)
 * and records the end-to-end latency. At the end it prints one line:
 *   frames=N fps=F p50_us=A p99_us=B cpu_s=C
 * (fps over the arrivals, cpu of this process). It stops at EOS, after
 * --idle seconds without a frame once frames came, or at --deadline.
 *   net-probe [--idle S] [--deadline S] PIPELINE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <gst/gst.h>

#define MAX_SAMPLES (1u << 20)

static guint64 *lat;
static guint n_frames, n_lat;
static guint64 first_arrival, last_arrival;

static guint64
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static GstPadProbeReturn
stamp (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  guint64 t = now_ns ();

  gst_buffer_fill (buf, 0, &t, sizeof (t));
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
meter (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 t = 0, now = now_ns ();

  if (gst_buffer_extract (buf, 0, &t, sizeof (t)) == sizeof (t)
      && t > 0 && t <= now && now - t < 10 * GST_SECOND && n_lat < MAX_SAMPLES)
    lat[n_lat++] = now - t;
  if (n_frames++ == 0)
    first_arrival = now;
  last_arrival = now;
  return GST_PAD_PROBE_OK;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
probe (GstElement * pipe, const char *name, GstPadProbeCallback cb)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GstPad *pad;

  if (e == NULL)
    return;
  pad = gst_element_get_static_pad (e, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, cb, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

int
main (int argc, char **argv)
{
  double idle = 2, deadline = 120;
  GError *err = NULL;
  GstElement *pipe;
  GstBus *bus;
  GString *desc = g_string_new (NULL);
  struct rusage ru;
  guint64 start, p50 = 0, p99 = 0;
  int i, rc = 0;

  gst_init (&argc, &argv);
  for (i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--idle") == 0 && i + 1 < argc)
      idle = atof (argv[++i]);
    else if (strcmp (argv[i], "--deadline") == 0 && i + 1 < argc)
      deadline = atof (argv[++i]);
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
  probe (pipe, "meter", meter);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  start = now_ns ();
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    guint64 now = now_ns ();

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
  gst_element_set_state (pipe, GST_STATE_NULL);
  getrusage (RUSAGE_SELF, &ru);
  if (n_lat) {
    qsort (lat, n_lat, sizeof (*lat), cmp_u64);
    p50 = lat[n_lat / 2];
    p99 = lat[(guint64) n_lat * 99 / 100];
  }
  printf ("frames=%u fps=%.1f p50_us=%.0f p99_us=%.0f cpu_s=%.3f\n",
      n_frames, n_frames > 1 ? (n_frames - 1) * 1e9 / (last_arrival -
          first_arrival) : 0.0, p50 / 1e3, p99 / 1e3,
      ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec +
          ru.ru_stime.tv_usec) / 1e6);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return rc;
}
