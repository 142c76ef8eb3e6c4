/* Description: the bounds doradma_pool_parse and the pool-name rule
 * enforce, each as a boundary pair (the last accepted, the first refused):
 * 256 + json_len <= data_offset, json_len <= 4096 (DORADMA_POOL_JSON_MAX:
 * real pool JSON is under 200 bytes, docs/dora.md), and
 * ".." in a name made only of allowed characters. Images as the spec's
 * Python CPU pool lays them out (16 KiB uint8), the JSON padded with spaces.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doradma/dora-pool.h>

static int failed;
/* diag.field of the last parse */
static const char *last_field;

#define JSON "{\"size\": 16384, \"dtype\": \"uint8\", \"shape\": [16384], " \
  "\"pinned_type\": \"cpu\"}"
#define PAYLOAD 16384u

static void
put_le64 (uint8_t * p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

/* Parses a pool whose header says json_len and data_offset; the JSON text
 * is JSON followed by spaces up to json_len (or data_offset - 256 when
 * json_len is larger: the region the header bounds). */
static int
parse (uint64_t json_len, uint64_t data_offset)
{
  uint64_t len = data_offset + PAYLOAD;
  uint8_t *seg = calloc (1, len);
  struct doradma_pool_info info;
  struct doradma_diag diag = { 0 };
  uint64_t text = json_len < data_offset - 256 ? json_len : data_offset - 256;
  int ret;

  memcpy (seg, "DORADMA", 8);
  put_le64 (seg + DORADMA_POOL_OFF_JSON_LEN, json_len);
  put_le64 (seg + DORADMA_POOL_OFF_DATA_OFFSET, data_offset);
  seg[DORADMA_POOL_OFF_WRITE_GEN] = 2;
  memset (seg + 256, ' ', text);
  memcpy (seg + 256, JSON, strlen (JSON));
  ret = doradma_pool_parse (seg, len, &info, &diag);
  last_field = diag.field;
  free (seg);
  return ret;
}

static void
expect (const char *what, int ret, int want, const char *want_field)
{
  const char *field = last_field;

  if (ret != want || (want < 0 && (field == NULL
              || strcmp (field, want_field) != 0))) {
    fprintf (stderr, "FAIL %s: got %d (field %s), want %d (field %s)\n",
        what, ret, field ? field : "-", want, want_field ? want_field : "-");
    failed++;
  }
}

int
main (void)
{
  /* the documented bound, written out: not read from the header */
  const uint64_t max = 4096;

  expect ("256 + json_len == data_offset", parse (256, 512), 0, NULL);
  expect ("256 + json_len == data_offset + 1", parse (257, 512),
      -EBADMSG, "json_len");

  expect ("json_len of 4096", parse (max, 256 + max), 0, NULL);
  expect ("json_len of 4097", parse (max + 1, 256 + max + 256),
      -EBADMSG, "json_len");

  if (doradma_pool_name_validate ("dora_pool_df_node_a.b", NULL) != 0) {
    fprintf (stderr, "FAIL a name with one '.' is refused\n");
    failed++;
  }
  if (doradma_pool_name_validate ("dora_pool_df_node_a..b", NULL) != -EINVAL) {
    fprintf (stderr, "FAIL a name with \"..\" is accepted\n");
    failed++;
  }
  return failed ? 1 : 0;
}
