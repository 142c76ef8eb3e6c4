/* Description: meta_build writes dora's keys first, in dora's order, then
 * the "doradma" object, padded with spaces so that 256 + json_len is a page
 * multiple (dora's data_offset rule then lands on the slot area); it refuses
 * descriptions a reader would refuse; meta_parse reads back what it wrote. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

static void
desc_default (struct doradma_segment_desc *d)
{
  memset (d, 0, sizeof (*d));
  d->slot_count = 2;
  d->slot_stride = 4096;
  d->page_size = 4096;
  g_strlcpy (d->transport, "shmem", sizeof (d->transport));
  g_strlcpy (d->caps, "video/x-raw", sizeof (d->caps));
}

static void
test_exact_text (void)
{
  struct doradma_segment_desc d, back;
  struct doradma_diag diag;
  uint64_t len;
  char *json;
  const char *want = "{\"size\":8192,\"dtype\":\"uint8\",\"shape\":[2,4096],"
      "\"pinned_type\":\"cpu\",\"transport\":\"shmem\",\"doradma\":{"
      "\"layout\":1,\"page_size\":4096,\"slots\":2,\"slot_stride\":4096,"
      "\"slots_offset\":4096,\"rcb_offset\":12288,\"caps\":\"video/x-raw\"}}";
  size_t i;

  desc_default (&d);
  json = meta_build (&d, &len);
  T_EXPECT (failures, json != NULL, "%s", __func__);
  if (!json)
    return;
  T_EXPECT (failures, len == 4096 - 256, "%s", __func__);
  T_EXPECT (failures, strlen (json) == len, "%s", __func__);
  T_EXPECT (failures, strncmp (json, want, strlen (want)) == 0, "%s", __func__);
  for (i = strlen (want); i < len; i++)
    if (json[i] != ' ') {
      T_EXPECT (failures, json[i] == ' ', "padding byte %zu is 0x%02x", i,
          (unsigned) (unsigned char) json[i]);
      break;
    }
  /* dora's writer rule holds. */
  T_EXPECT (failures, 256 + (len + 255) / 256 * 256 == 4096, "%s", __func__);

  memset (&back, 0, sizeof (back));
  T_EXPECT_DIAG (failures, meta_parse (json, len, &back, &diag), 0, &diag, NULL,
      "read back");
  T_EXPECT (failures, back.slot_count == 2
      && back.slot_stride == 4096, "%s", __func__);
  T_EXPECT (failures, back.slots_offset == 4096
      && back.rcb_offset == 12288, "%s", __func__);
  T_EXPECT (failures, back.page_size == 4096, "%s", __func__);
  T_EXPECT (failures, strcmp (back.transport, "shmem") == 0, "%s", __func__);
  T_EXPECT (failures, strcmp (back.caps, "video/x-raw") == 0, "%s", __func__);
  g_free (json);
}

static void
test_transports (void)
{
  struct doradma_segment_desc d;
  uint64_t len;
  char *json;

  desc_default (&d);
  g_strlcpy (d.transport, "unified", sizeof (d.transport));
  json = meta_build (&d, &len);
  T_EXPECT (failures, json
      && strstr (json,
          "\"pinned_type\":\"cuda\",\"transport\":" "\"unified\"") != NULL,
      "%s", __func__);
  g_free (json);

  /* ipc: no slot area in the object; size still describes the slots. */
  g_strlcpy (d.transport, "ipc", sizeof (d.transport));
  d.ipc = 1;
  json = meta_build (&d, &len);
  T_EXPECT (failures, json
      && strstr (json, "\"size\":8192") != NULL, "%s", __func__);
  T_EXPECT (failures, json
      && strstr (json,
          "\"pinned_type\":\"cuda\",\"transport\":" "\"ipc\"") != NULL, "%s",
      __func__);
  T_EXPECT (failures, json
      && strstr (json, "\"slots_offset\":4096,\"rcb_offset\":4096")
      != NULL, "%s", __func__);
  g_free (json);

  /* ipc transport without device slots, and the reverse. */
  d.ipc = 0;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  g_strlcpy (d.transport, "shmem", sizeof (d.transport));
  d.ipc = 1;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  g_strlcpy (d.transport, "rdma", sizeof (d.transport));
  d.ipc = 0;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
}

static void
test_refusals (void)
{
  struct doradma_segment_desc d;
  uint64_t len;

  desc_default (&d);
  d.slot_count = 0;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  d.slot_count = 65;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  desc_default (&d);
  d.slot_stride = 6144;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  desc_default (&d);
  d.page_size = 4097;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  desc_default (&d);
  g_strlcpy (d.caps, "video/x-raw(memory:NVMM)", sizeof (d.caps));
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
  desc_default (&d);
  d.slot_stride = UINT64_MAX & ~4095ull;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);
}

/* The caller's layout: padded up to slots_offset, or to the next page when
 * the text does not fit before it. */
static void
test_explicit_offsets (void)
{
  struct doradma_segment_desc d;
  uint64_t len;
  char *json;

  desc_default (&d);
  d.slots_offset = 3 * 4096;
  d.rcb_offset = 5 * 4096;
  json = meta_build (&d, &len);
  T_EXPECT (failures, json && len == 3 * 4096 - 256, "%s", __func__);
  T_EXPECT (failures, json
      && strstr (json, "\"slots_offset\":12288,\"rcb_offset\":20480")
      != NULL, "%s", __func__);
  g_free (json);

  d.slots_offset = 4096 + 1;
  T_EXPECT (failures, meta_build (&d, &len) == NULL, "%s", __func__);

  /* Long caps push the text past the first page. */
  {
    GString *caps = g_string_new ("video/x-raw, x=(string)");
    while (caps->len < DORADMA_CAPS_MAX - 1)
      g_string_append_c (caps, 'a');
    d.page_size = 4096;
    d.slots_offset = 4096;
    d.rcb_offset = 4096 + 8192;
    d.slot_stride = 4096;
    g_strlcpy (d.caps, caps->str, sizeof (d.caps));
    g_string_free (caps, TRUE);
    json = meta_build (&d, &len);
    T_EXPECT (failures, json != NULL, "%s", __func__);
    g_free (json);
  }
}

static void
test_large_numbers_fixed_point (void)
{
  struct doradma_segment_desc d, back;
  struct doradma_diag diag;
  uint64_t len;
  char *json;

  desc_default (&d);
  d.slot_count = 64;
  d.slot_stride = 1ull << 40;
  json = meta_build (&d, &len);
  T_EXPECT (failures, json != NULL, "%s", __func__);
  if (!json)
    return;
  memset (&back, 0, sizeof (back));
  T_EXPECT_DIAG (failures, meta_parse (json, len, &back, &diag), 0, &diag, NULL,
      "large read back");
  T_EXPECT (failures, back.slots_offset == 256 + len, "%s", __func__);
  T_EXPECT (failures, back.rcb_offset == back.slots_offset + 64 * (1ull << 40),
      "%s", __func__);
  g_free (json);
}

int
main (void)
{
  test_exact_text ();
  test_transports ();
  test_refusals ();
  test_explicit_offsets ();
  test_large_numbers_fixed_point ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
