/* futex-floor — the raw cross-process futex wake latency: the floor a
 * sleeping consumer can reach.
 *
 * Two processes (fork) share one page (MAP_SHARED, no FUTEX_PRIVATE_FLAG,
 * so the kernel keys the futex by inode/offset like a /dev/shm segment).
 * The child (the "consumer") sleeps in FUTEX_WAIT on a word; the parent (the
 * "producer"), once the child announced it is about to sleep and a further
 * `period` has passed (so the child really sleeps, like a consumer between
 * frames), writes a CLOCK_MONOTONIC stamp, bumps the word and FUTEX_WAKEs.
 * The child reads the clock as soon as it runs again: latency = now - stamp.
 *
 *   futex-floor [iterations] [period_us] [timeout_ns]   -> one JSON line
 *
 * timeout_ns (default 0: none): the sleeper's FUTEX_WAIT carries this
 * timeout, as a doradma reader's wait does (its 100 ms liveness slice), so
 * that the kernel arms and cancels a timer around every sleep.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared
{
  _Alignas (64) uint32_t word;  /* the futex */
    _Alignas (64) uint32_t armed;       /* child is about to wait for word == armed-1 */
    _Alignas (64) uint64_t stamp;
  uint64_t lat[];
};

static uint64_t
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static long
futex (uint32_t * uaddr, int op, uint32_t val, const struct timespec *ts)
{
  return syscall (SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static int
cmp (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1000;
  long period_us = argc > 2 ? atol (argv[2]) : 2000;
  long long timeout_ns = argc > 3 ? atoll (argv[3]) : 0;
  struct timespec tmo = { timeout_ns / 1000000000, timeout_ns % 1000000000 };
  size_t sz = sizeof (struct shared) + (size_t) n * sizeof (uint64_t);
  struct shared *sh = mmap (NULL, sz, PROT_READ | PROT_WRITE,
      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t pid;
  int i;

  if (sh == MAP_FAILED || n < 10) {
    perror ("mmap");
    return 1;
  }
  memset (sh, 0, sz);
  pid = fork ();
  if (pid == 0) {
    for (i = 0; i < n; i++) {
      uint32_t v = (uint32_t) i;
      __atomic_store_n (&sh->armed, (uint32_t) i + 1, __ATOMIC_SEQ_CST);
      while (__atomic_load_n (&sh->word, __ATOMIC_ACQUIRE) == v)
        futex (&sh->word, FUTEX_WAIT, v, timeout_ns > 0 ? &tmo : NULL);
      uint64_t now = mono_ns ();
      sh->lat[i] = now - __atomic_load_n (&sh->stamp, __ATOMIC_ACQUIRE);
    }
    _exit (0);
  }
  for (i = 0; i < n; i++) {
    struct timespec ts = { period_us / 1000000, (period_us % 1000000) * 1000 };
    while (__atomic_load_n (&sh->armed, __ATOMIC_ACQUIRE) != (uint32_t) i + 1)
      usleep (50);
    nanosleep (&ts, NULL);
    __atomic_store_n (&sh->stamp, mono_ns (), __ATOMIC_RELEASE);
    __atomic_store_n (&sh->word, (uint32_t) i + 1, __ATOMIC_RELEASE);
    futex (&sh->word, FUTEX_WAKE, 1, NULL);
  }
  waitpid (pid, NULL, 0);
  {
    /* CPU per wake of each side: what sleeping and waking costs by itself
     * (the sleeper: RUSAGE_CHILDREN; the waker: RUSAGE_SELF, which includes
     * its nanosleep per period, like a paced producer) */
    struct rusage rc, rs;
    getrusage (RUSAGE_CHILDREN, &rc);
    getrusage (RUSAGE_SELF, &rs);
    double c_us = (rc.ru_utime.tv_sec + rc.ru_stime.tv_sec) * 1e6 +
        rc.ru_utime.tv_usec + rc.ru_stime.tv_usec;
    double s_us = (rs.ru_utime.tv_sec + rs.ru_stime.tv_sec) * 1e6 +
        rs.ru_utime.tv_usec + rs.ru_stime.tv_usec;
    printf ("{\"sleeper_cpu_us\": %.2f, \"waker_cpu_us\": %.2f, ",
        c_us / n, s_us / n);
  }
  {
    int skip = n / 20;          /* warm-up */
    int m = n - skip;
    uint64_t *v = sh->lat + skip;
    qsort (v, m, sizeof *v, cmp);
#define P(p) v[(int) ((p) * (m - 1) + 0.5)]
    printf ("\"n\": %d, \"period_us\": %ld, \"timeout_ns\": %lld, "
        "\"min\": %lu, \"p50\": %lu, \"p95\": %lu, \"p99\": %lu, "
        "\"max\": %lu}\n", m, period_us, timeout_ns,
        (unsigned long) v[0], (unsigned long) P (0.5), (unsigned long) P (0.95),
        (unsigned long) P (0.99), (unsigned long) v[m - 1]);
  }
  return 0;
}
