/* lib/atomic.h's primitives for lib's own C sources in the model build
 * (tests/relacy/real.cpp, DORADMA_ATOMIC_MODEL): every access goes to
 * model-cells.cpp, which keeps one Relacy atomic per shared word of the
 * segment, so that Relacy checks writer*.c, reader*.c, dora-pool.c and
 * futex.c as they are, with the memory order each call site gives. Only
 * 4- and 8-byte words are shared atomically (lib/atomic.h's asserts). */
#ifndef DORADMA_REAL_ATOMIC_H
#define DORADMA_REAL_ATOMIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
uint64_t model_atomic_load (const void *p, unsigned size, int mo);
void model_atomic_store (void *p, unsigned size, uint64_t v, int mo);
uint64_t model_atomic_fetch_or (void *p, unsigned size, uint64_t v, int mo);
uint64_t model_atomic_fetch_and (void *p, unsigned size, uint64_t v, int mo);
int model_atomic_cas (void *p, unsigned size, void *expected,
    uint64_t desired, int mo);
void model_atomic_fence (int mo);
#ifdef __cplusplus
}
#endif

#define dr_atomic_load(p, mo) \
  ((__typeof__ (*(p))) model_atomic_load ((p), sizeof (*(p)), (mo)))
#define dr_atomic_store(p, v, mo) \
  model_atomic_store ((void *) (p), sizeof (*(p)), (uint64_t) (v), (mo))
#define dr_atomic_fetch_or(p, v, mo) \
  ((__typeof__ (*(p))) model_atomic_fetch_or ((void *) (p), sizeof (*(p)), \
      (uint64_t) (v), (mo)))
#define dr_atomic_fetch_and(p, v, mo) \
  ((__typeof__ (*(p))) model_atomic_fetch_and ((void *) (p), \
      sizeof (*(p)), (uint64_t) (v), (mo)))
#define dr_atomic_cas(p, expected, desired, mo) \
  model_atomic_cas ((void *) (p), sizeof (*(p)), (expected), \
      (uint64_t) (desired), (mo))
#define dr_atomic_fence(mo) model_atomic_fence (mo)

#endif
