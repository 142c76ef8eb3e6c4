/* Description: the ring control block's identity line (RCB line 0) and the
 * slot area geometry: magic, layout version, page size, incompat bits, slot
 * count 1..64, slot stride a page multiple, offsets that overflow, the slot
 * area or the RCB past the mapping, and the JSON agreeing with the RCB. Also
 * the ipc and unified shapes of a valid image. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

static void
test_identity (void)
{
  struct image img;
  struct doradma_shm_rcb *rcb;
  struct doradma_diag diag;

  image_build_default (&img);
  rcb = image_rcb (&img);

  rcb->magic ^= 1;
  t_expect_image ("rcb magic", &img, -EBADMSG, "rcb.magic");
  rcb->magic = DORADMA_RCB_MAGIC;

  rcb->layout_version = 2;
  t_expect_image ("layout version 2", &img, -EPROTONOSUPPORT,
      "rcb.layout_version");
  rcb->layout_version = 0;
  t_expect_image ("layout version 0", &img, -EPROTONOSUPPORT,
      "rcb.layout_version");
  rcb->layout_version = DORADMA_LAYOUT_VERSION;

  rcb->page_size = 8192;
  t_expect_image ("page size differs from the JSON", &img, -EBADMSG,
      "rcb.page_size");
  rcb->page_size = 0;
  t_expect_image ("page size 0", &img, -EBADMSG, "rcb.page_size");
  rcb->page_size = 4096 + 1;
  t_expect_image ("page size not a power of two", &img, -EBADMSG,
      "rcb.page_size");
  rcb->page_size = 4096;

  rcb->incompat_flags = 1ull << 5;
  t_check (doradma_segment_validate (img.data, img.len, &diag)
      == -EPROTONOSUPPORT);
  t_check (diag.field && strcmp (diag.field, "rcb.incompat_flags") == 0);
  t_check (strstr (diag.msg, "bit 5") != NULL);
  rcb->incompat_flags = 1ull << 63;
  t_expect_image ("incompat bit 63", &img, -EPROTONOSUPPORT,
      "rcb.incompat_flags");
  rcb->incompat_flags = DORADMA_INCOMPAT_DEVICE_SLOTS;
  t_expect_image ("DEVICE_SLOTS without ipc_flag", &img, -EBADMSG,
      "rcb.incompat_flags");
  rcb->incompat_flags = 0;

  /* Unknown compat bits are ignored by design. */
  rcb->compat_flags = ~0ull;
  t_expect_image ("unknown compat bits", &img, 0, NULL);
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
  t_expect_image ("slot count 0", &img, -EBADMSG, "rcb.slot_count");
  rcb->slot_count = 65;
  t_expect_image ("slot count 65", &img, -EBADMSG, "rcb.slot_count");
  rcb->slot_count = UINT32_MAX;
  t_expect_image ("slot count u32 max", &img, -EBADMSG, "rcb.slot_count");
  /* Same slot area, different split: the JSON no longer agrees. */
  rcb->slot_count = 1;
  rcb->slot_stride = 8192;
  t_expect_image ("slot count differs from the JSON", &img, -EBADMSG,
      "json.doradma.slots");
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
  t_expect_image ("stride 0", &img, -EBADMSG, "rcb.slot_stride");
  rcb->slot_stride = 6144;
  t_expect_image ("stride not a page multiple", &img, -EBADMSG,
      "rcb.slot_stride");
  rcb->slot_stride = 4095;
  t_expect_image ("stride below a page", &img, -EBADMSG, "rcb.slot_stride");
  /* Page multiple, but slot_count * stride overflows u64. */
  rcb->slot_stride = UINT64_MAX & ~4095ull;
  t_expect_image ("stride overflowing slot_count x stride", &img, -EBADMSG,
      "rcb.slot_stride");
  /* No overflow in the product, but in slots_offset + product. */
  rcb->slot_stride = (UINT64_MAX / 2) & ~4095ull;
  t_expect_image ("stride overflowing slots_offset + area", &img, -EBADMSG,
      "rcb.slot_stride");
  /* The slot area runs past the end of the object. */
  rcb->slot_stride = 1ull << 30;
  t_expect_image ("slot area past the mapping", &img, -EBADMSG,
      "rcb.slot_stride");
  /* Inside the mapping, but over the RCB. */
  rcb->slot_stride = 8192;
  t_expect_image ("slot area over the RCB", &img, -EBADMSG,
      "json.doradma.rcb_offset");
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
  t_expect_image ("slots_offset 0", &img, -EBADMSG, "rcb.slots_offset");
  rcb->slots_offset = UINT64_MAX;
  t_expect_image ("slots_offset u64 max", &img, -EBADMSG, "rcb.slots_offset");
  rcb->slots_offset = img.data_offset + 4096;
  t_expect_image ("slots_offset != data_offset", &img, -EBADMSG,
      "rcb.slots_offset");
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
  t_expect_image ("1 slot", &img, 0, NULL);
  image_free (&img);

  p.slots = 64;
  image_build (&img, &p);
  t_expect_image ("64 slots", &img, 0, NULL);
  image_free (&img);

  p.slots = 4;
  p.stride = 3 * 4096;
  p.transport = "unified";
  image_build (&img, &p);
  t_expect_image ("unified", &img, 0, NULL);
  image_free (&img);

  /* ipc: the slot area lives in device memory; the RCB follows the JSON. */
  image_params_default (&p);
  p.ipc = 1;
  image_build (&img, &p);
  t_check (img.rcb_offset == img.data_offset);
  t_expect ("ipc", segment_parse (img.data, img.len, &desc, &diag), 0, &diag,
      NULL);
  memset (handle, 0xa5, sizeof (handle));
  t_check (desc.ipc == 1);
  t_check (memcmp (desc.ipc_handle, handle, sizeof (handle)) == 0);
  t_check (strcmp (desc.transport, "ipc") == 0);
  t_check (desc.incompat_flags == DORADMA_INCOMPAT_DEVICE_SLOTS);

  image_rcb (&img)->incompat_flags = 0;
  t_expect_image ("ipc without DEVICE_SLOTS", &img, -EBADMSG,
      "rcb.incompat_flags");
  image_rcb (&img)->incompat_flags = DORADMA_INCOMPAT_DEVICE_SLOTS;
  image_header (&img)->ipc_flag = 0;
  t_expect_image ("transport ipc without ipc_flag", &img, -EBADMSG,
      "json.transport");
  image_header (&img)->ipc_flag = 1;
  /* The JSON's stride disagrees with the RCB's (only the ipc shape can get
   * this far: there the slot area does not pin rcb_offset). */
  image_replace_json (&img, "\"size\":8192", "\"size\":16384");
  image_replace_json (&img, "\"shape\":[2,4096]", "\"shape\":[2,8192]");
  image_replace_json (&img, "\"slot_stride\":4096", "\"slot_stride\":8192");
  t_expect_image ("ipc: JSON stride != RCB stride", &img, -EBADMSG,
      "json.doradma.slot_stride");
  image_free (&img);

  image_params_default (&p);
  p.ipc = 1;
  image_build (&img, &p);
  image_replace_json (&img, "\"rcb_offset\":4096", "\"rcb_offset\":12288");
  /* Grow the object so that RCB location would be inside it. */
  img.data = g_realloc (img.data, img.len + 8192);
  memmove (img.data + 12288, img.data + 4096, sizeof (struct doradma_shm_rcb));
  img.len += 8192;
  t_expect_image ("ipc: RCB not right after the JSON", &img, -EBADMSG,
      "json.doradma.rcb_offset");
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
  t_check (img.data_offset == 16384);
  t_expect_image ("16 KiB pages", &img, 0, NULL);
  image_free (&img);

  p.page = 65536;
  p.stride = 65536;
  image_build (&img, &p);
  t_check (img.data_offset == 65536);
  t_check (img.json_len == 65536 - 256);
  t_expect_image ("64 KiB pages", &img, 0, NULL);
  image_free (&img);

  /* 1 MiB pages: the JSON cap wins, zero bytes fill up to data_offset. */
  p.page = 1 << 20;
  p.stride = 1 << 20;
  image_build (&img, &p);
  t_check (img.data_offset == 1 << 20);
  t_check (img.json_len <= DORADMA_JSON_MAX);
  t_expect_image ("1 MiB pages", &img, 0, NULL);
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
  return t_result ();
}
