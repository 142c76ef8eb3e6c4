/* Private to lib/: the validated description of a data object, produced once
 * from untrusted bytes by segment_parse() (validate.c) and used afterwards
 * instead of the shared bytes (no double fetch). */
#ifndef DORADMA_SEGMENT_DESC_H
#define DORADMA_SEGMENT_DESC_H

#include <doradma/ring.h>

struct doradma_segment_desc {
  /* fixed header */
  uint64_t json_len;
  uint64_t data_offset;
  int ipc;                              /* ipc_flag == 1 */
  uint8_t ipc_handle[DORADMA_IPC_HANDLE_LEN];
  /* RCB line 0 (authoritative), cross-checked against the JSON */
  uint32_t page_size;
  uint32_t slot_count;
  uint64_t slot_stride;
  uint64_t slots_offset;
  uint64_t rcb_offset;
  uint64_t ctl_token;
  uint64_t compat_flags;
  uint64_t incompat_flags;
  uint32_t writer_pid;
  /* JSON */
  char transport[16];                   /* "shmem" | "unified" | "ipc" */
  char caps[DORADMA_CAPS_MAX];          /* default caps (from the JSON) */
  /* the object */
  uint64_t map_size;
};

/* validate.c: every check of the data object's untrusted bytes.
 * Returns 0, -EBADMSG (diag.field names the field) or -EPROTONOSUPPORT. */
int segment_parse (const uint8_t *image, size_t len,
    struct doradma_segment_desc *desc, struct doradma_diag *diag);

/* validate.c: the header and JSON checks of segment_parse on the first
 * `avail` bytes of an object of `len` bytes (avail >= min (len, 256 +
 * DORADMA_JSON_MAX)), and the object size the layout they describe needs.
 * A reader runs it on a pread copy before mapping anything.
 * Returns 0 and *expected, or -EBADMSG / -EPROTONOSUPPORT with diag. */
int segment_expected_size (const uint8_t *head, size_t avail, uint64_t len,
    uint64_t *expected, struct doradma_diag *diag);

/* validate.c: checks a local copy of a slot record against the segment and
 * fills *info. Returns 0 or -EBADMSG. */
int slot_record_validate (const struct doradma_shm_slot *rec,
    const struct doradma_segment_desc *desc, struct doradma_frame_info *info,
    struct doradma_diag *diag);

/* validate.c: the caps string rule: "video/x-raw" then end or ',', no caps
 * features, printable ASCII, NUL within DORADMA_CAPS_MAX. */
int caps_string_validate (const char *caps, size_t len, struct doradma_diag *diag);

/* validate.c: control object line 0 (magic, version, token match, size). */
int ctl_parse (const uint8_t *image, size_t len, uint64_t token,
    struct doradma_diag *diag);

/* meta.c: the JSON metadata (json-glib). meta_build returns a newly
 * allocated (g_free) JSON text padded with spaces so that 256 + *json_len is
 * a multiple of page_size (pages up to 64 KiB); desc fields used:
 * slot_count, slot_stride, page_size, transport, caps, ipc, and
 * slots_offset/rcb_offset when non-zero (0: it finds the layout itself). */
char *meta_build (const struct doradma_segment_desc *desc, uint64_t *json_len);

/* meta.c: parses `len` bytes of JSON (len <= DORADMA_JSON_MAX checked by the
 * caller; desc->ipc set before the call); checks the dora keys' types (size,
 * dtype, shape, pinned_type, transport) and fills desc's page_size,
 * slot_count, slot_stride, slots_offset, rcb_offset, transport and caps from
 * the "doradma" object; segment_parse then cross-checks them with the RCB.
 * Returns 0 or -EBADMSG with diag.field like "json.doradma.slots". */
int meta_parse (const char *json, size_t len, struct doradma_segment_desc *desc,
    struct doradma_diag *diag);

/* diag.c: fills diag (may be NULL) and returns err. */
int diag_set (struct doradma_diag *diag, int err, const char *field,
    const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

#endif
