/* Writes the seed corpus of fuzz-validate into the directory given:
 * valid data objects of each shape (built as the writer builds them, by
 * tests/lib/image-helper.c), a control object, a plain dora pool, a slot
 * record, caps strings and a channel name; and one seed per structured
 * mode of fuzz-validate.c (first byte H, J, R, C, E, K, N) made from a valid
 * segment, plus the hostile JSON texts of review #2 (comments and quotes
 * hiding brackets, hex, deep nesting). Run it after a format change:
 *   build/tests/fuzz/make-seeds tests/fuzz/corpus */
#include <stdio.h>
#include <string.h>

#include <glib.h>

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
  return bad;
}
