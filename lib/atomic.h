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

#define dr_load_relaxed(p) __atomic_load_n ((p), __ATOMIC_RELAXED)
#define dr_load_acquire(p) __atomic_load_n ((p), __ATOMIC_ACQUIRE)
#define dr_store_relaxed(p, v) __atomic_store_n ((p), (v), __ATOMIC_RELAXED)
#define dr_store_release(p, v) __atomic_store_n ((p), (v), __ATOMIC_RELEASE)
#define dr_fetch_or_relaxed(p, v) __atomic_fetch_or ((p), (v), __ATOMIC_RELAXED)
#define dr_fetch_and_release(p, v) __atomic_fetch_and ((p), (v), __ATOMIC_RELEASE)
#define dr_fetch_and_relaxed(p, v) __atomic_fetch_and ((p), (v), __ATOMIC_RELAXED)
#define dr_cas_release(p, expected, desired) \
  __atomic_compare_exchange_n ((p), (expected), (desired), 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
#define dr_cas_relaxed(p, expected, desired) \
  __atomic_compare_exchange_n ((p), (expected), (desired), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
/* Full barrier (DMB ISH / MFENCE): orders earlier stores before later loads. */
#define dr_fence_full() __atomic_thread_fence (__ATOMIC_SEQ_CST)
#define dr_fence_acquire() __atomic_thread_fence (__ATOMIC_ACQUIRE)
#define dr_fence_release() __atomic_thread_fence (__ATOMIC_RELEASE)

#endif
