/* Description: the byte budget: exhaustion is an error naming the budget,
 * cached slabs are evicted to fit, a malformed DORADMA_SLAB_POOL_BYTES is
 * an error, the variable is used when no budget is given, and managed
 * requests larger than free device memory are refused (before the driver is
 * asked: oversubscribing managed memory can hang the GPU). Needs a GPU. */
#include <stdlib.h>
#include <string.h>

#include "alloc-test.h"

int
main (int argc, char **argv)
{
  struct doradma_cuda_device *dev = NULL;
  GstAllocator *a = NULL;
  GstMemory *m[4] = { NULL };
  GError *err = NULL;
  uint64_t free_b = 0, total_b = 0;
  int i, ret;

  gst_init (&argc, &argv);
  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;

  /* 4 MiB of pinned slabs of 1.25 MiB (class 1 MiB + 256 KiB). */
  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_PINNED, 4 << 20);
  for (i = 0; i < 3; i++) {
    m[i] = gst_doradma_slab_allocator_alloc (a, 1200000, &err);
    T_CHECK (m[i] != NULL, "alloc %d: %s", i, err ? err->message : "");
  }
  m[3] = gst_doradma_slab_allocator_alloc (a, 1200000, &err);
  T_CHECK (m[3] == NULL, "fourth slab must exceed the budget");
  T_CHECK (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_NO_MEMORY), "code");
  T_CHECK (strstr (err->message, "budget exhausted") != NULL, "%s",
      err->message);
  printf ("exhausted: %s\n", err->message);
  g_clear_error (&err);
  T_CHECK (t_stat (a, "refusals") >= 1, "refusal counted");
  /* Freed slabs are cached; a different class evicts them to fit. */
  for (i = 0; i < 3; i++)
    gst_memory_unref (m[i]);
  m[0] = gst_doradma_slab_allocator_alloc (a, 3 << 20, &err);
  T_CHECK (m[0] != NULL, "evict to fit: %s", err ? err->message : "");
  T_CHECK (t_stat (a, "evictions") >= 2, "evictions %llu",
      (unsigned long long) t_stat (a, "evictions"));
  gst_memory_unref (m[0]);
  gst_clear_object (&a);

  /* The variable: malformed = error, valid = the budget. */
  setenv (GST_DORADMA_SLAB_BUDGET_ENV, "12 MB", 1);
  a = gst_doradma_slab_allocator_new (GST_DORADMA_SLAB_KIND_DEVICE, 0, &err);
  T_CHECK (a == NULL && g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_BUDGET), "malformed budget accepted");
  printf ("malformed: %s\n", err->message);
  g_clear_error (&err);
  setenv (GST_DORADMA_SLAB_BUDGET_ENV, "6MiB", 1);
  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_DEVICE, 0);
  T_CHECK (t_stat (a, "budget") == 6 << 20, "budget from the variable");
  unsetenv (GST_DORADMA_SLAB_BUDGET_ENV);
  gst_clear_object (&a);

  /* Managed: never more than the device has free. */
  T_CHECK (doradma_cuda_device_mem_info (dev, &free_b, &total_b, NULL) == 0,
      "mem info");
  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_MANAGED, total_b * 2);
  m[0] = gst_doradma_slab_allocator_alloc (a, (gsize) total_b + (1u << 30),
      &err);
  T_CHECK (m[0] == NULL, "managed over free memory must be refused");
  T_CHECK (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_NO_MEMORY), "code");
  T_CHECK (strstr (err->message, "free") != NULL, "%s", err->message);
  printf ("managed refused: %s\n", err->message);
  g_clear_error (&err);
  gst_clear_object (&a);
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
