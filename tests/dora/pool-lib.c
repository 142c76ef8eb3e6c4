/* Description: lib/dora-pool.c against the numbers the dora spec pins
 * (reference/doradma-spec.md §5.1, §6, §8), every expected value taken from
 * the spec, none computed by the code under test: data_offset_for, element
 * sizes, the 253-byte name limit (dataflow "df", node "node": a pool id of
 * 235 bytes is accepted, 236 refused), the unlink-guard names, the Python
 * pool's header image, the Rust seqlock vectors (0 -> 1 -> 2; 4 + failed
 * write -> 5; 7 -> begin returns 6 -> 8; 2^64-2 -> 2^64-1 -> 0), the create
 * refusal "needs 256", and the writer's header and mode; random mutations of
 * a valid pool are refused or satisfy the bounds a reader relies on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doradma/dora-pool.h>

#include "pool-test.h"

static int failed;

static uint64_t *
gen_of (const char *path, uint8_t ** map, size_t *len)
{
  int fd = open (path, O_RDWR);
  struct stat st;

  fstat (fd, &st);
  *len = (size_t) st.st_size;
  *map = mmap (NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  return (uint64_t *) (*map + 96);
}

static void
test_constants (void)
{
  EXPECT (doradma_pool_data_offset_for (0) == 256, "0");
  EXPECT (doradma_pool_data_offset_for (1) == 512, "1");
  EXPECT (doradma_pool_data_offset_for (255) == 512, "255");
  EXPECT (doradma_pool_data_offset_for (256) == 512, "256");
  EXPECT (doradma_pool_data_offset_for (257) == 768, "257");
  EXPECT (doradma_pool_data_offset_for (UINT64_MAX) == UINT64_MAX, "sat");
  EXPECT (doradma_pool_dtype_size ("uint8") == 1, "uint8");
  EXPECT (doradma_pool_dtype_size ("bfloat16") == 2, "bfloat16");
  EXPECT (doradma_pool_dtype_size ("torch.float32") == 4, "torch.float32");
  EXPECT (doradma_pool_dtype_size ("complex64") == 8, "complex64");
  EXPECT (doradma_pool_dtype_size ("complex256") == 32, "complex256");
  EXPECT (doradma_pool_dtype_size ("<f4") == 4, "<f4");
  EXPECT (doradma_pool_dtype_size ("|u1") == 1, "|u1");
  EXPECT (doradma_pool_dtype_size ("<U8") == 0, "<U8 unknown");
  EXPECT (doradma_pool_dtype_size ("posit8") == 0, "posit8 unknown");
}

static void
test_names (void)
{
  char name[300], id[300];
  struct doradma_diag diag = { 0 };
  const char *bad[] = { "invalid_name", "/etc/passwd",
    "dora_pool_../../etc/passwd", "dora_pool_a/b", "dora_pool_", ""
  };
  size_t i;

  EXPECT (doradma_pool_name_validate ("dora_pool_df-uuid_eo_media_eo_frames",
          NULL) == 0, "spec example");
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
    EXPECT (doradma_pool_name_validate (bad[i], NULL) == -EINVAL, "%s", bad[i]);
  memset (id, 'p', 235);
  id[235] = '\0';
  EXPECT (doradma_pool_name_build (name, sizeof name, "df", "node", id,
          &diag) == 0 && strlen (name) == 253, "235-byte id: %s", diag.msg);
  EXPECT (doradma_pool_name_validate (name, NULL) == 0, "253 bytes valid");
  id[235] = 'p';
  id[236] = '\0';
  EXPECT (doradma_pool_name_build (name, sizeof name, "df", "node", id,
          &diag) == -ENAMETOOLONG, "236-byte id");
  EXPECT (doradma_pool_name_build (name, sizeof name, "df", "a..b", "p",
          &diag) == -EINVAL && strstr (diag.msg, "path traversal"),
      "traversal named: %s", diag.msg);
  EXPECT (doradma_pool_name_build (name, sizeof name, "df", "camera.left",
          "p", &diag) == 0, "NodeId charset allows '.'");
}

/* The spec's computed header image of a Python CPU pool (16 KiB uint8). */
static void
test_python_image (void)
{
  static const uint8_t head[32] = {
    0x44, 0x4f, 0x52, 0x41, 0x44, 0x4d, 0x41, 0x00,
    0x49, 0, 0, 0, 0, 0, 0, 0,
    0x00, 0x02, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
  };
  const char *js = "{\"size\": 16384, \"dtype\": \"uint8\", \"shape\": "
      "[16384], \"pinned_type\": \"cpu\"}";
  struct doradma_pool_info info;
  struct doradma_diag diag = { 0 };
  uint8_t *seg = calloc (1, 16896);

  EXPECT (strlen (js) == 73, "json_len 73");
  memcpy (seg, head, sizeof head);
  seg[96] = 2;
  memcpy (seg + 256, js, strlen (js));
  EXPECT (doradma_pool_parse (seg, 16896, &info, &diag) == 0, "%s", diag.msg);
  EXPECT (info.json_len == 73 && info.data_offset == 512 && info.size == 16384
      && info.n_dims == 1 && info.shape[0] == 16384
      && info.transport == DORADMA_POOL_SHMEM
      && strcmp (info.pinned_type, "cpu") == 0 && info.elem_size == 1,
      "fields");
  free (seg);
}

static void
test_writer (const char *dir)
{
  uint64_t shape[] = { 16, 1024 }, flat[] = { 64 };
  struct doradma_pool_writer_config cfg = {
    .shm_dir = dir,.name = "dora_pool_df_node_frames",.dtype = "uint8",
    .shape = shape,.n_dims = 2,.transport = DORADMA_POOL_UNIFIED,
  };
  const char *want = "{\"size\":16384,\"dtype\":\"uint8\",\"shape\":[16,1024],"
      "\"pinned_type\":\"cuda\",\"transport\":\"unified\"}";
  struct doradma_pool_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  char path[512];
  uint8_t *map;
  uint64_t *gen, base;
  struct stat st;
  size_t len;

  snprintf (path, sizeof path, "%s/%s", dir, cfg.name);
  EXPECT (doradma_pool_writer_create (&cfg, &w, &diag) == 0, "%s", diag.msg);
  if (w == NULL)
    return;
  /* the spec's C++ unified example: json_len 91, payload at 512 */
  EXPECT (strcmp (doradma_pool_writer_json (w), want) == 0, "%s",
      doradma_pool_writer_json (w));
  EXPECT (strlen (want) == 91, "91");
  stat (path, &st);
  EXPECT ((st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
  EXPECT (st.st_size == 16896, "segment 16896, got %lld",
      (long long) st.st_size);
  gen = gen_of (path, &map, &len);
  EXPECT (memcmp (map, "DORADMA\0", 8) == 0 && map[8] == 91 && map[17] == 2
      && map[24] == 0, "header");
  EXPECT (*gen == 1, "a new pool is odd (nothing written yet): %llu",
      (unsigned long long) *gen);

  /* spec §8 Rust vectors, through begin/end */
  *gen = 0;
  base = doradma_pool_writer_begin (w);
  EXPECT (base == 0 && *gen == 1, "0 -> begin -> 1");
  doradma_pool_writer_end (w, base, true);
  EXPECT (*gen == 2, "-> end -> 2");
  *gen = 4;
  base = doradma_pool_writer_begin (w);
  doradma_pool_writer_end (w, base, false);
  EXPECT (*gen == 5, "4 -> begin, end(false) -> 5");
  *gen = 7;
  base = doradma_pool_writer_begin (w);
  EXPECT (base == 6 && *gen == 7, "7 -> begin returns 6, stays 7");
  doradma_pool_writer_end (w, base, true);
  EXPECT (*gen == 8, "-> end -> 8");
  *gen = UINT64_MAX - 1;
  base = doradma_pool_writer_begin (w);
  EXPECT (*gen == UINT64_MAX, "2^64-2 -> begin -> 2^64-1");
  doradma_pool_writer_end (w, base, true);
  EXPECT (*gen == 0, "-> end -> 0 (wraps, even)");
  munmap (map, len);
  doradma_pool_writer_close (w);
  EXPECT (access (path, F_OK) != 0, "close unlinks our own pool");

  /* size 64 float32 [64] at create: "needs 256" */
  cfg.shape = flat;
  cfg.n_dims = 1;
  cfg.dtype = "float32";
  cfg.size = 64;
  cfg.transport = DORADMA_POOL_SHMEM;
  w = NULL;
  EXPECT (doradma_pool_writer_create (&cfg, &w, &diag) == -EINVAL
      && strstr (diag.msg, "needs 256 bytes but the pool declares only 64"),
      "%s", diag.msg);
  cfg.dtype = "uint8";
  cfg.transport = DORADMA_POOL_IPC;
  EXPECT (doradma_pool_writer_create (&cfg, &w, &diag) == -EINVAL, "ipc");
}

/* Random mutations of a valid pool: parse never fails other than with
 * -EBADMSG, and whatever it accepts satisfies the bounds a reader relies
 * on (§6 rules 2-8, 16, 20, 22). Deterministic (xorshift). */
static void
test_mutations (void)
{
  const char *js = "{\"size\":48,\"dtype\":\"uint8\",\"shape\":[4,4,3],"
      "\"pinned_type\":\"cpu\",\"transport\":\"shmem\"}";
  uint8_t base[560], seg[560];
  uint64_t x = 88172645463325252ull;
  struct doradma_pool_info info;
  int i, k, accepted = 0;

  memset (base, 0, sizeof base);
  memcpy (base, "DORADMA", 8);
  base[8] = (uint8_t) strlen (js);
  base[17] = 2;                 /* data_offset 512 */
  memcpy (base + 256, js, strlen (js));
  EXPECT (doradma_pool_parse (base, sizeof base, &info, NULL) == 0, "base");
  for (i = 0; i < 200000; i++) {
    size_t len = sizeof seg;
    int r;

    memcpy (seg, base, sizeof seg);
    for (k = 0; k < 1 + (int) (x % 4); k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      /* header fields and the JSON are where the checks are */
      seg[(x >> 8) % 340] = (uint8_t) (x >> 32);
    }
    if ((x & 0xff) < 8)
      len = (x >> 40) % sizeof seg;
    r = doradma_pool_parse (seg, len, &info, NULL);
    EXPECT (r == 0 || r == -EBADMSG, "mutation %d: %d", i, r);
    if (r != 0)
      continue;
    accepted++;
    EXPECT (info.data_offset >= 256 && 256 + info.json_len <= info.data_offset
        && info.data_offset <= len && info.size > 0
        && (info.transport == DORADMA_POOL_IPC
            || info.data_offset + info.size <= len), "mutation %d bounds", i);
  }
  EXPECT (accepted > 0, "some mutations keep the pool valid");
}

int
main (void)
{
  char dir[] = "/dev/shm/dora-poollib-XXXXXX";

  if (mkdtemp (dir) == NULL)
    return 1;
  test_constants ();
  test_names ();
  test_python_image ();
  test_mutations ();
  test_writer (dir);
  rmdir (dir);
  if (failed)
    fprintf (stderr, "%d checks failed\n", failed);
  else
    printf ("all checks passed\n");
  return failed ? 1 : 0;
}
