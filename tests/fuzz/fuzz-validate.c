/* libFuzzer target over every reader-side check of untrusted bytes:
 * doradma_segment_validate (data object), doradma_ctl_validate (control
 * object), slot_record_validate (a record taken from the input), the caps
 * string rule and doradma_name_validate. Besides "no crash, no sanitizer
 * report", it asserts what acceptance promises: an accepted segment's RCB and
 * slot area lie inside the input; an accepted record's planes lie inside its
 * payload, inside the slot; every refusal names a field. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "segment-desc.h"

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

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  struct doradma_segment_desc desc;
  struct doradma_diag diag;
  struct doradma_shm_slot rec;
  char buf[DORADMA_CAPS_MAX];
  char name[DORADMA_NAME_MAX + 8];
  uint64_t token = 0;
  size_t n;
  int ret;

  /* The data object. */
  memset (&diag, 0, sizeof (diag));
  ret = segment_parse (data, size, &desc, &diag);
  check_refusal (ret, &diag);
  if (ret == 0) {
    const uint8_t *rcb = data + desc.rcb_offset;
    uint32_t s;

    if (desc.rcb_offset + sizeof (struct doradma_shm_rcb) > size
        || desc.slot_count < 1 || desc.slot_count > DORADMA_MAX_SLOTS
        || (!desc.ipc && desc.slots_offset
            + desc.slot_count * desc.slot_stride > size))
      abort ();
    token = desc.ctl_token;
    /* What a reader does next: records and the caps table, as copies. */
    for (s = 0; s < desc.slot_count; s++) {
      memcpy (&rec, rcb + offsetof (struct doradma_shm_rcb, slots)
          + s * sizeof (rec), sizeof (rec));
      check_record (&rec, &desc);
    }
    for (s = 0; s < DORADMA_CAPS_ENTRIES; s++) {
      memcpy (buf, rcb + offsetof (struct doradma_shm_rcb, caps)
          + s * sizeof (struct doradma_shm_caps)
          + offsetof (struct doradma_shm_caps, caps), sizeof (buf));
      check_refusal (caps_string_validate (buf, sizeof (buf), &diag), &diag);
    }
  }
  check_refusal (doradma_segment_validate (data, size, &diag), &diag);

  /* The control object, with the segment's token or the input's own. */
  if (ret != 0 && size >= 0x18) {
    memcpy (&token, data + 0x10, sizeof (token));
    token = le64toh (token);
  }
  check_refusal (doradma_ctl_validate (data, size, token, &diag), &diag);

  /* A record from the input, against a plausible segment. */
  if (size >= sizeof (rec)) {
    memset (&desc, 0, sizeof (desc));
    desc.slot_count = 4;
    desc.slot_stride = 8192;
    memcpy (&rec, data, sizeof (rec));
    check_record (&rec, &desc);
  }

  /* Caps and names straight from the input. */
  check_refusal (caps_string_validate ((const char *) data, size, &diag),
      &diag);
  n = size < sizeof (name) - 1 ? size : sizeof (name) - 1;
  memcpy (name, data, n);
  name[n] = '\0';
  check_refusal (doradma_name_validate (name, &diag), &diag);
  return 0;
}
