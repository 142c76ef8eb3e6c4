/* Helpers of the conformance tests (see conf.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "conf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gchar *dir;

gchar *
conf_expand (const gchar * text)
{
  gchar *s = g_strdup (text);

  for (guint i = 0; i < 3; i++) {
    gchar key[3] = { '%', "CDE"[i], 0 };
    gchar **parts = g_strsplit (s, key, -1);

    g_free (s);
    s = g_strjoinv (mp_channel_n (i), parts);
    g_strfreev (parts);
  }
  return s;
}

MpProc *
conf_app_as (const gchar * const *prefix, const gchar * const *opts,
    const gchar * pipeline)
{
  const gchar *app = g_getenv ("DORADMA_CONF_APP");
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  gchar *line;
  MpProc *p;

  g_assert (app != NULL);
  for (guint i = 0; prefix && prefix[i]; i++)
    g_ptr_array_add (argv, g_strdup (prefix[i]));
  g_ptr_array_add (argv, g_strdup (app));
  for (guint i = 0; opts && opts[i]; i++)
    g_ptr_array_add (argv, g_strdup (opts[i]));
  g_ptr_array_add (argv, conf_expand (pipeline));
  g_ptr_array_add (argv, NULL);
  p = mp_spawn_argv ((gchar **) argv->pdata);
  line = g_strjoinv ("' '", (gchar **) argv->pdata);
  g_print ("[%d] '%s'\n", (int) p->pid, line);
  g_free (line);
  g_ptr_array_unref (argv);
  return p;
}

MpProc *
conf_app (const gchar * const *opts, const gchar * pipeline)
{
  return conf_app_as (NULL, opts, pipeline);
}

GPtrArray *
conf_reference (const gchar * const *opts, const gchar * pipeline, guint n)
{
  MpProc *p = conf_app (opts, pipeline);
  int rc = mp_wait (p, 60);
  GPtrArray *a = mp_checksums (p);

  if (rc != 0 || a->len == 0 || (n > 0 && a->len != n)) {
    g_printerr ("FAIL: reference pipeline: exit %d, %u frames, expected "
        "%u\n", rc, a->len, n);
    mp_dump (p);
    g_clear_pointer (&a, g_ptr_array_unref);
  }
  mp_free (p);
  return a;
}

static void
clear_frame (gpointer data)
{
  g_free (((ConfFrame *) data)->sha1);
}

GArray *
conf_frames (MpProc * p)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (ConfFrame));
  gchar *s = mp_output (p), **lines = g_strsplit (s, "\n", -1);
  ConfFrame f = { 0 };
  gboolean have = FALSE;
  guint resumes = 0;

  g_array_set_clear_func (a, clear_frame);
  for (guint i = 0; lines[i]; i++) {
    gint64 n, pts, at;
    gint disc;
    guint64 lat, size;
    gchar hex[64];

    if (strcmp (lines[i], "resumed") == 0)
      resumes++;
    /* "frame ..." then, on the next line, "<time> <sha1>" */
    if (sscanf (lines[i], "frame n=%" G_GINT64_FORMAT " pts=%" G_GINT64_FORMAT
            " discont=%d latency=%" G_GUINT64_FORMAT " size=%" G_GUINT64_FORMAT
            " at=%" G_GINT64_FORMAT, &n, &pts, &disc, &lat, &size, &at) == 6) {
      f.pts = pts;
      f.discont = disc != 0;
      f.latency = lat;
      f.size = size;
      f.at = at;
      have = TRUE;
    } else if (have && sscanf (lines[i], "%*s %63s", hex) == 1) {
      f.sha1 = g_strdup (hex);
      f.resumes = resumes;
      g_array_append_val (a, f);
      have = FALSE;
    }
  }
  g_strfreev (lines);
  g_free (s);
  return a;
}

gchar *
conf_line (MpProc * p, const gchar * prefix)
{
  gchar *s = mp_output (p), **lines = g_strsplit (s, "\n", -1), *r = NULL;

  for (guint i = 0; lines[i] && r == NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      r = g_strdup (lines[i]);
  g_strfreev (lines);
  g_free (s);
  return r;
}

gchar *
conf_wait_line (MpProc * p, const gchar * prefix, gdouble timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  gchar *line;

  while ((line = conf_line (p, prefix)) == NULL && mp_alive (p) &&
      g_get_monotonic_time () < end)
    g_usleep (20000);
  /* it may have printed the line just before it ended */
  return line ? line : conf_line (p, prefix);
}

/* The nth (from 0) "sink-latency NS buffer N old-until=US" line with
 * NS > 0 (the pipeline configures it after the first buffers), if printed
 * yet. */
static gboolean
nth_sink_latency (MpProc * p, guint nth, guint64 * latency, guint64 * buffer,
    gint64 * old_until)
{
  gchar *s = mp_output (p), **lines = g_strsplit (s, "\n", -1);
  gboolean found = FALSE;
  guint seen = 0;

  for (guint i = 0; lines[i] && !found; i++)
    found = sscanf (lines[i], "sink-latency %" G_GUINT64_FORMAT " buffer %"
        G_GUINT64_FORMAT " old-until=%" G_GINT64_FORMAT, latency, buffer,
        old_until) == 3 && *latency > 0 && seen++ == nth;
  g_strfreev (lines);
  g_free (s);
  return found;
}

guint64
conf_producer_latency (MpProc * p, guint nth, gdouble timeout_s,
    guint64 * buffer)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  guint64 v, n;
  gint64 until;

  while (g_get_monotonic_time () < end) {
    if (nth_sink_latency (p, nth, &v, &n, &until)) {
      if (buffer)
        *buffer = n;
      return v;
    }
    if (!mp_alive (p))
      break;
    g_usleep (20000);
  }
  return G_MAXUINT64;
}

gint64
conf_producer_old_until (MpProc * p, guint nth)
{
  guint64 v, n;
  gint64 until;

  return nth_sink_latency (p, nth, &v, &n, &until) ? until : -1;
}

gboolean
conf_latency_is (GArray * frames, gsize size, guint from, guint to,
    guint64 want, const gchar * what)
{
  guint n = 0, checked = 0;

  for (guint i = 0; i < frames->len; i++) {
    ConfFrame *f = &g_array_index (frames, ConfFrame, i);

    if ((size && f->size != size) || ++n < from || (to && n > to))
      continue;
    checked++;
    if (f->latency != want) {
      g_printerr ("%s, frame %u: configured latency %.1f ms, expected %.1f "
          "ms\n", what, n, f->latency / 1e6, want / 1e6);
      return FALSE;
    }
  }
  if (checked < 3) {
    g_printerr ("%s: only %u frames in [%u, %u]\n", what, checked, from, to);
    return FALSE;
  }
  return TRUE;
}

gint
conf_index (GPtrArray * ref, const gchar * sha1)
{
  for (guint i = 0; i < ref->len; i++)
    if (strcmp (ref->pdata[i], sha1) == 0)
      return (gint) i;
  return -1;
}

int
conf_run (const gchar * const *argv, gdouble timeout_s)
{
  gchar *line = g_strjoinv (" ", (gchar **) argv);
  MpProc *p = mp_spawn_argv ((gchar **) argv);
  int rc;

  g_print ("[%d] %s\n", (int) p->pid, line);
  g_free (line);
  rc = mp_wait (p, timeout_s);
  if (rc != 0)
    mp_dump (p);
  mp_free (p);
  return rc;
}

const gchar *
conf_dir (void)
{
  if (dir == NULL) {
    dir = g_dir_make_tmp ("doradma-conf-XXXXXX", NULL);
    g_assert (dir);
  }
  return dir;
}

void
conf_cleanup (void)
{
  gchar *cmd;

  if (dir == NULL)
    return;
  cmd = g_strdup_printf ("rm -rf '%s'", dir);
  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", dir);
  g_free (cmd);
  g_clear_pointer (&dir, g_free);
}

int
conf_end (gboolean passed, guint n, ...)
{
  va_list ap;

  va_start (ap, n);
  for (guint i = 0; i < n; i++) {
    MpProc *p = va_arg (ap, MpProc *);

    if (!passed)
      mp_dump (p);
    mp_free (p);
  }
  va_end (ap);
  if (!mp_shm_clean () && passed) {
    g_printerr ("FAIL: objects of our channels were left in the shm "
        "directory\n");
    passed = FALSE;
  }
  conf_cleanup ();
  if (passed)
    g_print ("PASS\n");
  return passed ? T_EXIT_PASS : T_EXIT_FAIL;
}
