/* Description: slab pool reuse, for each kind (managed, pinned, device).
 * A returned slab is handed out again from its size class's free list (same
 * pointers, hit counted); two live slabs differ; capacity is page- (or VMM
 * granularity-) rounded and >= the request; requests above 64 MiB are
 * unpooled and freed on return; destroy frees cached slabs at once and a
 * slab still handed out when its pool is returned afterwards (alloc then
 * fails -ESHUTDOWN). The live-slab counter returns to where it started. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cuda-test.h"

static int
check_kind (struct doradma_cuda_device *dev, enum doradma_cuda_slab_kind kind)
{
  const char *kn = doradma_cuda_slab_kind_name (kind);
  struct doradma_cuda_slab_pool *pool = NULL;
  struct doradma_cuda_slab *a = NULL, *b = NULL, *c = NULL, *big = NULL;
  struct doradma_cuda_slab_stats st;
  struct doradma_diag d = { 0 };
  const struct doradma_cuda_slab_info *ia, *ib;
  uint64_t base = doradma_cuda_slab_live_count (), a_dev;
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  int ret;

  ret = doradma_cuda_slab_pool_new (dev, kind, 512ull << 20, &pool, &d);
  T_CHECK (ret == 0, "%s pool: %d %s", kn, ret, d.msg);
  T_CHECK (doradma_cuda_slab_alloc (pool, 100000, &a, &d) == 0, "%s alloc: %s",
      kn, d.msg);
  ia = doradma_cuda_slab_get_info (a);
  T_CHECK (ia->kind == kind && ia->size == 100000 && ia->capacity >= 100000
      && ia->capacity % page == 0 && ia->size_class >= 0 && ia->device != 0,
      "%s info: cap %zu class %d", kn, ia->capacity, ia->size_class);
  T_CHECK ((kind == DORADMA_CUDA_SLAB_DEVICE) == (ia->host == NULL),
      "%s host pointer %p", kn, ia->host);
  printf ("%s: 100000 bytes -> capacity %zu class %d vmm %d dev 0x%llx "
      "host %p\n", kn, ia->capacity, ia->size_class, ia->vmm,
      (unsigned long long) ia->device, ia->host);
  a_dev = ia->device;
  T_CHECK (doradma_cuda_slab_alloc (pool, 100000, &b, &d) == 0, "alloc b");
  ib = doradma_cuda_slab_get_info (b);
  T_CHECK (ib->device != a_dev && ib->capacity == ia->capacity,
      "two live slabs share memory");
  doradma_cuda_slab_free (a);
  a = NULL;
  /* A smaller request of the same class is a free-list hit. */
  T_CHECK (doradma_cuda_slab_alloc (pool, 99000, &c, &d) == 0, "alloc c");
  T_CHECK (doradma_cuda_slab_get_info (c)->device == a_dev,
      "%s: returned slab was not reused", kn);
  doradma_cuda_slab_pool_get_stats (pool, &st);
  T_CHECK (st.allocs == 3 && st.hits == 1 && st.misses == 2
      && st.class_hits[ib->size_class] == 1, "%s stats: allocs %llu hits "
      "%llu misses %llu", kn, (unsigned long long) st.allocs,
      (unsigned long long) st.hits, (unsigned long long) st.misses);
  T_CHECK (st.bytes_in_use == 2 * ib->capacity && st.bytes_cached == 0,
      "%s bytes: in use %llu cached %llu", kn,
      (unsigned long long) st.bytes_in_use,
      (unsigned long long) st.bytes_cached);

  /* Unpooled: above the largest class, freed on return. */
  T_CHECK (doradma_cuda_slab_alloc (pool, (80u << 20) + 1, &big, &d) == 0,
      "%s big: %s", kn, d.msg);
  T_CHECK (doradma_cuda_slab_get_info (big)->size_class == -1
      && doradma_cuda_slab_get_info (big)->capacity >= (80u << 20) + 1,
      "big slab pooled");
  T_CHECK (doradma_cuda_slab_live_count () == base + 3, "live %llu",
      (unsigned long long) doradma_cuda_slab_live_count ());
  doradma_cuda_slab_free (big);
  T_CHECK (doradma_cuda_slab_live_count () == base + 2,
      "unpooled slab not freed on return");
  doradma_cuda_slab_pool_get_stats (pool, &st);
  T_CHECK (st.unpooled == 1 && st.bytes_cached == 0, "unpooled stats");

  /* Destroy with c outstanding and b cached. */
  doradma_cuda_slab_free (b);
  doradma_cuda_slab_pool_destroy (pool);
  T_CHECK (doradma_cuda_slab_live_count () == base + 1,
      "destroy did not free the cached slab");
  ret = doradma_cuda_slab_alloc (pool, 4096, &a, &d);
  T_CHECK (ret == -ESHUTDOWN && a == NULL, "alloc after destroy gave %d", ret);
  doradma_cuda_slab_free (c);
  T_CHECK (doradma_cuda_slab_live_count () == base,
      "slab returned after destroy was not freed");
  return 0;
err:
  return -1;
}

int
main (void)
{
  struct doradma_cuda_device *dev = NULL;
  int ret, k;

  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  for (k = DORADMA_CUDA_SLAB_MANAGED; k <= DORADMA_CUDA_SLAB_DEVICE; k++)
    if (check_kind (dev, k) < 0)
      return T_EXIT_FAIL;
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
}
