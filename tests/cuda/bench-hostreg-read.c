/* Benchmark (meson benchmark, never in `meson test`): how fast a GPU reads a
 * /dev/shm frame area, two ways.
 *
 *   kernel-alias   a kernel (dr_read_sum, 16-byte loads) reads the pages
 *                  through the device alias of the reader's READ_ONLY
 *                  registration (transport "unified", zero copy);
 *   htod-reg       cuMemcpyHtoDAsync from the same registered pages into
 *                  device memory (what a copying consumer pays);
 * and, for context, htod-pageable (the same pages before registration) and
 * kernel-device (the kernel over the device copy: the HBM ceiling).
 *
 * The object is made by this process (writer mapping read-write, filled by
 * the CPU), unlinked at once (nothing is left in /dev/shm), and mapped a
 * second time PROT_READ as a reader does. Each case runs one warm-up and
 * `reps` timed repetitions between two CUDA events on one stream; every
 * kernel result is checked against the CPU sum. GB/s = bytes / s / 1e9.
 *
 * Usage: cuda-bench-hostreg-read [MiB (256)] [reps (10)]. Exits 77 without a
 * GPU, like the tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda-test.h"
#include "cuda-api.h"           /* kernel launch only; copies/events: public */

extern const unsigned char doradma_test_kernels_fatbin[];

#define MAX_REPS 100

static struct doradma_cuda_device *dev;
static void *stream, *ev0, *ev1;
static CUfunction fn_sum;
static int grid;

static int
cmp_f (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
report (const char *name, const char *what, size_t bytes, double *ms, int reps)
{
  double gbs[MAX_REPS], sum = 0;
  int i;

  for (i = 0; i < reps; i++) {
    gbs[i] = bytes / (ms[i] * 1e6);
    sum += gbs[i];
  }
  qsort (gbs, reps, sizeof *gbs, cmp_f);
  printf ("| %-14s | %-52s | %6.1f | %6.1f | %6.1f | %6.1f |\n", name, what,
      gbs[reps / 2], sum / reps, gbs[reps - 1], gbs[0]);
}

/* Times one kernel pass over [dptr, dptr + bytes) and checks the sum. */
static int
kernel_pass (uint64_t dptr, size_t bytes, uint64_t counter,
    unsigned long long want, double *ms)
{
  struct doradma_diag d = { 0 };
  unsigned long long zero = 0, got = 0;
  uint64_t n16 = bytes / 16;
  void *args[] = { &dptr, &n16, &counter };
  float f = 0;
  CUresult res;

  T_CHECK (doradma_cuda_copy_htod (dev, counter, &zero, sizeof zero, &d) == 0,
      "%s", d.msg);
  T_CHECK (doradma_cuda_event_record (dev, ev0, stream, &d) == 0, "%s", d.msg);
  T_CHECK (doradma_cuda_device_push (dev, &d) == 0, "%s", d.msg);
  res = doradma_cuda_api ()->LaunchKernel (fn_sum, grid, 1, 1, 256, 1, 1, 0,
      (CUstream) stream, args, NULL);
  doradma_cuda_device_pop ();
  T_CHECK (res == CUDA_SUCCESS, "cuLaunchKernel(dr_read_sum): %d", (int) res);
  T_CHECK (doradma_cuda_event_record (dev, ev1, stream, &d) == 0
      && doradma_cuda_event_synchronize (dev, ev1, &d) == 0
      && doradma_cuda_event_elapsed_ms (dev, ev0, ev1, &f, &d) == 0, "%s",
      d.msg);
  T_CHECK (doradma_cuda_copy_dtoh (dev, &got, counter, sizeof got, &d) == 0,
      "%s", d.msg);
  T_CHECK (got == want, "kernel sum %llx, CPU sum %llx", got, want);
  *ms = f;
  return 0;
err:
  return -1;
}

static int
copy_pass (uint64_t dst, const void *src, size_t bytes, double *ms)
{
  struct doradma_diag d = { 0 };
  float f = 0;

  T_CHECK (doradma_cuda_event_record (dev, ev0, stream, &d) == 0
      && doradma_cuda_copy_htod_async (dev, dst, src, bytes, stream, &d) == 0
      && doradma_cuda_event_record (dev, ev1, stream, &d) == 0
      && doradma_cuda_event_synchronize (dev, ev1, &d) == 0
      && doradma_cuda_event_elapsed_ms (dev, ev0, ev1, &f, &d) == 0, "%s",
      d.msg);
  *ms = f;
  return 0;
err:
  return -1;
}

int
main (int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul (argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi (argv[2]) : 10, i, fd = -1, sms = 0, ret;
  size_t bytes = mib << 20;
  struct doradma_cuda_slab_pool *pool = NULL;
  struct doradma_cuda_slab *dbuf = NULL, *cbuf = NULL;
  struct doradma_cuda_hostreg *reg = NULL;
  struct doradma_diag d = { 0 };
  uint8_t *wr = MAP_FAILED, *ro = MAP_FAILED;
  unsigned long long want = 0;
  double ms[MAX_REPS], warm;
  char name[64];
  uint64_t alias, devp, counter;
  CUmodule mod;
  int rc = T_EXIT_FAIL;

  if (mib == 0 || bytes % 16 || reps < 1 || reps > MAX_REPS) {
    fprintf (stderr, "usage: %s [MiB > 0] [reps 1..%d]\n", argv[0], MAX_REPS);
    return T_EXIT_FAIL;
  }
  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  t_print_device (dev);
  T_CHECK (doradma_cuda_device_push (dev, &d) == 0, "%s", d.msg);
  T_CHECK (doradma_cuda_api ()->ModuleLoadData (&mod,
          doradma_test_kernels_fatbin) == CUDA_SUCCESS
      && doradma_cuda_api ()->ModuleGetFunction (&fn_sum, mod,
          "dr_read_sum") == CUDA_SUCCESS, "loading dr_read_sum");
  doradma_cuda_api ()->DeviceGetAttribute (&sms,
      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
      (CUdevice) doradma_cuda_device_get_handle (dev));
  doradma_cuda_device_pop ();
  grid = (sms > 0 ? sms : 32) * 8;
  T_CHECK (doradma_cuda_stream_create (dev, true, &stream, &d) == 0
      && doradma_cuda_event_create (dev, true, &ev0, &d) == 0
      && doradma_cuda_event_create (dev, true, &ev1, &d) == 0, "%s", d.msg);

  /* the shm object: writer mapping, then the reader's read-only one */
  snprintf (name, sizeof name, "/doradma-bench-read-%d", (int) getpid ());
  fd = shm_open (name, O_RDWR | O_CREAT | O_EXCL, 0600);
  T_CHECK (fd >= 0, "shm_open %s: %s", name, strerror (errno));
  shm_unlink (name);
  T_CHECK (ftruncate (fd, bytes) == 0, "ftruncate: %s", strerror (errno));
  wr = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  T_CHECK (wr != MAP_FAILED, "mmap rw: %s", strerror (errno));
  t_cpu_fill (wr, bytes, 42);
  for (size_t o = 0; o < bytes; o += 8) {
    uint64_t v;
    memcpy (&v, wr + o, 8);
    want += v;
  }
  ro = mmap (NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
  T_CHECK (ro != MAP_FAILED, "mmap ro: %s", strerror (errno));

  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_DEVICE,
          bytes + (8ull << 20), &pool, &d) == 0, "%s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (pool, bytes, &dbuf, &d) == 0
      && doradma_cuda_slab_alloc (pool, DORADMA_CUDA_SLAB_MIN_CLASS, &cbuf,
          &d) == 0, "%s", d.msg);
  devp = doradma_cuda_slab_get_info (dbuf)->device;
  counter = doradma_cuda_slab_get_info (cbuf)->device;

  printf ("\n%zu MiB, %d repetitions after one warm-up, grid %d x 256 "
      "threads, GB/s = 1e9 B/s\n\n", mib, reps, grid);
  printf ("| case           | what                                       "
      "          | median |   mean |   best |  worst |\n");
  printf ("|---|---|---:|---:|---:|---:|\n");

  T_CHECK (copy_pass (devp, ro, bytes, &warm) == 0, "warm-up");
  for (i = 0; i < reps; i++)
    T_CHECK (copy_pass (devp, ro, bytes, &ms[i]) == 0, "htod pageable");
  report ("htod-pageable", "cuMemcpyHtoDAsync, same pages not registered",
      bytes, ms, reps);

  ret = doradma_cuda_hostreg_acquire (dev, fd, ro, bytes, PROT_READ, &reg, &d);
  T_CHECK (ret == 0, "hostreg (read-only): %s", d.msg);
  alias = doradma_cuda_hostreg_get_device_pointer (reg);

  T_CHECK (kernel_pass (alias, bytes, counter, want, &warm) == 0, "warm-up");
  for (i = 0; i < reps; i++)
    T_CHECK (kernel_pass (alias, bytes, counter, want, &ms[i]) == 0,
        "kernel alias");
  report ("kernel-alias", "kernel reads the READ_ONLY registration's alias",
      bytes, ms, reps);

  T_CHECK (copy_pass (devp, ro, bytes, &warm) == 0, "warm-up");
  for (i = 0; i < reps; i++)
    T_CHECK (copy_pass (devp, ro, bytes, &ms[i]) == 0, "htod registered");
  report ("htod-reg", "cuMemcpyHtoDAsync from the registered pages", bytes,
      ms, reps);

  T_CHECK (kernel_pass (devp, bytes, counter, want, &warm) == 0, "warm-up");
  for (i = 0; i < reps; i++)
    T_CHECK (kernel_pass (devp, bytes, counter, want, &ms[i]) == 0,
        "kernel device");
  report ("kernel-device", "kernel reads the device copy (HBM ceiling)",
      bytes, ms, reps);
  printf ("\nalias 0x%llx, host %p; every kernel sum equals the CPU sum "
      "%llx\n", (unsigned long long) alias, (void *) ro, want);
  rc = T_EXIT_PASS;

err:
  if (reg)
    doradma_cuda_hostreg_release (reg, NULL);
  if (cbuf)
    doradma_cuda_slab_free (cbuf);
  if (dbuf)
    doradma_cuda_slab_free (dbuf);
  if (pool)
    doradma_cuda_slab_pool_destroy (pool);
  doradma_cuda_event_destroy (dev, ev0, NULL);
  doradma_cuda_event_destroy (dev, ev1, NULL);
  doradma_cuda_stream_destroy (dev, stream, NULL);
  if (ro != MAP_FAILED)
    munmap (ro, bytes);
  if (wr != MAP_FAILED)
    munmap (wr, bytes);
  if (fd >= 0)
    close (fd);
  doradma_cuda_device_unref (dev);
  return rc;
}
