/* Description: a dora Python-binding-style ipc pool writer for the GPU test
 * (gpu-pools.py). The header is written by hand from the spec (§1-§4, not
 * with lib/dora-pool.c): a header-only segment, the Python binding's
 * whitespace JSON with pinned_type "cuda", ipc_flag 1 and the 64-byte CUDA
 * IPC handle of a cuMemAlloc buffer of `size` bytes. Each line "next" on
 * stdin writes the next frame of the frames file into the device buffer
 * between an odd and an even generation (the copy synchronised with the
 * device before the even one), then prints "done".
 *
 *   ipc-pool-writer <shm dir> <pool name> <H> <W> <frames file>
 *
 * Exits 77 (skip) without CUDA, a device, or legacy IPC (integrated GPUs).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <doradma-cuda.h>

static void
put_le64 (uint8_t * p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

/* Copies one frame into the exported buffer and waits until the device
 * holds it. cuMemcpyHtoD from pageable memory returns once the bytes are
 * staged, not when the DMA has landed: without the synchronise, a reader in
 * another process (its own context) can copy the buffer after our even
 * generation and still get the previous frame. */
static int
write_frame (struct doradma_cuda_device *dev,
    struct doradma_cuda_ipc_export *exp, const uint8_t * frame, size_t size,
    struct doradma_diag *diag)
{
  int r = doradma_cuda_copy_htod (dev,
      doradma_cuda_ipc_export_get_device_pointer (exp), frame, size, diag);

  return r < 0 ? r : doradma_cuda_device_synchronize (dev, diag);
}

int
main (int argc, char **argv)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_device *dev = NULL;
  struct doradma_cuda_ipc_export *exp = NULL;
  uint8_t handle[DORADMA_CUDA_IPC_HANDLE_SIZE];
  char path[4096], json[256], line[64];
  uint64_t h, w, size, json_len, data_offset, *gen;
  uint8_t *seg, *frames;
  size_t n_frames, next = 0;
  FILE *f;
  long flen;
  int fd, r;

  if (argc == 2 && strcmp (argv[1], "--probe") == 0) {
    /* is there a CUDA device here at all? */
    if (doradma_cuda_device_open (0, &dev, &diag) < 0) {
      printf ("SKIP: %s\n", diag.msg);
      return 77;
    }
    printf ("%s\n", doradma_cuda_device_get_info (dev)->name);
    return 0;
  }
  if (argc != 6) {
    fprintf (stderr, "usage: %s shm-dir name H W frames-file\n", argv[0]);
    return 2;
  }
  h = strtoull (argv[3], NULL, 10);
  w = strtoull (argv[4], NULL, 10);
  size = h * w * 3;
  if ((r = doradma_cuda_device_open (0, &dev, &diag)) < 0) {
    printf ("SKIP: %s\n", diag.msg);
    return 77;
  }
  if ((r = doradma_cuda_ipc_export_new (dev, size, handle, &exp, &diag)) < 0) {
    printf ("SKIP: %s\n", diag.msg);
    return r == -ENOTSUP ? 77 : 1;
  }
  f = fopen (argv[5], "rb");
  if (f == NULL || fseek (f, 0, SEEK_END) != 0 || (flen = ftell (f)) <= 0
      || (uint64_t) flen % size != 0) {
    fprintf (stderr, "bad frames file %s\n", argv[5]);
    return 1;
  }
  rewind (f);
  frames = malloc (flen);
  if (fread (frames, 1, flen, f) != (size_t) flen)
    return 1;
  fclose (f);
  n_frames = (uint64_t) flen / size;

  /* the Python binding's json.dumps defaults: ", " and ": " */
  json_len = (uint64_t) snprintf (json, sizeof json, "{\"size\": %" PRIu64
      ", \"dtype\": \"uint8\", \"shape\": [%" PRIu64 ", %" PRIu64 ", 3], "
      "\"pinned_type\": \"cuda\"}", size, h, w);
  data_offset = 256 + (json_len + 255) / 256 * 256;
  snprintf (path, sizeof path, "%s/%s", argv[1], argv[2]);
  fd = open (path, O_CREAT | O_EXCL | O_RDWR, 0600);
  /* header only: segment_len == data_offset; `size` describes GPU bytes */
  if (fd < 0 || ftruncate (fd, (off_t) data_offset) != 0) {
    perror (path);
    return 1;
  }
  seg = mmap (NULL, data_offset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (seg == MAP_FAILED)
    return 1;
  memcpy (seg, "DORADMA", 8);
  put_le64 (seg + 8, json_len);
  put_le64 (seg + 16, data_offset);
  memcpy (seg + 256, json, json_len);
  gen = (uint64_t *) (seg + 96);
  /* registration as the binding does it: 0, odd, copy, even = 2 */
  __atomic_store_n (gen, 1, __ATOMIC_RELAXED);
  __atomic_thread_fence (__ATOMIC_RELEASE);
  if (write_frame (dev, exp, frames, size, &diag) < 0) {
    fprintf (stderr, "%s\n", diag.msg);
    return 1;
  }
  memcpy (seg + 32, handle, sizeof handle);
  put_le64 (seg + 24, 1);
  __atomic_store_n (gen, 2, __ATOMIC_RELEASE);
  next = 1;
  printf ("ready\n");
  fflush (stdout);

  while (fgets (line, sizeof line, stdin) != NULL) {
    uint64_t g = __atomic_load_n (gen, __ATOMIC_RELAXED);

    if (strncmp (line, "next", 4) != 0)
      break;
    __atomic_store_n (gen, g + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence (__ATOMIC_RELEASE);
    if (write_frame (dev, exp, frames + (next % n_frames) * size, size,
            &diag) < 0) {
      fprintf (stderr, "%s\n", diag.msg);
      return 1;
    }
    __atomic_store_n (gen, g + 2, __ATOMIC_RELEASE);
    next++;
    printf ("done\n");
    fflush (stdout);
  }
  unlink (path);
  doradma_cuda_ipc_export_free (exp, &diag);
  doradma_cuda_device_unref (dev);
  return 0;
}
