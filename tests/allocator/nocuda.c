/* Description: without a CUDA driver every slab allocator error says so.
 *
 * Runs on every machine: the driver is hidden with DORADMA_CUDA_LIBRARY
 * (the loader's test hook), so on the GPU machine too this checks the
 * no-driver path with the real loader. No mock.
 */
#include <gst/check/gstcheck.h>
#include <stdlib.h>

#include "gstdoradmaallocator.h"

GST_START_TEST (test_new_fails_naming_cuda_for_every_kind)
{
  GstDoradmaSlabKind k;

  for (k = GST_DORADMA_SLAB_KIND_MANAGED; k <= GST_DORADMA_SLAB_KIND_DEVICE;
      k++) {
    GError *err = NULL;
    GstAllocator *a = gst_doradma_slab_allocator_new (k, 0, &err);

    fail_unless (a == NULL);
    fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
            GST_DORADMA_SLAB_ERROR_NO_CUDA), "%s", err->message);
    GST_INFO ("kind %d: %s", k, err->message);
    fail_unless (strstr (err->message, "CUDA unavailable") != NULL);
    /* The real reason: no driver library, or a build without CUDA. */
    fail_unless (strstr (err->message, "libcuda.so.1") != NULL
        || strstr (err->message, "without CUDA") != NULL, "%s", err->message);
    g_error_free (err);
  }
}

GST_END_TEST;

GST_START_TEST (test_malformed_budget_is_an_error_not_a_default)
{
  GError *err = NULL;
  GstAllocator *a;

  g_setenv (GST_DORADMA_SLAB_BUDGET_ENV, "lots", TRUE);
  a = gst_doradma_slab_allocator_new (GST_DORADMA_SLAB_KIND_PINNED, 0, &err);
  fail_unless (a == NULL);
  fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_BUDGET), "%s", err->message);
  fail_unless (strstr (err->message, "DORADMA_SLAB_POOL_BYTES='lots'"));
  g_clear_error (&err);
  /* An explicit budget does not read the variable. */
  a = gst_doradma_slab_allocator_new (GST_DORADMA_SLAB_KIND_PINNED, 1 << 20,
      &err);
  fail_unless (a == NULL);
  fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_NO_CUDA), "%s", err->message);
  g_error_free (err);
  g_unsetenv (GST_DORADMA_SLAB_BUDGET_ENV);
}

GST_END_TEST;

GST_START_TEST (test_registered_allocators_fail_at_alloc_not_at_load)
{
  const char *names[] = { GST_DORADMA_SLAB_ALLOCATOR_MANAGED,
    GST_DORADMA_SLAB_ALLOCATOR_PINNED, GST_DORADMA_SLAB_ALLOCATOR_DEVICE
  };
  guint i;

  gst_doradma_slab_allocator_register_all ();
  gst_doradma_slab_allocator_register_all ();   /* idempotent */
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstAllocator *a = gst_allocator_find (names[i]);
    GError *err = NULL;

    fail_unless (a != NULL, "%s not registered", names[i]);
    fail_unless (GST_IS_DORADMA_SLAB_ALLOCATOR (a));
    fail_unless (gst_allocator_alloc (a, 4096, NULL) == NULL);
    fail_unless (gst_doradma_slab_allocator_alloc (a, 4096, &err) == NULL);
    fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
            GST_DORADMA_SLAB_ERROR_NO_CUDA), "%s", err->message);
    g_error_free (err);
    gst_object_unref (a);
  }
}

GST_END_TEST;

GST_START_TEST (test_rdma_constructor_lists_every_failed_step)
{
  GError *err = NULL;
  GstAllocator *a = gst_doradma_slab_allocator_new_rdma (NULL, 0, TRUE, &err);

  fail_unless (a == NULL);
  fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE), "%s", err->message);
  GST_INFO ("%s", err->message);
  fail_unless (strstr (err->message, "gpudirect: unavailable"), "%s",
      err->message);
  fail_unless (strstr (err->message, "pinned-mr: unavailable"));
  fail_unless (strstr (err->message, "managed: CUDA unavailable"));
  fail_unless (strstr (err->message, "cuda ("));
  fail_unless (strstr (err->message, "cuda-dma-buf ("));
  g_error_free (err);
}

GST_END_TEST;

static Suite *
nocuda_suite (void)
{
  Suite *s = suite_create ("allocator-nocuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_new_fails_naming_cuda_for_every_kind);
  tcase_add_test (tc, test_malformed_budget_is_an_error_not_a_default);
  tcase_add_test (tc, test_registered_allocators_fail_at_alloc_not_at_load);
  tcase_add_test (tc, test_rdma_constructor_lists_every_failed_step);
  return s;
}

int
main (int argc, char **argv)
{
  /* Before anything loads the driver. */
  g_setenv ("DORADMA_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", TRUE);
  g_unsetenv (GST_DORADMA_SLAB_BUDGET_ENV);
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (nocuda_suite (), "allocator-nocuda",
      __FILE__) ? 1 : 0;
}
