/* Private: liveness through OFD locks, never pid polling. The kernel drops
 * an OFD lock when the last fd of its open file description closes, kill -9
 * included, across PID namespaces and hidepid; F_OFD_GETLK tests it through
 * a read-only fd too. Classic F_SETLK locks are per process and vanish when
 * any fd on the file closes, so they are never used. */
#ifndef DORADMA_LIVENESS_H
#define DORADMA_LIVENESS_H

#include <stdint.h>
#include <sys/types.h>

/* Takes a write lock on byte `byte` without waiting. Returns 0, -EAGAIN when
 * another open file description holds it, or -errno. */
int ofd_trylock (int fd, off_t byte);
int ofd_unlock (int fd, off_t byte);
/* Returns 1 if someone other than this open file description holds a lock
 * on `byte`, 0 if nobody does, -errno on failure. */
int ofd_is_locked (int fd, off_t byte);

/* This process's start time in clock ticks since boot (/proc/self/stat
 * field 22, parsed after the last ')' since comm may contain anything);
 * 0 when unknown. Used in messages only. */
uint64_t process_start_time (void);

/* A random 64-bit token, never 0. */
uint64_t random_token (void);

#endif
