/* Every check of the untrusted bytes of a data object, a slot record, a caps
 * string and a control object.
 *
 * The writer (or anyone who can write the objects) may be hostile and may be
 * rewriting the bytes while we look at them. So each shared field is read
 * exactly once, into a local, and only locals are checked and used: the
 * fixed header and RCB line 0 are copied first, the JSON is copied once by
 * meta_parse. Arithmetic on untrusted values is overflow-checked in u64.
 * docs/format.md lists the rules in the order they fire. */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "segment-desc.h"

#define PUBLIC __attribute__ ((visibility ("default")))

#define CAPS_MEDIA_TYPE "video/x-raw"

static const uint8_t header_magic[8] = DORADMA_MAGIC;

static uint64_t
get_le64 (const uint8_t * p)
{
  uint64_t v;

  memcpy (&v, p, sizeof (v));
  return le64toh (v);
}

static uint32_t
get_le32 (const uint8_t * p)
{
  uint32_t v;

  memcpy (&v, p, sizeof (v));
  return le32toh (v);
}

static int
page_size_ok (uint64_t p)
{
  return p >= 4096 && p <= (1u << 20) && (p & (p - 1)) == 0;
}

/* The fixed header and the JSON: everything that does not need the RCB.
 * `image` holds the first `avail` bytes of an object of `len` bytes
 * (avail >= min (len, 256 + DORADMA_JSON_MAX)), so that a reader can run
 * these checks on a pread copy before it maps anything. Fills *d (rcb_offset
 * and page_size included). */
static int
parse_head (const uint8_t * image, size_t avail, uint64_t len,
    struct doradma_segment_desc *d, struct doradma_diag *diag)
{
  uint8_t hdr[DORADMA_HEADER_SIZE];
  uint64_t json_len, data_offset, ipc_flag, dora_gen, rcb_offset, rcb_end;
  int ret;

  memset (d, 0, sizeof (*d));

  /* Fixed header: one copy, then only the copy. */
  if (len < DORADMA_HEADER_SIZE || avail < DORADMA_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "object.size",
        "object.size: %" PRIu64 " bytes, shorter than the %u-byte header",
        len, DORADMA_HEADER_SIZE);
  memcpy (hdr, image, sizeof (hdr));

  if (memcmp (hdr + offsetof (struct doradma_shm_header, magic),
          header_magic, sizeof (header_magic)) != 0)
      return diag_set (diag, -EBADMSG, "header.magic",
        "header.magic: not \"DORADMA\\0\"");
  json_len = get_le64 (hdr + offsetof (struct doradma_shm_header, json_len));
  data_offset =
      get_le64 (hdr + offsetof (struct doradma_shm_header, data_offset));
  ipc_flag = get_le64 (hdr + offsetof (struct doradma_shm_header, ipc_flag));
  dora_gen = get_le64 (hdr + offsetof (struct doradma_shm_header, dora_gen));

  /* dora readers treat anything but 1 as "no handle"; we want one meaning. */
  if (ipc_flag > 1)
    return diag_set (diag, -EBADMSG, "header.ipc_flag",
        "header.ipc_flag: %" PRIu64 ", expected 0 or 1", ipc_flag);
  /* Cap before anything is parsed; this also rules out 256 + json_len
   * overflowing. */
  if (json_len > DORADMA_JSON_MAX)
    return diag_set (diag, -EBADMSG, "header.json_len",
        "header.json_len: %" PRIu64 " bytes, the limit is %u", json_len,
        DORADMA_JSON_MAX);
  if (data_offset < DORADMA_HEADER_SIZE)
    return diag_set (diag, -EBADMSG, "header.data_offset",
        "header.data_offset: %" PRIu64 " is inside the header", data_offset);
  if (data_offset > len)
    return diag_set (diag, -EBADMSG, "header.data_offset",
        "header.data_offset: %" PRIu64 " is past the end (%" PRIu64 " bytes)",
        data_offset, len);
  if (DORADMA_HEADER_SIZE + json_len > data_offset)
    return diag_set (diag, -EBADMSG, "header.json_len",
        "header.json_len: %" PRIu64 " bytes do not fit before data_offset %"
        PRIu64, json_len, data_offset);
  if (DORADMA_HEADER_SIZE + json_len > avail)
    return diag_set (diag, -EBADMSG, "header.json_len",
        "header.json_len: %" PRIu64 " bytes were not read", json_len);

  d->json_len = json_len;
  d->data_offset = data_offset;
  d->ipc = ipc_flag == 1;
  memcpy (d->ipc_handle, hdr + offsetof (struct doradma_shm_header,
          ipc_handle), DORADMA_IPC_HANDLE_LEN);
  d->map_size = len;

  /* The JSON says where the RCB is. */
  ret = meta_parse ((const char *) image + DORADMA_HEADER_SIZE, json_len, d,
      diag);
  if (ret < 0)
    return ret;

  /* Kept odd so dora's whole-payload seqlock fails closed (format.md).
   * Checked after the JSON so that a plain dora pool (even word) is named
   * for what it is: no "doradma" object. */
  if ((dora_gen & 1) == 0)
    return diag_set (diag, -EBADMSG, "header.dora_gen",
        "header.dora_gen: %" PRIu64 " is even; a doradma ring keeps it odd",
        dora_gen);
  if (!page_size_ok (d->page_size))
    return diag_set (diag, -EBADMSG, "json.doradma.page_size",
        "json.doradma.page_size: %u is not a power of two in 4 KiB..1 MiB",
        d->page_size);
  if (data_offset % d->page_size != 0)
    return diag_set (diag, -EBADMSG, "header.data_offset",
        "header.data_offset: %" PRIu64 " is not a multiple of the page size %u",
        data_offset, d->page_size);
  rcb_offset = d->rcb_offset;
  if (rcb_offset % d->page_size != 0 || rcb_offset < data_offset)
    return diag_set (diag, -EBADMSG, "json.doradma.rcb_offset",
        "json.doradma.rcb_offset: %" PRIu64 " is not a page-aligned offset "
        "at or after data_offset %" PRIu64, rcb_offset, data_offset);
  if (__builtin_add_overflow (rcb_offset, sizeof (struct doradma_shm_rcb),
          &rcb_end) || rcb_end > len)
    return diag_set (diag, -EBADMSG, "rcb",
        "rcb: the ring control block at %" PRIu64 " (%zu bytes) ends past "
        "the end of the object (%" PRIu64 " bytes)", rcb_offset,
        sizeof (struct doradma_shm_rcb), len);
  return 0;
}

int
segment_expected_size (const uint8_t * head, size_t avail, uint64_t len,
    uint64_t * expected, struct doradma_diag *diag)
{
  struct doradma_segment_desc d;
  int ret = parse_head (head, avail, len, &d, diag);

  if (ret < 0)
    return ret;
  /* As the writer lays it out: the RCB, then the rest of its last page. */
  *expected = d.rcb_offset + (sizeof (struct doradma_shm_rcb) + d.page_size - 1)
      / d.page_size * d.page_size;
  return 0;
}

int
segment_parse (const uint8_t * image, size_t len,
    struct doradma_segment_desc *desc, struct doradma_diag *diag)
{
  struct doradma_segment_desc d;
  uint8_t line0[64];
  uint64_t data_offset, rcb_offset, magic, compat, incompat, slot_stride,
      slots_offset, slot_bytes, slots_end, ctl_token;
  uint32_t version, page, slot_count, writer_pid;
  int ret;

  ret = parse_head (image, len, len, &d, diag);
  if (ret < 0)
    return ret;
  data_offset = d.data_offset;
  rcb_offset = d.rcb_offset;


  /* RCB line 0: one copy, then only the copy. */
  memcpy (line0, image + rcb_offset, sizeof (line0));
  magic = get_le64 (line0 + offsetof (struct doradma_shm_rcb, magic));
  version = get_le32 (line0 + offsetof (struct doradma_shm_rcb,
          layout_version));
  page = get_le32 (line0 + offsetof (struct doradma_shm_rcb, page_size));
  compat = get_le64 (line0 + offsetof (struct doradma_shm_rcb, compat_flags));
  incompat = get_le64 (line0 + offsetof (struct doradma_shm_rcb,
          incompat_flags));
  slot_count = get_le32 (line0 + offsetof (struct doradma_shm_rcb, slot_count));
  writer_pid = get_le32 (line0 + offsetof (struct doradma_shm_rcb, writer_pid));
  slot_stride = get_le64 (line0 + offsetof (struct doradma_shm_rcb,
          slot_stride));
  slots_offset = get_le64 (line0 + offsetof (struct doradma_shm_rcb,
          slots_offset));
  ctl_token = get_le64 (line0 + offsetof (struct doradma_shm_rcb, ctl_token));

  if (magic != DORADMA_RCB_MAGIC)
    return diag_set (diag, -EBADMSG, "rcb.magic",
        "rcb.magic: 0x%016" PRIx64 ", not a ring control block", magic);
  if (version != DORADMA_LAYOUT_VERSION)
    return diag_set (diag, -EPROTONOSUPPORT, "rcb.layout_version",
        "rcb.layout_version: %u, this reader knows %u", version,
        DORADMA_LAYOUT_VERSION);
  if (!page_size_ok (page) || page != d.page_size)
    return diag_set (diag, -EBADMSG, "rcb.page_size",
        "rcb.page_size: %u (the JSON says %u; a power of two in 4 KiB..1 MiB)",
        page, d.page_size);
  if (incompat & ~DORADMA_INCOMPAT_KNOWN)
    return diag_set (diag, -EPROTONOSUPPORT, "rcb.incompat_flags",
        "rcb.incompat_flags: unknown bit %d (0x%016" PRIx64 ")",
        __builtin_ctzll (incompat & ~DORADMA_INCOMPAT_KNOWN), incompat);
  if (((incompat & DORADMA_INCOMPAT_DEVICE_SLOTS) != 0) != d.ipc)
    return diag_set (diag, -EBADMSG, "rcb.incompat_flags",
        "rcb.incompat_flags: DEVICE_SLOTS bit %s but header.ipc_flag is %d",
        (incompat & DORADMA_INCOMPAT_DEVICE_SLOTS) ? "set" : "clear", d.ipc);
  if (slot_count == 0 || slot_count > DORADMA_MAX_SLOTS)
    return diag_set (diag, -EBADMSG, "rcb.slot_count",
        "rcb.slot_count: %u, expected 1..%u", slot_count, DORADMA_MAX_SLOTS);
  if (slot_stride == 0 || slot_stride % page != 0)
    return diag_set (diag, -EBADMSG, "rcb.slot_stride",
        "rcb.slot_stride: %" PRIu64 " is not a positive multiple of the page "
        "size %u", slot_stride, page);
  if (slots_offset != data_offset)
    return diag_set (diag, -EBADMSG, "rcb.slots_offset",
        "rcb.slots_offset: %" PRIu64 " != header.data_offset %" PRIu64,
        slots_offset, data_offset);
  if (__builtin_mul_overflow ((uint64_t) slot_count, slot_stride, &slot_bytes)
      || __builtin_add_overflow (slots_offset, slot_bytes, &slots_end))
    return diag_set (diag, -EBADMSG, "rcb.slot_stride",
        "rcb.slot_stride: %u slots of %" PRIu64 " bytes overflow", slot_count,
        slot_stride);
  if (!d.ipc) {
    if (slots_end > len)
      return diag_set (diag, -EBADMSG, "rcb.slot_stride",
          "rcb.slot_stride: the slot area ends at %" PRIu64 ", past the end "
          "of the object (%zu bytes)", slots_end, len);
    if (slots_end != rcb_offset)
      return diag_set (diag, -EBADMSG, "json.doradma.rcb_offset",
          "json.doradma.rcb_offset: %" PRIu64 ", the slot area ends at %"
          PRIu64, rcb_offset, slots_end);
  } else if (rcb_offset != data_offset) {
    /* The slots live in device memory: nothing between data and RCB. */
    return diag_set (diag, -EBADMSG, "json.doradma.rcb_offset",
        "json.doradma.rcb_offset: %" PRIu64 " != data_offset %" PRIu64
        " with device slots", rcb_offset, data_offset);
  }

  /* The JSON's description must be the RCB's. */
  if (d.slot_count != slot_count)
    return diag_set (diag, -EBADMSG, "json.doradma.slots",
        "json.doradma.slots: %u != rcb.slot_count %u", d.slot_count,
        slot_count);
  if (d.slot_stride != slot_stride)
    return diag_set (diag, -EBADMSG, "json.doradma.slot_stride",
        "json.doradma.slot_stride: %" PRIu64 " != rcb.slot_stride %" PRIu64,
        d.slot_stride, slot_stride);
  if (d.slots_offset != slots_offset)
    return diag_set (diag, -EBADMSG, "json.doradma.slots_offset",
        "json.doradma.slots_offset: %" PRIu64 " != rcb.slots_offset %" PRIu64,
        d.slots_offset, slots_offset);

  ret = caps_string_validate (d.caps, sizeof (d.caps), diag);
  if (ret < 0)
    return ret;

  d.compat_flags = compat;
  d.incompat_flags = incompat;
  d.ctl_token = ctl_token;
  d.writer_pid = writer_pid;
  if (desc)
    *desc = d;
  return 0;
}

int
slot_record_validate (const struct doradma_shm_slot *rec,
    const struct doradma_segment_desc *desc, struct doradma_frame_info *info,
    struct doradma_diag *diag)
{
  struct doradma_frame_info fi;
  uint32_t p;

  memset (&fi, 0, sizeof (fi));
  fi.seq = rec->seq;
  fi.caps_epoch = rec->caps_epoch;
  fi.n_planes = rec->n_planes;
  fi.width = rec->width;
  fi.height = rec->height;
  fi.crop_x = rec->crop_x;
  fi.crop_y = rec->crop_y;
  fi.crop_width = rec->crop_width;
  fi.crop_height = rec->crop_height;
  fi.pts = rec->pts;
  fi.dts = rec->dts;
  fi.duration = rec->duration;
  fi.offset = rec->offset;
  fi.offset_end = rec->offset_end;
  fi.flags = rec->flags;
  fi.video_flags = rec->video_flags;
  fi.payload_bytes = rec->payload_bytes;
  fi.publish_time = rec->publish_time;
  fi.mono_pts = rec->mono_pts;

  /* From here on only fi: the checked values are the returned ones. */
  if (fi.seq == 0)
    return diag_set (diag, -EBADMSG, "slot.seq", "slot.seq: 0 (empty slot)");
  if (fi.n_planes < 1 || fi.n_planes > DORADMA_MAX_PLANES)
    return diag_set (diag, -EBADMSG, "slot.n_planes",
        "slot.n_planes: %u, expected 1..%u", fi.n_planes, DORADMA_MAX_PLANES);
  if (fi.width == 0)
    return diag_set (diag, -EBADMSG, "slot.width", "slot.width: 0");
  if (fi.height == 0)
    return diag_set (diag, -EBADMSG, "slot.height", "slot.height: 0");
  if (fi.payload_bytes > desc->slot_stride)
    return diag_set (diag, -EBADMSG, "slot.payload_bytes",
        "slot.payload_bytes: %" PRIu64 " > slot_stride %" PRIu64,
        fi.payload_bytes, desc->slot_stride);

  for (p = 0; p < fi.n_planes; p++) {
    struct doradma_shm_plane *pl = &fi.planes[p];
    uint64_t end;

    *pl = rec->planes[p];
    pl->reserved = 0;
    if (pl->stride == 0)
      return diag_set (diag, -EBADMSG, "slot.planes.stride",
          "slot.planes[%u].stride: 0", p);
    if (pl->rows == 0)
      return diag_set (diag, -EBADMSG, "slot.planes.rows",
          "slot.planes[%u].rows: 0", p);
    if (pl->row_bytes > pl->stride)
      return diag_set (diag, -EBADMSG, "slot.planes.row_bytes",
          "slot.planes[%u].row_bytes: %u > stride %u", p, pl->row_bytes,
          pl->stride);
    /* offset + stride * (rows - 1) + row_bytes, in u64, cannot overflow
     * but for offset; check it anyway in one idiom. */
    if (__builtin_mul_overflow ((uint64_t) pl->stride,
            (uint64_t) pl->rows - 1, &end)
        || __builtin_add_overflow (end, (uint64_t) pl->row_bytes, &end)
        || __builtin_add_overflow (end, pl->offset, &end)
        || end > fi.payload_bytes)
      return diag_set (diag, -EBADMSG, "slot.planes.offset",
          "slot.planes[%u]: offset %" PRIu64 " + stride %u x (rows %u - 1) + "
          "row_bytes %u is past payload_bytes %" PRIu64, p, pl->offset,
          pl->stride, pl->rows, pl->row_bytes, fi.payload_bytes);
  }

  if (fi.crop_width != 0
      && (fi.crop_height == 0
          || (uint64_t) fi.crop_x + fi.crop_width > fi.width
          || (uint64_t) fi.crop_y + fi.crop_height > fi.height))
    return diag_set (diag, -EBADMSG, "slot.crop",
        "slot.crop: %ux%u at (%u,%u) is not inside %ux%u", fi.crop_width,
        fi.crop_height, fi.crop_x, fi.crop_y, fi.width, fi.height);

  if (info)
    *info = fi;
  return 0;
}

int
caps_string_validate (const char *caps, size_t len, struct doradma_diag *diag)
{
  char buf[DORADMA_CAPS_MAX];
  size_t max = len < sizeof (buf) ? len : sizeof (buf);
  const size_t mt_len = sizeof (CAPS_MEDIA_TYPE) - 1;
  const char *nul;
  size_t i, n;

  /* One read of the caller's bytes, even if they are shared. */
  memcpy (buf, caps, max);
  nul = memchr (buf, '\0', max);
  if (nul == NULL)
    return diag_set (diag, -EBADMSG, "caps",
        "caps: no NUL within %zu bytes", max);
  n = nul - buf;
  for (i = 0; i < n; i++)
    if (buf[i] < 0x20 || buf[i] > 0x7e)
      return diag_set (diag, -EBADMSG, "caps",
          "caps: byte %zu (0x%02x) is not printable ASCII", i,
          (unsigned) (uint8_t) buf[i]);
  if (n < mt_len || memcmp (buf, CAPS_MEDIA_TYPE, mt_len) != 0)
    return diag_set (diag, -EBADMSG, "caps.media_type",
        "caps: \"%.40s\" is not video/x-raw", buf);
  /* The reader chooses the memory feature itself (design-review #11a). */
  if (buf[mt_len] == '(')
    return diag_set (diag, -EBADMSG, "caps.features",
        "caps: \"%.60s\" has caps features", buf);
  if (buf[mt_len] != '\0' && buf[mt_len] != ',')
    return diag_set (diag, -EBADMSG, "caps.media_type",
        "caps: \"%.40s\" is not video/x-raw", buf);
  /* A second structure could carry features of its own. */
  if (memchr (buf, ';', n) != NULL)
    return diag_set (diag, -EBADMSG, "caps", "caps: more than one structure");
  return 0;
}

int
ctl_parse (const uint8_t * image, size_t len, uint64_t token,
    struct doradma_diag *diag)
{
  uint8_t line0[64];
  uint64_t magic, ctl_token;
  uint32_t version;

  if (len < sizeof (struct doradma_shm_ctl))
    return diag_set (diag, -EBADMSG, "ctl.size",
        "ctl.size: %zu bytes, a control object has %zu", len,
        sizeof (struct doradma_shm_ctl));
  memcpy (line0, image, sizeof (line0));
  magic = get_le64 (line0 + offsetof (struct doradma_shm_ctl, magic));
  version = get_le32 (line0 + offsetof (struct doradma_shm_ctl,
          layout_version));
  ctl_token = get_le64 (line0 + offsetof (struct doradma_shm_ctl, token));

  if (magic != DORADMA_CTL_MAGIC)
    return diag_set (diag, -EBADMSG, "ctl.magic",
        "ctl.magic: 0x%016" PRIx64 ", not a control object", magic);
  if (version != DORADMA_LAYOUT_VERSION)
    return diag_set (diag, -EPROTONOSUPPORT, "ctl.layout_version",
        "ctl.layout_version: %u, this reader knows %u", version,
        DORADMA_LAYOUT_VERSION);
  if (ctl_token != token)
    return diag_set (diag, -EBADMSG, "ctl.token",
        "ctl.token: 0x%016" PRIx64 " belongs to another segment (rcb.ctl_token "
        "0x%016" PRIx64 ")", ctl_token, token);
  return 0;
}

PUBLIC int
doradma_segment_validate (const uint8_t * image, size_t len,
    struct doradma_diag *diag)
{
  struct doradma_segment_desc desc;

  return segment_parse (image, len, &desc, diag);
}

PUBLIC int
doradma_ctl_validate (const uint8_t * image, size_t len, uint64_t token,
    struct doradma_diag *diag)
{
  return ctl_parse (image, len, token, diag);
}
