/* Description: a slot record (a local copy, as readers take it) against the
 * segment: geometry inside the slot (offset + stride * (rows - 1) +
 * row_bytes <= payload_bytes <= slot_stride), overflow in u64, plane count,
 * crop inside the frame, empty slots, and each bound as a pair (last
 * accepted, first refused). A valid record comes back unchanged. */
#include <errno.h>
#include <string.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

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

static void
test_valid (void)
{
  struct doradma_shm_slot rec;
  struct doradma_frame_info info;
  struct doradma_diag diag;

  image_valid_record (&rec);
  /* Planes past n_planes are not looked at, and not returned. */
  rec.n_planes = 3;
  rec.planes[3] = (struct doradma_shm_plane) { UINT64_MAX, 0, 0, 99, 7 };
  memset (&info, 0xee, sizeof (info));
  T_EXPECT_DIAG (failures, slot_record_validate (&rec, &desc, &info, &diag), 0,
      &diag, NULL, "valid I420");
  T_EXPECT (failures, info.seq == 7, "%s", __func__);
  T_EXPECT (failures, info.n_planes == 3, "%s", __func__);
  T_EXPECT (failures, info.width == 64 && info.height == 48, "%s", __func__);
  T_EXPECT (failures, info.planes[1].offset == 3072
      && info.planes[1].stride == 32, "%s", __func__);
  T_EXPECT (failures, info.planes[2].rows == 24
      && info.planes[2].row_bytes == 32, "%s", __func__);
  T_EXPECT (failures, info.planes[3].offset == 0
      && info.planes[3].row_bytes == 0, "%s", __func__);
  T_EXPECT (failures, info.payload_bytes == 4608, "%s", __func__);
  T_EXPECT (failures, info.pts == 1000
      && info.dts == DORADMA_TIME_NONE, "%s", __func__);
  T_EXPECT (failures, info.duration == 33333333, "%s", __func__);
  T_EXPECT (failures, info.offset == 7 && info.offset_end == 8, "%s", __func__);
  T_EXPECT (failures, info.publish_time == 123456789, "%s", __func__);
  T_EXPECT (failures, info.mono_pts == DORADMA_TIME_NONE, "%s", __func__);
  T_EXPECT (failures, info.crop_width == 0, "%s", __func__);

  /* The geometry may end exactly at payload_bytes == slot_stride. */
  rec.payload_bytes = desc.slot_stride;
  rec.planes[2].offset = desc.slot_stride - 32 * 23 - 32;
  expect_rec ("plane ending at the slot end", &rec, 0, NULL);
}

static void
test_rejections (void)
{
  struct doradma_shm_slot rec;

  image_valid_record (&rec);
  rec.seq = 0;
  expect_rec ("empty slot (seq 0)", &rec, -EBADMSG, "slot.seq");

  image_valid_record (&rec);
  rec.n_planes = 0;
  expect_rec ("0 planes", &rec, -EBADMSG, "slot.n_planes");
  rec.n_planes = 5;
  expect_rec ("5 planes", &rec, -EBADMSG, "slot.n_planes");

  image_valid_record (&rec);
  rec.width = 0;
  expect_rec ("width 0", &rec, -EBADMSG, "slot.width");
  image_valid_record (&rec);
  rec.height = 0;
  expect_rec ("height 0", &rec, -EBADMSG, "slot.height");

  image_valid_record (&rec);
  rec.payload_bytes = desc.slot_stride + 1;
  expect_rec ("payload larger than the slot", &rec, -EBADMSG,
      "slot.payload_bytes");
  rec.payload_bytes = UINT64_MAX;
  expect_rec ("payload u64 max", &rec, -EBADMSG, "slot.payload_bytes");

  image_valid_record (&rec);
  rec.planes[1].stride = 0;
  expect_rec ("plane stride 0", &rec, -EBADMSG, "slot.planes.stride");
  image_valid_record (&rec);
  rec.planes[2].rows = 0;
  expect_rec ("plane rows 0", &rec, -EBADMSG, "slot.planes.rows");
  image_valid_record (&rec);
  rec.planes[0].row_bytes = 65;
  expect_rec ("row_bytes > stride", &rec, -EBADMSG, "slot.planes.row_bytes");

  /* Geometry one byte past the payload. */
  image_valid_record (&rec);
  rec.planes[2].offset += 1;
  expect_rec ("plane 1 byte past payload", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[2].rows = 25;
  expect_rec ("last plane one row too many", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[0].offset = UINT64_MAX;
  expect_rec ("offset u64 max (overflows)", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[0].offset = UINT64_MAX - 64 * 47;
  expect_rec ("offset wrapping to a small end", &rec, -EBADMSG,
      "slot.planes.offset");
  image_valid_record (&rec);
  rec.planes[0].stride = UINT32_MAX;
  rec.planes[0].rows = UINT32_MAX;
  rec.planes[0].row_bytes = UINT32_MAX;
  expect_rec ("stride x rows huge", &rec, -EBADMSG, "slot.planes.offset");
}

static void
test_crop (void)
{
  struct doradma_shm_slot rec;

  image_valid_record (&rec);
  rec.crop_x = 8;
  rec.crop_y = 4;
  rec.crop_width = 56;
  rec.crop_height = 44;
  expect_rec ("crop inside", &rec, 0, NULL);
  rec.crop_width = 57;
  expect_rec ("crop past the right edge", &rec, -EBADMSG, "slot.crop");
  rec.crop_width = 56;
  rec.crop_height = 45;
  expect_rec ("crop past the bottom edge", &rec, -EBADMSG, "slot.crop");
  rec.crop_height = 0;
  expect_rec ("crop with height 0", &rec, -EBADMSG, "slot.crop");
  rec.crop_height = 44;
  rec.crop_x = UINT32_MAX;
  expect_rec ("crop_x + crop_width wrapping u32", &rec, -EBADMSG, "slot.crop");
  /* crop_width 0 means no crop: the other fields are not looked at. */
  rec.crop_width = 0;
  expect_rec ("no crop", &rec, 0, NULL);
}

/* Boundary pairs: for each bound, the last value accepted beside the first
 * refused (docs/reliability.md, "Boundary pairs"). */
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
  /* The checked offset is the whole u64, not its low bits. */
  image_valid_record (&rec);
  rec.planes[0].offset = 0x10000;
  expect_rec ("offset 0x10000 (0 in its low 16 bits)", &rec, -EBADMSG,
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

int
main (void)
{
  struct image_params p;
  struct image img;
  struct doradma_diag diag;

  /* Slots of 8192 bytes hold the 4608-byte I420 64x48 frame. */
  image_params_default (&p);
  p.stride = 8192;
  image_build (&img, &p);
  if (segment_parse (img.data, img.len, &desc, &diag) < 0)
    return T_EXIT_FAIL;
  image_free (&img);

  test_valid ();
  test_rejections ();
  test_crop ();
  test_record_pairs ();
  test_crop_pairs ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
