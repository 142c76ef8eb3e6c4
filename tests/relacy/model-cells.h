/* The scenarios' handle on model-cells.cpp. */
#ifndef DORADMA_MODEL_CELLS_H
#define DORADMA_MODEL_CELLS_H

#include <stdbool.h>

/* The threads of an iteration run modelled: model_begin () at the end of
 * before (), once the objects exist; model_end () at the start of after ()
 * drops every word's atomic, and the tear-down runs on plain atomics. */
void model_begin (void);
/* Makes lib's timed futex waits untimed until model_end: for scenarios
 * whose every wait must end by an event (a publish, a release, a join),
 * so that a lost wake-up is a deadlock rather than a slice that ends. */
void model_untimed_waits (bool on);
/* A wait then ends only by a wake (not spuriously): for a scenario that
 * checks what the wake itself tells. Spurious wake-ups stay on elsewhere:
 * a waiter that wakes without the waker's synchronisation is what lets a
 * weakened publish show. */
void model_no_spurious_wakeups (bool on);
/* Runs `hook` once, just before the next modelled fetch_or. Only a
 * reader calls one (its lease, its join's active bit): a scenario holds
 * a reader between the gen it sampled and its lease while the writer
 * moves on, an interleaving random schedules almost never reach. */
void model_before_fetch_or (void (*hook) (void));
/* At the start of before (): forgets what a failed iteration left (Relacy
 * re-runs the failing one to print its history). */
void model_reset (void);
void model_end (void);

/* Writes the call sites in lib of every modelled access so far, one
 * address (relative to the executable, the call's own byte) per line, for
 * addr2line (tests/relacy/reached.py). */
void model_sites_write (const char *path);

#endif
