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
 *   'E'  one slot record;  'K'  a caps string;  'N'  a channel name, a
 *        dora pool name and dtype, a shm object name (doradma list)
 *   'P'  a dora pool: header, JSON and payload (doradma_pool_parse, and
 *        the reader's pre-map parse of a prefix, which must agree)
 *   'Q'  a dora pool's JSON text in a valid pool header
 *   'I'  a data object file, inspected as the CLI does (lib/inspect.c:
 *        the door, pread copies, meta_parse, segment_parse, the RCB, and
 *        a valid control object of the token the input's RCB names)
 *   'L'  a control object file beside a valid data object with a
 *        published frame, inspected
 *   'O'  a dora pool file, opened by the pool reader (the door, the
 *        pre-map parse, the mapping) and copied from
 *   'S'  8 bytes of apparent size (little endian, modulo 256 MiB), then
 *        the start of a sparse file of that size, inspected as a data
 *        object and opened as a dora pool
 *   anything else: the whole input as a data object, as a control object
 *   and as a dora pool (the seeds of the first corpus).
 * The file modes write into a private temporary directory.
 * tests/fuzz/json.dict lists the JSON keys and tokens. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <doradma/dora-pool.h>
#include <doradma/inspect.h>

#include "image-helper.h"

#define STACK_SIZE (256 * 1024)
#define SPARSE_MAX (256ull << 20)
#define POOL_NAME "dora_pool_fz"

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

/* A dora pool's header and JSON as a reader checks them. An accepted pool
 * keeps the bounds a reader relies on (spec §6 rules 2-8, 16, 20), and
 * the pre-map parse of the reader's pread prefix gives the same verdict. */
static void
check_pool (const uint8_t * data, size_t size)
{
  struct doradma_pool_info info, again;
  struct doradma_diag diag;
  size_t avail = size < DORADMA_POOL_HEADER_SIZE + DORADMA_POOL_JSON_MAX ?
      size : DORADMA_POOL_HEADER_SIZE + DORADMA_POOL_JSON_MAX;
  int ret, pre;

  memset (&diag, 0, sizeof (diag));
  ret = doradma_pool_parse (data, size, &info, &diag);
  if (ret != 0 && (ret != -EBADMSG || diag.field == NULL))
    abort ();
  pre = doradma_pool_parse_prefix (data, avail, size, &again, NULL);
  if (pre != ret)
    abort ();
  if (ret != 0)
    return;
  if (info.data_offset < DORADMA_POOL_HEADER_SIZE
      || DORADMA_POOL_HEADER_SIZE + info.json_len > info.data_offset
      || info.data_offset > size || info.size == 0
      || info.json_len > DORADMA_POOL_JSON_MAX
      || (info.transport != DORADMA_POOL_IPC
          && info.data_offset + info.size > size))
    abort ();
}

/* A valid pool header with `json` (n bytes) and a 4 KiB payload. */
static void
check_pool_json (const uint8_t * json, size_t n)
{
  uint64_t off = doradma_pool_data_offset_for (n);
  uint8_t *seg;

  if (n > DORADMA_POOL_JSON_MAX + 1024)
    return;
  seg = g_malloc0 (off + 4096);
  memcpy (seg, "DORADMA", 8);
  for (int i = 0; i < 8; i++) {
    seg[8 + i] = (uint8_t) ((uint64_t) n >> (8 * i));
    seg[16 + i] = (uint8_t) (off >> (8 * i));
  }
  memcpy (seg + DORADMA_POOL_HEADER_SIZE, json, n);
  check_pool (seg, off + 4096);
  g_free (seg);
}

/* The other names a peer or a user chooses: dora pool names and their
 * parts, dtypes, and names found in the shm directory. */
static void
check_names (const char *name)
{
  char ch[DORADMA_NAME_MAX + 1], pool[DORADMA_POOL_NAME_MAX + 8];
  struct doradma_diag diag;
  int ret;

  memset (&diag, 0, sizeof (diag));
  ret = doradma_pool_name_validate (name, &diag);
  if (ret != 0 && (ret != -EINVAL || diag.field == NULL))
    abort ();
  ret = doradma_pool_name_build (pool, sizeof (pool), name, "node", name,
      &diag);
  if (ret == 0 && doradma_pool_name_validate (pool, NULL) != 0)
    abort ();
  doradma_pool_dtype_size (name);
  doradma_pool_transport_name ((enum doradma_pool_transport) (name[0] % 4));
  doradma_object_classify (name, ch);
}

/* The private directory of the file modes, removed at exit. */
static char *fz_path;

static void
fz_remove (void)
{
  gchar *f;

  f = g_build_filename (fz_path, "doradma.fz", NULL);
  unlink (f);
  g_free (f);
  f = g_build_filename (fz_path, "doradma.fz~ctl", NULL);
  unlink (f);
  g_free (f);
  f = g_build_filename (fz_path, POOL_NAME, NULL);
  unlink (f);
  g_free (f);
  rmdir (fz_path);
}

static const char *
fz_dir (void)
{
  if (fz_path == NULL) {
    if ((fz_path = g_dir_make_tmp ("doradma-fuzz-XXXXXX", NULL)) == NULL)
      abort ();
    atexit (fz_remove);
  }
  return fz_path;
}

/* Writes `n` bytes as the file `name` of fz_dir(), `apparent` bytes long
 * (a sparse tail when larger). */
static void
put_file (const char *name, const uint8_t * data, size_t n, uint64_t apparent)
{
  gchar *path = g_build_filename (fz_dir (), name, NULL);
  int fd = open (path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);

  if (fd < 0 || (n > 0 && write (fd, data, n) != (ssize_t) n)
      || (apparent > n && ftruncate (fd, (off_t) apparent) != 0))
    abort ();
  close (fd);
  g_free (path);
}

/* The CLI's look at channel "fz" (lib/inspect.c). */
static void
inspect_file (void)
{
  struct doradma_inspect *in = g_new0 (struct doradma_inspect, 1);
  const struct doradma_inspect_verdict *v;
  int ret = doradma_inspect_channel (fz_dir (), "fz", in);

  if (ret > 0)
    abort ();
  v = doradma_inspect_first_error (in);
  if (v != NULL && v->rc >= 0)
    abort ();
  doradma_inspect_status (in);
  doradma_inspect_state_name (in->rcb.state);
  doradma_inspect_published (in);
  doradma_inspect_live_readers (in);
  for (uint32_t r = 0; r < DORADMA_MAX_READERS; r++)
    doradma_inspect_lost (in, r);
  doradma_inspect_clear (in);
  g_free (in);
}

/* The pool reader on POOL_NAME: the door, the pre-map parse, the mapping
 * and one copy of up to 1 MiB. */
static void
open_pool_file (void)
{
  struct doradma_pool_reader *r = NULL;
  struct doradma_diag diag;
  const struct doradma_pool_info *pi;
  uint8_t *dst;
  uint64_t gen, n;
  int ret;

  memset (&diag, 0, sizeof (diag));
  ret = doradma_pool_reader_open (fz_dir (), POOL_NAME, -1, &r, &diag);
  if (ret != 0 && (ret > 0 || diag.msg[0] == '\0'))
    abort ();
  if (ret != 0)
    return;
  pi = doradma_pool_reader_info (r);
  n = MIN (pi->size, 1u << 20);
  dst = g_malloc (n);
  ret = doradma_pool_reader_copy (r, dst, n, UINT64_MAX, &gen, &diag);
  if (ret != 0 && ret != -EAGAIN && ret != -ESTALE && ret != -ENODATA
      && ret != -EBADMSG && ret != -EINVAL)
    abort ();
  g_free (dst);
  doradma_pool_reader_close (r);
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
      check_names (name);
      break;
    }
    case 'P':
      check_pool (p, n);
      break;
    case 'Q':
      check_pool_json (p, n);
      break;
    case 'I':{
      uint64_t token = check_segment (p, n, &accepted);
      uint8_t *ctl = image_build_ctl (token, 2, &len);

      put_file ("doradma.fz", p, n, n);
      put_file ("doradma.fz~ctl", ctl, len, len);
      g_free (ctl);
      inspect_file ();
      break;
    }
    case 'L':
      image_build_published (&img);
      put_file ("doradma.fz", img.data, img.len, img.len);
      put_file ("doradma.fz~ctl", p, n, n);
      image_free (&img);
      inspect_file ();
      break;
    case 'O':
      put_file (POOL_NAME, p, n, n);
      open_pool_file ();
      break;
    case 'S':
      if (n >= 8) {
        uint64_t apparent;

        memcpy (&apparent, p, sizeof (apparent));
        apparent = le64toh (apparent) % SPARSE_MAX;
        put_file ("doradma.fz", p + 8, n - 8, apparent);
        inspect_file ();
        put_file (POOL_NAME, p + 8, n - 8, apparent);
        open_pool_file ();
      }
      break;
    default:{
      uint64_t token = check_segment (in->data, in->size, &accepted);

      check_pool (in->data, in->size);
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
