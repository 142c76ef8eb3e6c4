/* Helpers for the multi-process tests (see mp.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "mp.h"
#include "../lib/steps.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static gchar *channels[4];
static gchar *tmpdir;
static guint n_files;

static const gchar *
shm_dir (void)
{
  const gchar *d = g_getenv ("DORADMA_SHM_DIR");

  return d && *d ? d : "/dev/shm";
}

void
mp_init (const gchar * name, const gchar * const *needed)
{
  const gchar *sys = g_getenv ("GST_PLUGIN_SYSTEM_PATH_1_0");
  const gchar *deadline;
  gchar *launch;
  guint i;

  /* the processes need the system plugins (videotestsrc, checksumsink) */
  if (sys && *sys == '\0')
    g_unsetenv ("GST_PLUGIN_SYSTEM_PATH_1_0");
  g_setenv ("GST_DEBUG_NO_COLOR", "1", TRUE);

  launch = g_find_program_in_path ("gst-launch-1.0");
  if (launch == NULL) {
    g_print ("SKIP: gst-launch-1.0 not found\n");
    exit (T_EXIT_SKIP);
  }
  g_free (launch);

  for (i = 0; needed && needed[i]; i++) {
    gchar *cmd = g_strdup_printf ("gst-inspect-1.0 --exists %s", needed[i]);
    gint st = 1;

    g_spawn_command_line_sync (cmd, NULL, NULL, &st, NULL);
    g_free (cmd);
    if (!g_spawn_check_wait_status (st, NULL)) {
      g_print ("SKIP: element %s not available\n", needed[i]);
      exit (T_EXIT_SKIP);
    }
  }

  for (i = 0; i < G_N_ELEMENTS (channels); i++)
    channels[i] = g_strdup_printf ("mp-%s-%d-%u", name, (int) getpid (), i);
  tmpdir = g_dir_make_tmp ("doradma-mp-XXXXXX", NULL);
  g_assert (tmpdir);
  /* below meson's timeout (tests/multiproc and tests/conformance set it) */
  deadline = g_getenv ("DORADMA_TEST_DEADLINE");
  t_deadline_arm (deadline && atoi (deadline) > 0 ? atoi (deadline) : 50);
}

const gchar *
mp_channel (void)
{
  return channels[0];
}

const gchar *
mp_channel_n (guint n)
{
  return channels[n];
}

MpProc *
mp_spawn_argv (gchar ** argv)
{
  MpProc *p = g_new0 (MpProc, 1);
  pid_t pid;

  p->out = g_strdup_printf ("%s/out-%u.txt", tmpdir, n_files);
  p->err = g_strdup_printf ("%s/err-%u.txt", tmpdir, n_files++);
  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0) {
    /* Separate files: the child's stdout is block-buffered, so a stderr
     * write into the same file could land inside a checksum line. */
    if (freopen (p->out, "w", stdout) == NULL ||
        freopen (p->err, "w", stderr) == NULL)
      _exit (127);
    execvp (argv[0], argv);
    _exit (127);
  }
  p->pid = pid;
  {
    gchar *cmd = g_strjoinv (" ", argv);

    t_child_add (pid, cmd);
    g_free (cmd);
  }
  return p;
}

MpProc *
mp_launch (const gchar * pipeline)
{
  gchar **parts, *expanded, *cmd;
  gchar **argv = NULL;
  MpProc *p;
  guint i;

  /* %C, %D, %E: channels 0, 1, 2 */
  expanded = g_strdup (pipeline);
  for (i = 0; i < 3; i++) {
    gchar key[3] = { '%', "CDE"[i], 0 };

    parts = g_strsplit (expanded, key, -1);
    g_free (expanded);
    expanded = g_strjoinv (channels[i], parts);
    g_strfreev (parts);
  }
  cmd = g_strdup_printf ("gst-launch-1.0 -m %s", expanded);
  if (!g_shell_parse_argv (cmd, NULL, &argv, NULL))
    g_error ("cannot parse %s", cmd);
  p = mp_spawn_argv (argv);
  t_step ("started %d: %s", (int) p->pid, cmd);
  g_strfreev (argv);
  g_free (cmd);
  g_free (expanded);
  return p;
}

int
mp_wait (MpProc * p, gdouble timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  t_waiting_for (p->pid);
  while (!p->reaped) {
    pid_t r = waitpid (p->pid, &p->status, WNOHANG);

    if (r == p->pid) {
      p->reaped = TRUE;
      break;
    }
    if (g_get_monotonic_time () > end) {
      g_printerr ("[%d] timed out after %.1f s, killing\n", (int) p->pid,
          timeout_s);
      mp_kill9 (p);
      t_waiting_for (0);
      return -1;
    }
    g_usleep (5000);
  }
  t_waiting_for (0);
  t_child_gone (p->pid);
  if (WIFEXITED (p->status))
    return WEXITSTATUS (p->status);
  return -1;
}

gboolean
mp_alive (MpProc * p)
{
  if (!p->reaped && waitpid (p->pid, &p->status, WNOHANG) == p->pid)
    p->reaped = TRUE;
  return !p->reaped;
}

void
mp_kill9 (MpProc * p)
{
  if (p->reaped)
    return;
  kill (p->pid, SIGKILL);
  waitpid (p->pid, &p->status, 0);
  p->reaped = TRUE;
  t_child_gone (p->pid);
}

void
mp_free (MpProc * p)
{
  if (p == NULL)
    return;
  mp_kill9 (p);
  g_free (p->out);
  g_free (p->err);
  g_free (p);
}

gchar *
mp_output (MpProc * p)
{
  gchar *out = NULL, *err = NULL, *s;

  if (!g_file_get_contents (p->out, &out, NULL, NULL))
    out = g_strdup ("");
  if (!g_file_get_contents (p->err, &err, NULL, NULL))
    err = g_strdup ("");
  /* stdout then stderr: checksum lines keep their order, warnings follow */
  s = g_strconcat (out, "\n", err, NULL);
  g_free (out);
  g_free (err);
  return s;
}

/* A checksumsink line "H:MM:SS.NNNNNNNNN <40 hex>". It is printed by one
 * g_print from the streaming thread, while gst-launch -m prints each bus
 * message in several pieces from the main thread: the checksum may follow
 * part of a message on the same line. So look at the last two tokens. */
static gboolean
is_checksum_line (const gchar * l, const gchar ** hex)
{
  const gchar *sp = strrchr (l, ' '), *ts;
  gsize n;

  if (sp == NULL || sp == l)
    return FALSE;
  n = strlen (sp + 1);
  if (n < 32)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isxdigit (sp[1 + i]))
      return FALSE;
  for (ts = sp; ts > l && ts[-1] != ' '; ts--);
  if (!g_ascii_isdigit (ts[0]) || sp - ts < 17 || ts[sp - ts - 10] != '.')
    return FALSE;
  for (const gchar * c = ts; c < sp; c++)
    if (!g_ascii_isdigit (*c) && *c != ':' && *c != '.')
      return FALSE;
  *hex = sp + 1;
  return TRUE;
}

static GPtrArray *
checksums_of (const gchar * text)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  gchar **lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i]; i++) {
    const gchar *hex;

    if (is_checksum_line (lines[i], &hex))
      g_ptr_array_add (a, g_strdup (hex));
  }
  g_strfreev (lines);
  return a;
}

GPtrArray *
mp_checksums (MpProc * p)
{
  gchar *s = mp_output (p);
  GPtrArray *a = checksums_of (s);

  g_free (s);
  return a;
}

gboolean
mp_wait_lines (MpProc * p, guint n, gdouble timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  gboolean got = FALSE;

  t_waiting_for (p->pid);
  while (!got && g_get_monotonic_time () < end) {
    GPtrArray *a = mp_checksums (p);

    got = a->len >= n;
    g_ptr_array_unref (a);
    if (!got)
      g_usleep (10000);
  }
  t_waiting_for (0);
  return got;
}

gboolean
mp_wait_channel (const gchar * channel, gdouble timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);
  gchar *path = g_strdup_printf ("%s/doradma.%s", shm_dir (), channel);
  gboolean ok = FALSE;

  while (g_get_monotonic_time () < end) {
    if (g_file_test (path, G_FILE_TEST_EXISTS)) {
      ok = TRUE;
      break;
    }
    g_usleep (5000);
  }
  g_free (path);
  return ok;
}

GPtrArray *
mp_reference (const gchar * pipeline)
{
  MpProc *p = mp_launch (pipeline);
  GPtrArray *a;
  int rc = mp_wait (p, 60);

  if (rc != 0)
    g_printerr ("reference pipeline exited %d\n", rc);
  a = mp_checksums (p);
  mp_free (p);
  return a;
}

guint64
mp_stat (MpProc * p, const gchar * name, const gchar * field)
{
  gchar *s = mp_output (p), *line = NULL, **lines;
  guint64 v = G_MAXUINT64;

  lines = g_strsplit (s, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (strstr (lines[i], name))
      line = lines[i];
  if (line) {
    gchar *key = g_strdup_printf (" %s=(", field), *at = strstr (line, key);

    if (at && (at = strchr (at, ')')))
      v = g_ascii_strtoull (at + 1, NULL, 10);
    g_free (key);
  }
  g_strfreev (lines);
  g_free (s);
  return v;
}

gboolean
mp_is_subsequence (GPtrArray * sub, GPtrArray * all)
{
  guint j = 0;

  for (guint i = 0; i < sub->len; i++) {
    while (j < all->len && strcmp (sub->pdata[i], all->pdata[j]) != 0)
      j++;
    if (j == all->len) {
      g_printerr ("frame %u (%s) is not in the reference (in order)\n", i,
          (gchar *) sub->pdata[i]);
      return FALSE;
    }
    j++;
  }
  return TRUE;
}

gboolean
mp_equal (GPtrArray * a, GPtrArray * b, const gchar * what)
{
  guint n = MIN (a->len, b->len);

  for (guint i = 0; i < n; i++) {
    if (strcmp (a->pdata[i], b->pdata[i]) != 0) {
      g_printerr ("%s: frame %u differs: %s vs %s\n", what, i,
          (gchar *) a->pdata[i], (gchar *) b->pdata[i]);
      return FALSE;
    }
  }
  if (a->len != b->len) {
    g_printerr ("%s: %u frames vs %u\n", what, a->len, b->len);
    return FALSE;
  }
  return TRUE;
}

gboolean
mp_shm_clean (void)
{
  gboolean clean = TRUE;
  GDir *d = g_dir_open (shm_dir (), 0, NULL);
  const gchar *name;

  if (d == NULL)
    return TRUE;
  while ((name = g_dir_read_name (d))) {
    for (guint i = 0; i < G_N_ELEMENTS (channels); i++) {
      gchar *prefix = g_strdup_printf ("doradma.%s", channels[i]);

      if (g_str_equal (name, prefix) || (g_str_has_prefix (name, prefix)
              && name[strlen (prefix)] == '~')) {
        gchar *path = g_build_filename (shm_dir (), name, NULL);

        g_printerr ("left in %s: %s\n", shm_dir (), name);
        unlink (path);
        g_free (path);
        clean = FALSE;
      }
      g_free (prefix);
    }
  }
  g_dir_close (d);

  /* our scratch files */
  if (tmpdir) {
    gchar *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);

    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", tmpdir);
    g_free (cmd);
  }
  return clean;
}

void
mp_dump (MpProc * p)
{
  gchar *s;

  if (p == NULL)
    return;
  s = mp_output (p);
  g_printerr ("---- output of [%d] ----\n%s\n----\n", (int) p->pid, s);
  g_free (s);
}
