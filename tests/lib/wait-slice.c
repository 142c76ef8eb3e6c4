/* Description: wait_slice (lib/futex.h), the sleep the three waits of the
 * library allow themselves, is the slice cut to what is left of the
 * timeout, and never negative (review #21): eventcount_wait sleeps forever
 * on a negative timeout, so a caller past its deadline must get 0.
 */
#include "futex.h"
#include "helpers.h"

#define MS 1000000ll

int
main (void)
{
  const uint64_t start = 1000 * MS;

  T_CHECK (wait_slice (start, start, 500 * MS, 100 * MS) == 100 * MS, "full");
  T_CHECK (wait_slice (start, start + 450 * MS, 500 * MS, 100 * MS) == 50 * MS,
      "cut to the 50 ms left");
  T_CHECK (wait_slice (start, start, -1, 100 * MS) == 100 * MS, "no timeout");
  T_CHECK (wait_slice (start, start + 500 * MS, 500 * MS, 100 * MS) == 0,
      "at the deadline");
  T_CHECK (wait_slice (start, start + 700 * MS, 500 * MS, 100 * MS) == 0,
      "past the deadline: %lld", (long long) wait_slice (start,
          start + 700 * MS, 500 * MS, 100 * MS));
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
