/* Description: meta_build writes dora's keys first, in dora's order, then
 * the "doradma" object, padded with spaces so that 256 + json_len is a page
 * multiple (dora's data_offset rule then lands on the slot area); it refuses
 * descriptions a reader would refuse; meta_parse reads back what it wrote. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

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
  t_check (json != NULL);
  if (!json)
    return;
  t_check (len == 4096 - 256);
  t_check (strlen (json) == len);
  t_check (strncmp (json, want, strlen (want)) == 0);
  for (i = strlen (want); i < len; i++)
    if (!t_check (json[i] == ' '))
      break;
  /* dora's writer rule holds. */
  t_check (256 + (len + 255) / 256 * 256 == 4096);

  memset (&back, 0, sizeof (back));
  t_expect ("read back", meta_parse (json, len, &back, &diag), 0, &diag,
      NULL);
  t_check (back.slot_count == 2 && back.slot_stride == 4096);
  t_check (back.slots_offset == 4096 && back.rcb_offset == 12288);
  t_check (back.page_size == 4096);
  t_check (strcmp (back.transport, "shmem") == 0);
  t_check (strcmp (back.caps, "video/x-raw") == 0);
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
  t_check (json && strstr (json, "\"pinned_type\":\"cuda\",\"transport\":"
          "\"unified\"") != NULL);
  g_free (json);

  /* ipc: no slot area in the object; size still describes the slots. */
  g_strlcpy (d.transport, "ipc", sizeof (d.transport));
  d.ipc = 1;
  json = meta_build (&d, &len);
  t_check (json && strstr (json, "\"size\":8192") != NULL);
  t_check (json && strstr (json, "\"pinned_type\":\"cuda\",\"transport\":"
          "\"ipc\"") != NULL);
  t_check (json && strstr (json, "\"slots_offset\":4096,\"rcb_offset\":4096")
      != NULL);
  g_free (json);

  /* ipc transport without device slots, and the reverse. */
  d.ipc = 0;
  t_check (meta_build (&d, &len) == NULL);
  g_strlcpy (d.transport, "shmem", sizeof (d.transport));
  d.ipc = 1;
  t_check (meta_build (&d, &len) == NULL);
  g_strlcpy (d.transport, "rdma", sizeof (d.transport));
  d.ipc = 0;
  t_check (meta_build (&d, &len) == NULL);
}

static void
test_refusals (void)
{
  struct doradma_segment_desc d;
  uint64_t len;

  desc_default (&d);
  d.slot_count = 0;
  t_check (meta_build (&d, &len) == NULL);
  d.slot_count = 65;
  t_check (meta_build (&d, &len) == NULL);
  desc_default (&d);
  d.slot_stride = 6144;
  t_check (meta_build (&d, &len) == NULL);
  desc_default (&d);
  d.page_size = 4097;
  t_check (meta_build (&d, &len) == NULL);
  desc_default (&d);
  g_strlcpy (d.caps, "video/x-raw(memory:NVMM)", sizeof (d.caps));
  t_check (meta_build (&d, &len) == NULL);
  desc_default (&d);
  d.slot_stride = UINT64_MAX & ~4095ull;
  t_check (meta_build (&d, &len) == NULL);
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
  t_check (json && len == 3 * 4096 - 256);
  t_check (json && strstr (json, "\"slots_offset\":12288,\"rcb_offset\":20480")
      != NULL);
  g_free (json);

  d.slots_offset = 4096 + 1;
  t_check (meta_build (&d, &len) == NULL);

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
    t_check (json != NULL);
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
  t_check (json != NULL);
  if (!json)
    return;
  memset (&back, 0, sizeof (back));
  t_expect ("large read back", meta_parse (json, len, &back, &diag), 0,
      &diag, NULL);
  t_check (back.slots_offset == 256 + len);
  t_check (back.rcb_offset == back.slots_offset + 64 * (1ull << 40));
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
  return t_result ();
}
