/* Description: dma-buf export of slabs (for ibv_reg_dmabuf_mr). A device
 * slab, pooled and unpooled, exports a valid dma-buf fd whose size (lseek
 * SEEK_END) is the slab's capacity; exporting twice gives two fds; a managed
 * slab is refused with -ENOTSUP and a reason naming managed memory; a pinned
 * slab exports only where CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED,
 * else -ENOTSUP naming the attribute. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda-test.h"

static int
export_ok (struct doradma_cuda_slab *s)
{
  const struct doradma_cuda_slab_info *i = doradma_cuda_slab_get_info (s);
  struct doradma_diag d = { 0 };
  struct stat st;
  uint64_t size = 0;
  off_t end;
  int fd = -1, fd2 = -1, ret;

  ret = doradma_cuda_slab_export_dmabuf (s, &fd, &size, &d);
  T_CHECK (ret == 0 && fd >= 0, "%s export: %d %s",
      doradma_cuda_slab_kind_name (i->kind), ret, d.msg);
  T_CHECK (fstat (fd, &st) == 0, "fstat of the dma-buf fd");
  end = lseek (fd, 0, SEEK_END);
  T_CHECK (size == i->capacity && end == (off_t) i->capacity,
      "size %llu, lseek %lld, capacity %zu", (unsigned long long) size,
      (long long) end, i->capacity);
  T_CHECK (doradma_cuda_slab_export_dmabuf (s, &fd2, NULL, &d) == 0
      && fd2 >= 0 && fd2 != fd, "second export: %s", d.msg);
  printf ("%s slab (%zu bytes, vmm %d): dma-buf fd %d, size %lld\n",
      doradma_cuda_slab_kind_name (i->kind), i->capacity, i->vmm, fd,
      (long long) end);
  close (fd);
  close (fd2);
  return 0;
err:
  if (fd >= 0)
    close (fd);
  return -1;
}

int
main (void)
{
  struct doradma_cuda_device *dev = NULL;
  const struct doradma_cuda_device_info *info;
  struct doradma_cuda_slab_pool *dpool = NULL, *mpool = NULL, *ppool = NULL;
  struct doradma_cuda_slab *s = NULL, *big = NULL, *m = NULL, *p = NULL;
  struct doradma_diag d = { 0 };
  int ret, fd = -1;

  ret = t_cuda_open (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  info = doradma_cuda_device_get_info (dev);
  if (!info->dma_buf_supported) {
    printf ("SKIP: device has CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=0 (needs "
        "the open kernel module)\n");
    return T_EXIT_SKIP;
  }
  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_DEVICE,
          256u << 20, &dpool, &d) == 0, "device pool: %s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (dpool, 4u << 20, &s, &d) == 0, "alloc");
  T_CHECK (doradma_cuda_slab_alloc (dpool, 80u << 20, &big, &d) == 0, "big");
  if (export_ok (s) < 0 || export_ok (big) < 0)
    goto err;

  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_MANAGED,
          64u << 20, &mpool, &d) == 0, "managed pool: %s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (mpool, 1u << 20, &m, &d) == 0, "managed");
  ret = doradma_cuda_slab_export_dmabuf (m, &fd, NULL, &d);
  T_CHECK (ret == -ENOTSUP && fd == -1 && strstr (d.msg, "managed"),
      "managed export: %d '%s'", ret, d.msg);
  printf ("managed refused: %s\n", d.msg);

  T_CHECK (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_PINNED,
          64u << 20, &ppool, &d) == 0, "pinned pool: %s", d.msg);
  T_CHECK (doradma_cuda_slab_alloc (ppool, 1u << 20, &p, &d) == 0, "pinned");
  if (info->host_alloc_dma_buf_supported) {
    if (export_ok (p) < 0)
      goto err;
  } else {
    ret = doradma_cuda_slab_export_dmabuf (p, &fd, NULL, &d);
    T_CHECK (ret == -ENOTSUP && strstr (d.msg,
            "HOST_ALLOC_DMA_BUF_SUPPORTED"), "pinned: %d '%s'", ret, d.msg);
    printf ("pinned refused: %s\n", d.msg);
  }
  doradma_cuda_slab_free (p);
  doradma_cuda_slab_free (m);
  doradma_cuda_slab_free (s);
  doradma_cuda_slab_free (big);
  doradma_cuda_slab_pool_destroy (ppool);
  doradma_cuda_slab_pool_destroy (mpool);
  doradma_cuda_slab_pool_destroy (dpool);
  T_CHECK (doradma_cuda_slab_live_count () == 0, "slabs leaked");
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
