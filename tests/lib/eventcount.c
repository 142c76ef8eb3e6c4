/* Description: the eventcount word (lib/futex.c) as futex.h specifies it,
 * on a private word: a bump adds 2 and clears the sleeper bit; the sleeper
 * bit alone is not an event for a spinner; a wait whose snapshot is stale
 * returns at once, otherwise it sets the sleeper bit before sleeping; and a
 * bump wakes a sleeper at once (not at the end of its 5 s timeout).
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "futex.h"
#include "helpers.h"

#define MS 1000000ll

static uint32_t word;

static void *
sleeper (void *arg)
{
  uint64_t *took = arg, t0 = t_now_ns ();

  eventcount_wait (&word, 4, 5000 * MS);
  *took = t_now_ns () - t0;
  return NULL;
}

int
main (void)
{
  struct timespec ms50 = { 0, 50 * MS };
  pthread_t th;
  uint64_t took = 0;

  t_watchdog (60);
  word = 4;
  eventcount_bump (&word);
  T_CHECK (word == 6, "bump of 4: %u", word);
  word = 5;
  eventcount_bump (&word);
  T_CHECK (word == 6, "bump of 5 (a sleeper): %u", word);

  word = 5;
  T_CHECK (eventcount_spin (&word, 4, 2 * MS, NULL, NULL) == 0,
      "another waiter's sleeper bit counted as an event");
  word = 6;
  T_CHECK (eventcount_spin (&word, 4, 2 * MS, NULL, NULL) == 1,
      "a bump not seen by the spinner");

  word = 6;
  T_CHECK (eventcount_wait (&word, 4, 5000 * MS) == 0, "stale snapshot");
  T_CHECK (word == 6, "stale snapshot changed the word: %u", word);
  word = 4;
  T_CHECK (eventcount_wait (&word, 4, 1 * MS) == -ETIMEDOUT, "timeout");
  T_CHECK (word == 5, "the sleeper bit was not set: %u", word);

  /* The sleeper announces itself (bit 0) within 50 ms on any machine that
   * schedules it; if it has not, it returns at once (stale snapshot). */
  word = 4;
  pthread_create (&th, NULL, sleeper, &took);
  nanosleep (&ms50, NULL);
  eventcount_bump (&word);
  pthread_join (th, NULL);
  T_CHECK (took < 2500 * MS, "the bump did not wake the sleeper: it slept "
      "%llu ms", (unsigned long long) (took / MS));
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
