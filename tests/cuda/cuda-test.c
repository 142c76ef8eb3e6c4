/* doradma — helpers for the CUDA tests: skip logic, kernels, CPU twins. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda-test.h"

#ifdef DORADMA_HAVE_CUDA
#include "cuda-api.h"
#endif

void
t_cpu_fill (uint8_t * dst, uint64_t n, uint32_t seed)
{
  uint64_t i;

  /* Same as dr_pattern () in test-kernels.cu. */
  for (i = 0; i < n; i++) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t) seed << 17);
    dst[i] = (uint8_t) (x >> 56) ^ (uint8_t) (i >> 12);
  }
}

uint64_t
t_cpu_hash (const uint8_t * p, uint64_t n)
{
  uint64_t h = 0xcbf29ce484222325ull, i;

  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

int
t_cpu_check_pattern (const uint8_t * p, uint64_t n, uint32_t seed)
{
  uint8_t *e = malloc (n);
  uint64_t i;
  int ret = 0;

  if (e == NULL)
    return -1;
  t_cpu_fill (e, n, seed);
  for (i = 0; i < n; i++)
    if (p[i] != e[i]) {
      fprintf (stderr, "byte %llu is 0x%02x, pattern %u wants 0x%02x\n",
          (unsigned long long) i, p[i], seed, e[i]);
      ret = -1;
      break;
    }
  free (e);
  return ret;
}

int
t_run_child (int (*fn) (void), const char *what)
{
  int st = 0, ret;
  pid_t pid;

  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid < 0) {
    perror ("fork");
    return T_EXIT_FAIL;
  }
  if (pid == 0) {
    ret = fn ();
    fflush (stdout);
    fflush (stderr);
    _exit (ret);
  }
  if (waitpid (pid, &st, 0) != pid || !WIFEXITED (st)) {
    fprintf (stderr, "FAIL: %s child died (status 0x%x)\n", what, st);
    return T_EXIT_FAIL;
  }
  return WEXITSTATUS (st);
}

int
t_cuda_open (struct doradma_cuda_device **dev)
{
  struct doradma_diag d = { 0 };
  int ret = doradma_cuda_device_open (0, dev, &d);

  switch (ret) {
    case 0:
      return T_EXIT_PASS;
    case -ENOSYS:
      printf ("SKIP: built without CUDA support: %s\n", d.msg);
      return T_EXIT_SKIP;
    case -ENOENT:
      printf ("SKIP: no libcuda.so.1: %s\n", d.msg);
      return T_EXIT_SKIP;
    case -ENODEV:
      printf ("SKIP: no CUDA device: %s\n", d.msg);
      return T_EXIT_SKIP;
    default:
      fprintf (stderr, "FAIL: opening CUDA device 0: %s (%d)\n", d.msg, ret);
      return T_EXIT_FAIL;
  }
}

void
t_print_device (struct doradma_cuda_device *dev)
{
  const struct doradma_cuda_device_info *i = doradma_cuda_device_get_info (dev);

  printf ("device %d: %s, cc %d.%d, %llu MiB, driver %d\n", i->ordinal,
      i->name, i->cc_major, i->cc_minor,
      (unsigned long long) (i->total_mem >> 20),
      doradma_cuda_driver_version ());
  printf ("  integrated=%d unified_addressing=%d host_register=%d "
      "read_only_host_register=%d can_use_host_ptr=%d\n", i->integrated,
      i->unified_addressing, i->host_register_supported,
      i->read_only_host_register_supported,
      i->can_use_host_pointer_for_registered_mem);
  printf ("  concurrent_managed=%d dma_buf=%d host_alloc_dma_buf=%d vmm=%d "
      "posix_fd=%d gdr_vmm=%d gdr=%d ipc_event=%d\n",
      i->concurrent_managed_access, i->dma_buf_supported,
      i->host_alloc_dma_buf_supported, i->vmm_supported,
      i->posix_fd_handle_supported, i->gpu_direct_rdma_with_vmm_supported,
      i->gpu_direct_rdma_supported, i->ipc_event_supported);
}

#if defined(DORADMA_HAVE_CUDA) && defined(DORADMA_HAVE_TEST_KERNELS)
extern const unsigned char doradma_test_kernels_fatbin[];
extern const size_t doradma_test_kernels_fatbin_size;

static CUfunction fn_fill, fn_hash;

static int
cu_check (CUresult res, const char *what)
{
  struct doradma_diag d = { 0 };

  if (res == CUDA_SUCCESS)
    return 0;
  __doradma_cuda_fail (&d, what, res, NULL);
  fprintf (stderr, "%s\n", d.msg);
  return -1;
}

static int
load_kernels (struct doradma_cuda_device *dev)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  CUmodule mod;
  int ret = -1;

  if (doradma_cuda_device_push (dev, NULL) < 0)
    return -1;
  if (cu_check (cu->ModuleLoadData (&mod, doradma_test_kernels_fatbin),
          "cuModuleLoadData") == 0
      && cu_check (cu->ModuleGetFunction (&fn_fill, mod, "dr_fill"),
          "cuModuleGetFunction(dr_fill)") == 0
      && cu_check (cu->ModuleGetFunction (&fn_hash, mod, "dr_row_hash"),
          "cuModuleGetFunction(dr_row_hash)") == 0)
    ret = 0;
  doradma_cuda_device_pop ();
  return ret;
}

int
t_cuda_open_with_kernels (struct doradma_cuda_device **dev)
{
  int ret = t_cuda_open (dev);

  if (ret != T_EXIT_PASS)
    return ret;
  if (load_kernels (*dev) < 0)
    return T_EXIT_FAIL;
  return T_EXIT_PASS;
}

int
t_gpu_fill (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    uint32_t seed)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  void *args[] = { &dptr, &n, &seed };
  int ret;

  if (doradma_cuda_device_push (dev, NULL) < 0)
    return -1;
  ret = cu_check (cu->LaunchKernel (fn_fill, 1024, 1, 1, 256, 1, 1, 0, NULL,
          args, NULL), "cuLaunchKernel(dr_fill)");
  if (ret == 0)
    ret = cu_check (cu->CtxSynchronize (), "cuCtxSynchronize after dr_fill");
  doradma_cuda_device_pop ();
  return ret;
}

int
t_gpu_check (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    const uint8_t * expect)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  uint64_t rows = n / T_ROW, row_bytes = T_ROW, pitch = T_ROW, r;
  uint64_t *got = calloc (rows, sizeof *got);
  CUdeviceptr out = 0;
  void *args[] = { &dptr, &rows, &row_bytes, &pitch, &out };
  int ret = -1;

  if (got == NULL || n % T_ROW != 0 || doradma_cuda_device_push (dev, NULL) < 0) {
    free (got);
    return -1;
  }
  if (cu_check (cu->MemAlloc (&out, rows * sizeof *got), "cuMemAlloc") < 0)
    goto done;
  if (cu_check (cu->LaunchKernel (fn_hash, (unsigned) ((rows + 127) / 128),
              1, 1, 128, 1, 1, 0, NULL, args, NULL),
          "cuLaunchKernel(dr_row_hash)") < 0
      || cu_check (cu->CtxSynchronize (), "cuCtxSynchronize") < 0
      || cu_check (cu->MemcpyDtoH (got, out, rows * sizeof *got),
          "cuMemcpyDtoH") < 0)
    goto done;
  for (r = 0; r < rows; r++) {
    uint64_t want = t_cpu_hash (expect + r * T_ROW, T_ROW);
    if (got[r] != want) {
      fprintf (stderr, "row %llu: GPU hash %016llx, CPU hash %016llx\n",
          (unsigned long long) r, (unsigned long long) got[r],
          (unsigned long long) want);
      goto done;
    }
  }
  ret = 0;
done:
  if (out)
    cu->MemFree (out);
  doradma_cuda_device_pop ();
  free (got);
  return ret;
}
#else
int
t_cuda_open_with_kernels (struct doradma_cuda_device **dev)
{
  int ret = t_cuda_open (dev);

  if (ret != T_EXIT_PASS)
    return ret;
  printf ("SKIP: built without nvcc: the test kernels are missing\n");
  return T_EXIT_SKIP;
}

int
t_gpu_fill (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    uint32_t seed)
{
  return -1;
}

int
t_gpu_check (struct doradma_cuda_device *dev, uint64_t dptr, uint64_t n,
    const uint8_t * expect)
{
  return -1;
}
#endif

int
t_gpu_check_pattern (struct doradma_cuda_device *dev, uint64_t dptr,
    uint64_t n, uint32_t seed)
{
  uint8_t *e = malloc (n);
  int ret;

  if (e == NULL)
    return -1;
  t_cpu_fill (e, n, seed);
  ret = t_gpu_check (dev, dptr, n, e);
  free (e);
  return ret;
}
