/* dora pools: names, dtypes and every reader check of an untrusted header
 * and JSON (spec §6), in the order the dora-rs crate fires them (but a
 * data_offset below 256 is named before json_len is fitted to it: F9),
 * with its quoted message fragments. Pure functions: no system calls. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include <doradma/dora-pool.h>

#include "peer-json.h"
#include "segment-desc.h"       /* diag_set */

#define DORADMA_API __attribute__ ((visibility ("default")))


static const uint8_t pool_magic[8] = { 'D', 'O', 'R', 'A', 'D', 'M', 'A', 0 };

DORADMA_API const char *
doradma_pool_transport_name (enum doradma_pool_transport t)
{
  switch (t) {
    case DORADMA_POOL_SHMEM:
      return "shmem";
    case DORADMA_POOL_UNIFIED:
      return "unified";
    case DORADMA_POOL_IPC:
      return "ipc";
  }
  return "?";
}

static int
name_char_ok (unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

DORADMA_API int
doradma_pool_name_validate (const char *name, struct doradma_diag *diag)
{
  const size_t plen = strlen (DORADMA_POOL_PREFIX);
  size_t len, i;

  if (name == NULL || name[0] == '\0')
    return diag_set (diag, -EINVAL, "dora-pool", "dora pool name is empty");
  len = strnlen (name, DORADMA_POOL_NAME_MAX + 1);
  if (len > DORADMA_POOL_NAME_MAX)
    return diag_set (diag, -EINVAL, "dora-pool",
        "dora pool name is longer than %u bytes (glibc's shm name limit)",
        DORADMA_POOL_NAME_MAX);
  if (strncmp (name, DORADMA_POOL_PREFIX, plen) != 0 || len == plen)
    return diag_set (diag, -EINVAL, "dora-pool",
        "dora pool name \"%s\" does not have the form "
        "dora_pool_<dataflow>_<node>_<pool>", name);
  if (strstr (name, "..") != NULL)
    return diag_set (diag, -EINVAL, "dora-pool",
        "dora pool name \"%s\" contains \"..\" (path traversal)", name);
  for (i = 0; i < len; i++)
    if (!name_char_ok ((unsigned char) name[i]))
      return diag_set (diag, -EINVAL, "dora-pool",
          "dora pool name has byte 0x%02x at %zu; allowed: A-Z a-z 0-9 _ . -",
          (unsigned char) name[i], i);
  return 0;
}

static int
component_validate (const char *what, const char *c, struct doradma_diag *diag)
{
  size_t i;

  if (c == NULL || c[0] == '\0')
    return diag_set (diag, -EINVAL, "dora-pool", "%s id is empty", what);
  /* before the charset, as dora's naming.rs: the message says why */
  if (strstr (c, "..") != NULL)
    return diag_set (diag, -EINVAL, "dora-pool",
        "%s id \"%s\" contains \"..\" (path traversal)", what, c);
  for (i = 0; c[i] != '\0'; i++)
    if (!name_char_ok ((unsigned char) c[i]))
      return diag_set (diag, -EINVAL, "dora-pool",
          "%s id has byte 0x%02x at %zu; allowed: A-Z a-z 0-9 _ . -", what,
          (unsigned char) c[i], i);
  return 0;
}

DORADMA_API int
doradma_pool_name_build (char *out, size_t out_size, const char *dataflow,
    const char *node, const char *pool, struct doradma_diag *diag)
{
  int r, n;

  if ((r = component_validate ("dataflow", dataflow, diag)) < 0 ||
      (r = component_validate ("node", node, diag)) < 0 ||
      (r = component_validate ("pool", pool, diag)) < 0)
    return r;
  n = snprintf (out, out_size, DORADMA_POOL_PREFIX "%s_%s_%s", dataflow, node,
      pool);
  if (n < 0 || (size_t) n > DORADMA_POOL_NAME_MAX || (size_t) n >= out_size)
    return diag_set (diag, -ENAMETOOLONG, "dora-pool",
        "dora pool name for pool \"%s\" would be %d bytes, more than %u", pool,
        n, DORADMA_POOL_NAME_MAX);
  return 0;
}

DORADMA_API unsigned
doradma_pool_dtype_size (const char *dtype)
{
  static const struct
  {
    const char *name;
    unsigned size;
  } table[] = {
    {"bool", 1}, {"int8", 1}, {"uint8", 1},
    {"int16", 2}, {"uint16", 2}, {"float16", 2}, {"bfloat16", 2},
    {"int32", 4}, {"uint32", 4}, {"float32", 4},
    {"int64", 8}, {"uint64", 8}, {"float64", 8}, {"complex64", 8},
    {"complex128", 16}, {"float128", 16}, {"complex256", 32},
  };
  size_t i;

  if (dtype == NULL)
    return 0;
  if (strncmp (dtype, "torch.", 6) == 0)
    dtype += 6;
  for (i = 0; i < G_N_ELEMENTS (table); i++)
    if (strcmp (dtype, table[i].name) == 0)
      return table[i].size;
  /* numpy typestr: byte order, kind b/i/u/f/c, then the byte count */
  if (strchr ("<>|=", dtype[0]) != NULL && dtype[0] != '\0' &&
      dtype[1] != '\0' && strchr ("biufc", dtype[1]) != NULL) {
    const char *p = dtype + 2;
    unsigned v = 0;

    if (*p == '\0')
      return 0;
    for (; *p; p++) {
      if (*p < '0' || *p > '9' || v > 1000)
        return 0;
      v = v * 10 + (unsigned) (*p - '0');
    }
    return v;
  }
  return 0;
}

DORADMA_API uint64_t
doradma_pool_data_offset_for (uint64_t json_len)
{
  uint64_t blocks = json_len / DORADMA_POOL_METADATA_ALIGN +
      (json_len % DORADMA_POOL_METADATA_ALIGN != 0);

  if (blocks > (UINT64_MAX - DORADMA_POOL_HEADER_SIZE) /
      DORADMA_POOL_METADATA_ALIGN)
    return UINT64_MAX;
  return DORADMA_POOL_HEADER_SIZE + blocks * DORADMA_POOL_METADATA_ALIGN;
}

static uint64_t
le64_at (const uint8_t * p)
{
  uint64_t v = 0;
  int i;

  for (i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* A JSON number that is an unsigned 64-bit integer (json-glib keeps
 * integers as gint64: larger ones do not parse as integers). */
static gboolean
node_u64 (JsonNode * n, uint64_t * out)
{
  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
      json_node_get_value_type (n) != G_TYPE_INT64 || json_node_get_int (n) < 0)
    return FALSE;
  *out = (uint64_t) json_node_get_int (n);
  return TRUE;
}

static void
keep_json (struct doradma_pool_info *info, const char *json, size_t len)
{
  size_t keep = len < sizeof info->json ? len : sizeof info->json - 4;
  size_t i;

  memcpy (info->json, json, keep);
  /* printable only: the text goes into error messages */
  for (i = 0; i < keep; i++)
    if ((unsigned char) info->json[i] < 0x20 || info->json[i] == 0x7f)
      info->json[i] = '?';
  if (keep < len)
    memcpy (info->json + keep, "...", 4);
  else
    info->json[keep] = '\0';
}

/* Rules 10-22 over the private copy of the JSON. */
static int
parse_json (const char *json, size_t len, struct doradma_pool_info *info,
    struct doradma_diag *diag)
{
  static const struct peer_json_limits pool =
      { DORADMA_POOL_JSON_MAX, "json_len" };
  JsonNode *root;
  JsonObject *o = NULL;
  JsonNode *n;
  const char *transport = NULL;
  uint64_t elems = 1, need;
  gboolean overflow = FALSE;
  int ret = -EBADMSG;

  /* 10, 11 and the strict scan with its depth bound (peer-json.h) */
  root = peer_json_parse (json, len, &pool, diag);
  if (root == NULL)
    return -EBADMSG;
  if (JSON_NODE_HOLDS_OBJECT (root))
    o = json_node_get_object (root);

  /* 12 */
  if (o == NULL || !node_u64 (json_object_get_member (o, "size"), &info->size)) {
    diag_set (diag, -EBADMSG, "json.size",
        "metadata json is missing `size` (a non-negative integer): %s",
        info->json);
    goto out;
  }
  /* 13 */
  n = json_object_get_member (o, "dtype");
  if (n == NULL || JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
      json_node_get_value_type (n) != G_TYPE_STRING) {
    diag_set (diag, -EBADMSG, "json.dtype",
        "metadata json is missing `dtype` (a string): %s", info->json);
    goto out;
  }
  g_strlcpy (info->dtype, json_node_get_string (n), sizeof info->dtype);
  info->elem_size = strlen (json_node_get_string (n)) < sizeof info->dtype ?
      doradma_pool_dtype_size (info->dtype) : 0;
  /* 14: never filtered; the products are checked at 21 */
  n = json_object_get_member (o, "shape");
  if (n != NULL) {
    JsonArray *a;
    guint i;

    if (!JSON_NODE_HOLDS_ARRAY (n)) {
      diag_set (diag, -EBADMSG, "json.shape",
          "metadata json `shape` is not an array: %s", info->json);
      goto out;
    }
    a = json_node_get_array (n);
    info->has_shape = true;
    info->n_dims = json_array_get_length (a);
    for (i = 0; i < info->n_dims; i++) {
      uint64_t d;

      if (!node_u64 (json_array_get_element (a, i), &d)) {
        diag_set (diag, -EBADMSG, "json.shape",
            "metadata json `shape` element %u is not a non-negative integer: "
            "%s", i, info->json);
        goto out;
      }
      if (i < DORADMA_POOL_MAX_DIMS)
        info->shape[i] = d;
      /* 21 (checked multiplication), reported after rules 15-20 */
      if (!overflow && d != 0 && elems > UINT64_MAX / d)
        overflow = TRUE;
      else if (!overflow)
        elems *= d;
    }
  }
  /* 15 */
  n = json_object_get_member (o, "pinned_type");
  if (n != NULL) {
    if (JSON_NODE_TYPE (n) != JSON_NODE_VALUE ||
        json_node_get_value_type (n) != G_TYPE_STRING) {
      diag_set (diag, -EBADMSG, "json.pinned_type",
          "metadata json `pinned_type` is not a string: %s", info->json);
      goto out;
    }
    g_strlcpy (info->pinned_type, json_node_get_string (n),
        sizeof info->pinned_type);
  }
  /* 16: a header-only pool is legitimate only for ipc */
  if (info->ipc_flag != 1 && info->size > info->segment_len - info->data_offset) {
    diag_set (diag, -EBADMSG, "json.size",
        "metadata json size %" PRIu64 " exceeds the %" PRIu64
        " payload bytes after data_offset %" PRIu64 " in the %" PRIu64
        "-byte segment", info->size, info->segment_len - info->data_offset,
        info->data_offset, info->segment_len);
    goto out;
  }
  /* 17, 18: a non-string transport counts as absent */
  n = json_object_get_member (o, "transport");
  if (n != NULL && JSON_NODE_TYPE (n) == JSON_NODE_VALUE &&
      json_node_get_value_type (n) == G_TYPE_STRING)
    transport = json_node_get_string (n);
  if (transport != NULL &&
      (strcmp (transport, "ipc") == 0) != (info->ipc_flag == 1)) {
    diag_set (diag, -EBADMSG, "json.transport",
        "metadata json transport \"%s\" contradicts ipc_flag %" PRIu64,
        transport, info->ipc_flag);
    goto out;
  }
  /* 24: ipc_flag decides, never pinned_type */
  if (info->ipc_flag == 1)
    info->transport = DORADMA_POOL_IPC;
  else if (transport == NULL || strcmp (transport, "shmem") == 0)
    info->transport = DORADMA_POOL_SHMEM;
  else if (strcmp (transport, "unified") == 0)
    info->transport = DORADMA_POOL_UNIFIED;
  else {
    /* 19 */
    diag_set (diag, -EBADMSG, "json.transport",
        "unknown transport \"%s\" (expected shmem, unified or ipc)", transport);
    goto out;
  }
  /* 20 */
  if (info->size == 0) {
    diag_set (diag, -EBADMSG, "json.size",
        "metadata json size must be greater than zero");
    goto out;
  }
  /* 21, 22: unknown dtypes count 1 byte per element */
  if (overflow) {
    diag_set (diag, -EBADMSG, "json.shape",
        "metadata json shape: product of the dimensions overflows: %s",
        info->json);
    goto out;
  }
  if (elems > UINT64_MAX / (info->elem_size ? info->elem_size : 1)) {
    diag_set (diag, -EBADMSG, "json.shape",
        "metadata json shape x element size of %s overflows: %s",
        info->dtype, info->json);
    goto out;
  }
  need = elems * (info->elem_size ? info->elem_size : 1);
  if (need > info->size) {
    diag_set (diag, -EBADMSG, "json.shape",
        "shape needs %" PRIu64 " bytes but the pool declares only %" PRIu64,
        need, info->size);
    goto out;
  }
  ret = 0;
out:
  json_node_unref (root);
  return ret;
}

DORADMA_API int
doradma_pool_parse (const uint8_t * seg, uint64_t len,
    struct doradma_pool_info *info, struct doradma_diag *diag)
{
  return doradma_pool_parse_prefix (seg, len, len, info, diag);
}

DORADMA_API int
doradma_pool_parse_prefix (const uint8_t * seg, uint64_t avail, uint64_t len,
    struct doradma_pool_info *info, struct doradma_diag *diag)
{
  uint8_t hdr[DORADMA_POOL_HEADER_SIZE];
  char *json;
  int ret;

  memset (info, 0, sizeof *info);
  info->segment_len = len;
  /* 1 */
  if (len < DORADMA_POOL_HEADER_SIZE || avail < DORADMA_POOL_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "segment",
        "segment is too small: %" PRIu64 " bytes, the fixed header needs %u",
        len, DORADMA_POOL_HEADER_SIZE);
  /* one private copy; nothing below reads the shared header again */
  memcpy (hdr, seg, sizeof hdr);
  info->json_len = le64_at (hdr + DORADMA_POOL_OFF_JSON_LEN);
  info->data_offset = le64_at (hdr + DORADMA_POOL_OFF_DATA_OFFSET);
  info->ipc_flag = le64_at (hdr + DORADMA_POOL_OFF_IPC_FLAG);
  memcpy (info->ipc_handle, hdr + DORADMA_POOL_OFF_IPC_HANDLE,
      DORADMA_POOL_IPC_HANDLE_LEN);

  /* 2, 7: bounding step, before any slice is formed */
  if (info->data_offset > len)
    return diag_set (diag, -EBADMSG, "data_offset",
        "cannot bound the header region: data_offset %" PRIu64
        " is past the end of the %" PRIu64 "-byte segment", info->data_offset,
        len);
  /* 3 */
  if (info->json_len > UINT64_MAX - DORADMA_POOL_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "json_len",
        "cannot bound the header region: 256 + json_len %" PRIu64
        " overflows", info->json_len);
  /* 5 */
  if (memcmp (hdr, pool_magic, sizeof pool_magic) != 0)
    return diag_set (diag, -EBADMSG, "magic",
        "bad magic %02x %02x %02x %02x %02x %02x %02x %02x, expected "
        "\"DORADMA\\0\"", hdr[0], hdr[1], hdr[2], hdr[3], hdr[4], hdr[5],
        hdr[6], hdr[7]);
  /* 6 */
  if (info->data_offset < DORADMA_POOL_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "data_offset",
        "data_offset %" PRIu64 " is less than HEADER_SIZE (%u)",
        info->data_offset, DORADMA_POOL_HEADER_SIZE);
  /* 4, 8 */
  if (DORADMA_POOL_HEADER_SIZE + info->json_len > info->data_offset)
    return diag_set (diag, -EBADMSG, "json_len",
        "cannot bound the header region: json_len %" PRIu64
        " does not fit before data_offset %" PRIu64, info->json_len,
        info->data_offset);
  /* 9 cannot fire: 256 + json_len <= data_offset <= len was just checked */
  if (info->json_len > DORADMA_POOL_JSON_MAX)
    return diag_set (diag, -EBADMSG, "json_len",
        "metadata json of %" PRIu64 " bytes is longer than the %u we accept",
        info->json_len, DORADMA_POOL_JSON_MAX);

  /* cannot fire when avail >= min (len, 256 + DORADMA_POOL_JSON_MAX) */
  if (avail < DORADMA_POOL_HEADER_SIZE + info->json_len)
    return diag_set (diag, -EBADMSG, "json_len",
        "metadata json of %" PRIu64 " bytes is past the %" PRIu64
        " bytes read", info->json_len, avail);
  json = g_malloc (info->json_len + 1);
  memcpy (json, seg + DORADMA_POOL_HEADER_SIZE, info->json_len);
  json[info->json_len] = '\0';
  keep_json (info, json, info->json_len);
  ret = parse_json (json, info->json_len, info, diag);
  g_free (json);
  return ret;
}
