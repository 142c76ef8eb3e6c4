/* Description: the slab pool's byte budget. DORADMA_SLAB_POOL_BYTES parses
 * (suffixes K/M/G/T, optional iB/B) and a malformed value is -EINVAL naming
 * the variable; an exhausted budget is -ENOMEM naming it; cached slabs of
 * other classes are evicted to make room; the budget counts granularity-
 * rounded capacity (2 MiB VMM slabs); a managed request larger than the
 * device's free memory is refused before any allocation. The parsing part
 * runs everywhere; the rest needs a GPU. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-test.h"

#define MiB (1ull << 20)

static int
parse (const char *v, uint64_t want)
{
  struct doradma_diag d = { 0 };
  uint64_t got = 1;
  int ret;

  setenv ("DORADMA_SLAB_POOL_BYTES", v, 1);
  ret = doradma_cuda_slab_budget_from_env (&got, &d);
  if (want == 0) {
    T_CHECK (ret == -EINVAL && strstr (d.msg, "DORADMA_SLAB_POOL_BYTES")
        && d.field && strcmp (d.field, "DORADMA_SLAB_POOL_BYTES") == 0,
        "'%s' accepted (%d, %llu)", v, ret, (unsigned long long) got);
  } else {
    T_CHECK (ret == 0 && got == want, "'%s' -> %d %llu, want %llu", v, ret,
        (unsigned long long) got, (unsigned long long) want);
  }
  return 0;
err:
  return -1;
}

static int
parsing (void)
{
  uint64_t got = 1;

  if (parse ("536870912", 536870912) || parse ("512M", 512 * MiB)
      || parse ("2GiB", 2048 * MiB) || parse ("64k", 65536)
      || parse ("1TB", 1ull << 40) || parse ("12abc", 0) || parse ("-5", 0)
      || parse ("0", 0) || parse (" 5", 0) || parse ("5 M", 0)
      || parse ("99999999999999999999", 0) || parse ("20000000T", 0))
    return -1;
  unsetenv ("DORADMA_SLAB_POOL_BYTES");
  T_CHECK (doradma_cuda_slab_budget_from_env (&got, NULL) == 0 && got == 0,
      "unset variable");
  return 0;
err:
  return -1;
}

int
main (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_slab_pool *pool = NULL;
  struct doradma_cuda_slab *s[4] = { NULL };
  struct doradma_cuda_slab_stats st;
  struct doradma_diag d = { 0 };
  uint64_t free_b = 0, total_b = 0, live;
  int ret;

  if (parsing () < 0)
    return T_EXIT_FAIL;
  printf ("budget variable parsing: ok\n");
  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;

  /* A malformed variable fails pool creation, naming it. */
  setenv ("DORADMA_SLAB_POOL_BYTES", "lots", 1);
  ret = doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_PINNED, 0, &pool,
      &d);
  T_CHECK (ret == -EINVAL && pool == NULL
      && strstr (d.msg, "DORADMA_SLAB_POOL_BYTES='lots'"), "pool with bad "
      "variable: %d '%s'", ret, d.msg);
  printf ("malformed: %s\n", d.msg);

  /* Pinned, 4 MiB from the environment: classes of 1.5 MiB. */
  setenv ("DORADMA_SLAB_POOL_BYTES", "4M", 1);
  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_PINNED, 0,
          &pool, &d) == 0, "pinned pool: %s", d.msg);
  doradma_cuda_slab_pool_get_stats (pool, &st);
  T_CHECK (st.budget == 4 * MiB, "budget %llu", (unsigned long long) st.budget);
  T_CHECK (doradma_cuda_slab_alloc (pool, 3 * MiB / 2, &s[0], &d) == 0
      && doradma_cuda_slab_alloc (pool, 3 * MiB / 2, &s[1], &d) == 0,
      "two 1.5 MiB slabs: %s", d.msg);
  ret = doradma_cuda_slab_alloc (pool, 3 * MiB / 2, &s[2], &d);
  T_CHECK (ret == -ENOMEM && s[2] == NULL && strstr (d.msg, "budget exhausted")
      && strstr (d.msg, "DORADMA_SLAB_POOL_BYTES"), "third: %d '%s'", ret,
      d.msg);
  printf ("exhausted: %s\n", d.msg);
  /* 1.5 MiB cached + 1.5 in use + 2 new > 4: the cached one is evicted. */
  doradma_cuda_slab_free (s[1]);
  T_CHECK (doradma_cuda_slab_alloc (pool, 2 * MiB, &s[2], &d) == 0,
      "2 MiB after a free: %s", d.msg);
  doradma_cuda_slab_pool_get_stats (pool, &st);
  T_CHECK (st.evictions == 1 && st.refusals == 1 && st.bytes_cached == 0
      && st.bytes_in_use == 7 * MiB / 2, "evictions %llu refusals %llu "
      "cached %llu in use %llu", (unsigned long long) st.evictions,
      (unsigned long long) st.refusals, (unsigned long long) st.bytes_cached,
      (unsigned long long) st.bytes_in_use);
  doradma_cuda_slab_free (s[0]);
  doradma_cuda_slab_free (s[2]);
  doradma_cuda_slab_pool_destroy (pool);
  unsetenv ("DORADMA_SLAB_POOL_BYTES");

  /* Device kind: the argument wins; capacity is granularity-rounded. */
  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_DEVICE, 4 * MiB,
          &pool, &d) == 0, "device pool: %s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (pool, 65536, &s[0], &d) == 0, "64 KiB");
  {
    size_t cap = doradma_cuda_slab_get_info (s[0])->capacity;
    int fit = (int) (4 * MiB / cap), i;

    printf ("device: 64 KiB -> capacity %zu, %d fit in 4 MiB\n", cap, fit);
    for (i = 1; i < fit && i < 4; i++)
      T_CHECK (doradma_cuda_slab_alloc (pool, 65536 + i, &s[i], &d) == 0,
          "slab %d: %s", i, d.msg);
    if (fit < 4) {
      struct doradma_cuda_slab *x = NULL;
      T_CHECK (doradma_cuda_slab_alloc (pool, 65536, &x, &d) == -ENOMEM,
          "device budget not enforced");
    }
    for (i = 0; i < fit && i < 4; i++)
      doradma_cuda_slab_free (s[i]);
  }
  doradma_cuda_slab_pool_destroy (pool);

  /* Managed: never more than the device has free, whatever the budget. */
  T_CHECK (doradma_cuda_device_mem_info (dev, &free_b, &total_b, &d) == 0,
      "mem info: %s", d.msg);
  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_MANAGED,
          4 * total_b, &pool, &d) == 0, "managed pool: %s", d.msg);
  live = doradma_cuda_slab_live_count ();
  ret = doradma_cuda_slab_alloc (pool, free_b + 1024 * MiB, &s[0], &d);
  T_CHECK (ret == -ENOMEM && strstr (d.msg, "cuMemGetInfo")
      && doradma_cuda_slab_live_count () == live, "managed over free memory: "
      "%d '%s'", ret, d.msg);
  printf ("managed over free memory: %s\n", d.msg);
  doradma_cuda_slab_pool_destroy (pool);
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
