/* Description: the fixed header of a data object (bytes 0..256, dora-rs
 * DORADMA format): every rejection rule with its errno and diag field,
 * truncated objects of every length, plain dora pools refused as "not a
 * doradma ring", and a valid image accepted with its description filled. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

static void
test_valid_image_accepted (void)
{
  struct image img;
  struct doradma_segment_desc desc;
  struct doradma_diag diag;

  image_build_default (&img);
  memset (&desc, 0, sizeof (desc));
  T_EXPECT_DIAG (failures, segment_parse (img.data, img.len, &desc, &diag), 0,
      &diag, NULL, "valid image");
  T_EXPECT (failures, desc.json_len == img.json_len, "%s", __func__);
  T_EXPECT (failures, desc.data_offset == 4096, "%s", __func__);
  T_EXPECT (failures, desc.ipc == 0, "%s", __func__);
  T_EXPECT (failures, desc.page_size == 4096, "%s", __func__);
  T_EXPECT (failures, desc.slot_count == 2, "%s", __func__);
  T_EXPECT (failures, desc.slot_stride == 4096, "%s", __func__);
  T_EXPECT (failures, desc.slots_offset == 4096, "%s", __func__);
  T_EXPECT (failures, desc.rcb_offset == 4096 + 2 * 4096, "%s", __func__);
  T_EXPECT (failures, desc.ctl_token == img.ctl_token, "%s", __func__);
  T_EXPECT (failures, desc.writer_pid == 4242, "%s", __func__);
  T_EXPECT (failures, desc.map_size == img.len, "%s", __func__);
  T_EXPECT (failures, strcmp (desc.transport, "shmem") == 0, "%s", __func__);
  T_EXPECT (failures, strcmp (desc.caps, IMAGE_DEFAULT_CAPS) == 0, "%s",
      __func__);
  /* The public wrapper agrees. */
  T_EXPECT_DIAG (failures, doradma_segment_validate (img.data, img.len,
          NULL), 0, NULL, NULL, "public wrapper");
  image_free (&img);
}

static void
test_truncated_header_every_length (void)
{
  struct image img;
  size_t n;

  image_build_default (&img);
  for (n = 0; n < DORADMA_HEADER_SIZE; n++) {
    struct doradma_diag diag;
    /* A heap copy of exactly n bytes, so ASan catches any over-read. */
    uint8_t *cut = g_memdup2 (img.data, n ? n : 1);
    char what[64];

    snprintf (what, sizeof (what), "object of %zu bytes", n);
    T_EXPECT_DIAG (failures, doradma_segment_validate (cut, n, &diag), -EBADMSG,
        &diag, "object.size", what);
    g_free (cut);
  }
  image_free (&img);
}

static void
test_truncated_object (void)
{
  struct image img;
  struct doradma_diag diag;
  size_t rcb_end;
  uint8_t *cut;

  image_build_default (&img);
  rcb_end = img.rcb_offset + sizeof (struct doradma_shm_rcb);

  /* Cut one byte before the end of the RCB: the RCB is past the mapping. */
  cut = g_memdup2 (img.data, rcb_end - 1);
  T_EXPECT_DIAG (failures, doradma_segment_validate (cut,
          rcb_end - 1, &diag), -EBADMSG, &diag, "rcb",
      "cut before the RCB end");
  g_free (cut);
  /* Cut right at the RCB. */
  cut = g_memdup2 (img.data, img.rcb_offset);
  T_EXPECT_DIAG (failures, doradma_segment_validate (cut, img.rcb_offset,
          &diag), -EBADMSG, &diag, "rcb", "cut at the RCB");
  g_free (cut);
  /* Cut inside the JSON: data_offset is past the end. */
  cut = g_memdup2 (img.data, 1000);
  T_EXPECT_DIAG (failures, doradma_segment_validate (cut, 1000,
          &diag), -EBADMSG, &diag, "header.data_offset", "cut inside the JSON");
  g_free (cut);
  /* Exactly up to the RCB end (not page rounded) is enough. */
  cut = g_memdup2 (img.data, rcb_end);
  T_EXPECT_DIAG (failures, doradma_segment_validate (cut,
          rcb_end, &diag), 0, &diag, NULL, "object ends with the RCB");
  g_free (cut);
  image_free (&img);
}

static void
test_magic (void)
{
  struct image img;

  image_build_default (&img);
  img.data[0] = 'X';
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.magic", "magic XORADMA");
  img.data[0] = 'D';
  img.data[7] = '!';
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.magic",
      "magic without NUL");
  image_free (&img);
}

static void
test_json_len (void)
{
  struct image img;

  image_build_default (&img);
  image_header (&img)->json_len = DORADMA_JSON_MAX + 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.json_len",
      "json_len over the cap");
  image_header (&img)->json_len = UINT64_MAX;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.json_len",
      "json_len u64 max (256 + json_len overflows)");
  image_header (&img)->json_len = UINT64_MAX - 255;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.json_len",
      "json_len wrapping 256 + json_len to 0");
  image_header (&img)->json_len = img.data_offset - 256 + 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.json_len",
      "json_len past data_offset");
  image_header (&img)->json_len = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json", "json_len 0");
  /* A shorter json_len cuts the JSON: it no longer parses. */
  image_header (&img)->json_len = 40;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json",
      "json_len cutting the JSON");
  image_free (&img);
}

static void
test_data_offset (void)
{
  struct image img;
  struct doradma_shm_header *h;

  image_build_default (&img);
  h = image_header (&img);
  h->data_offset = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.data_offset",
      "data_offset 0");
  h->data_offset = 255;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.data_offset",
      "data_offset inside the header");
  h->data_offset = img.len + 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.data_offset",
      "data_offset past the end");
  h->data_offset = UINT64_MAX;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.data_offset",
      "data_offset u64 max");
  /* Not a page multiple (the JSON still fits before it). */
  h->data_offset = img.data_offset + 256;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.data_offset",
      "data_offset not a page multiple");
  /* A page multiple that is not where the slots are. */
  h->data_offset = img.data_offset + 4096;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slots_offset",
      "data_offset != rcb.slots_offset");
  image_free (&img);
}

static void
test_ipc_flag (void)
{
  struct image img;

  image_build_default (&img);
  image_header (&img)->ipc_flag = 2;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.ipc_flag", "ipc_flag 2");
  image_header (&img)->ipc_flag = UINT64_MAX;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.ipc_flag",
      "ipc_flag u64 max");
  image_header (&img)->ipc_flag = 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.transport",
      "ipc_flag 1 with transport shmem");
  image_free (&img);
}

static void
test_dora_gen_must_be_odd (void)
{
  struct image img;

  image_build_default (&img);
  image_header (&img)->dora_gen = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.dora_gen", "dora_gen 0");
  image_header (&img)->dora_gen = 2;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "header.dora_gen", "dora_gen 2");
  image_header (&img)->dora_gen = 12345;
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "dora_gen any odd value");
  image_free (&img);
}

/* A plain dora pool: the Python binding's 16 KiB uint8 CPU pool
 * (doradma-spec §8: json_len 73, data_offset 512, gen 2, 16896 bytes). */
static void
test_python_dora_pool_is_not_a_ring (void)
{
  const char *json = "{\"size\": 16384, \"dtype\": \"uint8\", "
      "\"shape\": [16384], \"pinned_type\": \"cpu\"}";
  const uint8_t head[32] = {
    0x44, 0x4f, 0x52, 0x41, 0x44, 0x4d, 0x41, 0x00,
    0x49, 0, 0, 0, 0, 0, 0, 0,
    0x00, 0x02, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
  };
  size_t len = 16896;
  uint8_t *seg = g_malloc0 (len);
  struct doradma_diag diag;

  T_EXPECT (failures, strlen (json) == 73, "%s", __func__);
  memcpy (seg, head, sizeof (head));
  seg[96] = 2;
  memcpy (seg + 256, json, 73);
  T_EXPECT_DIAG (failures, doradma_segment_validate (seg, len, &diag), -EBADMSG,
      &diag, "json.doradma", "python dora pool");
  T_EXPECT (failures, strstr (diag.msg, "not a doradma ring") != NULL, "%s",
      __func__);

  /* The C++ shmem pool of the example (compact JSON, json_len 88, gen 0). */
  memset (seg, 0, len);
  json = "{\"size\":16384,\"dtype\":\"uint8\",\"shape\":[16,1024],"
      "\"pinned_type\":\"cpu\",\"transport\":\"shmem\"}";
  T_EXPECT (failures, strlen (json) == 88, "%s", __func__);
  memcpy (seg, head, sizeof (head));
  seg[8] = 88;
  memcpy (seg + 256, json, 88);
  T_EXPECT_DIAG (failures, doradma_segment_validate (seg, len, &diag), -EBADMSG,
      &diag, "json.doradma", "C++ dora pool");
  g_free (seg);
}

int
main (void)
{
  test_valid_image_accepted ();
  test_truncated_header_every_length ();
  test_truncated_object ();
  test_magic ();
  test_json_len ();
  test_data_offset ();
  test_ipc_flag ();
  test_dora_gen_must_be_odd ();
  test_python_dora_pool_is_not_a_ring ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
