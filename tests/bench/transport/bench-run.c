/* bench-run — runs one gst-launch style pipeline to its end and prints one
 * JSON line: the "report" of elements named src / sink (benchstampsrc /
 * benchstampsink), and the "stats" structure of elements named tx / rx
 * (doradmasink / doradmasrc / shmsink), plus the process's total rusage.
 *
 *   bench-run [--timeout SEC] [--error-is-end] PIPELINE...
 *
 * --error-is-end: an ERROR after frames flowed counts as the end of stream
 * (shmsrc reports the producer's exit as "Control socket has closed": shm
 * carries no EOS).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void
print_str_prop (GstElement * pipe, const char *name, const char *prop,
    const char *key, gboolean * first)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  gchar *s = NULL;
  if (!e)
    return;
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (e), prop))
    g_object_get (e, prop, &s, NULL);
  if (s) {
    printf ("%s\"%s\": %s", *first ? "" : ", ", key, s);
    *first = FALSE;
  }
  g_free (s);
  gst_object_unref (e);
}

static void
print_stats (GstElement * pipe, const char *name, gboolean * first)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  GParamSpec *ps;
  if (!e)
    return;
  ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "stats");
  if (ps && G_PARAM_SPEC_VALUE_TYPE (ps) == GST_TYPE_STRUCTURE) {
    GstStructure *st = NULL;
    g_object_get (e, "stats", &st, NULL);
    if (st) {
      gchar *s = gst_structure_to_string (st);
      gchar *q = g_strescape (s, NULL);
      printf ("%s\"%s_stats\": \"%s\"", *first ? "" : ", ", name, q);
      *first = FALSE;
      g_free (q);
      g_free (s);
      gst_structure_free (st);
    }
  }
  printf ("%s\"%s_factory\": \"%s\"", *first ? "" : ", ", name,
      GST_OBJECT_NAME (gst_element_get_factory (e)));
  *first = FALSE;
  gst_object_unref (e);
}

int
main (int argc, char **argv)
{
  GstElement *pipe;
  GstBus *bus;
  GError *err = NULL;
  gboolean error_is_end = FALSE, first = TRUE, ok = TRUE;
  double timeout = 60;
  gchar *desc, *errmsg = NULL;
  int i = 1;
  struct rusage ru;
  GstClockTime deadline;

  gst_init (&argc, &argv);
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
    if (!strcmp (argv[i], "--timeout") && i + 1 < argc)
      timeout = atof (argv[++i]);
    else if (!strcmp (argv[i], "--error-is-end"))
      error_is_end = TRUE;
    else
      break;
  }
  if (i >= argc) {
    fprintf (stderr,
        "usage: bench-run [--timeout S] [--error-is-end] PIPELINE\n");
    return 2;
  }
  desc = g_strjoinv (" ", argv + i);
  pipe = gst_parse_launch (desc, &err);
  if (!pipe) {
    fprintf (stderr, "bench-run: parse: %s\n", err->message);
    printf ("{\"ok\": false, \"error\": \"parse\"}\n");
    return 1;
  }
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  deadline = (GstClockTime) (timeout * GST_SECOND);
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, deadline,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (!m) {
      ok = FALSE;
      errmsg = g_strdup ("timeout");
      break;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (m, &e, &dbg);
      errmsg = g_strdup_printf ("%s: %s (%s)", GST_OBJECT_NAME (m->src),
          e->message, dbg ? dbg : "");
      if (!error_is_end)
        ok = FALSE;
      fprintf (stderr, "bench-run: %s\n", errmsg);
      g_error_free (e);
      g_free (dbg);
    }
    gst_message_unref (m);
    break;
  }
  /* reports before teardown (src/sink windows are closed at EOS/stop) */
  printf ("{");
  print_str_prop (pipe, "src", "report", "src", &first);
  print_stats (pipe, "tx", &first);
  print_stats (pipe, "rx", &first);
  gst_element_set_state (pipe, GST_STATE_NULL);
  print_str_prop (pipe, "sink", "report", "sink", &first);
  getrusage (RUSAGE_SELF, &ru);
  printf ("%s\"proc_user_us\": %ld, \"proc_sys_us\": %ld, \"maxrss_kb\": %ld",
      first ? "" : ", ", ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
      ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec, ru.ru_maxrss);
  if (errmsg) {
    gchar *q = g_strescape (errmsg, NULL);
    printf (", \"error\": \"%s\"", q);
    g_free (q);
  }
  printf (", \"ok\": %s}\n", ok ? "true" : "false");
  fflush (stdout);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (errmsg);
  return ok ? 0 : 1;
}
