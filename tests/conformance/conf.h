/* Helpers of the conformance tests, on top of tests/multiproc/mp.h: runs
 * conf-app (producer or consumer app; as a consumer, it prints the SHA-1 of
 * the visible bytes of every frame at the default layout) and reads what it
 * printed.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_TESTS_CONF_H
#define DORADMA_TESTS_CONF_H

#include "mp.h"

typedef struct
{
  gint64 pts;                   /* -1: none */
  gboolean discont;
  guint64 latency;              /* the appsink's configured latency then */
  gint64 at;                    /* CLOCK_MONOTONIC us after that read */
  gsize size;                   /* buffer size */
  gchar *sha1;
  guint resumes;                /* "resumed" lines printed before it */
} ConfFrame;

/* "%C", "%D", "%E" replaced by mp_channel_n (0, 1, 2). */
gchar *conf_expand (const gchar * text);
/* Starts conf-app with options (NULL-terminated, may be NULL) and a
 * pipeline (see conf-app.c). */
MpProc *conf_app (const gchar * const *opts, const gchar * pipeline);
/* The same, run through prefix (e.g. setpriv ... as another user). */
MpProc *conf_app_as (const gchar * const *prefix, const gchar * const *opts,
    const gchar * pipeline);
/* Runs conf-app (with opts) on a consumer pipeline without doradma; its
 * SHA-1s, or NULL (the reason printed) unless it ended well with n frames
 * (n = 0: any number but 0). */
GPtrArray *conf_reference (const gchar * const *opts, const gchar * pipeline,
    guint n);
/* The frames conf-app printed, in order (ConfFrame, freed with the
 * array). */
GArray *conf_frames (MpProc * p);
/* The first line of the output that starts with prefix (a copy), or NULL. */
gchar *conf_line (MpProc * p, const gchar * prefix);
/* Waits for a line starting with prefix (a copy); NULL when the process
 * ended or timeout_s passed without one. */
gchar *conf_wait_line (MpProc * p, const gchar * prefix, gdouble timeout_s);
/* A conf-app producer's configured latency: its nth (from 0) "sink-latency
 * NS buffer N" line with NS > 0 (a live pipeline configures it after its
 * first buffers; *buffer = N, may be NULL); G_MAXUINT64 when none came
 * within timeout_s. */
guint64 conf_producer_latency (MpProc * p, guint nth, gdouble timeout_s,
    guint64 * buffer);
/* The same line's old-until: until then (CLOCK_MONOTONIC us) the
 * producer's sink still had its previous latency; -1 when none. */
gint64 conf_producer_old_until (MpProc * p, guint nth);
/* Frames from..to (numbered from 1 among those of `size`; size 0: all; to
 * 0: to the end) had the configured latency `want`, and there are at least
 * 3 of them; else prints what differs. */
gboolean conf_latency_is (GArray * frames, gsize size, guint from, guint to,
    guint64 want, const gchar * what);
/* Index of sha1 in ref, or -1. */
gint conf_index (GPtrArray * ref, const gchar * sha1);
/* Runs argv to completion (output to files) and returns its exit code. */
int conf_run (const gchar * const *argv, gdouble timeout_s);
/* A private directory for files of this test (removed by conf_cleanup). */
const gchar *conf_dir (void);
void conf_cleanup (void);
/* The end of a test: the n processes that follow (MpProc *, NULL allowed)
 * are freed, their output printed first when it failed; our channels and
 * files removed (when it passed, leftovers fail it). Returns the exit code,
 * T_EXIT_PASS ("PASS" printed) or T_EXIT_FAIL. */
int conf_end (gboolean passed, guint n, ...);

#endif
