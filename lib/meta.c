/* The JSON metadata at byte 256 of the data object (json-glib only).
 *
 * dora's keys come first, in the order dora's writers use (size, dtype,
 * shape, pinned_type, transport), so a dora tool sees a uint8 pool of
 * `slots x slot_stride` bytes whose payload is exactly our slot area. Our own
 * description sits in the "doradma" object. The text is padded with spaces so
 * that 256 + json_len is a page multiple: dora's writer rule
 * data_offset = 256 + roundup (json_len, 256) then lands on the slot area. */
#include <errno.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "peer-json.h"
#include "segment-desc.h"


static uint64_t
round_up (uint64_t v, uint64_t a)
{
  return (v + a - 1) / a * a;
}

static int
page_size_ok (uint64_t p)
{
  return p >= 4096 && p <= (1u << 20) && (p & (p - 1)) == 0;
}

static const char *
transport_of (const struct doradma_segment_desc *desc)
{
  if (desc->transport[0] != '\0')
    return desc->transport;
  return desc->ipc ? "ipc" : "shmem";
}

static int
transport_known (const char *t)
{
  return strcmp (t, "shmem") == 0 || strcmp (t, "unified") == 0
      || strcmp (t, "ipc") == 0;
}

static char *
build_raw (const struct doradma_segment_desc *desc, uint64_t size,
    uint64_t slots_offset, uint64_t rcb_offset, gsize * len)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *gen;
  JsonNode *root;
  const char *transport = transport_of (desc);
  char *text;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "size");
  json_builder_add_int_value (b, (gint64) size);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, "uint8");
  json_builder_set_member_name (b, "shape");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, desc->slot_count);
  json_builder_add_int_value (b, (gint64) desc->slot_stride);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "pinned_type");
  json_builder_add_string_value (b,
      strcmp (transport, "shmem") == 0 ? "cpu" : "cuda");
  json_builder_set_member_name (b, "transport");
  json_builder_add_string_value (b, transport);

  json_builder_set_member_name (b, "doradma");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "layout");
  json_builder_add_int_value (b, DORADMA_LAYOUT_VERSION);
  json_builder_set_member_name (b, "page_size");
  json_builder_add_int_value (b, desc->page_size);
  json_builder_set_member_name (b, "slots");
  json_builder_add_int_value (b, desc->slot_count);
  json_builder_set_member_name (b, "slot_stride");
  json_builder_add_int_value (b, (gint64) desc->slot_stride);
  json_builder_set_member_name (b, "slots_offset");
  json_builder_add_int_value (b, (gint64) slots_offset);
  json_builder_set_member_name (b, "rcb_offset");
  json_builder_add_int_value (b, (gint64) rcb_offset);
  json_builder_set_member_name (b, "caps");
  json_builder_add_string_value (b, desc->caps);
  json_builder_end_object (b);
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, len);
  g_object_unref (gen);
  json_node_unref (root);
  g_object_unref (b);
  return text;
}

char *
meta_build (const struct doradma_segment_desc *desc, uint64_t * json_len)
{
  uint64_t size, data_offset, pad_to, slot_area;
  uint32_t page = desc->page_size;
  const char *transport = transport_of (desc);
  char *raw = NULL, *out;
  gsize raw_len = 0;

  if (!page_size_ok (page) || desc->slot_count == 0
      || desc->slot_count > DORADMA_MAX_SLOTS || desc->slot_stride == 0
      || desc->slot_stride % page != 0)
    return NULL;
  if (!transport_known (transport)
      || (strcmp (transport, "ipc") == 0) != (desc->ipc != 0))
    return NULL;
  if (memchr (desc->caps, '\0', sizeof (desc->caps)) == NULL
      || caps_string_validate (desc->caps, sizeof (desc->caps), NULL) < 0)
    return NULL;
  if (__builtin_mul_overflow ((uint64_t) desc->slot_count, desc->slot_stride,
          &size) || size > INT64_MAX / 2)
    return NULL;
  slot_area = desc->ipc ? 0 : size;

  if (desc->slots_offset != 0) {
    /* The caller chose the layout: pad up to its slot area. If the text
     * does not fit before it, pad to the next page multiple instead; the
     * caller sees 256 + json_len != slots_offset and lays out again with
     * that (lib/writer.c does). */
    data_offset = desc->slots_offset;
    if (data_offset % page != 0 || data_offset > INT64_MAX / 2)
      return NULL;
    raw = build_raw (desc, size, data_offset, desc->rcb_offset, &raw_len);
    if (256 + (uint64_t) raw_len > data_offset)
      data_offset = round_up (256 + (uint64_t) raw_len, page);
  } else {
    /* Fixed point: the offsets are printed in the JSON whose length decides
     * them. They only grow, so this ends after a step or two. */
    data_offset = page;
    for (;;) {
      uint64_t need;

      raw = build_raw (desc, size, data_offset, data_offset + slot_area,
          &raw_len);
      need = round_up (256 + (uint64_t) raw_len, page);
      if (need <= data_offset)
        break;
      g_free (raw);
      data_offset = need;
    }
  }

  if (raw_len > DORADMA_JSON_MAX)
    goto fail;
  pad_to = data_offset - 256;
  /* Pages over 64 KiB: the JSON cap wins; zero bytes fill the gap up to
   * data_offset, which dora readers accept (they never recompute it). */
  if (pad_to > DORADMA_JSON_MAX)
    pad_to = round_up (raw_len, DORADMA_METADATA_ALIGN);

  out = g_malloc (pad_to + 1);
  memcpy (out, raw, raw_len);
  memset (out + raw_len, ' ', pad_to - raw_len);
  out[pad_to] = '\0';
  g_free (raw);
  *json_len = pad_to;
  return out;

fail:
  g_free (raw);
  return NULL;
}

static int
node_is_uint (JsonNode * n, uint64_t * out)
{
  gint64 v;

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_INT64)
    return 0;
  v = json_node_get_int (n);
  if (v < 0)
    return 0;
  *out = (uint64_t) v;
  return 1;
}

static const char *
node_string (JsonNode * n)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

/* A required non-negative integer member of `o` no larger than max. */
static int
get_uint (JsonObject * o, const char *key, const char *field, uint64_t max,
    uint64_t * out, struct doradma_diag *diag)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL)
    return diag_set (diag, -EBADMSG, field, "%s: missing", field);
  if (!node_is_uint (n, out))
    return diag_set (diag, -EBADMSG, field,
        "%s: not a non-negative integer", field);
  if (*out > max)
    return diag_set (diag, -EBADMSG, field, "%s: %" G_GUINT64_FORMAT
        " out of range (max %" G_GUINT64_FORMAT ")", field, *out, max);
  return 0;
}

static int
parse_object (JsonObject * o, struct doradma_segment_desc *desc,
    struct doradma_diag *diag)
{
  JsonNode *n;
  JsonObject *d;
  JsonArray *shape = NULL;
  const char *s, *transport;
  uint64_t size, v, layout, page, slots, stride, slots_off, rcb_off, bytes;
  guint i;
  int ret;

  /* dora's keys, dora's type rules (doradma-spec §6 items 12-18). */
  n = json_object_get_member (o, "size");
  if (!node_is_uint (n, &size))
    return diag_set (diag, -EBADMSG, "json.size",
        "json.size: missing or not a non-negative integer");
  s = node_string (json_object_get_member (o, "dtype"));
  if (s == NULL)
    return diag_set (diag, -EBADMSG, "json.dtype",
        "json.dtype: missing or not a string");
  if (strcmp (s, "uint8") != 0)
    return diag_set (diag, -EBADMSG, "json.dtype",
        "json.dtype: \"%.32s\", a ring is \"uint8\"", s);
  n = json_object_get_member (o, "shape");
  if (n != NULL) {
    if (!JSON_NODE_HOLDS_ARRAY (n))
      return diag_set (diag, -EBADMSG, "json.shape",
          "json.shape: not an array");
    shape = json_node_get_array (n);
    for (i = 0; i < json_array_get_length (shape); i++)
      if (!node_is_uint (json_array_get_element (shape, i), &v))
        return diag_set (diag, -EBADMSG, "json.shape",
            "json.shape[%u]: not a non-negative integer", i);
  }
  n = json_object_get_member (o, "pinned_type");
  if (n != NULL && node_string (n) == NULL)
    return diag_set (diag, -EBADMSG, "json.pinned_type",
        "json.pinned_type: not a string");
  /* A non-string transport counts as absent, as in dora's reader. */
  transport = node_string (json_object_get_member (o, "transport"));
  if (transport == NULL)
    transport = desc->ipc ? "ipc" : "shmem";
  if (!transport_known (transport))
    return diag_set (diag, -EBADMSG, "json.transport",
        "json.transport: unknown transport \"%.32s\"", transport);
  if ((strcmp (transport, "ipc") == 0) != (desc->ipc != 0))
    return diag_set (diag, -EBADMSG, "json.transport",
        "json.transport: \"%s\" contradicts header.ipc_flag %d", transport,
        desc->ipc);

  /* Ours. Without it this is some other dora pool, not a ring. */
  n = json_object_get_member (o, "doradma");
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return diag_set (diag, -EBADMSG, "json.doradma",
        "not a doradma ring: no \"doradma\" object in the metadata JSON");
  d = json_node_get_object (n);

  if ((ret = get_uint (d, "layout", "json.doradma.layout", UINT32_MAX,
              &layout, diag)) < 0)
    return ret;
  if (layout != DORADMA_LAYOUT_VERSION)
    return diag_set (diag, -EPROTONOSUPPORT, "json.doradma.layout",
        "json.doradma.layout: version %" G_GUINT64_FORMAT
        ", this reader knows %u", layout, DORADMA_LAYOUT_VERSION);
  if ((ret = get_uint (d, "page_size", "json.doradma.page_size", UINT32_MAX,
              &page, diag)) < 0
      || (ret = get_uint (d, "slots", "json.doradma.slots", UINT32_MAX,
              &slots, diag)) < 0
      || (ret = get_uint (d, "slot_stride", "json.doradma.slot_stride",
              INT64_MAX, &stride, diag)) < 0
      || (ret = get_uint (d, "slots_offset", "json.doradma.slots_offset",
              INT64_MAX, &slots_off, diag)) < 0
      || (ret = get_uint (d, "rcb_offset", "json.doradma.rcb_offset",
              INT64_MAX, &rcb_off, diag)) < 0)
    return ret;

  s = node_string (json_object_get_member (d, "caps"));
  if (s == NULL)
    return diag_set (diag, -EBADMSG, "json.doradma.caps",
        "json.doradma.caps: missing or not a string");
  if (strlen (s) >= DORADMA_CAPS_MAX)
    return diag_set (diag, -EBADMSG, "json.doradma.caps",
        "json.doradma.caps: %zu bytes, the limit is %u", strlen (s),
        DORADMA_CAPS_MAX - 1);

  /* dora's view must line up with the slot area. */
  if (__builtin_mul_overflow (slots, stride, &bytes) || size != bytes)
    return diag_set (diag, -EBADMSG, "json.size",
        "json.size: %" G_GUINT64_FORMAT " != slots x slot_stride", size);
  if (shape == NULL || json_array_get_length (shape) != 2
      || json_array_get_int_element (shape, 0) != (gint64) slots
      || json_array_get_int_element (shape, 1) != (gint64) stride)
    return diag_set (diag, -EBADMSG, "json.shape",
        "json.shape: not [slots, slot_stride]");

  g_strlcpy (desc->transport, transport, sizeof (desc->transport));
  g_strlcpy (desc->caps, s, sizeof (desc->caps));
  desc->page_size = (uint32_t) page;
  desc->slot_count = (uint32_t) slots;
  desc->slot_stride = stride;
  desc->slots_offset = slots_off;
  desc->rcb_offset = rcb_off;
  return 0;
}

int
meta_parse (const char *json, size_t len, struct doradma_segment_desc *desc,
    struct doradma_diag *diag)
{
  static const struct peer_json_limits ring = { DORADMA_JSON_MAX,
    "header.json_len"
  };
  JsonNode *root = peer_json_parse (json, len, &ring, diag);
  int ret;

  if (root == NULL)
    return -EBADMSG;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    ret = diag_set (diag, -EBADMSG, "json", "metadata json is not an object");
  else
    ret = parse_object (json_node_get_object (root), desc, diag);
  json_node_unref (root);
  return ret;
}
