/* Writes the seed corpus of fuzz-validate into the directory given:
 * valid data objects of each shape (built as the writer builds them, by
 * tests/lib/image-helper.c), a control object, a plain dora pool, a slot
 * record, caps strings and a channel name; and one seed per structured
 * mode of fuzz-validate.c (first byte H, J, R, C, E, K, N) made from a valid
 * segment, plus the hostile JSON texts of review #2 (comments and quotes
 * hiding brackets, hex, deep nesting); dora pools (modes P, Q, O) of
 * dora's writers, nested past the JSON bound and with huge lengths, a valid
 * segment and control object for the CLI's inspection (I, L), names (N) and
 * sparse files (S). Run it after
 * a format change:
 *   build/tests/fuzz/make-seeds tests/fuzz/corpus */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include <doradma/dora-pool.h>

#include "image-helper.h"

static int
put (const char *dir, const char *name, const void *data, size_t len)
{
  gchar *path = g_build_filename (dir, name, NULL);
  GError *err = NULL;
  int ok = g_file_set_contents (path, data, len, &err);

  if (!ok) {
    fprintf (stderr, "%s: %s\n", path, err->message);
    g_error_free (err);
  }
  g_free (path);
  return ok ? 0 : 1;
}

/* `tag` then `len` bytes: a seed of one structured mode. */
static int
put_tagged (const char *dir, const char *name, char tag, const void *data,
    size_t len)
{
  guint8 *buf = g_malloc (len + 1);
  int ret;

  buf[0] = (guint8) tag;
  memcpy (buf + 1, data, len);
  ret = put (dir, name, buf, len + 1);
  g_free (buf);
  return ret;
}

/* A JSON seed: `prefix` then `fill` up to `len` bytes. */
static int
put_json_bomb (const char *dir, const char *name, const char *prefix,
    char fill, size_t len)
{
  GString *s = g_string_new (prefix);
  int ret;

  while (s->len < len)
    g_string_append_c (s, fill);
  ret = put_tagged (dir, name, 'J', s->str, s->len);
  g_string_free (s, TRUE);
  return ret;
}

static int
put_structured (const char *dir)
{
  struct image img;
  struct doradma_shm_slot rec;
  uint8_t *ctl;
  size_t len;
  int bad = 0;

  image_build_default (&img);
  bad |= put_tagged (dir, "mode-H-header", 'H', img.data, DORADMA_HEADER_SIZE);
  bad |= put_tagged (dir, "mode-J-json", 'J', img.data + DORADMA_HEADER_SIZE,
      img.json_len);
  bad |= put_tagged (dir, "mode-R-rcb", 'R', img.data + img.rcb_offset,
      sizeof (struct doradma_shm_rcb));
  ctl = image_build_ctl (img.ctl_token, 2, &len);
  bad |= put_tagged (dir, "mode-C-ctl", 'C', ctl, len);
  g_free (ctl);
  image_valid_record (&rec);
  bad |= put_tagged (dir, "mode-E-record", 'E', &rec, sizeof (rec));
  bad |= put_tagged (dir, "mode-K-caps", 'K', IMAGE_DEFAULT_CAPS,
      sizeof (IMAGE_DEFAULT_CAPS));
  bad |= put_tagged (dir, "mode-N-name", 'N', "cam0.front_left-1", 17);
  image_free (&img);

  bad |= put_json_bomb (dir, "json-deep-plain", "", '[', 65000);
  bad |= put_json_bomb (dir, "json-deep-comment-quote", "/*\"*/", '[', 65000);
  bad |= put_json_bomb (dir, "json-deep-single-quote", "['\"',", '[', 65000);
  bad |= put_tagged (dir, "json-hex", 'J', "{\"size\":0x2000}", 15);
  bad |= put_tagged (dir, "json-comment", 'J', "/* x */ {\"a\":1}", 16);
  bad |= put_tagged (dir, "json-single-quotes", 'J', "{'a':1}", 7);
  bad |= put_tagged (dir, "json-identifier", 'J', "{\"a\":NaN}", 9);
  return bad;
}

static void
put_le64 (uint8_t * p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

/* A dora pool in `buf` (zeroed, at least data_offset + payload bytes):
 * header for `json` (json_len as given, data_offset from the real length),
 * gen 2. Returns data_offset. */
static size_t
pool_image (uint8_t * buf, const char *json, uint64_t json_len)
{
  size_t off = doradma_pool_data_offset_for (strlen (json));

  memcpy (buf, "DORADMA", 8);
  put_le64 (buf + 8, json_len);
  put_le64 (buf + 16, off);
  put_le64 (buf + 96, 2);
  memcpy (buf + 256, json, strlen (json));
  return off;
}

/* The dora pool modes (P, Q, O), the CLI's inspection (I) and sparse
 * files (S): valid pools of dora's two writers, JSON nested past the bound,
 * huge lengths, a well-formed header over a sparse body. */
static int
put_pools_and_files (const char *dir)
{
  const char *rust = "{\"size\":48,\"dtype\":\"uint8\",\"shape\":[4,4,3],"
      "\"pinned_type\":\"cpu\",\"transport\":\"shmem\"}";
  const char *big = "{\"size\":209715200,\"dtype\":\"uint8\","
      "\"shape\":[209715200],\"pinned_type\":\"cpu\",\"transport\":\"shmem\"}";
  uint8_t pool[8 + 1024];
  struct image_params ip;
  struct image img;
  GString *deep = g_string_new ("{\"size\":48,\"dtype\":\"uint8\",\"x\":");
  size_t off;
  int bad = 0;

  memset (pool, 0, sizeof pool);
  off = pool_image (pool, rust, strlen (rust));
  memset (pool + off, 0x5a, 48);
  bad |= put_tagged (dir, "pool-P-rust", 'P', pool, off + 48);
  bad |= put_tagged (dir, "pool-O-rust", 'O', pool, off + 48);
  bad |= put_tagged (dir, "pool-Q-rust", 'Q', rust, strlen (rust));
  /* json_len far past anything: 2^63, and one byte past the JSON bound */
  put_le64 (pool + 8, 1ull << 63);
  bad |= put_tagged (dir, "pool-P-huge-json-len", 'P', pool, off + 48);
  put_le64 (pool + 8, DORADMA_POOL_JSON_MAX + 1);
  bad |= put_tagged (dir, "pool-P-json-len-max", 'P', pool, off + 48);
  /* 33 levels, then 3,000 */
  for (int i = 1; i < 33; i++)
    g_string_append_c (deep, '[');
  for (int i = 1; i < 33; i++)
    g_string_append_c (deep, ']');
  g_string_append_c (deep, '}');
  bad |= put_tagged (dir, "pool-Q-deep-33", 'Q', deep->str, deep->len);
  g_string_free (deep, TRUE);
  deep = g_string_new (NULL);
  while (deep->len < 3000)
    g_string_append_c (deep, '[');
  bad |= put_tagged (dir, "pool-Q-deep-3000", 'Q', deep->str, deep->len);
  g_string_free (deep, TRUE);

  /* a valid segment as a file for the CLI, and its control object */
  image_build_default (&img);
  bad |= put_tagged (dir, "inspect-I-seg", 'I', img.data, img.len);
  {
    size_t n;
    uint8_t *ctl = image_build_ctl (img.ctl_token, 2, &n);

    bad |= put_tagged (dir, "inspect-L-ctl", 'L', ctl, n);
    g_free (ctl);
  }
  image_free (&img);
  /* a live-looking segment: a published frame, a back-pressure reader
   * behind it holding a lease */
  image_build_published (&img);
  bad |= put_tagged (dir, "inspect-I-published", 'I', img.data, img.len);
  {
    size_t n;
    struct doradma_shm_ctl *ctl =
        (struct doradma_shm_ctl *) image_build_ctl (img.ctl_token, 2, &n);

    ctl->readers[0].state = DORADMA_READER_ACTIVE;
    ctl->readers[0].flags = DORADMA_READER_BACKPRESSURE;
    ctl->readers[0].token = 1;
    ctl->active = 1;
    ctl->lease[0].readers = 1;
    bad |= put_tagged (dir, "inspect-L-reader", 'L', ctl, n);
    g_free (ctl);
  }
  image_free (&img);
  /* RCB line 0 alone: mutations hit its fields, not 21 KB of records */
  image_build_default (&img);
  bad |= put_tagged (dir, "mode-R-line0", 'R', image_rcb (&img), 64);
  image_free (&img);
  bad |= put_tagged (dir, "name-N-pool", 'N', "dora_pool_df_node_cam", 21);
  bad |= put_tagged (dir, "name-N-object", 'N', "doradma.cam0~ctl", 16);
  bad |= put_tagged (dir, "name-N-dtype", 'N', "<u2", 3);

  /* sparse: a segment's header and JSON declaring 8 x 4 MiB slots, the
   * rest a hole; a pool of 200 MiB whose payload is a hole */
  image_params_default (&ip);
  ip.slots = 8;
  ip.stride = 4u << 20;
  image_build (&img, &ip);
  {
    size_t n = img.data_offset;
    uint8_t *b = g_malloc (8 + n);

    put_le64 (b, img.len);
    memcpy (b + 8, img.data, n);
    bad |= put_tagged (dir, "sparse-S-segment-32MiB", 'S', b, 8 + n);
    g_free (b);
  }
  image_free (&img);
  memset (pool, 0, sizeof pool);
  off = pool_image (pool + 8, big, strlen (big));
  put_le64 (pool, off + 209715200);
  bad |= put_tagged (dir, "sparse-S-pool-200MiB", 'S', pool, 8 + off);
  return bad;
}

static int
put_image (const char *dir, const char *name, uint32_t slots, uint64_t stride,
    int ipc, const char *transport)
{
  struct image_params p;
  struct image img;
  int ret;

  image_params_default (&p);
  p.slots = slots;
  p.stride = stride;
  p.ipc = ipc;
  p.transport = transport;
  image_build (&img, &p);
  if (doradma_segment_validate (img.data, img.len, NULL) != 0) {
    fprintf (stderr, "%s: not valid\n", name);
    return 1;
  }
  ret = put (dir, name, img.data, img.len);
  image_free (&img);
  return ret;
}

int
main (int argc, char **argv)
{
  const char *py = "{\"size\": 16384, \"dtype\": \"uint8\", "
      "\"shape\": [16384], \"pinned_type\": \"cpu\"}";
  struct doradma_shm_slot rec;
  uint8_t dora[1024];
  uint8_t *ctl;
  size_t len;
  int bad = 0;

  if (argc != 2) {
    fprintf (stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  bad |= put_image (argv[1], "seg-shmem-1x4096", 1, 4096, 0, NULL);
  bad |= put_image (argv[1], "seg-shmem-2x4096", 2, 4096, 0, NULL);
  bad |= put_image (argv[1], "seg-unified-1x8192", 1, 8192, 0, "unified");
  bad |= put_image (argv[1], "seg-ipc-4x4096", 4, 4096, 1, NULL);

  ctl = image_build_ctl (0x1122334455667788ull, 4, &len);
  bad |= put (argv[1], "ctl", ctl, len);
  g_free (ctl);

  /* A Python dora pool's first KiB (doradma-spec §8). */
  memset (dora, 0, sizeof (dora));
  memcpy (dora, "DORADMA", 8);
  dora[8] = 73;
  dora[17] = 2;
  dora[96] = 2;
  memcpy (dora + 256, py, strlen (py));
  bad |= put (argv[1], "dora-python-pool", dora, sizeof (dora));

  image_valid_record (&rec);
  bad |= put (argv[1], "record-i420", &rec, sizeof (rec));
  bad |= put (argv[1], "caps-raw", IMAGE_DEFAULT_CAPS,
      sizeof (IMAGE_DEFAULT_CAPS));
  bad |= put (argv[1], "caps-nvmm", "video/x-raw(memory:NVMM), format=NV12",
      38);
  bad |= put (argv[1], "name", "cam0.front_left-1", 18);
  bad |= put_structured (argv[1]);
  bad |= put_pools_and_files (argv[1]);
  return bad;
}
