/* libFuzzer target over every reader-side check of what a hostile writer
 * controls: the header, the JSON, the RCB (line 0, slot records, caps
 * table) and the control object. Besides "no crash, no sanitizer report",
 * it asserts what acceptance promises: an accepted segment's RCB and slot
 * area lie inside the input; an accepted record's planes lie inside its
 * payload, inside the slot; every refusal names a field.
 *
 * Every check runs on a thread with a 256 KiB stack (the stack json-glib's
 * recursion once overflowed, review #2).
 *
 * The first byte of the input chooses what the rest is; random bytes
 * rarely make a valid segment, so the structured modes put the fuzzed part
 * into a valid segment built as the writer builds it (image-helper.c):
 *   'H'  the 256-byte header of a valid segment
 *   'J'  the JSON text (json_len = its length, data_offset follows)
 *   'R'  the RCB of a valid segment, from its start (line 0, caps table,
 *        slot_seq, slot records)
 *   'C'  a control object checked against a valid segment's token
 *   'E'  one slot record;  'K'  a caps string;  'N'  a channel name
 *   anything else: the whole input as a data object and as a control
 *   object (the seeds of the first corpus).
 * tests/fuzz/json.dict lists the JSON keys and tokens. */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

#define STACK_SIZE (256 * 1024)

static void
check_refusal (int ret, const struct doradma_diag *diag)
{
  if (ret == 0)
    return;
  if (ret != -EBADMSG && ret != -EPROTONOSUPPORT && ret != -EINVAL)
    abort ();
  if (diag->field == NULL || diag->msg[0] == '\0')
    abort ();
}

static void
check_record (const struct doradma_shm_slot *rec,
    const struct doradma_segment_desc *desc)
{
  struct doradma_frame_info info;
  struct doradma_diag diag;
  int ret;
  uint32_t p;

  memset (&diag, 0, sizeof (diag));
  ret = slot_record_validate (rec, desc, &info, &diag);
  check_refusal (ret, &diag);
  if (ret < 0)
    return;
  if (info.n_planes < 1 || info.n_planes > DORADMA_MAX_PLANES
      || info.payload_bytes > desc->slot_stride || info.seq == 0)
    abort ();
  for (p = 0; p < info.n_planes; p++) {
    const struct doradma_shm_plane *pl = &info.planes[p];
    unsigned __int128 end = (unsigned __int128) pl->offset
        + (unsigned __int128) pl->stride * (pl->rows - 1) + pl->row_bytes;

    if (pl->stride == 0 || pl->rows == 0 || end > info.payload_bytes)
      abort ();
  }
}

/* A data object: validated as a reader does, then (accepted) its records
 * and caps table as a reader copies them. Returns its ctl token. */
static uint64_t
check_segment (const uint8_t * data, size_t size, int *accepted)
{
  struct doradma_segment_desc desc;
  struct doradma_diag diag;
  struct doradma_shm_slot rec;
  char buf[DORADMA_CAPS_MAX];
  uint64_t expected;
  size_t avail = size < DORADMA_HEADER_SIZE + DORADMA_JSON_MAX ? size :
      DORADMA_HEADER_SIZE + DORADMA_JSON_MAX;
  int ret, head;

  /* The reader's pre-map check on the first bytes. */
  memset (&diag, 0, sizeof (diag));
  head = segment_expected_size (data, avail, size, &expected, &diag);
  check_refusal (head, &diag);

  memset (&diag, 0, sizeof (diag));
  ret = segment_parse (data, size, &desc, &diag);
  check_refusal (ret, &diag);
  *accepted = ret == 0;
  if (ret != 0)
    return 0;
  /* What passes the full check passes the pre-map check (whose size rule,
   * st_size == expected, is the reader's, not the image's). */
  if (head != 0 || expected < desc.rcb_offset + sizeof (struct doradma_shm_rcb))
    abort ();
  if (desc.rcb_offset + sizeof (struct doradma_shm_rcb) > size
      || desc.slot_count < 1 || desc.slot_count > DORADMA_MAX_SLOTS
      || (!desc.ipc && desc.slots_offset
          + desc.slot_count * desc.slot_stride > size))
    abort ();
  for (uint32_t s = 0; s < desc.slot_count; s++) {
    memcpy (&rec, data + desc.rcb_offset + offsetof (struct doradma_shm_rcb,
            slots) + s * sizeof (rec), sizeof (rec));
    check_record (&rec, &desc);
  }
  for (uint32_t s = 0; s < DORADMA_CAPS_ENTRIES; s++) {
    memcpy (buf, data + desc.rcb_offset + offsetof (struct doradma_shm_rcb,
            caps) + s * sizeof (struct doradma_shm_caps)
        + offsetof (struct doradma_shm_caps, caps), sizeof (buf));
    check_refusal (caps_string_validate (buf, sizeof (buf), &diag), &diag);
  }
  return desc.ctl_token;
}

static void
check_ctl (const uint8_t * data, size_t size, uint64_t token)
{
  struct doradma_diag diag;

  memset (&diag, 0, sizeof (diag));
  check_refusal (doradma_ctl_validate (data, size, token, &diag), &diag);
}

/* A valid segment (2 slots of 16 KiB) with `json` as its JSON. */
static uint8_t *
segment_with_json (const uint8_t * json, size_t n, size_t *len)
{
  struct image img;
  uint8_t *out;
  uint64_t data_offset = (DORADMA_HEADER_SIZE + n + 4095) / 4096 * 4096;
  size_t tail;

  image_build_default (&img);
  tail = img.len - img.data_offset;
  out = g_malloc0 (data_offset + tail);
  memcpy (out, img.data, DORADMA_HEADER_SIZE);
  ((struct doradma_shm_header *) out)->json_len = n;
  ((struct doradma_shm_header *) out)->data_offset = data_offset;
  memcpy (out + DORADMA_HEADER_SIZE, json, n);
  memcpy (out + data_offset, img.data + img.data_offset, tail);
  /* The RCB's slots_offset follows data_offset; the JSON must agree. */
  ((struct doradma_shm_rcb *) (out + data_offset + (img.rcb_offset
              - img.data_offset)))->slots_offset = data_offset;
  *len = data_offset + tail;
  image_free (&img);
  return out;
}

struct input
{
  const uint8_t *data;
  size_t size;
};

static void *
run (void *arg)
{
  const struct input *in = arg;
  const uint8_t *p = in->data + 1;
  size_t n = in->size - 1;
  struct doradma_diag diag;
  struct image img;
  uint8_t *seg;
  size_t len;
  int accepted;

  memset (&diag, 0, sizeof (diag));
  switch (in->data[0]) {
    case 'H':
    case 'R':
      image_build_default (&img);
      if (in->data[0] == 'H')
        memcpy (img.data, p, MIN (n, (size_t) DORADMA_HEADER_SIZE));
      else
        memcpy (img.data + img.rcb_offset, p, MIN (n,
                img.len - img.rcb_offset));
      check_segment (img.data, img.len, &accepted);
      image_free (&img);
      break;
    case 'J':
      if (n > DORADMA_JSON_MAX + 1024)
        break;
      seg = segment_with_json (p, n, &len);
      check_segment (seg, len, &accepted);
      g_free (seg);
      break;
    case 'C':
      image_build_default (&img);
      check_ctl (p, n, img.ctl_token);
      image_free (&img);
      break;
    case 'E':
      if (n >= sizeof (struct doradma_shm_slot)) {
        struct doradma_segment_desc desc;
        struct doradma_shm_slot rec;

        memset (&desc, 0, sizeof (desc));
        desc.slot_count = 4;
        desc.slot_stride = 8192;
        memcpy (&rec, p, sizeof (rec));
        check_record (&rec, &desc);
      }
      break;
    case 'K':
      check_refusal (caps_string_validate ((const char *) p, n, &diag), &diag);
      break;
    case 'N':{
      char name[DORADMA_NAME_MAX + 8];
      size_t k = MIN (n, sizeof (name) - 1);

      memcpy (name, p, k);
      name[k] = '\0';
      check_refusal (doradma_name_validate (name, &diag), &diag);
      break;
    }
    default:{
      uint64_t token = check_segment (in->data, in->size, &accepted);

      if (!accepted && in->size >= 0x18) {
        memcpy (&token, in->data + 0x10, sizeof (token));
        token = le64toh (token);
      }
      check_ctl (in->data, in->size, token);
      break;
    }
  }
  return NULL;
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  struct input in = { data, size };
  pthread_attr_t attr;
  pthread_t th;

  if (size < 1)
    return 0;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, STACK_SIZE);
  if (pthread_create (&th, &attr, run, &in) != 0)
    abort ();
  pthread_join (th, NULL);
  pthread_attr_destroy (&attr);
  return 0;
}
