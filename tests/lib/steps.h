/* Description: a multi-process test's steps and children, for the report
 * of its own deadline (t_watchdog, helpers.h; the Python twin is
 * tests/dora/steps.py). t_step prints each step as it starts (stderr is
 * unbuffered; t_watchdog makes stdout line-buffered), so a hang shows how
 * far it got. t_child_add records a child with what it runs (t_fork does
 * it), t_waiting_for names the child the test blocks on (t_wait does it).
 * When the watchdog fires, t_deadline_report prints the step, the awaited
 * child and every recorded child still alive (pid, command), and kills
 * them; their objects are in the test's private directory, which
 * tests/isolate.sh removes.
 */
#ifndef DORADMA_TEST_STEPS_H
#define DORADMA_TEST_STEPS_H

#include <sys/types.h>

void t_step (const char *fmt, ...) __attribute__((format (printf, 1, 2)));
void t_child_add (pid_t pid, const char *what);
void t_child_gone (pid_t pid);
void t_waiting_for (pid_t pid); /* 0: no child */

/* The test's deadline: after `seconds` times $DORADMA_TEST_TIME_SCALE
 * (default 1; the sanitizer runs set it to meson's --timeout-multiplier),
 * SIGALRM reports as below and exits 1. Also makes stdout line-buffered:
 * meson reads a pipe, and a hang must show what was done before it. */
void t_deadline_arm (unsigned seconds);
/* What the deadline prints and kills (async-signal-safe). */
void t_deadline_report (unsigned seconds);

#endif
