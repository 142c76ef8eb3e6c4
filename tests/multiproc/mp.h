/* Helpers for the multi-process tests: real gst-launch-1.0 producers and
 * consumers, their output in files, per-frame checksums compared byte for
 * byte (checksumsink prints "<running time> <sha1>" per buffer).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_TESTS_MP_H
#define DORADMA_TESTS_MP_H

#include <glib.h>
#include <sys/types.h>

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

typedef struct
{
  pid_t pid;
  gchar *out;                   /* stdout of the process */
  gchar *err;                   /* its stderr */
  int status;                   /* waitpid status once reaped */
  gboolean reaped;
} MpProc;

/* Checks the tools, sets up the environment, makes a unique channel name
 * "mp-<name>-<pid>". Exits 77 when a needed element is missing. */
void mp_init (const gchar * name, const gchar * const *needed_elements);
const gchar *mp_channel (void);
const gchar *mp_channel_n (guint n);    /* a second/third channel */

/* Starts `gst-launch-1.0 -m <pipeline>`; "%C" in the pipeline is replaced
 * by the channel name. */
MpProc *mp_launch (const gchar * pipeline);
/* Starts argv (NULL-terminated) with output to a file. */
MpProc *mp_spawn_argv (gchar ** argv);

/* Waits up to timeout_s; kills -9 past it. Returns the exit code, or -1 on
 * timeout / signal. */
int mp_wait (MpProc * p, gdouble timeout_s);
void mp_kill9 (MpProc * p);
/* TRUE while the process runs (never blocks, never kills). */
gboolean mp_alive (MpProc * p);
void mp_free (MpProc * p);

/* The whole output. */
gchar *mp_output (MpProc * p);
/* Lines printed by checksumsink, in order: the sha1 column. */
GPtrArray *mp_checksums (MpProc * p);
/* Runs a reference pipeline (no doradma) and returns its checksums. */
GPtrArray *mp_reference (const gchar * pipeline);
/* Value of `field` in the last element message `name` (e.g.
 * "doradmasink-stats", "copies"); G_MAXUINT64 when absent. */
guint64 mp_stat (MpProc * p, const gchar * name, const gchar * field);
/* Waits until checksumsink printed at least n lines (or timeout). */
gboolean mp_wait_lines (MpProc * p, guint n, gdouble timeout_s);
/* Waits for /dev/shm/doradma.<channel> to exist. */
gboolean mp_wait_channel (const gchar * channel, gdouble timeout_s);

/* TRUE when `sub` is a subsequence of `all` (same order). */
gboolean mp_is_subsequence (GPtrArray * sub, GPtrArray * all);
/* TRUE when equal; prints the first difference. */
gboolean mp_equal (GPtrArray * a, GPtrArray * b, const gchar * what);

/* Prints the output of p to stderr (on failure). */
void mp_dump (MpProc * p);

/* Nothing of our channels left in the shm directory (removes leftovers and
 * returns FALSE when there were some). */
gboolean mp_shm_clean (void);

#define MP_CHECK(cond, ...) G_STMT_START {                                 \
  if (!(cond)) {                                                            \
    g_printerr ("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);             \
    g_printerr (__VA_ARGS__);                                               \
    g_printerr ("\n");                                                      \
    goto err;                                                               \
  }                                                                         \
} G_STMT_END

#endif
