/* Private: the barrier vocabulary of lib/, over GCC/Clang __atomic builtins.
 * Shared fields stay plain integers in layout.h; only the accesses are atomic.
 * Every call site names the operation it pairs with. Never lean on x86's
 * strong ordering: Jetson is aarch64, where an "acquire" load may compile to
 * LDAPR and is not ordered after an earlier release store. Where a store must
 * be ordered before a later load (Dekker shape), use dr_fence_full(). */
#ifndef DORADMA_ATOMIC_H
#define DORADMA_ATOMIC_H

#include <stdint.h>

_Static_assert (__atomic_always_lock_free (8, 0), "cross-process u64 atomics must be lock-free");
_Static_assert (__atomic_always_lock_free (4, 0), "cross-process u32 atomics must be lock-free");

/* The primitives. A model checker's build (tests/relacy) defines
 * DORADMA_ATOMIC_MODEL to a header giving its own, so that it checks the
 * orderings written below and at every call site, not a copy of them. */
#ifdef DORADMA_ATOMIC_MODEL
#include DORADMA_ATOMIC_MODEL
#else
#define dr_atomic_load(p, mo) __atomic_load_n ((p), (mo))
#define dr_atomic_store(p, v, mo) __atomic_store_n ((p), (v), (mo))
#define dr_atomic_fetch_or(p, v, mo) __atomic_fetch_or ((p), (v), (mo))
#define dr_atomic_fetch_and(p, v, mo) __atomic_fetch_and ((p), (v), (mo))
#define dr_atomic_cas(p, expected, desired, mo) \
  __atomic_compare_exchange_n ((p), (expected), (desired), 0, (mo), \
      __ATOMIC_RELAXED)
#define dr_atomic_fence(mo) __atomic_thread_fence (mo)
#endif

#define dr_load_relaxed(p) dr_atomic_load ((p), __ATOMIC_RELAXED)
#define dr_load_acquire(p) dr_atomic_load ((p), __ATOMIC_ACQUIRE)
#define dr_store_relaxed(p, v) dr_atomic_store ((p), (v), __ATOMIC_RELAXED)
#define dr_store_release(p, v) dr_atomic_store ((p), (v), __ATOMIC_RELEASE)
#define dr_fetch_or_relaxed(p, v) dr_atomic_fetch_or ((p), (v), __ATOMIC_RELAXED)
#define dr_fetch_or_release(p, v) dr_atomic_fetch_or ((p), (v), __ATOMIC_RELEASE)
#define dr_fetch_and_release(p, v) dr_atomic_fetch_and ((p), (v), __ATOMIC_RELEASE)
#define dr_fetch_and_relaxed(p, v) dr_atomic_fetch_and ((p), (v), __ATOMIC_RELAXED)
#define dr_cas_release(p, expected, desired) \
  dr_atomic_cas ((p), (expected), (desired), __ATOMIC_RELEASE)
#define dr_cas_relaxed(p, expected, desired) \
  dr_atomic_cas ((p), (expected), (desired), __ATOMIC_RELAXED)

/* Full barrier (DMB ISH / MFENCE): orders earlier stores before later loads. */
#define dr_fence_full() dr_atomic_fence (__ATOMIC_SEQ_CST)
#define dr_fence_acquire() dr_atomic_fence (__ATOMIC_ACQUIRE)
#define dr_fence_release() dr_atomic_fence (__ATOMIC_RELEASE)

#endif
