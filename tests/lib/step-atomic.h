/* lib/atomic.h's primitives with a test hook after each one, for
 * interleaving tests that compile lib's own sources (tests/lib/meson.build,
 * `interleave_tests`): included by lib/atomic.h when DORADMA_ATOMIC_MODEL
 * names this file. Each primitive does what the plain build does (the same
 * __atomic builtin with lib's memory order), then calls step_hook, which a
 * test sets to stop one thread at an exact statement of lib (a store to a
 * given word, the first release store after a point...) while another
 * thread runs lib's real functions. The interleaving is forced, so the
 * outcome does not depend on the scheduler or on timing. */
#ifndef DORADMA_STEP_ATOMIC_H
#define DORADMA_STEP_ATOMIC_H

#include <stdint.h>

enum step_op
{
  STEP_LOAD,
  STEP_STORE,
  STEP_RMW,
  STEP_FENCE,
};

/* op, the word (NULL for a fence), the value loaded or stored (the old
 * value for read-modify-writes), lib's memory order. NULL: no hook. */
extern void (*volatile step_hook) (enum step_op op, const void *p,
    uint64_t v, int mo);

static inline void
step_call (enum step_op op, const void *p, uint64_t v, int mo)
{
  void (*h) (enum step_op, const void *, uint64_t, int) = step_hook;

  if (h != NULL)
    h (op, p, v, mo);
}

#define dr_atomic_load(p, mo) __extension__ ({ \
      __typeof__ (*(p)) step_v_ = __atomic_load_n ((p), (mo)); \
      step_call (STEP_LOAD, (p), (uint64_t) step_v_, (mo)); \
      step_v_; })
#define dr_atomic_store(p, v, mo) __extension__ ({ \
      __atomic_store_n ((p), (v), (mo)); \
      step_call (STEP_STORE, (p), (uint64_t) (v), (mo)); })
#define dr_atomic_fetch_or(p, v, mo) __extension__ ({ \
      __typeof__ (*(p)) step_v_ = __atomic_fetch_or ((p), (v), (mo)); \
      step_call (STEP_RMW, (p), (uint64_t) step_v_, (mo)); \
      step_v_; })
#define dr_atomic_fetch_and(p, v, mo) __extension__ ({ \
      __typeof__ (*(p)) step_v_ = __atomic_fetch_and ((p), (v), (mo)); \
      step_call (STEP_RMW, (p), (uint64_t) step_v_, (mo)); \
      step_v_; })
#define dr_atomic_cas(p, expected, desired, mo) __extension__ ({ \
      int step_ok_ = __atomic_compare_exchange_n ((p), (expected), \
          (desired), 0, (mo), __ATOMIC_RELAXED); \
      step_call (STEP_RMW, (p), (uint64_t) * (expected), (mo)); \
      step_ok_; })
#define dr_atomic_fence(mo) __extension__ ({ \
      __atomic_thread_fence (mo); \
      step_call (STEP_FENCE, NULL, 0, (mo)); })

#endif
