/* Description: host registration of a /dev/shm mapping (transport
 * "unified"). A writer process registers its read-write mapping and fills
 * it with a GPU kernel through the device alias; a reader process maps the
 * object PROT_READ, registers it READ_ONLY, and a GPU checksum through its
 * alias equals the CPU checksum. One registration per inode per process
 * (refcounted, a second fd of the same object shares it, a different range
 * is -EBUSY). CUDA is never initialised in the parent (it does not survive
 * fork). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda-test.h"

#define SIZE (16u << 20)
#define SEED 7u

static char name[64];

static int
writer (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_hostreg *reg = NULL, *reg2 = NULL, *bad = NULL;
  struct doradma_diag d = { 0 };
  uint8_t *p = MAP_FAILED;
  int fd, ret;

  ret = t_cuda_open_with_kernels (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  fd = shm_open (name, O_RDWR, 0);
  T_CHECK (fd >= 0, "shm_open rw");
  p = mmap (NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  T_CHECK (p != MAP_FAILED, "mmap rw");
  ret = doradma_cuda_hostreg_acquire (dev, fd, p, SIZE, PROT_READ | PROT_WRITE,
      &reg, &d);
  T_CHECK (ret == 0, "acquire rw: %d %s", ret, d.msg);
  T_CHECK (!doradma_cuda_hostreg_is_read_only (reg), "rw registered ro");
  T_CHECK (doradma_cuda_hostreg_acquire (dev, fd, p, SIZE,
          PROT_READ | PROT_WRITE, &reg2, &d) == 0 && reg2 == reg
      && doradma_cuda_hostreg_refcount (reg) == 2,
      "second acquire of the same inode did not share the registration");
  ret = doradma_cuda_hostreg_acquire (dev, fd, p, SIZE / 2,
      PROT_READ | PROT_WRITE, &bad, &d);
  T_CHECK (ret == -EBUSY && bad == NULL, "other range gave %d", ret);
  printf ("writer: host %p alias 0x%llx integrated %d; other range: %s\n",
      (void *) p,
      (unsigned long long) doradma_cuda_hostreg_get_device_pointer (reg),
      doradma_cuda_hostreg_is_integrated (reg), d.msg);
  T_CHECK (t_gpu_fill (dev, doradma_cuda_hostreg_get_device_pointer (reg),
          SIZE, SEED) == 0, "GPU fill through the alias");
  T_CHECK (t_cpu_check_pattern (p, SIZE, SEED) == 0,
      "CPU does not see what the GPU wrote through the alias");
  T_CHECK (doradma_cuda_hostreg_release (reg2, &d) == 0, "release: %s", d.msg);
  T_CHECK (doradma_cuda_hostreg_refcount (reg) == 1, "refcount");
  T_CHECK (doradma_cuda_hostreg_release (reg, &d) == 0, "release: %s", d.msg);
  munmap (p, SIZE);
  close (fd);
  doradma_cuda_device_unref (dev);
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

static int
reader (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_hostreg *reg = NULL, *reg2 = NULL;
  struct doradma_diag d = { 0 };
  const struct doradma_cuda_device_info *info;
  uint8_t *p = MAP_FAILED;
  int fd, fd2, ret;

  ret = t_cuda_open_with_kernels (&dev);
  if (ret != T_EXIT_PASS)
    return ret;
  info = doradma_cuda_device_get_info (dev);
  fd = shm_open (name, O_RDONLY, 0);
  fd2 = shm_open (name, O_RDONLY, 0);
  T_CHECK (fd >= 0 && fd2 >= 0, "shm_open ro");
  p = mmap (NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
  T_CHECK (p != MAP_FAILED, "mmap ro");
  ret = doradma_cuda_hostreg_acquire (dev, fd, p, SIZE, PROT_READ, &reg, &d);
  if (!info->read_only_host_register_supported) {
    T_CHECK (ret == -ENOTSUP && strstr (d.msg, "READ_ONLY"),
        "ro mapping without ro support gave %d '%s'", ret, d.msg);
    printf ("SKIP: device cannot register read-only mappings: %s\n", d.msg);
    return T_EXIT_SKIP;
  }
  T_CHECK (ret == 0, "acquire ro: %d %s", ret, d.msg);
  T_CHECK (doradma_cuda_hostreg_is_read_only (reg), "not registered ro");
  /* Another fd of the same object: the registry is keyed by inode. */
  T_CHECK (doradma_cuda_hostreg_acquire (dev, fd2, p, SIZE, PROT_READ, &reg2,
          &d) == 0 && reg2 == reg, "second fd did not share: %s", d.msg);
  printf ("reader: host %p alias 0x%llx (%s)\n", (void *) p,
      (unsigned long long) doradma_cuda_hostreg_get_device_pointer (reg),
      (uint64_t) (uintptr_t) p == doradma_cuda_hostreg_get_device_pointer (reg)
      ? "alias == host pointer on this device" : "alias differs");
  T_CHECK (t_cpu_check_pattern (p, SIZE, SEED) == 0, "CPU view");
  /* GPU checksum through the read-only alias == CPU checksum of the bytes */
  T_CHECK (t_gpu_check (dev, doradma_cuda_hostreg_get_device_pointer (reg),
          SIZE, p) == 0, "GPU checksum differs from CPU checksum");
  T_CHECK (doradma_cuda_hostreg_release (reg2, &d) == 0, "release");
  T_CHECK (doradma_cuda_hostreg_release (reg, &d) == 0, "release: %s", d.msg);
  /* Released: the same range registers again (nothing left behind). */
  T_CHECK (doradma_cuda_hostreg_acquire (dev, fd, p, SIZE, PROT_READ, &reg,
          &d) == 0, "re-acquire after release: %s", d.msg);
  T_CHECK (doradma_cuda_hostreg_release (reg, &d) == 0, "release");
  munmap (p, SIZE);
  close (fd);
  close (fd2);
  doradma_cuda_device_unref (dev);
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

int
main (void)
{
  int fd, ret;

  snprintf (name, sizeof name, "/doradma-test-hostreg-%d", (int) getpid ());
  fd = shm_open (name, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || ftruncate (fd, SIZE) < 0) {
    perror ("shm_open/ftruncate");
    return T_EXIT_FAIL;
  }
  close (fd);
  ret = t_run_child (writer, "writer");
  if (ret == T_EXIT_PASS)
    ret = t_run_child (reader, "reader");
  shm_unlink (name);
  if (ret == T_EXIT_PASS)
    printf ("PASS\n");
  return ret;
}
