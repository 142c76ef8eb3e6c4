/* Description: the public stream/event/copy API (cuda/stream.c) that gst/
 * uses instead of the private driver table. Linear copies host→device,
 * device→device, device→host, synchronous and on a stream; a 2-D copy with
 * three different pitches there and back; events (record, query, synchronise,
 * elapsed time); managed-memory attach to a stream and back to the host;
 * argument errors (SINGLE on the NULL stream, pitch < width). Only public
 * calls: this file includes doradma-cuda.h, never cuda-api.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-test.h"

#define N (1u << 20)
#define W 1000u                 /* 2-D: row bytes */
#define H 64u                   /* rows */
#define HP 1200u                /* host source pitch */
#define DP 1536u                /* device pitch */

int
main (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_slab_pool *dpool = NULL, *mpool = NULL;
  struct doradma_cuda_slab *ds = NULL, *ms = NULL;
  const struct doradma_cuda_slab_info *di, *mi;
  struct doradma_diag d = { 0 };
  void *stream = NULL, *e0 = NULL, *e1 = NULL;
  uint8_t *src = NULL, *back = NULL;
  float ms_elapsed = -1;
  int ret, rc = T_EXIT_FAIL;

  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  src = malloc (2 * N);
  back = calloc (1, 2 * N);
  T_CHECK (src && back, "malloc");
  T_CHECK (doradma_cuda_device_get_handle (dev) >= 0, "device handle");
  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_DEVICE, 0,
          &dpool, &d) == 0, "device pool: %s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (dpool, 2 * N, &ds, &d) == 0,
      "device slab: %s", d.msg);
  di = doradma_cuda_slab_get_info (ds);
  T_CHECK (doradma_cuda_stream_create (dev, true, &stream, &d) == 0 && stream,
      "stream: %s", d.msg);
  T_CHECK (doradma_cuda_event_create (dev, true, &e0, &d) == 0
      && doradma_cuda_event_create (dev, true, &e1, &d) == 0, "event: %s",
      d.msg);

  /* linear, synchronous: H→D, D→D (second half), D→H */
  t_cpu_fill (src, N, 11);
  T_CHECK (doradma_cuda_copy_htod (dev, di->device, src, N, &d) == 0,
      "htod: %s", d.msg);
  T_CHECK (doradma_cuda_copy_dtod (dev, di->device + N, di->device, N, &d)
      == 0, "dtod: %s", d.msg);
  T_CHECK (doradma_cuda_device_synchronize (dev, &d) == 0, "ctx sync: %s",
      d.msg);
  T_CHECK (doradma_cuda_copy_dtoh (dev, back, di->device + N, N, &d) == 0,
      "dtoh: %s", d.msg);
  T_CHECK (memcmp (back, src, N) == 0, "sync H→D→D→H differs");

  /* linear, on the stream, bracketed by events */
  t_cpu_fill (src, N, 12);
  memset (back, 0, N);
  T_CHECK (doradma_cuda_event_record (dev, e0, stream, &d) == 0, "record: %s",
      d.msg);
  T_CHECK (doradma_cuda_copy_htod_async (dev, di->device, src, N, stream,
          &d) == 0, "htod async: %s", d.msg);
  T_CHECK (doradma_cuda_copy_dtod_async (dev, di->device + N, di->device, N,
          stream, &d) == 0, "dtod async: %s", d.msg);
  T_CHECK (doradma_cuda_copy_dtoh_async (dev, back, di->device + N, N,
          stream, &d) == 0, "dtoh async: %s", d.msg);
  T_CHECK (doradma_cuda_event_record (dev, e1, stream, &d) == 0, "record: %s",
      d.msg);
  ret = doradma_cuda_event_query (dev, e1, &d);
  T_CHECK (ret == 0 || ret == -EAGAIN, "query before sync: %d %s", ret, d.msg);
  T_CHECK (doradma_cuda_event_synchronize (dev, e1, &d) == 0, "event sync: "
      "%s", d.msg);
  T_CHECK (doradma_cuda_event_query (dev, e1, &d) == 0, "query after sync");
  ret = doradma_cuda_event_elapsed_ms (dev, e0, e1, &ms_elapsed, &d);
  T_CHECK (ret == 0 || ret == -ENOTSUP, "elapsed: %d %s", ret, d.msg);
  T_CHECK (memcmp (back, src, N) == 0, "async H→D→D→H differs");
  printf ("linear: 3 x %u bytes sync and async equal (query before sync %s, "
      "%.3f ms on the stream)\n", N, ret == 0 ? "ok" : "-",
      (double) ms_elapsed);

  /* 2-D: host pitch HP → device pitch DP → host pitch W */
  if (doradma_cuda_have_copy_2d ()) {
    struct doradma_cuda_copy2d up = {
      .dst = di->device,.dst_device = true,.dst_pitch = DP,
      .src = (uint64_t) (uintptr_t) src,.src_pitch = HP,.width = W,.height = H,
    }, down = {
      .dst = (uint64_t) (uintptr_t) back,.dst_pitch = W,
      .src = di->device,.src_device = true,.src_pitch = DP,.width = W,
      .height = H,
    }, bad = up;
    uint32_t r;

    t_cpu_fill (src, (uint64_t) HP * H, 13);
    memset (back, 0, (size_t) W * H);
    T_CHECK (doradma_cuda_copy_2d_async (dev, &up, stream, &d) == 0,
        "2d async: %s", d.msg);
    T_CHECK (doradma_cuda_stream_synchronize (dev, stream, &d) == 0,
        "stream sync: %s", d.msg);
    T_CHECK (doradma_cuda_copy_2d (dev, &down, &d) == 0, "2d: %s", d.msg);
    for (r = 0; r < H; r++)
      T_CHECK (memcmp (back + (size_t) r * W, src + (size_t) r * HP, W) == 0,
          "2-D row %u differs", r);
    bad.dst_pitch = W - 1;
    T_CHECK (doradma_cuda_copy_2d (dev, &bad, &d) == -EINVAL,
        "pitch < width accepted");
    printf ("2-D: %u rows of %u bytes, pitches %u → %u → %u equal; "
        "pitch < width: %s\n", H, W, HP, DP, W, d.msg);
  } else {
    printf ("2-D: this driver has no cuMemcpy2D_v2 (row-by-row fallback)\n");
  }

  /* managed attach: SINGLE to the stream, back to HOST on the NULL stream */
  ret = doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_MANAGED, 0,
      &mpool, &d);
  if (ret == -ENOTSUP) {
    printf ("managed: unsupported here (%s)\n", d.msg);
  } else {
    T_CHECK (ret == 0, "managed pool: %s", d.msg);
    T_CHECK (doradma_cuda_slab_alloc (mpool, N, &ms, &d) == 0,
        "managed slab: %s", d.msg);
    mi = doradma_cuda_slab_get_info (ms);
    T_CHECK (doradma_cuda_stream_attach_managed (dev, NULL, mi->device, 0,
            DORADMA_CUDA_ATTACH_SINGLE, &d) == -EINVAL,
        "SINGLE on the NULL stream accepted");
    T_CHECK (doradma_cuda_stream_attach_managed (dev, stream, mi->device, 0,
            DORADMA_CUDA_ATTACH_SINGLE, &d) == 0, "attach single: %s", d.msg);
    T_CHECK (doradma_cuda_copy_htod_async (dev, mi->device, src, N, stream,
            &d) == 0, "htod into managed: %s", d.msg);
    T_CHECK (doradma_cuda_stream_synchronize (dev, stream, &d) == 0,
        "sync: %s", d.msg);
    T_CHECK (memcmp (mi->host, src, N) == 0, "managed bytes differ");
    T_CHECK (doradma_cuda_stream_attach_managed (dev, NULL, mi->device, 0,
            DORADMA_CUDA_ATTACH_HOST, &d) == 0
        && doradma_cuda_stream_synchronize (dev, NULL, &d) == 0,
        "attach host: %s", d.msg);
    memset (mi->host, 0x5a, N);
    printf ("managed: attach single/host ok\n");
  }
  rc = T_EXIT_PASS;
  printf ("stream-copy: PASS\n");

err:
  doradma_cuda_event_destroy (dev, e0, NULL);
  doradma_cuda_event_destroy (dev, e1, NULL);
  doradma_cuda_stream_destroy (dev, stream, NULL);
  if (ms)
    doradma_cuda_slab_free (ms);
  if (ds)
    doradma_cuda_slab_free (ds);
  if (mpool)
    doradma_cuda_slab_pool_destroy (mpool);
  if (dpool)
    doradma_cuda_slab_pool_destroy (dpool);
  doradma_cuda_device_unref (dev);
  free (src);
  free (back);
  return rc;
}
