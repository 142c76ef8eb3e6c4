/* Description: device slab memory exports as a dma-buf of the slab's
 * capacity; managed memory is refused with the reason; pinned memory exports
 * only where CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED. Needs a GPU. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc-test.h"

int
main (int argc, char **argv)
{
  struct doradma_cuda_device *dev = NULL;
  GstAllocator *a;
  GstMemory *m;
  GError *err = NULL;
  guint64 size = 0;
  struct stat st;
  int fd, ret;

  gst_init (&argc, &argv);
  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;

  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_DEVICE, 256 << 20);
  m = gst_allocator_alloc (a, 5 << 20, NULL);
  T_CHECK (m != NULL, "alloc");
  fd = gst_doradma_slab_memory_export_dmabuf (m, &size, &err);
  T_CHECK (fd >= 0, "device export: %s", err ? err->message : "");
  T_CHECK (size >= m->size && size == m->maxsize, "size %llu",
      (unsigned long long) size);
  T_CHECK (fstat (fd, &st) == 0, "fstat");
  printf ("device slab: dma-buf fd %d, %llu bytes\n", fd,
      (unsigned long long) size);
  close (fd);
  gst_memory_unref (m);
  gst_object_unref (a);

  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_MANAGED, 64 << 20);
  m = gst_allocator_alloc (a, 1 << 20, NULL);
  fd = gst_doradma_slab_memory_export_dmabuf (m, NULL, &err);
  T_CHECK (fd < 0 && g_error_matches (err, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_UNSUPPORTED), "managed export not refused");
  T_CHECK (strstr (err->message, "managed") != NULL, "%s", err->message);
  printf ("managed refused: %s\n", err->message);
  g_clear_error (&err);
  gst_memory_unref (m);
  gst_object_unref (a);

  a = t_new_or_skip (GST_DORADMA_SLAB_KIND_PINNED, 64 << 20);
  m = gst_allocator_alloc (a, 1 << 20, NULL);
  fd = gst_doradma_slab_memory_export_dmabuf (m, NULL, &err);
  if (doradma_cuda_device_get_info (dev)->host_alloc_dma_buf_supported) {
    T_CHECK (fd >= 0, "pinned export: %s", err ? err->message : "");
    close (fd);
  } else {
    T_CHECK (fd < 0 && g_error_matches (err, GST_DORADMA_SLAB_ERROR,
            GST_DORADMA_SLAB_ERROR_UNSUPPORTED), "pinned export");
    printf ("pinned refused: %s\n", err->message);
    g_clear_error (&err);
  }
  gst_memory_unref (m);
  gst_object_unref (a);
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
