/* doradma — helpers for the slab allocator tests (tests/allocator/).
 *
 * GPU tests are plain programs: 0 pass, 1 fail, 77 skip ("SKIP: <what is
 * missing>", never a silent pass), the tests/cuda convention; they reuse
 * tests/cuda's kernels and CPU twins. CPU tests (nocuda, probe) use
 * gst-check. The allocator lives in the plugin library with its own copy of
 * cuda/; device pointers are valid in both copies (one primary context per
 * device per process).
 */
#ifndef DORADMA_TESTS_ALLOC_TEST_H
#define DORADMA_TESTS_ALLOC_TEST_H

#include <gst/gst.h>

#include "cuda-test.h"
#include "gstdoradmaallocator.h"

/* A stats field (guint64) of a slab allocator. */
guint64 t_stat (GstAllocator * a, const char *field);

/* gst_doradma_slab_allocator_new, or exit 77 printing the reason when CUDA
 * is unavailable (exit 1 on any other error). */
GstAllocator *t_new_or_skip (GstDoradmaSlabKind kind, guint64 budget);

/* Number of entries in /sys/class/infiniband (0 when absent). */
guint t_rdma_device_count (void);

#endif
