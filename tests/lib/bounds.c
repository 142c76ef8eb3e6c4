/* Description: every bound the record validator, the caps rule, the JSON
 * parser and the writer's own geometry check enforce, as a boundary pair:
 * the last accepted value and the first refused one, side by side, so that
 * an off-by-one in either direction fails (tests/mutation has the mutants).
 * Bounds tested as pairs elsewhere: JSON depth 32/33 (validate-json.c),
 * slot count 64/65 (validate-rcb.c), channel name 200/201 bytes (name.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

/* Set-up that must work for the checks to mean anything. */
#define REQUIRE(cond, what) do { \
    if (!(cond)) { \
      t_log ("%s failed", (what)); \
      exit (T_EXIT_FAIL); \
    } \
  } while (0)

/* 8192-byte slots: the 4608-byte I420 64x48 record fits. */
static struct doradma_segment_desc desc;

static void
expect_rec (const char *what, const struct doradma_shm_slot *rec, int want,
    const char *field)
{
  struct doradma_diag diag;
  struct doradma_frame_info info;

  memset (&diag, 0, sizeof (diag));
  T_EXPECT_DIAG (failures, slot_record_validate (rec, &desc, &info, &diag),
      want, &diag, field, what);
}

/* The I420 record with a fourth plane of one 32-byte row at the very end
 * of the payload (plane 2 ends at 4576 once its last row moves there). */
static void
four_planes (struct doradma_shm_slot *rec)
{
  image_valid_record (rec);
  rec->planes[2].rows = 23;
  rec->planes[3] = (struct doradma_shm_plane) {
    4576, 32, 1, 32, 0
  };
  rec->n_planes = 4;
}

static void
test_record_pairs (void)
{
  struct doradma_shm_slot rec;

  four_planes (&rec);
  expect_rec ("n_planes 4 (the maximum)", &rec, 0, NULL);
  rec.n_planes = 5;
  expect_rec ("n_planes 5", &rec, -EBADMSG, "slot.n_planes");
  image_valid_record (&rec);
  rec.n_planes = 1;
  expect_rec ("n_planes 1 (the minimum)", &rec, 0, NULL);
  rec.n_planes = 0;
  expect_rec ("n_planes 0", &rec, -EBADMSG, "slot.n_planes");

  image_valid_record (&rec);
  rec.seq = 1;
  expect_rec ("seq 1", &rec, 0, NULL);
  rec.seq = 0;
  expect_rec ("seq 0", &rec, -EBADMSG, "slot.seq");

  image_valid_record (&rec);
  rec.width = 1;
  rec.height = 1;
  expect_rec ("1x1 frame", &rec, 0, NULL);
  rec.width = 0;
  expect_rec ("width 0", &rec, -EBADMSG, "slot.width");
  rec.width = 1;
  rec.height = 0;
  expect_rec ("height 0", &rec, -EBADMSG, "slot.height");

  image_valid_record (&rec);
  rec.payload_bytes = desc.slot_stride;
  expect_rec ("payload_bytes == slot_stride", &rec, 0, NULL);
  rec.payload_bytes = desc.slot_stride + 1;
  expect_rec ("payload_bytes == slot_stride + 1", &rec, -EBADMSG,
      "slot.payload_bytes");

  /* Plane 2 ends exactly at payload_bytes 4608 in the valid record. */
  image_valid_record (&rec);
  rec.payload_bytes = 4608;
  expect_rec ("last plane ending at payload_bytes", &rec, 0, NULL);
  rec.payload_bytes = 4607;
  expect_rec ("payload_bytes one short of the last plane", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[2].offset -= 1;
  expect_rec ("last plane one byte earlier", &rec, 0, NULL);
  rec.planes[2].offset += 2;
  expect_rec ("last plane one byte later", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[2].rows = 23;
  rec.planes[2].row_bytes = 32;
  rec.planes[2].offset = 4608 - 32 * 22 - 32;
  expect_rec ("23 rows ending at payload_bytes", &rec, 0, NULL);
  rec.planes[2].rows = 24;
  expect_rec ("24 rows, one row past", &rec, -EBADMSG, "slot.planes.offset");

  image_valid_record (&rec);
  rec.planes[1].row_bytes = rec.planes[1].stride;
  expect_rec ("row_bytes == stride", &rec, 0, NULL);
  rec.planes[1].row_bytes = rec.planes[1].stride + 1;
  expect_rec ("row_bytes == stride + 1", &rec, -EBADMSG,
      "slot.planes.row_bytes");

  image_valid_record (&rec);
  rec.planes[1].stride = 32;
  rec.planes[1].row_bytes = 1;
  rec.planes[1].rows = 1;
  expect_rec ("stride 32, 1 row", &rec, 0, NULL);
  rec.planes[1].stride = 0;
  expect_rec ("stride 0", &rec, -EBADMSG, "slot.planes.stride");
  rec.planes[1].stride = 32;
  rec.planes[1].rows = 0;
  expect_rec ("rows 0", &rec, -EBADMSG, "slot.planes.rows");
}

static void
test_crop_pairs (void)
{
  struct doradma_shm_slot rec;

  image_valid_record (&rec);
  rec.crop_x = 1;
  rec.crop_width = 63;
  rec.crop_height = 48;
  expect_rec ("crop_x + crop_width == width", &rec, 0, NULL);
  rec.crop_width = 64;
  expect_rec ("crop_x + crop_width == width + 1", &rec, -EBADMSG, "slot.crop");
  image_valid_record (&rec);
  rec.crop_y = 1;
  rec.crop_width = 64;
  rec.crop_height = 47;
  expect_rec ("crop_y + crop_height == height", &rec, 0, NULL);
  rec.crop_height = 48;
  expect_rec ("crop_y + crop_height == height + 1", &rec, -EBADMSG,
      "slot.crop");
  rec.crop_height = 1;
  expect_rec ("crop_height 1", &rec, 0, NULL);
  rec.crop_height = 0;
  expect_rec ("crop_height 0 with a crop_width", &rec, -EBADMSG, "slot.crop");
}

/* caps: the NUL within DORADMA_CAPS_MAX bytes (959 characters at most). */
static void
test_caps_pair (void)
{
  char buf[DORADMA_CAPS_MAX + 1];
  struct doradma_diag diag;
  const char *head = "video/x-raw, x=(string)";

  memset (buf, 'a', sizeof buf);
  memcpy (buf, head, strlen (head));
  buf[DORADMA_CAPS_MAX - 1] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (buf, sizeof buf, &diag), 0,
      &diag, NULL, "caps of 959 characters");
  buf[DORADMA_CAPS_MAX - 1] = 'a';
  buf[DORADMA_CAPS_MAX] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (buf, sizeof buf, &diag),
      -EBADMSG, &diag, "caps", "caps of 960 characters");
}

/* json_len: DORADMA_JSON_MAX bytes are parsed, one more is refused before
 * any parsing. */
static void
test_json_len_pair (void)
{
  struct image img;
  struct doradma_segment_desc d;
  struct doradma_diag diag;
  char *text = g_malloc (DORADMA_JSON_MAX + 1);

  image_build_default (&img);
  memset (text, ' ', DORADMA_JSON_MAX + 1);
  memcpy (text, img.data + DORADMA_HEADER_SIZE, img.json_len);
  memset (&d, 0, sizeof d);
  T_EXPECT_DIAG (failures, meta_parse (text, DORADMA_JSON_MAX, &d, &diag), 0,
      &diag, NULL, "JSON of DORADMA_JSON_MAX bytes");
  T_EXPECT_DIAG (failures, meta_parse (text, DORADMA_JSON_MAX + 1, &d, &diag),
      -EBADMSG, &diag, "header.json_len", "JSON of DORADMA_JSON_MAX + 1 bytes");
  g_free (text);
  image_free (&img);
}

/* The writer's own check of what it is asked to publish. */
static void
test_publish_geometry_pairs (void)
{
  char *dir = t_shm_dir_new (NULL, "bounds");
  char ch[64];
  struct doradma_writer *w;
  struct doradma_frame_info info;
  uint32_t slot;

  t_channel (ch, sizeof ch, "bounds");
  REQUIRE (t_open_pair (dir, ch, 2, 8192, 0, &w, NULL) == 0, "writer");
  REQUIRE (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot) == 0,
      "acquire");

  t_frame_info (&info, 4096);
  info.payload_bytes = 8192 + 1;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), -EOVERFLOW,
      "publish of slot_stride + 1 bytes");
  info.payload_bytes = 8192;
  info.n_planes = 5;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), -EINVAL,
      "publish of 5 planes");
  info.n_planes = 4;
  info.planes[0].rows = 1;
  for (int p = 1; p < 4; p++)
    info.planes[p] = info.planes[0];
  info.planes[3].offset = 8192 - 4096;
  info.planes[3].rows = 1;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), 0,
      "publish of 4 planes ending at slot_stride");

  doradma_writer_close (w);
  T_EXPECT (failures, t_shm_dir_remove (dir) == 0, "leftovers");
}

int
main (void)
{
  struct image_params p;
  struct image img;
  struct doradma_diag diag;

  image_params_default (&p);
  p.stride = 8192;
  image_build (&img, &p);
  if (segment_parse (img.data, img.len, &desc, &diag) < 0)
    return T_EXIT_FAIL;
  image_free (&img);

  test_record_pairs ();
  test_crop_pairs ();
  test_caps_pair ();
  test_json_len_pair ();
  test_publish_geometry_pairs ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
