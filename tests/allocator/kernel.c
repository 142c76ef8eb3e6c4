/* Description: GPU kernels read and write slab memory of every kind through
 * gst_doradma_slab_memory_get_device_pointer, and the CPU sees the same
 * bytes through gst_memory_map (managed, pinned) or upload (device); a
 * managed slab attached to a stream, back to the host (CPU only) and then
 * global again stays coherent.
 * Pooled (6 MiB) and unpooled (72 MiB) sizes. Needs a GPU (else SKIP). */
#include <stdlib.h>
#include <string.h>

#include "alloc-test.h"
#include "cuda-api.h"

static int
one (struct doradma_cuda_device *dev, GstAllocator * a, gsize size)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  GstMemory *m = gst_allocator_alloc (a, size, NULL);
  GstDoradmaSlabKind kind;
  uint8_t *buf = malloc (size);
  GError *err = NULL;
  GstMapInfo map;
  guint64 d;
  CUstream stream = NULL;
  int ret = T_EXIT_FAIL;

  T_CHECK (m != NULL && buf != NULL, "alloc %zu", size);
  kind = gst_doradma_slab_memory_get_kind (m);
  d = gst_doradma_slab_memory_get_device_pointer (m);

  /* CPU writes, GPU reads. */
  t_cpu_fill (buf, size, 7);
  T_CHECK (gst_doradma_slab_memory_upload (m, 0, buf, size, &err), "upload: "
      "%s", err ? err->message : "");
  T_CHECK (t_gpu_check_pattern (dev, d, size, 7) == 0, "GPU read");

  /* GPU writes, CPU reads. */
  T_CHECK (t_gpu_fill (dev, d, size, 11) == 0, "GPU write");
  if (kind == GST_DORADMA_SLAB_KIND_DEVICE) {
    T_CHECK (doradma_cuda_device_push (dev, NULL) == 0, "push");
    T_CHECK (cu->MemcpyDtoH (buf, d, size) == CUDA_SUCCESS, "DtoH");
    doradma_cuda_device_pop ();
    T_CHECK (t_cpu_check_pattern (buf, size, 11) == 0, "CPU read (copy)");
  } else {
    T_CHECK (gst_memory_map (m, &map, GST_MAP_READ), "map");
    T_CHECK (t_cpu_check_pattern (map.data, size, 11) == 0, "CPU read");
    gst_memory_unmap (m, &map);
  }

  if (kind == GST_DORADMA_SLAB_KIND_MANAGED) {
    /* Jetson rule, exercised here on a concurrent device: attached to one
     * stream, only that stream may touch the slab (so no kernel runs on
     * another one meanwhile); map waits for the stream; attach back to the
     * host (CPU only), then global before the GPU uses it again. */
    T_CHECK (doradma_cuda_device_push (dev, NULL) == 0, "push");
    T_CHECK (cu->StreamCreate (&stream, CU_STREAM_NON_BLOCKING) ==
        CUDA_SUCCESS, "stream");
    doradma_cuda_device_pop ();
    T_CHECK (gst_doradma_slab_memory_attach_stream (m, stream, &err),
        "attach to stream: %s", err ? err->message : "");
    T_CHECK (gst_memory_map (m, &map, GST_MAP_READ), "map (attached)");
    T_CHECK (t_cpu_check_pattern (map.data, size, 11) == 0, "CPU read");
    gst_memory_unmap (m, &map);
    T_CHECK (gst_doradma_slab_memory_attach_stream (m, NULL, &err),
        "attach to host: %s", err ? err->message : "");
    /* CU_MEM_ATTACH_HOST: no stream on any device may touch it now (a GPU
     * write here is what compute-sanitizer reported on 2026-11-29, second
     * run), so the CPU writes; then the application makes it global again
     * before the GPU reads and writes it. */
    T_CHECK (gst_memory_map (m, &map, GST_MAP_WRITE), "map (host-attached)");
    t_cpu_fill (map.data, size, 13);
    gst_memory_unmap (m, &map);
    T_CHECK (doradma_cuda_stream_attach_managed (dev, NULL, d, 0,
            DORADMA_CUDA_ATTACH_GLOBAL, NULL) == 0
        && doradma_cuda_stream_synchronize (dev, NULL, NULL) == 0,
        "attach global");
    T_CHECK (t_gpu_check_pattern (dev, d, size, 13) == 0, "GPU read 13");
    T_CHECK (t_gpu_fill (dev, d, size, 17) == 0, "GPU write (global)");
    T_CHECK (gst_memory_map (m, &map, GST_MAP_READ), "map");
    T_CHECK (t_cpu_check_pattern (map.data, size, 17) == 0, "CPU read 17");
    gst_memory_unmap (m, &map);
  }
  printf ("%s slab of %zu bytes (dev 0x%llx): GPU read/write ok\n",
      doradma_cuda_slab_kind_name ((int) kind), size, (unsigned long long) d);
  ret = T_EXIT_PASS;
err:
  if (stream) {
    doradma_cuda_device_push (dev, NULL);
    cu->StreamDestroy (stream);
    doradma_cuda_device_pop ();
  }
  if (m)
    gst_memory_unref (m);
  free (buf);
  return ret;
}

int
main (int argc, char **argv)
{
  struct doradma_cuda_device *dev = NULL;
  int k, ret;

  gst_init (&argc, &argv);
  ret = t_cuda_open_with_kernels (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  for (k = 0; k <= 2; k++) {
    GstAllocator *a = t_new_or_skip ((GstDoradmaSlabKind) k, 256 << 20);

    if (one (dev, a, 6u << 20) != T_EXIT_PASS
        || one (dev, a, 72u << 20) != T_EXIT_PASS)
      return T_EXIT_FAIL;
    gst_object_unref (a);
  }
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
}
