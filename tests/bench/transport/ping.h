/* What spin-ping (the ring alone) and iox-ping (iceoryx) share, so that the
 * two measure exactly the same way: the clock, pinning, the writer's pace
 * and the sort of the samples. */
#ifndef DORADMA_BENCH_PING_H
#define DORADMA_BENCH_PING_H

#include <sched.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Pins the calling process to `cpu` (-1: leaves it). */
static inline void
pin (int cpu)
{
  cpu_set_t set;

  if (cpu < 0)
    return;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  sched_setaffinity (0, sizeof set, &set);
}

/* Until CLOCK_MONOTONIC `next`: asleep (the core goes idle between frames,
 * as a camera's does) or, `busy`, polling the clock (the core stays hot). */
static inline void
pace_until (uint64_t next, int busy)
{
  if (busy) {
    while (now_ns () < next);
  } else {
    struct timespec ts = { next / 1000000000ull, next % 1000000000ull };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL));
  }
}

static inline int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

/* Prints the one JSON line of a run: the `n` samples of stamp -> delivered
 * (res[0..]) and publish -> delivered (res[iters..]) sorted into p50/p99,
 * then `extra` (more ", \"key\": value" fields, or ""). */
static inline void
print_samples (const char *kind, int iters, int n, int period_us,
    uint32_t size, int spin, int busy, uint64_t * res, const char *extra)
{
  qsort (res, n, sizeof *res, cmp_u64);
  qsort (res + iters, n, sizeof *res, cmp_u64);
  printf ("{\"kind\": \"%s\", \"iters\": %d, \"samples\": %d, "
      "\"period_us\": %d, \"size\": %u, \"wait\": \"%s\", \"pace\": \"%s\", "
      "\"e2e_p50\": %llu, \"e2e_p99\": %llu, \"pub_p50\": %llu, "
      "\"pub_p99\": %llu%s}\n", kind, iters, n, period_us, size,
      spin ? "spin" : "wait", busy ? "busy" : "sleep",
      (unsigned long long) res[(n - 1) / 2],
      (unsigned long long) res[(n - 1) * 99 / 100],
      (unsigned long long) res[iters + (n - 1) / 2],
      (unsigned long long) res[iters + (n - 1) * 99 / 100], extra);
}

#endif
