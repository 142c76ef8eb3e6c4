/* One scenario of a Relacy model run with the caller's parameters
 * (protocol.cpp: full search; real.cpp: random schedules), skipped unless
 * `only` is NULL or names it; prints "ok NAME" or "FAIL NAME: why".
 * Returns 0 or 1 (a failure to count). */
#ifndef DORADMA_RELACY_CHECK_H
#define DORADMA_RELACY_CHECK_H

#include <cstdio>
#include <cstring>

template < class T > static int
relacy_check (const char *name, const char *only, rl::test_params & p)
{
  if (only != NULL && strcmp (only, name) != 0)
    return 0;
  if (rl::simulate < T > (p)) {
    printf ("ok   %s (%llu executions)\n", name,
        (unsigned long long) p.stop_iteration);
    return 0;
  }
  printf ("FAIL %s: %s\n", name, rl::test_result_str (p.test_result));
  return 1;
}

#endif
