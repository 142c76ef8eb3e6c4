/* Private: ring.h promises that no function changes the caller's errno.
 * Every public entry point that makes system calls starts with KEEP_ERRNO:
 * the caller's value is restored on every return path (after the return
 * value is computed). */
#ifndef DORADMA_KEEP_ERRNO_H
#define DORADMA_KEEP_ERRNO_H

#include <errno.h>

static inline void
keep_errno_restore (const int *saved)
{
  errno = *saved;
}

#define KEEP_ERRNO \
  const int keep_errno_saved \
      __attribute__ ((cleanup (keep_errno_restore), unused)) \
      = errno

#endif
