/* Description: slab memory of each kind: alloc, free, reuse from the free
 * list (hits), unpooled sizes, host/device pointers, mapping rules, shared
 * sub-memory, and finalize freeing every slab, also one returned after the
 * application dropped the allocator. Needs a GPU (else SKIP). */
#include <string.h>

#include "alloc-test.h"

static int
one_kind (GstDoradmaSlabKind kind)
{
  GstAllocator *a = t_new_or_skip (kind, 256 << 20);
  GstMemory *m1, *m2, *big, *sub;
  GstMapInfo map;
  guint64 d1, hits0, cached;
  int ret = T_EXIT_FAIL;

  m1 = gst_allocator_alloc (a, 100000, NULL);
  T_CHECK (m1 != NULL, "alloc");
  T_CHECK (gst_is_doradma_slab_memory (m1), "type");
  T_CHECK (gst_memory_is_type (m1, GST_DORADMA_SLAB_MEMORY_TYPE), "mem_type");
  T_CHECK (gst_doradma_slab_memory_get_kind (m1) == kind, "kind");
  T_CHECK (m1->size == 100000 && m1->maxsize >= 100000, "sizes");
  d1 = gst_doradma_slab_memory_get_device_pointer (m1);
  T_CHECK (d1 != 0, "device pointer");
  if (kind == GST_DORADMA_SLAB_KIND_DEVICE) {
    T_CHECK (gst_doradma_slab_memory_get_host_pointer (m1) == NULL, "host");
    T_CHECK (GST_MEMORY_FLAG_IS_SET (m1, GST_MEMORY_FLAG_NOT_MAPPABLE),
        "device memory must be NOT_MAPPABLE");
    T_CHECK (!gst_memory_map (m1, &map, GST_MAP_READ), "device map");
  } else {
    T_CHECK (gst_memory_map (m1, &map, GST_MAP_READWRITE), "map");
    T_CHECK (map.data == gst_doradma_slab_memory_get_host_pointer (m1),
        "map = host pointer");
    memset (map.data, 0x5a, map.size);
    gst_memory_unmap (m1, &map);
  }
  /* A shared sub-memory keeps the slab and offsets the pointers. */
  sub = gst_memory_share (m1, 4096, 8192);
  T_CHECK (gst_doradma_slab_memory_get_device_pointer (sub) == d1 + 4096,
      "sub-memory device pointer");
  if (kind != GST_DORADMA_SLAB_KIND_DEVICE) {
    T_CHECK (gst_memory_map (sub, &map, GST_MAP_READ), "map sub");
    T_CHECK (map.size == 8192 && map.data[0] == 0x5a, "sub data");
    gst_memory_unmap (sub, &map);
  }
  gst_memory_unref (m1);        /* the sub-memory still holds the slab */
  T_CHECK (t_stat (a, "bytes-in-use") > 0, "slab still in use");
  gst_memory_unref (sub);
  T_CHECK (t_stat (a, "bytes-in-use") == 0, "returned");

  /* Same size again: served from the free list, same slab. */
  hits0 = t_stat (a, "hits");
  m2 = gst_allocator_alloc (a, 100000, NULL);   /* same class */
  T_CHECK (m2 != NULL, "alloc 2");
  T_CHECK (t_stat (a, "hits") == hits0 + 1, "free-list hit");
  T_CHECK (gst_doradma_slab_memory_get_device_pointer (m2) == d1,
      "same slab reused");
  gst_memory_unref (m2);

  /* Above 64 MiB: unpooled, freed on return. */
  cached = t_stat (a, "bytes-cached");
  big = gst_allocator_alloc (a, 70u << 20, NULL);
  T_CHECK (big != NULL, "unpooled alloc");
  T_CHECK (t_stat (a, "unpooled") == 1, "counted unpooled");
  gst_memory_unref (big);
  T_CHECK (t_stat (a, "bytes-cached") == cached, "unpooled not cached");
  printf ("%s: 100000 bytes -> dev 0x%llx, hits %llu, misses %llu, cached "
      "%llu, live %llu\n", doradma_cuda_slab_kind_name ((int) kind),
      (unsigned long long) d1, (unsigned long long) t_stat (a, "hits"),
      (unsigned long long) t_stat (a, "misses"),
      (unsigned long long) t_stat (a, "bytes-cached"),
      (unsigned long long) t_stat (a, "live-slabs"));
  ret = T_EXIT_PASS;
err:
  gst_object_unref (a);
  return ret;
}

int
main (int argc, char **argv)
{
  GstAllocator *a, *b;
  GstMemory *m;
  int k;

  gst_init (&argc, &argv);
  for (k = 0; k <= 2; k++)
    if (one_kind ((GstDoradmaSlabKind) k) != T_EXIT_PASS)
      return T_EXIT_FAIL;

  /* All allocators above are gone: nothing is allocated any more. */
  b = t_new_or_skip (GST_DORADMA_SLAB_KIND_MANAGED, 64 << 20);
  T_CHECK (t_stat (b, "live-slabs") == 1, "only b's granularity probe "
      "slab is live, not %llu", (unsigned long long) t_stat (b, "live-slabs"));
  /* The application drops its allocator while a slab is out: finalize
   * runs when that slab comes back and frees everything. */
  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_PINNED, 64 << 20);
  m = gst_allocator_alloc (a, 3 << 20, NULL);
  T_CHECK (m != NULL, "alloc");
  gst_object_unref (a);
  T_CHECK (t_stat (b, "live-slabs") == 3, "a's probe slab + m + b's");
  gst_memory_unref (m);
  T_CHECK (t_stat (b, "live-slabs") == 1, "a finalized with its slabs, %llu "
      "live", (unsigned long long) t_stat (b, "live-slabs"));
  gst_object_unref (b);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
