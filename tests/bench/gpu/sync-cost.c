/* What doradmasink's synchronise costs per frame after the GPU and the CPU
 * idled for one 60 fps period, and whether it waits for anything (issue 35,
 * Deliver 4; docs/bench/gpu-paced-20261204.md).
 *
 * The paced CUDA path's `prod` stage holds, after gpustampsrc's synchronous
 * 24-byte host-to-device copy, about 46 µs of doradmasink that unpaced are
 * 6 µs: gst_doradma_sink_cuda_pool_sync, a cuCtxSynchronize of device 0's
 * primary context when the frame's memory carries no stream. In that
 * benchmark gpustampsrc works in that same context (doradmasink answers
 * its context query). A cuMemcpyHtoD from pageable memory may return
 * before its DMA has landed (CUDA's API sync behaviour), so the sync may
 * be waiting for the frame, not idling. Each period this does the copy in
 * the primary context, then one variant, in turn (same conditions):
 *
 *   pageable-none / pinned-none     the copy alone
 *   pageable-ctx  / pinned-ctx      then cuCtxSynchronize (doradmasink today)
 *   pageable-poll / pinned-poll     then cuStreamQuery (NULL) until done:
 *                                   "pending" counts copies not yet landed
 *   push-pop                        push and pop the context alone
 *
 *   sync-cost [FRAMES [PERIOD_US]]      (defaults 700, 16666; 0: unpaced)
 *
 * One line per variant and figure: p50 / p90 / p99 / max µs.
 * Build: cc -O2 -I/usr/local/cuda/include sync-cost.c
 *   -L/usr/local/cuda/lib64/stubs -lcuda (libcuda.so.1 on the GPU machine).
 */
#define _GNU_SOURCE
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum
{ V_PAGEABLE_NONE, V_PAGEABLE_CTX, V_PAGEABLE_POLL, V_PINNED_NONE,
  V_PINNED_CTX, V_PINNED_POLL, V_PUSH_POP, N_VARIANTS
};

static const char *const variant_names[N_VARIANTS] = {
  "pageable-none", "pageable-ctx", "pageable-poll", "pinned-none",
  "pinned-ctx", "pinned-poll", "push-pop"
};

#define CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
      const char *s_ = NULL; cuGetErrorString (r_, &s_); \
      fprintf (stderr, "%s: %s\n", #call, s_ ? s_ : "?"); exit (1); } } while (0)

static double
now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
pct (double *v, int n, double p)
{
  int i = (int) (p * (n - 1) + 0.5);

  return n ? v[i] : 0;
}

static void
report (const char *name, const char *what, double *v, int n)
{
  qsort (v, n, sizeof (*v), cmp_double);
  printf ("%-14s %-6s n=%d p50=%.1f p90=%.1f p99=%.1f max=%.1f\n", name, what,
      n, pct (v, n, 0.5), pct (v, n, 0.9), pct (v, n, 0.99), n ? v[n - 1] : 0);
}

int
main (int argc, char **argv)
{
  int frames = argc > 1 ? atoi (argv[1]) : 700;
  long period_us = argc > 2 ? atol (argv[2]) : 16666;
  CUdevice dev;
  CUcontext primary, popped;
  CUdeviceptr slot;
  unsigned char pageable[24] = { 0 };
  unsigned char *pinned;
  double *op[N_VARIANTS], *copy[N_VARIANTS];
  int n[N_VARIANTS] = { 0 }, pending[N_VARIANTS] = { 0 };
  struct timespec next;
  int i, v;

  CHECK (cuInit (0));
  CHECK (cuDeviceGet (&dev, 0));
  CHECK (cuDevicePrimaryCtxRetain (&primary, dev));
  CHECK (cuCtxPushCurrent (primary));
  CHECK (cuMemAlloc (&slot, 1 << 20));  /* a slot's first bytes */
  CHECK (cuMemAllocHost ((void **) &pinned, 4096));
  CHECK (cuCtxPopCurrent (&popped));

  for (v = 0; v < N_VARIANTS; v++) {
    op[v] = calloc (frames, sizeof (double));
    copy[v] = calloc (frames, sizeof (double));
  }
  clock_gettime (CLOCK_MONOTONIC, &next);
  for (i = 0; i < frames + N_VARIANTS * 4; i++) {
    int warm = i < N_VARIANTS * 4, is_pinned, polls = 0;
    double t0, t1, t2;

    v = i % N_VARIANTS;
    is_pinned = v >= V_PINNED_NONE && v <= V_PINNED_POLL;
    if (period_us > 0) {
      next.tv_nsec += period_us * 1000;
      while (next.tv_nsec >= 1000000000L) {
        next.tv_nsec -= 1000000000L;
        next.tv_sec++;
      }
      clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    memcpy (is_pinned ? pinned : pageable, &i, sizeof (i));
    t0 = now_us ();
    /* gpustampsrc: a synchronous 24-byte copy in the shared context */
    CHECK (cuCtxPushCurrent (primary));
    if (v != V_PUSH_POP)
      CHECK (cuMemcpyHtoD (slot, is_pinned ? pinned : pageable, 24));
    CHECK (cuCtxPopCurrent (&popped));
    t1 = now_us ();
    switch (v) {
      case V_PAGEABLE_CTX:
      case V_PINNED_CTX:
        CHECK (cuCtxPushCurrent (primary));
        CHECK (cuCtxSynchronize ());
        CHECK (cuCtxPopCurrent (&popped));
        break;
      case V_PAGEABLE_POLL:
      case V_PINNED_POLL:{
        CUresult r;

        CHECK (cuCtxPushCurrent (primary));
        while ((r = cuStreamQuery (NULL)) == CUDA_ERROR_NOT_READY)
          polls++;
        CHECK (r);
        CHECK (cuCtxPopCurrent (&popped));
        break;
      }
      case V_PUSH_POP:
        CHECK (cuCtxPushCurrent (primary));
        CHECK (cuCtxPopCurrent (&popped));
        break;
      default:
        break;
    }
    t2 = now_us ();
    if (!warm) {
      copy[v][n[v]] = t1 - t0;
      op[v][n[v]++] = t2 - t1;
      pending[v] += polls > 0;
    }
  }
  printf ("frames=%d period_us=%ld (each variant every %d-th frame)\n",
      frames, period_us, N_VARIANTS);
  for (v = 0; v < N_VARIANTS; v++) {
    report (variant_names[v], "copy", copy[v], n[v]);
    report (variant_names[v], "after", op[v], n[v]);
    if (v == V_PAGEABLE_POLL || v == V_PINNED_POLL)
      printf ("%-14s pending after the copy returned: %d of %d\n",
          variant_names[v], pending[v], n[v]);
  }
  return 0;
}
