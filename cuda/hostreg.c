/* doradma — host registration of a whole shm mapping (transport "unified").
 *
 * A reader registers its whole data mapping once (cuMemHostRegister
 * DEVICEMAP, READ_ONLY for its PROT_READ mapping) and computes slot device
 * pointers as alias + offset. Registration pins pages and costs milliseconds
 * per 64 MiB, and the driver refuses a second registration of an overlapping
 * range, so a per-process registry keyed by (device, st_dev, st_ino) shares
 * one registration among every user of the mapping, refcounted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cuda-api.h"

struct doradma_cuda_hostreg
{
  struct doradma_cuda_hostreg *next;    /* registry list, under reg_lock */
  unsigned refcount;            /* under reg_lock */
  struct doradma_cuda_device *dev;
  dev_t st_dev;
  ino_t st_ino;
  void *addr;
  size_t len;
  int prot;
  bool read_only;
  CUdeviceptr dptr;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct doradma_cuda_hostreg *registry;

static struct doradma_cuda_hostreg *
lookup_locked (const struct doradma_cuda_device *dev, dev_t d, ino_t i)
{
  struct doradma_cuda_hostreg *r;

  for (r = registry; r != NULL; r = r->next)
    if (r->dev == dev && r->st_dev == d && r->st_ino == i)
      return r;
  return NULL;
}

static int
do_register (struct doradma_cuda_hostreg *r, struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  const struct doradma_cuda_device_info *info =
      doradma_cuda_device_get_info (r->dev);
  unsigned flags = CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE;
  CUresult res;
  int ret;

  if (!info->host_register_supported)
    return __doradma_cuda_diag (diag, "cuMemHostRegister", -ENOTSUP,
        "device %d (%s) does not support host registration "
        "(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED=0); use transport "
        "shmem", info->ordinal, info->name);
  if (!(r->prot & PROT_WRITE)) {
    /* The GPU must not be given write access to pages the CPU maps
     * read-only; without the flag the driver refuses such a mapping. */
    if (!info->read_only_host_register_supported)
      return __doradma_cuda_diag (diag, "cuMemHostRegister", -ENOTSUP,
          "device %d (%s) cannot register a read-only mapping "
          "(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED=0) and a "
          "PROT_READ mapping must not be registered read-write",
          info->ordinal, info->name);
    flags |= CU_MEMHOSTREGISTER_READ_ONLY;
    r->read_only = true;
  }

  ret = __doradma_cuda_push (r->dev, diag);
  if (ret < 0)
    return ret;
  res = cu->MemHostRegister (r->addr, r->len, flags);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuMemHostRegister", res,
        " registering %zu bytes at %p with flags 0x%x%s", r->len, r->addr,
        flags, res == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED ?
        " (overlaps a registration made outside doradma)" : "");
    goto out;
  }
  /* Never assume alias == host pointer: it differs where
   * CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM is 0 (Jetson). */
  res = cu->MemHostGetDevicePointer (&r->dptr, r->addr, 0);
  if (res != CUDA_SUCCESS) {
    ret = __doradma_cuda_fail (diag, "cuMemHostGetDevicePointer", res, NULL);
    cu->MemHostUnregister (r->addr);
    goto out;
  }
  ret = 0;
out:
  __doradma_cuda_pop ();
  return ret;
}

int
doradma_cuda_hostreg_acquire (struct doradma_cuda_device *dev, int fd,
    void *addr, size_t len, int prot, struct doradma_cuda_hostreg **out,
    struct doradma_diag *diag)
{
  struct doradma_cuda_hostreg *r;
  struct stat st;
  int ret;

  if (dev == NULL || out == NULL || addr == NULL || len == 0)
    return __doradma_cuda_diag (diag, NULL, -EINVAL,
        "hostreg: NULL device/out/addr or zero length");
  *out = NULL;
  if (fstat (fd, &st) < 0) {
    ret = -errno;
    return __doradma_cuda_diag (diag, "fstat", ret,
        "hostreg: fstat(fd %d) failed: errno %d", fd, -ret);
  }

  pthread_mutex_lock (&reg_lock);
  r = lookup_locked (dev, st.st_dev, st.st_ino);
  if (r != NULL) {
    if (r->addr != addr || r->len != len || r->prot != prot) {
      pthread_mutex_unlock (&reg_lock);
      return __doradma_cuda_diag (diag, "addr", -EBUSY,
          "hostreg: inode %lu is already registered as %zu bytes at %p "
          "(prot %d); asked for %zu bytes at %p (prot %d): share one "
          "mapping per inode per process", (unsigned long) st.st_ino,
          r->len, r->addr, r->prot, len, addr, prot);
    }
    r->refcount++;
    pthread_mutex_unlock (&reg_lock);
    *out = r;
    return 0;
  }
  r = calloc (1, sizeof *r);
  if (r == NULL) {
    pthread_mutex_unlock (&reg_lock);
    return __doradma_cuda_diag (diag, NULL, -ENOMEM, "out of memory");
  }
  r->dev = doradma_cuda_device_ref (dev);
  r->st_dev = st.st_dev;
  r->st_ino = st.st_ino;
  r->addr = addr;
  r->len = len;
  r->prot = prot;
  /* Registered under the lock so a racing acquire of the same inode waits
   * instead of hitting HOST_MEMORY_ALREADY_REGISTERED. Cold path. */
  ret = do_register (r, diag);
  if (ret < 0) {
    pthread_mutex_unlock (&reg_lock);
    doradma_cuda_device_unref (r->dev);
    free (r);
    return ret;
  }
  r->refcount = 1;
  r->next = registry;
  registry = r;
  pthread_mutex_unlock (&reg_lock);
  *out = r;
  return 0;
}

uint64_t
doradma_cuda_hostreg_get_device_pointer (const struct doradma_cuda_hostreg *reg)
{
  return reg->dptr;
}

bool
doradma_cuda_hostreg_is_read_only (const struct doradma_cuda_hostreg *reg)
{
  return reg->read_only;
}

bool
doradma_cuda_hostreg_is_integrated (const struct doradma_cuda_hostreg *reg)
{
  return doradma_cuda_device_get_info (reg->dev)->integrated;
}

unsigned
doradma_cuda_hostreg_refcount (const struct doradma_cuda_hostreg *reg)
{
  unsigned n;

  pthread_mutex_lock (&reg_lock);
  n = reg->refcount;
  pthread_mutex_unlock (&reg_lock);
  return n;
}

int
doradma_cuda_hostreg_release (struct doradma_cuda_hostreg *reg,
    struct doradma_diag *diag)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  struct doradma_cuda_hostreg **p;
  CUresult res;
  int ret = 0;

  if (reg == NULL)
    return 0;
  pthread_mutex_lock (&reg_lock);
  if (--reg->refcount > 0) {
    pthread_mutex_unlock (&reg_lock);
    return 0;
  }
  for (p = &registry; *p != NULL; p = &(*p)->next)
    if (*p == reg) {
      *p = reg->next;
      break;
    }
  /* Unregister under the lock: a new acquire of the same inode must not
   * register before this range is released. */
  ret = __doradma_cuda_push (reg->dev, diag);
  if (ret == 0) {
    res = cu->MemHostUnregister (reg->addr);
    __doradma_cuda_pop ();
    if (res != CUDA_SUCCESS)
      ret = __doradma_cuda_fail (diag, "cuMemHostUnregister", res,
          " (%zu bytes at %p)", reg->len, reg->addr);
  }
  pthread_mutex_unlock (&reg_lock);
  doradma_cuda_device_unref (reg->dev);
  free (reg);
  return ret;
}
