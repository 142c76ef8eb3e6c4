/* Description: the ring control block's identity line (RCB line 0) and the
 * slot area geometry: magic, layout version, page size, incompat bits, slot
 * count 1..64, slot stride a page multiple, offsets that overflow, the slot
 * area or the RCB past the mapping, and the JSON agreeing with the RCB. Also
 * the ipc and unified shapes of a valid image. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

static void
test_identity (void)
{
  struct image img;
  struct doradma_shm_rcb *rcb;
  struct doradma_diag diag;

  image_build_default (&img);
  rcb = image_rcb (&img);

  rcb->magic ^= 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.magic", "rcb magic");
  rcb->magic = DORADMA_RCB_MAGIC;

  rcb->layout_version = 2;
  T_EXPECT_IMAGE (failures, &img, -EPROTONOSUPPORT, "rcb.layout_version",
      "layout version 2");
  rcb->layout_version = 0;
  T_EXPECT_IMAGE (failures, &img, -EPROTONOSUPPORT, "rcb.layout_version",
      "layout version 0");
  rcb->layout_version = DORADMA_LAYOUT_VERSION;

  rcb->page_size = 8192;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.page_size",
      "page size differs from the JSON");
  rcb->page_size = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.page_size", "page size 0");
  rcb->page_size = 4096 + 1;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.page_size",
      "page size not a power of two");
  rcb->page_size = 4096;

  rcb->incompat_flags = 1ull << 5;
  T_EXPECT (failures, doradma_segment_validate (img.data, img.len, &diag)
      == -EPROTONOSUPPORT, "%s", __func__);
  T_EXPECT (failures, diag.field
      && strcmp (diag.field, "rcb.incompat_flags") == 0, "%s", __func__);
  T_EXPECT (failures, strstr (diag.msg, "bit 5") != NULL, "%s", __func__);
  rcb->incompat_flags = 1ull << 63;
  T_EXPECT_IMAGE (failures, &img, -EPROTONOSUPPORT, "rcb.incompat_flags",
      "incompat bit 63");
  rcb->incompat_flags = DORADMA_INCOMPAT_DEVICE_SLOTS;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.incompat_flags",
      "DEVICE_SLOTS without ipc_flag");
  rcb->incompat_flags = 0;

  /* Unknown compat bits are ignored by design. */
  rcb->compat_flags = ~0ull;
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "unknown compat bits");
  image_free (&img);
}

static void
test_slot_count (void)
{
  struct image img;
  struct doradma_shm_rcb *rcb;

  image_build_default (&img);
  rcb = image_rcb (&img);
  rcb->slot_count = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_count", "slot count 0");
  rcb->slot_count = 65;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_count", "slot count 65");
  rcb->slot_count = UINT32_MAX;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_count",
      "slot count u32 max");
  /* Same slot area, different split: the JSON no longer agrees. */
  rcb->slot_count = 1;
  rcb->slot_stride = 8192;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.doradma.slots",
      "slot count differs from the JSON");
  image_free (&img);
}

static void
test_slot_stride (void)
{
  struct image img;
  struct doradma_shm_rcb *rcb;

  image_build_default (&img);
  rcb = image_rcb (&img);
  rcb->slot_stride = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride", "stride 0");
  rcb->slot_stride = 6144;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride",
      "stride not a page multiple");
  rcb->slot_stride = 4095;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride",
      "stride below a page");
  /* Page multiple, but slot_count * stride overflows u64. */
  rcb->slot_stride = UINT64_MAX & ~4095ull;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride",
      "stride overflowing slot_count x stride");
  /* No overflow in the product, but in slots_offset + product. */
  rcb->slot_stride = (UINT64_MAX / 2) & ~4095ull;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride",
      "stride overflowing slots_offset + area");
  /* The slot area runs past the end of the object. */
  rcb->slot_stride = 1ull << 30;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slot_stride",
      "slot area past the mapping");
  /* Inside the mapping, but over the RCB. */
  rcb->slot_stride = 8192;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.doradma.rcb_offset",
      "slot area over the RCB");
  image_free (&img);
}

static void
test_slots_offset (void)
{
  struct image img;
  struct doradma_shm_rcb *rcb;

  image_build_default (&img);
  rcb = image_rcb (&img);
  rcb->slots_offset = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slots_offset",
      "slots_offset 0");
  rcb->slots_offset = UINT64_MAX;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slots_offset",
      "slots_offset u64 max");
  rcb->slots_offset = img.data_offset + 4096;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.slots_offset",
      "slots_offset != data_offset");
  image_free (&img);
}

static void
test_valid_shapes (void)
{
  struct image_params p;
  struct image img;
  struct doradma_segment_desc desc;
  struct doradma_diag diag;
  guint8 handle[DORADMA_IPC_HANDLE_LEN];

  image_params_default (&p);
  p.slots = 1;
  image_build (&img, &p);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "1 slot");
  image_free (&img);

  p.slots = 64;
  image_build (&img, &p);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "64 slots");
  image_free (&img);

  p.slots = 4;
  p.stride = 3 * 4096;
  p.transport = "unified";
  image_build (&img, &p);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "unified");
  image_free (&img);

  /* ipc: the slot area lives in device memory; the RCB follows the JSON. */
  image_params_default (&p);
  p.ipc = 1;
  image_build (&img, &p);
  T_EXPECT (failures, img.rcb_offset == img.data_offset, "%s", __func__);
  T_EXPECT_DIAG (failures, segment_parse (img.data, img.len, &desc, &diag), 0,
      &diag, NULL, "ipc");
  memset (handle, 0xa5, sizeof (handle));
  T_EXPECT (failures, desc.ipc == 1, "%s", __func__);
  T_EXPECT (failures, memcmp (desc.ipc_handle, handle, sizeof (handle)) == 0,
      "%s", __func__);
  T_EXPECT (failures, strcmp (desc.transport, "ipc") == 0, "%s", __func__);
  T_EXPECT (failures, desc.incompat_flags == DORADMA_INCOMPAT_DEVICE_SLOTS,
      "%s", __func__);

  image_rcb (&img)->incompat_flags = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "rcb.incompat_flags",
      "ipc without DEVICE_SLOTS");
  image_rcb (&img)->incompat_flags = DORADMA_INCOMPAT_DEVICE_SLOTS;
  image_header (&img)->ipc_flag = 0;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.transport",
      "transport ipc without ipc_flag");
  image_header (&img)->ipc_flag = 1;
  /* The JSON's stride disagrees with the RCB's (only the ipc shape can get
   * this far: there the slot area does not pin rcb_offset). */
  image_replace_json (&img, "\"size\":8192", "\"size\":16384");
  image_replace_json (&img, "\"shape\":[2,4096]", "\"shape\":[2,8192]");
  image_replace_json (&img, "\"slot_stride\":4096", "\"slot_stride\":8192");
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.doradma.slot_stride",
      "ipc: JSON stride != RCB stride");
  image_free (&img);

  image_params_default (&p);
  p.ipc = 1;
  image_build (&img, &p);
  image_replace_json (&img, "\"rcb_offset\":4096", "\"rcb_offset\":12288");
  /* Grow the object so that RCB location would be inside it. */
  img.data = g_realloc (img.data, img.len + 8192);
  memmove (img.data + 12288, img.data + 4096, sizeof (struct doradma_shm_rcb));
  img.len += 8192;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.doradma.rcb_offset",
      "ipc: RCB not right after the JSON");
  image_free (&img);
}

static void
test_page_sizes (void)
{
  struct image_params p;
  struct image img;

  image_params_default (&p);
  p.page = 16384;
  p.stride = 16384;
  image_build (&img, &p);
  T_EXPECT (failures, img.data_offset == 16384, "%s", __func__);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "16 KiB pages");
  image_free (&img);

  p.page = 65536;
  p.stride = 65536;
  image_build (&img, &p);
  T_EXPECT (failures, img.data_offset == 65536, "%s", __func__);
  T_EXPECT (failures, img.json_len == 65536 - 256, "%s", __func__);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "64 KiB pages");
  image_free (&img);

  /* 1 MiB pages: the JSON cap wins, zero bytes fill up to data_offset. */
  p.page = 1 << 20;
  p.stride = 1 << 20;
  image_build (&img, &p);
  T_EXPECT (failures, img.data_offset == 1 << 20, "%s", __func__);
  T_EXPECT (failures, img.json_len <= DORADMA_JSON_MAX, "%s", __func__);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "1 MiB pages");
  image_free (&img);
}

int
main (void)
{
  test_identity ();
  test_slot_count ();
  test_slot_stride ();
  test_slots_offset ();
  test_valid_shapes ();
  test_page_sizes ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
