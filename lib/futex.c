/* Shared futex eventcounts; see futex.h. */
#include "futex.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "cpu-relax.h"

static long
futex (uint32_t * uaddr, int op, uint32_t val, const struct timespec *ts)
{
  return syscall (SYS_futex, uaddr, op, val, ts, NULL, 0);
}

uint64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

void
eventcount_bump (uint32_t * shm_word)
{
  uint32_t old = dr_load_relaxed (shm_word);

  /* RELEASE pairs with the sleeper's ACQUIRE snapshot. */
  while (!dr_cas_release (shm_word, &old, (old + 2) & ~1u));
  if (old & 1)
    futex (shm_word, FUTEX_WAKE, INT_MAX, NULL);
}

uint32_t
eventcount_snapshot (const uint32_t * shm_word)
{
  return dr_load_acquire (shm_word);
}

int
eventcount_wait (uint32_t * shm_word, uint32_t snapshot, int64_t timeout_ns)
{
  struct timespec ts, *tsp = NULL;
  uint32_t expected = snapshot;

  if (!(snapshot & 1)) {
    /* Announce the sleeper in the same word the bumper CASes: if the bump
     * came first the CAS fails and we do not sleep. */
    if (!dr_cas_relaxed (shm_word, &expected, snapshot | 1))
      return 0;
  }
  if (timeout_ns >= 0) {
    ts.tv_sec = timeout_ns / 1000000000;
    ts.tv_nsec = timeout_ns % 1000000000;
    tsp = &ts;
  }
  if (futex (shm_word, FUTEX_WAIT, snapshot | 1, tsp) == 0)
    return 0;
  switch (errno) {
    case EAGAIN:               /* the word moved: an event happened */
      return 0;
    case ETIMEDOUT:
      return -ETIMEDOUT;
    default:
      return -EINTR;
  }
}

int
eventcount_spin (const uint32_t * shm_word, uint32_t snapshot,
    uint64_t spin_ns, const int *stop, const int *stop2)
{
  uint64_t start = monotonic_ns ();
  unsigned i;

  for (;;) {
    /* Reading the clock costs ~20-50 ns even through the vDSO; a pause
     * costs 10-140 cycles: check the deadline every 16 polls. */
    for (i = 0; i < 16; i++) {
      /* The sleeper bit does not count as a move (another reader of the
       * same word may have gone to sleep meanwhile). */
      if ((dr_load_acquire (shm_word) | 1u) != (snapshot | 1u))
        return 1;
      if ((stop != NULL && __atomic_load_n (stop, __ATOMIC_ACQUIRE)) ||
          (stop2 != NULL && __atomic_load_n (stop2, __ATOMIC_ACQUIRE)))
        return 0;
      cpu_relax ();
    }
    if (monotonic_ns () - start >= spin_ns)
      return 0;
  }
}

void
eventcount_wake_all (uint32_t * shm_word)
{
  futex (shm_word, FUTEX_WAKE, INT_MAX, NULL);
}
