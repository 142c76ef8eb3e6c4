/* lib/atomic.h's primitives mapped onto Relacy Race Detector's atomics
 * (relacy-dev): included by lib/atomic.h when DORADMA_ATOMIC_MODEL names
 * this file. The memory orders are lib's own __ATOMIC_* arguments, passed
 * through: GCC's __ATOMIC_RELAXED..__ATOMIC_SEQ_CST are 0..5, the same
 * numbers as rl::mo_relaxed..rl::mo_seq_cst (checked below). A shared word
 * is a plain integer in lib; in the model the same object is an
 * rl::atomic<T> of the same size, reached through the pointer lib passes. */
#ifndef DORADMA_MODEL_ATOMIC_H
#define DORADMA_MODEL_ATOMIC_H

#include <relacy/relacy.hpp>
#include <type_traits>

static_assert (__ATOMIC_RELAXED == rl::mo_relaxed
    && __ATOMIC_ACQUIRE == rl::mo_acquire
    && __ATOMIC_RELEASE == rl::mo_release
    && __ATOMIC_ACQ_REL == rl::mo_acq_rel
    && __ATOMIC_SEQ_CST == rl::mo_seq_cst, "memory order numbering");

template < class T > static inline rl::atomic < T > &
model_cell (const T * p)
{
  static_assert (sizeof (rl::atomic < T >) >= sizeof (T), "cell size");
  return *reinterpret_cast < rl::atomic < T > *>(const_cast < T * >(p));
}

#define model_mo(mo) static_cast < rl::memory_order > (mo)
#define dr_atomic_load(p, mo) model_cell (p).load (model_mo (mo), $)
#define dr_atomic_store(p, v, mo) model_cell (p).store ((v), model_mo (mo), $)
#define dr_atomic_fetch_or(p, v, mo) \
  model_cell (p).fetch_or ((v), model_mo (mo), $)
#define dr_atomic_fetch_and(p, v, mo) \
  model_cell (p).fetch_and ((v), model_mo (mo), $)
#define dr_atomic_cas(p, expected, desired, mo) \
  model_cell (p).compare_exchange_strong (*(expected), (desired), \
      model_mo (mo), $, rl::mo_relaxed, $)
#define dr_atomic_fence(mo) rl::atomic_thread_fence (model_mo (mo), $)

#endif
