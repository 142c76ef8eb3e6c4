/* Description: the GPUDirect probe reports exactly what this machine lacks,
 * and the RDMA constructor walks GPUDirect -> pinned -> managed.
 *
 * Runs on every machine against the real libibverbs and the real driver:
 * expectations come from independent looks at the machine (entries in
 * /sys/class/infiniband, /sys/module/nvidia_peermem, whether CUDA opens).
 * No fake NIC, no mock. On the project's machines there is no RDMA device,
 * so ibverbs-device, active-port and dmabuf-mr must be named missing.
 */
#include <gst/check/gstcheck.h>

#include "alloc-test.h"

static gboolean
have_cuda (void)
{
  struct doradma_cuda_device *dev = NULL;

  if (doradma_cuda_device_open (0, &dev, NULL) < 0)
    return FALSE;
  doradma_cuda_device_unref (dev);
  return TRUE;
}

static gboolean
field (const GstStructure * s, const char *name)
{
  gboolean v = FALSE;

  fail_unless (gst_structure_get_boolean (s, name, &v), "no field %s", name);
  return v;
}

GST_START_TEST (test_probe_names_every_missing_prerequisite)
{
  GstStructure *r = NULL;
  GError *err = NULL;
  gboolean ok = gst_doradma_gpudirect_probe (0, &r, &err);
  gchar *txt = gst_structure_to_string (r);
  gboolean cuda = have_cuda ();
  gboolean peermem = g_file_test ("/sys/module/nvidia_peermem",
      G_FILE_TEST_IS_DIR);

  printf ("probe report: %s\n", txt);
  if (err)
    printf ("probe error: %s\n", err->message);
  fail_unless_equals_int (field (r, "cuda"), cuda);
  fail_unless_equals_int (field (r, "nvidia-peermem"), peermem);
  if (t_rdma_device_count () == 0) {
    fail_if (ok);
    fail_if (field (r, "ibverbs-device"));
    fail_if (field (r, "active-port"));
    fail_if (field (r, "dmabuf-mr"));
    fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
            GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE));
    fail_unless (strstr (err->message, "ibverbs-device (") != NULL);
    fail_unless (strstr (err->message, "active-port (") != NULL);
    fail_unless (strstr (err->message, "dmabuf-mr (") != NULL);
    fail_unless_equals_int (strstr (err->message, "nvidia-peermem (") !=
        NULL, !peermem);
    fail_unless_equals_int (strstr (err->message, " cuda (") != NULL, !cuda);
    /* cuda-dma-buf is named exactly when the GPU lacks the attributes. */
    fail_unless_equals_int (strstr (err->message, "cuda-dma-buf (") != NULL,
        !field (r, "cuda-dma-buf"));
    if (!cuda)
      fail_if (field (r, "cuda-dma-buf"));
  }
  g_free (txt);
  g_clear_error (&err);
  gst_structure_free (r);
}

GST_END_TEST;

GST_START_TEST (test_gpudirect_without_fallback_is_refused_with_reasons)
{
  GError *err = NULL;
  GstAllocator *a;

  if (t_rdma_device_count () != 0)
    return;                     /* a real NIC: covered by docs/gpudirect.md */
  a = gst_doradma_slab_allocator_new_rdma (NULL, 0, FALSE, &err);
  fail_unless (a == NULL);
  fail_unless (g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE));
  printf ("no fallback: %s\n", err->message);
  fail_unless (strstr (err->message, "ibverbs-device (") != NULL);
  g_error_free (err);
}

GST_END_TEST;

GST_START_TEST (test_fallback_chain_is_logged_in_stats)
{
  GError *err = NULL;
  GstAllocator *a;
  GstStructure *st;
  GstMemory *mem;
  const gchar *chain, *mode;

  if (t_rdma_device_count () != 0)
    return;
  a = gst_doradma_slab_allocator_new_rdma (NULL, 64 << 20, TRUE, &err);
  if (!have_cuda ()) {
    /* Every step fails; the message has all three. */
    fail_unless (a == NULL);
    fail_unless (strstr (err->message, "gpudirect: unavailable"));
    fail_unless (strstr (err->message, "pinned-mr: unavailable, missing"));
    fail_unless (strstr (err->message, "managed: CUDA unavailable"));
    g_error_free (err);
    return;
  }
  fail_unless (a != NULL, "%s", err ? err->message : "");
  st = gst_doradma_slab_allocator_get_stats (a);
  chain = gst_structure_get_string (st, "rdma-fallback");
  mode = gst_structure_get_string (st, "rdma-mode");
  printf ("rdma-mode %s, chain:\n%s\n", mode, chain);
  fail_unless_equals_string (mode, "none");
  fail_unless_equals_string (gst_structure_get_string (st, "kind"), "managed");
  fail_unless (strstr (chain, "gpudirect: unavailable, missing") != NULL);
  fail_unless (strstr (chain, "pinned-mr: unavailable, missing "
          "ibverbs-device") != NULL);
  fail_unless (strstr (chain, "managed: ok") != NULL);
  gst_structure_free (st);
  mem = gst_doradma_slab_allocator_alloc (a, 1 << 20, &err);
  fail_unless (mem != NULL);
  fail_if (gst_doradma_slab_memory_get_rdma_keys (mem, NULL, NULL, NULL));
  gst_memory_unref (mem);
  gst_object_unref (a);
}

GST_END_TEST;

static Suite *
probe_suite (void)
{
  Suite *s = suite_create ("allocator-probe");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_probe_names_every_missing_prerequisite);
  tcase_add_test (tc, test_gpudirect_without_fallback_is_refused_with_reasons);
  tcase_add_test (tc, test_fallback_chain_is_logged_in_stats);
  return s;
}

GST_CHECK_MAIN (probe);
