/* doradma — helpers for the slab allocator tests. */
#include <stdlib.h>

#include "alloc-test.h"

guint64
t_stat (GstAllocator * a, const char *field)
{
  GstStructure *s = gst_doradma_slab_allocator_get_stats (a);
  guint64 v = 0;

  if (!gst_structure_get_uint64 (s, field, &v)) {
    fprintf (stderr, "FAIL: no stats field %s\n", field);
    exit (T_EXIT_FAIL);
  }
  gst_structure_free (s);
  return v;
}

GstAllocator *
t_new_or_skip (GstDoradmaSlabKind kind, guint64 budget)
{
  GError *err = NULL;
  GstAllocator *a = gst_doradma_slab_allocator_new (kind, budget, &err);

  if (a != NULL)
    return a;
  if (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_NO_CUDA)) {
    printf ("SKIP: %s\n", err->message);
    exit (T_EXIT_SKIP);
  }
  fprintf (stderr, "FAIL: slab allocator (kind %d): %s\n", kind, err->message);
  exit (T_EXIT_FAIL);
}

guint
t_rdma_device_count (void)
{
  GDir *d = g_dir_open ("/sys/class/infiniband", 0, NULL);
  guint n = 0;

  if (d == NULL)
    return 0;
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}
