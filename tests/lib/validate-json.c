/* Description: the metadata JSON at byte 256: dora's key type rules
 * (doradma-spec §6, items 10-18), the "doradma" object's members and types,
 * the caps it carries, and hostile text (invalid UTF-8, NUL, nesting,
 * numbers json-glib would wrap, and everything beyond strict RFC 8259 that
 * json-glib accepts: comments, single quotes, hex, identifiers). Each case mutates one thing in a valid
 * image built as the writer builds it. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

struct json_case
{
  const char *what;
  const char *from, *to;
  int err;
  const char *field;
};

/* The default image's JSON holds these exact fragments (meta_build). */
static const struct json_case cases[] = {
  {"size a string", "\"size\":8192", "\"size\":\"8192\"", -EBADMSG,
      "json.size"},
  {"size negative", "\"size\":8192", "\"size\":-8192", -EBADMSG, "json.size"},
  {"size a float", "\"size\":8192", "\"size\":8192.0", -EBADMSG, "json.size"},
  {"size missing", "\"size\":8192,", "", -EBADMSG, "json.size"},
  {"size != slots x slot_stride", "\"size\":8192", "\"size\":4096", -EBADMSG,
      "json.size"},
  {"dtype not a string", "\"dtype\":\"uint8\"", "\"dtype\":8", -EBADMSG,
      "json.dtype"},
  {"dtype missing", "\"dtype\":\"uint8\",", "", -EBADMSG, "json.dtype"},
  {"dtype float32", "\"dtype\":\"uint8\"", "\"dtype\":\"float32\"", -EBADMSG,
      "json.dtype"},
  {"shape not an array", "\"shape\":[2,4096]", "\"shape\":\"2x4096\"",
      -EBADMSG, "json.shape"},
  {"shape element a string", "\"shape\":[2,4096]", "\"shape\":[2,\"x\"]",
      -EBADMSG, "json.shape"},
  {"shape element negative", "\"shape\":[2,4096]", "\"shape\":[2,-4096]",
      -EBADMSG, "json.shape"},
  {"shape not [slots, slot_stride]", "\"shape\":[2,4096]", "\"shape\":[8192]",
      -EBADMSG, "json.shape"},
  {"shape missing", "\"shape\":[2,4096],", "", -EBADMSG, "json.shape"},
  {"pinned_type a number", "\"pinned_type\":\"cpu\"", "\"pinned_type\":42",
      -EBADMSG, "json.pinned_type"},
  {"pinned_type absent is fine", "\"pinned_type\":\"cpu\",", "", 0, NULL},
  {"transport unknown", "\"transport\":\"shmem\"", "\"transport\":\"rdma\"",
      -EBADMSG, "json.transport"},
  {"transport ipc without ipc_flag", "\"transport\":\"shmem\"",
      "\"transport\":\"ipc\"", -EBADMSG, "json.transport"},
  {"transport unified without ipc_flag is fine", "\"transport\":\"shmem\"",
      "\"transport\":\"unified\"", 0, NULL},
  {"transport non-string counts as absent (dora)", "\"transport\":\"shmem\"",
      "\"transport\":5", 0, NULL},
  {"transport absent resolves from ipc_flag", "\"transport\":\"shmem\",", "", 0,
      NULL},
  {"doradma missing", "\"doradma\":", "\"other\":", -EBADMSG, "json.doradma"},
  {"doradma not an object", "\"doradma\":{", "\"doradma\":[],\"x\":{",
      -EBADMSG, "json.doradma"},
  {"layout a string", "\"layout\":1", "\"layout\":\"1\"", -EBADMSG,
      "json.doradma.layout"},
  {"layout 2", "\"layout\":1", "\"layout\":2", -EPROTONOSUPPORT,
      "json.doradma.layout"},
  {"layout missing", "\"layout\":1,", "", -EBADMSG, "json.doradma.layout"},
  {"page_size a string", "\"page_size\":4096", "\"page_size\":\"4096\"",
      -EBADMSG, "json.doradma.page_size"},
  {"page_size not a power of two", "\"page_size\":4096",
      "\"page_size\":4097", -EBADMSG, "json.doradma.page_size"},
  {"page_size 2048", "\"page_size\":4096", "\"page_size\":2048", -EBADMSG,
      "json.doradma.page_size"},
  {"page_size 2 MiB", "\"page_size\":4096", "\"page_size\":2097152", -EBADMSG,
      "json.doradma.page_size"},
  {"page_size over u32", "\"page_size\":4096", "\"page_size\":4294971392",
      -EBADMSG, "json.doradma.page_size"},
  {"slots a string", "\"slots\":2", "\"slots\":\"2\"", -EBADMSG,
      "json.doradma.slots"},
  {"slots null", "\"slots\":2", "\"slots\":null", -EBADMSG,
      "json.doradma.slots"},
  {"slots missing", "\"slots\":2,", "", -EBADMSG, "json.doradma.slots"},
  {"slot_stride a string", "\"slot_stride\":4096",
      "\"slot_stride\":\"4096\"", -EBADMSG, "json.doradma.slot_stride"},
  {"slots_offset missing", "\"slots_offset\":4096,", "", -EBADMSG,
      "json.doradma.slots_offset"},
  {"slots_offset != rcb.slots_offset", "\"slots_offset\":4096",
      "\"slots_offset\":0", -EBADMSG, "json.doradma.slots_offset"},
  {"rcb_offset negative", "\"rcb_offset\":12288", "\"rcb_offset\":-1",
      -EBADMSG, "json.doradma.rcb_offset"},
  {"rcb_offset not page aligned", "\"rcb_offset\":12288",
      "\"rcb_offset\":12289", -EBADMSG, "json.doradma.rcb_offset"},
  {"rcb_offset before data_offset", "\"rcb_offset\":12288",
      "\"rcb_offset\":0", -EBADMSG, "json.doradma.rcb_offset"},
  /* No RCB magic where it points. */
  {"rcb_offset inside the slots", "\"rcb_offset\":12288",
      "\"rcb_offset\":8192", -EBADMSG, "rcb.magic"},
  {"RCB past the mapping", "\"rcb_offset\":12288", "\"rcb_offset\":16384",
      -EBADMSG, "rcb"},
  {"RCB far past the mapping (largest JSON integer)", "\"rcb_offset\":12288",
      "\"rcb_offset\":9223372036854771712", -EBADMSG, "rcb"},
  {"caps missing", "\"caps\":", "\"kaps\":", -EBADMSG, "json.doradma.caps"},
  {"caps a number", "\"caps\":\"", "\"caps\":5,\"x\":\"", -EBADMSG,
      "json.doradma.caps"},
  {"caps with a memory feature", "\"caps\":\"video/x-raw",
      "\"caps\":\"video/x-raw(memory:NVMM)", -EBADMSG, "caps.features"},
  {"caps not video/x-raw", "\"caps\":\"video/x-raw",
      "\"caps\":\"audio/x-raw", -EBADMSG, "caps.media_type"},
  {"caps unparsable (control character)", "\"caps\":\"video/x-raw",
      "\"caps\":\"video/x-raw\\u0001", -EBADMSG, "caps"},
  {"caps cut by an escaped NUL", "\"caps\":\"video/x-raw",
      "\"caps\":\"video/x-r\\u0000aw", -EBADMSG, "caps.media_type"},
  {"extra keys are ignored", "\"size\":", "\"extra\":{\"a\":[1,2]},\"size\":",
      0, NULL},
  {"not an object", "{\"size\"", "[{\"size\"", -EBADMSG, "json"},
  {"unparsable", "\"size\":8192", "\"size\":8192,,", -EBADMSG, "json"},
  {"number json-glib would wrap", "\"size\":8192",
      "\"x\":18446744073709551616,\"size\":8192", -EBADMSG, "json"},
  {"u64 max as size (20 digits)", "\"size\":8192",
      "\"size\":18446744073709551615", -EBADMSG, "json"},
  {"19-digit size over i64", "\"size\":8192", "\"size\":9999999999999999999",
      -EBADMSG, "json.size"},
  /* The digit-run bound's pair (JSON_DIGITS_MAX 19): 19 digits pass the
   * lexer (and fit i64), 20 do not. */
  {"19 digits (the bound)", "\"size\":8192",
      "\"x\":1000000000000000000,\"size\":8192", 0, NULL},
  {"20 digits (one past)", "\"size\":8192",
      "\"x\":10000000000000000000,\"size\":8192", -EBADMSG, "json"},
  /* Strict RFC 8259 before json-glib, which accepts more (review #2, #20). */
  {"C comment", "\"size\":8192", "/* c */\"size\":8192", -EBADMSG, "json"},
  {"line comment", "\"size\":8192", "// c\n\"size\":8192", -EBADMSG, "json"},
  {"comment hiding a quote", "\"size\":8192", "/*\"*/\"size\":8192", -EBADMSG,
      "json"},
  {"single-quoted key", "\"dtype\":", "'dtype':", -EBADMSG, "json"},
  {"single-quoted value", "\"dtype\":\"uint8\"", "\"dtype\":'uint8'",
      -EBADMSG, "json"},
  {"hex number", "\"size\":8192", "\"size\":0x2000", -EBADMSG, "json"},
  {"hex number, 20 hex digits", "\"size\":8192",
      "\"x\":0xffffffffffffffffffff,\"size\":8192", -EBADMSG, "json"},
  {"leading zero", "\"size\":8192", "\"size\":08192", -EBADMSG, "json"},
  {"bare identifier", "\"size\":8192", "\"x\":Infinity,\"size\":8192",
      -EBADMSG, "json"},
  {"identifier after a literal", "\"size\":8192", "\"x\":truex,\"size\":8192",
      -EBADMSG, "json"},
  {"bad escape", "\"dtype\":\"uint8\"", "\"dtype\":\"ui\\x38\"", -EBADMSG,
      "json"},
  {"raw control character in a string", "\"dtype\":\"uint8\"",
      "\"dtype\":\"ui\tnt8\"", -EBADMSG, "json"},
  {"mismatched brackets", "\"shape\":[2,4096]", "\"shape\":[2,4096}",
      -EBADMSG, "json"},
  {"literals and exponents are fine", "\"size\":",
      "\"t\":[true,false,null,-1.5e+3,0.25,1E2],\"size\":", 0, NULL},
  {"escapes are fine", "\"size\":", "\"e\":\"\\\"\\\\\\/\\b\\u00e9\",\"size\":",
        0,
      NULL},
};

static void
test_table (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    struct image img;

    image_build_default (&img);
    image_replace_json (&img, cases[i].from, cases[i].to);
    T_EXPECT_IMAGE (failures, &img, cases[i].err, cases[i].field,
        cases[i].what);
    image_free (&img);
  }
}

static void
test_keys_in_any_order_and_whitespace (void)
{
  struct image img;
  char *json;

  image_build_default (&img);
  json = g_strdup_printf ("\n{ \"doradma\" : { \"caps\": \"%s\", "
      "\"rcb_offset\": 12288, \"slots_offset\": 4096, \"slot_stride\": 4096, "
      "\"slots\": 2, \"page_size\": 4096, \"layout\": 1 },\n"
      "  \"transport\": \"shmem\", \"pinned_type\": \"cpu\", "
      "\"shape\": [2, 4096], \"dtype\": \"uint8\", \"size\": 8192 }\n",
      IMAGE_DEFAULT_CAPS);
  image_set_json (&img, json);
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "keys reordered, whitespace");
  g_free (json);
  image_free (&img);
}

static void
test_hostile_bytes (void)
{
  struct image img;
  uint8_t *json;
  guint i;
  GString *deep;

  image_build_default (&img);
  json = img.data + DORADMA_HEADER_SIZE;
  json[0] = 0xff;
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json",
      "invalid UTF-8 (byte 256 = 0xff)");
  image_free (&img);

  image_build_default (&img);
  json = img.data + DORADMA_HEADER_SIZE;
  json[img.json_len - 1] = '\0';
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json", "NUL byte in the padding");
  image_free (&img);

  /* A nesting bomb would recurse json-glib's parser off the stack. */
  image_build_default (&img);
  deep = g_string_new ("\"deep\":");
  for (i = 0; i < 1000; i++)
    g_string_append_c (deep, '[');
  for (i = 0; i < 1000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, ",\"size\":");
  image_replace_json (&img, "\"size\":", deep->str);
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json", "nesting 1000 deep");
  g_string_free (deep, TRUE);
  image_free (&img);

  /* The bound (lib/peer-json.h): the object plus 31 arrays is 32 levels,
   * accepted; one more is refused. */
  for (i = 31; i <= 32; i++) {
    guint k;

    image_build_default (&img);
    deep = g_string_new ("\"n\":");
    for (k = 0; k < i; k++)
      g_string_append_c (deep, '[');
    for (k = 0; k < i; k++)
      g_string_append_c (deep, ']');
    g_string_append (deep, ",\"size\":");
    image_replace_json (&img, "\"size\":", deep->str);
    if (i == 31)
      T_EXPECT_IMAGE (failures, &img, 0, NULL, "nesting 32 deep");
    else
      T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json", "nesting 33 deep");
    g_string_free (deep, TRUE);
    image_free (&img);
  }

  /* The refusal names what is wrong: a comment, not just "a character". */
  {
    struct doradma_diag diag;

    image_build_default (&img);
    image_replace_json (&img, "\"size\":8192", "/* c */\"size\":8192");
    memset (&diag, 0, sizeof diag);
    T_EXPECT (failures, doradma_segment_validate (img.data, img.len,
            &diag) == -EBADMSG && strstr (diag.msg, "comment") != NULL,
        "a comment is refused naming it: %s", diag.msg);
    image_free (&img);
  }

  /* Moderate nesting in extra keys is fine. */
  image_build_default (&img);
  image_replace_json (&img, "\"size\":", "\"n\":[[[[[[[[{}]]]]]]]],\"size\":");
  T_EXPECT_IMAGE (failures, &img, 0, NULL, "nesting 9 deep");
  image_free (&img);
}

static void
test_caps_too_long (void)
{
  struct image img;
  GString *caps = g_string_new ("\"caps\":\"video/x-raw, x=(string)");
  char *to;

  image_build_default (&img);
  while (caps->len < 8 + DORADMA_CAPS_MAX)
    g_string_append_c (caps, 'a');
  to = g_strdup (caps->str);
  image_replace_json (&img, "\"caps\":\"video/x-raw", to);
  T_EXPECT_IMAGE (failures, &img, -EBADMSG, "json.doradma.caps",
      "caps of 960 bytes or more");
  g_free (to);
  g_string_free (caps, TRUE);
  image_free (&img);
}

/* meta_parse itself refuses over-long input without reading it. */
static void
test_meta_parse_caps_len (void)
{
  struct doradma_segment_desc desc;
  struct doradma_diag diag;

  memset (&desc, 0, sizeof (desc));
  T_EXPECT_DIAG (failures, meta_parse ("{}", DORADMA_JSON_MAX + 1,
          &desc, &diag), -EBADMSG, &diag, "header.json_len",
      "meta_parse over the cap");
}

int
main (void)
{
  test_table ();
  test_keys_in_any_order_and_whitespace ();
  test_hostile_bytes ();
  test_caps_too_long ();
  test_meta_parse_caps_len ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
