/* Description: legacy CUDA IPC across processes (transport "ipc"). An
 * exporter allocates a slot area, fills it on the GPU and passes its 64-byte
 * handle (as stored in header bytes 32..96) through a pipe; an importer in
 * another process opens it, its GPU checksum equals the CPU checksum of the
 * pattern, it overwrites the area on the GPU, closes; the exporter then sees
 * the importer's bytes. Opening the handle in the exporting process itself
 * is refused with a message. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doradma/layout.h>

#include "cuda-test.h"

#define SIZE (32u << 20)

static int to_importer[2], to_exporter[2];

static int
exporter (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_ipc_export *exp = NULL;
  struct doradma_cuda_ipc_import *self = NULL;
  struct doradma_shm_header hdr;
  struct doradma_diag d = { 0 };
  char status = 'S', done = 0;
  int ret;

  close (to_importer[0]);
  close (to_exporter[1]);
  ret = t_cuda_open_with_kernels (&dev);
  if (ret != T_EXIT_PASS)
    goto tell;
  ret = doradma_cuda_ipc_export_new (dev, SIZE, hdr.ipc_handle, &exp, &d);
  if (ret == -ENOTSUP && doradma_cuda_device_get_info (dev)->integrated) {
    printf ("SKIP: integrated GPU, no legacy CUDA IPC: %s\n", d.msg);
    ret = T_EXIT_SKIP;
    goto tell;
  }
  T_CHECK (ret == 0, "export: %d %s", ret, d.msg);
  T_CHECK (doradma_cuda_ipc_export_get_size (exp) == SIZE, "size");
  T_CHECK (t_gpu_fill (dev, doradma_cuda_ipc_export_get_device_pointer (exp),
          SIZE, 11) == 0, "fill");
  ret = doradma_cuda_ipc_import_open (dev, hdr.ipc_handle, &self, &d);
  T_CHECK (ret < 0 && self == NULL, "opening our own handle succeeded");
  printf ("exporter: own handle refused (%d): %s\n", ret, d.msg);
  status = 'H';
  T_CHECK (write (to_importer[1], &status, 1) == 1
      && write (to_importer[1], hdr.ipc_handle, DORADMA_IPC_HANDLE_LEN) ==
      DORADMA_IPC_HANDLE_LEN, "write handle");
  /* Keep the allocation alive until the importer has closed it. */
  T_CHECK (read (to_exporter[0], &done, 1) == 1 && done == 'D',
      "importer did not finish");
  T_CHECK (t_gpu_check_pattern (dev,
          doradma_cuda_ipc_export_get_device_pointer (exp), SIZE, 12) == 0,
      "exporter does not see the importer's GPU writes");
  T_CHECK (doradma_cuda_ipc_export_free (exp, &d) == 0, "free: %s", d.msg);
  doradma_cuda_device_unref (dev);
  return T_EXIT_PASS;
tell:
  T_CHECK (write (to_importer[1], &status, 1) == 1, "write status");
  return ret;
err:
  status = 'F';
  if (write (to_importer[1], &status, 1) < 0)
    perror ("write");
  return T_EXIT_FAIL;
}

static int
importer (void)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_ipc_import *imp = NULL;
  uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE];
  struct doradma_diag d = { 0 };
  char status = 0, done = 'D';
  uint64_t dptr;
  int ret;

  close (to_importer[1]);
  close (to_exporter[0]);
  if (read (to_importer[0], &status, 1) != 1 || status != 'H')
    return status == 'S' ? T_EXIT_SKIP : T_EXIT_FAIL;
  T_CHECK (read (to_importer[0], handle, sizeof handle) == sizeof handle,
      "read handle");
  ret = t_cuda_open_with_kernels (&dev);
  T_CHECK (ret == T_EXIT_PASS, "importer cannot open the device");
  ret = doradma_cuda_ipc_import_open (dev, handle, &imp, &d);
  T_CHECK (ret == 0, "import: %d %s", ret, d.msg);
  dptr = doradma_cuda_ipc_import_get_device_pointer (imp);
  printf ("importer: mapped at 0x%llx\n", (unsigned long long) dptr);
  T_CHECK (t_gpu_check_pattern (dev, dptr, SIZE, 11) == 0,
      "GPU checksum of the imported area differs from the CPU checksum");
  T_CHECK (t_gpu_fill (dev, dptr, SIZE, 12) == 0, "fill imported");
  T_CHECK (doradma_cuda_ipc_import_close (imp, &d) == 0, "close: %s", d.msg);
  T_CHECK (write (to_exporter[1], &done, 1) == 1, "write done");
  doradma_cuda_device_unref (dev);
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

int
main (void)
{
  int a, b, sa, sb;
  pid_t pa, pb;

  if (pipe (to_importer) < 0 || pipe (to_exporter) < 0)
    return T_EXIT_FAIL;
  fflush (stdout);
  pa = fork ();
  if (pa == 0) {
    a = exporter ();
    fflush (stdout);
    _exit (a);
  }
  pb = fork ();
  if (pb == 0) {
    b = importer ();
    fflush (stdout);
    _exit (b);
  }
  close (to_importer[0]);
  close (to_importer[1]);
  close (to_exporter[0]);
  close (to_exporter[1]);
  if (pa < 0 || pb < 0 || waitpid (pa, &sa, 0) != pa
      || waitpid (pb, &sb, 0) != pb || !WIFEXITED (sa) || !WIFEXITED (sb)) {
    fprintf (stderr, "FAIL: a child died\n");
    return T_EXIT_FAIL;
  }
  a = WEXITSTATUS (sa);
  b = WEXITSTATUS (sb);
  if (a == T_EXIT_SKIP && b == T_EXIT_SKIP)
    return T_EXIT_SKIP;
  if (a != T_EXIT_PASS || b != T_EXIT_PASS) {
    fprintf (stderr, "FAIL: exporter %d importer %d\n", a, b);
    return T_EXIT_FAIL;
  }
  printf ("PASS\n");
  return T_EXIT_PASS;
}
