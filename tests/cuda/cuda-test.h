/* doradma — helpers for the CUDA tests (tests/cuda/).
 *
 * Exit codes follow liburing/Meson: 0 pass, 1 fail, 77 skip. A test that
 * cannot run prints "SKIP: <what is missing>" and exits 77; it never passes
 * silently. Kernels come from cuda/kernels/test-kernels.cu, loaded through
 * the driver API; the CPU versions here must match them.
 */
#ifndef DORADMA_TESTS_CUDA_TEST_H
#define DORADMA_TESTS_CUDA_TEST_H

#include <stdint.h>
#include <stdio.h>

#include "doradma-cuda.h"

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

#define T_ROW 4096u

/* On failure: print where and why, then goto err. */
#define T_CHECK(cond, ...) do { \
    if (!(cond)) { \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr); \
      goto err; \
    } \
  } while (0)

/* Opens device 0. Returns T_EXIT_PASS with *dev set, or T_EXIT_SKIP after
 * printing "SKIP: ..." naming what is missing (no CUDA build, no
 * libcuda.so.1, no device), or T_EXIT_FAIL. */
int t_cuda_open (struct doradma_cuda_device **dev);

/* Also loads the test kernels: T_EXIT_SKIP when built without nvcc. */
int t_cuda_open_with_kernels (struct doradma_cuda_device **dev);

/* CPU twins of the kernels. */
void t_cpu_fill (uint8_t * dst, uint64_t n, uint32_t seed);
uint64_t t_cpu_hash (const uint8_t * p, uint64_t n);

/* dr_fill over [dptr, dptr+n) and wait. Returns 0 or -1 (printed). */
int t_gpu_fill (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    uint32_t seed);

/* Hashes [dptr, dptr+n) in T_ROW rows on the GPU (n a multiple of T_ROW)
 * and compares with the CPU hash of `expect` (n bytes). Returns 0, or -1
 * after printing the first differing row. */
int t_gpu_check (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    const uint8_t * expect);

/* Same with pattern `seed` as the expectation. */
int t_gpu_check_pattern (struct doradma_cuda_device *dev, uint64_t dptr,
    uint64_t n, uint32_t seed);

/* Compares host bytes with pattern `seed`. Returns 0 or -1 (printed). */
int t_cpu_check_pattern (const uint8_t * p, uint64_t n, uint32_t seed);

/* Runs fn () in a forked child (stdio flushed on both sides) and returns
 * its exit status, or T_EXIT_FAIL if it died. */
int t_run_child (int (*fn) (void), const char *what);

/* Prints the device's attributes (for docs/gpu-validation.md). */
void t_print_device (struct doradma_cuda_device *dev);

#endif
