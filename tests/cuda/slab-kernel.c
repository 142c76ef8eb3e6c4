/* Description: a GPU kernel reads and writes every slab kind through the
 * slab's device pointer. The GPU fills a slab; for managed and pinned slabs
 * the CPU sees the pattern through the host pointer, then the CPU writes a
 * second pattern and the GPU checksum equals the CPU checksum; for device
 * slabs the GPU checksum of the GPU-written bytes equals the CPU checksum of
 * the expected pattern, and a DtoH copy agrees. Pooled (5 MiB + 123 bytes)
 * and unpooled (72 MiB) sizes. */
#include <stdlib.h>
#include <string.h>

#include "cuda-test.h"
#ifdef DORADMA_HAVE_CUDA
#include "cuda-api.h"
#endif

static int
check_slab (struct doradma_cuda_device *dev, struct doradma_cuda_slab *s,
    uint32_t seed)
{
  const struct doradma_cuda_slab_info *i = doradma_cuda_slab_get_info (s);
  uint64_t n = i->capacity - i->capacity % T_ROW;
  uint8_t *buf = NULL;

  T_CHECK (t_gpu_fill (dev, i->device, n, seed) == 0, "GPU fill");
  if (i->host != NULL) {
    T_CHECK (t_cpu_check_pattern (i->host, n, seed) == 0,
        "%s: CPU does not see the GPU's bytes",
        doradma_cuda_slab_kind_name (i->kind));
    t_cpu_fill (i->host, n, seed + 1);
    T_CHECK (t_gpu_check (dev, i->device, n, i->host) == 0,
        "%s: GPU checksum != CPU checksum of CPU-written bytes",
        doradma_cuda_slab_kind_name (i->kind));
  } else {
    T_CHECK (t_gpu_check_pattern (dev, i->device, n, seed) == 0,
        "device: GPU checksum != CPU checksum of the pattern");
#ifdef DORADMA_HAVE_CUDA
    buf = malloc (n);
    T_CHECK (buf != NULL, "malloc");
    T_CHECK (doradma_cuda_device_push (dev, NULL) == 0, "push");
    T_CHECK (doradma_cuda_api ()->MemcpyDtoH (buf, i->device, n) ==
        CUDA_SUCCESS, "cuMemcpyDtoH");
    doradma_cuda_device_pop ();
    T_CHECK (t_cpu_check_pattern (buf, n, seed) == 0, "DtoH copy");
    free (buf);
    buf = NULL;
#endif
  }
  printf ("%s slab of %zu bytes (class %d): GPU read/write ok\n",
      doradma_cuda_slab_kind_name (i->kind), i->capacity, i->size_class);
  return 0;
err:
  free (buf);
  return -1;
}

int
main (void)
{
  struct doradma_cuda_device *dev = NULL;
  size_t sizes[] = { (5u << 20) + 123, 72u << 20 };
  int ret, k, j;

  ret = t_cuda_open_with_kernels (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  for (k = DORADMA_CUDA_SLAB_MANAGED; k <= DORADMA_CUDA_SLAB_DEVICE; k++) {
    struct doradma_cuda_slab_pool *pool = NULL;
    struct doradma_diag d = { 0 };

    T_CHECK (doradma_cuda_slab_pool_new (dev, k, 256u << 20, &pool, &d) == 0,
        "pool %d: %s", k, d.msg);
    for (j = 0; j < 2; j++) {
      struct doradma_cuda_slab *s = NULL;

      T_CHECK (doradma_cuda_slab_alloc (pool, sizes[j], &s, &d) == 0,
          "alloc: %s", d.msg);
      ret = check_slab (dev, s, 20 + k * 2 + j);
      doradma_cuda_slab_free (s);
      T_CHECK (ret == 0, "kind %s", doradma_cuda_slab_kind_name (k));
    }
    doradma_cuda_slab_pool_destroy (pool);
  }
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
