/* Read-only inspection of a channel for tools; see doradma/inspect.h.
 *
 * Nothing shared is mapped: every part is copied with pread and the copies
 * are checked by the validators the reader uses (validate.c, meta.c), so the
 * tool judges a segment exactly as doradma_reader_open would. */
#include <doradma/inspect.h>

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "door.h"
#include "liveness.h"
#include "segment.h"

#define INSPECT_API __attribute__ ((visibility ("default")))

static int
verdict_set (struct doradma_inspect_verdict *v, int rc, const char *field,
    const char *fmt, ...) __attribute__((format (printf, 4, 5)));

static int
verdict_set (struct doradma_inspect_verdict *v, int rc, const char *field,
    const char *fmt, ...)
{
  va_list ap;

  v->rc = rc;
  v->diag.field = field;
  va_start (ap, fmt);
  vsnprintf (v->diag.msg, sizeof v->diag.msg, fmt, ap);
  va_end (ap);
  return rc;
}

/* Reads exactly len bytes at off. Returns 0, -ENODATA (the object is
 * shorter now: truncated meanwhile) or -errno. */
static int
read_at (int fd, void *buf, size_t len, uint64_t off)
{
  uint8_t *p = buf;

  while (len > 0) {
    ssize_t n = pread (fd, p, len, (off_t) off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0)
      return -ENODATA;
    p += n;
    len -= n;
    off += n;
  }
  return 0;
}

/* Opens an object through the door (door.h) for a look by pread copies:
 * any owner, any mode (the tool reports them), never blocking on a FIFO,
 * a regular file only. */
static int
open_object (const char *path, const char *label, int flags, struct stat *st,
    struct doradma_inspect_verdict *v)
{
  static const struct door_rule look = { -1, true, true, 0 };
  int fd, ret;

  ret = door_open (path, label, flags, &look, &fd, st, &v->diag);
  v->rc = ret;
  if (ret == -ENOENT)
    verdict_set (v, -ENOENT, "channel", "%s: %s", label, strerror (ENOENT));
  return ret < 0 ? ret : fd;
}

/* Where the RCB is, from the JSON copy (meta.c's own parser), or 0 when
 * the JSON does not say or it would not fit in the object. */
static uint64_t
rcb_place (const uint8_t * image, uint64_t size,
    const struct doradma_inspect *in)
{
  struct doradma_segment_desc d;
  uint64_t json_len = in->header.json_len, end;

  if (json_len > DORADMA_JSON_MAX || DORADMA_HEADER_SIZE + json_len > size)
    return 0;
  memset (&d, 0, sizeof d);
  d.ipc = in->header.ipc_flag == 1;
  if (meta_parse ((const char *) image + DORADMA_HEADER_SIZE, json_len, &d,
          NULL) < 0)
    return 0;
  if (d.rcb_offset < DORADMA_HEADER_SIZE
      || __builtin_add_overflow (d.rcb_offset,
          sizeof (struct doradma_shm_rcb), &end) || end > size)
    return 0;
  return d.rcb_offset;
}

/* The data object's header, JSON and RCB line 0 judged as
 * doradma_reader_open judges them, in its order: segment_size_check (the
 * size the header and JSON describe, R4-4), then segment_parse on a
 * private image: anonymous memory the size of the object (untouched pages
 * cost nothing) holding only the parts read. The parts are copied either
 * way, to be shown as read. */
static void
inspect_segment (int fd, const struct stat *st, const char *label,
    struct doradma_inspect *in)
{
  struct doradma_segment_desc d;
  uint8_t *image;
  uint64_t json_len;
  int ret;

  if (in->size < DORADMA_HEADER_SIZE) {
    /* nothing to copy: the reader's door refuses it with these words */
    in->segment.rc = segment_size_check (fd, st, label, &in->segment.diag);
    return;
  }
  if (read_at (fd, &in->header, sizeof in->header, 0) < 0) {
    verdict_set (&in->segment, -EBADMSG, "object.size",
        "object.size: the header could not be read (truncated meanwhile)");
    return;
  }
  in->header_read = 1;
  image = mmap (NULL, in->size, PROT_READ | PROT_WRITE,
      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (image == MAP_FAILED) {
    verdict_set (&in->segment, -EFBIG, "object.size",
        "object.size: %" PRIu64 " bytes, too large to inspect", in->size);
    return;
  }
  memcpy (image, &in->header, sizeof in->header);
  json_len = in->header.json_len;
  if (json_len <= DORADMA_JSON_MAX && DORADMA_HEADER_SIZE + json_len <= in->size
      && read_at (fd, image + DORADMA_HEADER_SIZE, json_len,
          DORADMA_HEADER_SIZE) == 0) {
    in->json = g_malloc (json_len + 1);
    memcpy (in->json, image + DORADMA_HEADER_SIZE, json_len);
    in->json[json_len] = '\0';
    in->json_read = json_len;
  }
  in->rcb_at = in->json ? rcb_place (image, in->size, in) : 0;
  if (in->rcb_at != 0 && read_at (fd, &in->rcb, sizeof in->rcb,
          in->rcb_at) == 0) {
    in->rcb_read = 1;
    memcpy (image + in->rcb_at, &in->rcb, sizeof in->rcb);
  }

  ret = segment_size_check (fd, st, label, &in->segment.diag);
  if (ret == 0)
    ret = segment_parse (image, in->size, &d, &in->segment.diag);
  in->segment.rc = ret;
  munmap (image, in->size);
  if (ret < 0)
    return;
  in->slot_count = d.slot_count;
  in->page_size = d.page_size;
  in->writer_pid = d.writer_pid;
  in->slot_stride = d.slot_stride;
  in->slots_offset = d.slots_offset;
  in->rcb_offset = d.rcb_offset;
  in->ctl_token = d.ctl_token;
  in->json_len = d.json_len;
  in->data_offset = d.data_offset;
  in->ipc = d.ipc;
  g_strlcpy (in->transport, d.transport, sizeof in->transport);
  g_strlcpy (in->caps, d.caps, sizeof in->caps);
}

/* Slot records and caps entries: RCB copy 1 gives the gens, copy 2 the
 * records, copy 3 the gens again; a record is consistent when its gen was
 * even and the same before and after (the writer makes it odd before it
 * touches the record and ends two higher). The full fences order the
 * copies (the kernel's loads run on this thread, in program order). */
static void
inspect_records (int fd, struct doradma_inspect *in)
{
  struct doradma_shm_rcb *second = g_new (struct doradma_shm_rcb, 1);
  struct doradma_shm_rcb *third = g_new (struct doradma_shm_rcb, 1);
  struct doradma_segment_desc d;
  uint32_t s, e;

  dr_fence_full ();
  if (read_at (fd, second, sizeof *second, in->rcb_offset) < 0)
    goto out;
  dr_fence_full ();
  if (read_at (fd, third, sizeof *third, in->rcb_offset) < 0)
    goto out;

  memset (&d, 0, sizeof d);
  d.slot_stride = in->slot_stride;
  d.slot_count = in->slot_count;
  for (s = 0; s < in->slot_count; s++) {
    struct doradma_inspect_slot *sl = &in->slots[s];
    uint64_t g1 = in->rcb.slots[s].gen, g3 = third->slots[s].gen;

    sl->rec = second->slots[s];
    sl->rec.gen = g1;
    sl->slot_seq = second->slot_seq[s];
    if (g1 != g3 || second->slots[s].gen != g1)
      sl->state = DORADMA_INSPECT_SLOT_TORN;
    else if (g1 & 1)
      sl->state = DORADMA_INSPECT_SLOT_WRITING;
    else if (sl->rec.seq == 0)
      sl->state = DORADMA_INSPECT_SLOT_EMPTY;
    else {
      sl->state = DORADMA_INSPECT_SLOT_FRAME;
      sl->valid.rc = slot_record_validate (&sl->rec, &d, NULL, &sl->valid.diag);
    }
  }
  for (e = 0; e < DORADMA_CAPS_ENTRIES; e++) {
    struct doradma_inspect_caps *c = &in->caps_table[e];
    uint64_t g1 = in->rcb.caps[e].gen;

    c->entry = second->caps[e];
    c->entry.gen = g1;
    c->consistent = (g1 & 1) == 0 && second->caps[e].gen == g1
        && third->caps[e].gen == g1;
    if (c->consistent && g1 != 0)
      c->valid.rc = caps_string_validate (c->entry.caps,
          sizeof c->entry.caps, &c->valid.diag);
  }
  /* Lines 0-1 and slot_seq as of the record copy. */
  memcpy (&in->rcb, second, offsetof (struct doradma_shm_rcb, caps));
  memcpy (in->rcb.slot_seq, second->slot_seq, sizeof in->rcb.slot_seq);
out:
  g_free (second);
  g_free (third);
}

static void
inspect_ctl (struct doradma_inspect *in)
{
  struct stat st;
  uint64_t token, len;
  uint32_t r, s, slots;
  int fd, ret;

  fd = open_object (in->ctl_path, "control object", O_RDONLY, &st,
      &in->ctl_object);
  if (fd < 0)
    return;
  len = (uint64_t) st.st_size < sizeof in->ctl ? (uint64_t) st.st_size :
      sizeof in->ctl;
  if (read_at (fd, &in->ctl, len, 0) < 0) {
    verdict_set (&in->ctl_object, -EBADMSG, "ctl.size",
        "ctl.size: could not read %" PRIu64 " bytes", len);
    close (fd);
    return;
  }
  in->ctl_read = len == sizeof in->ctl;
  if (in->segment.rc == 0)
    token = in->ctl_token;
  else if (in->rcb_read)
    token = in->rcb.ctl_token;  /* shown against the raw RCB, never trusted */
  else
    token = in->ctl.token;
  in->ctl_valid.rc = ctl_parse ((const uint8_t *) &in->ctl, len, token,
      &in->ctl_valid.diag);
  if (!in->ctl_read) {
    close (fd);
    return;
  }

  /* Lease words of slots in use only, as the writer reads them. */
  slots = in->segment.rc == 0 ? in->slot_count : 0;
  for (s = 0; s < slots; s++)
    in->slots[s].leases = in->ctl.lease[s].readers;
  for (r = 0; r < DORADMA_MAX_READERS; r++) {
    struct doradma_inspect_reader *rd = &in->readers[r];
    uint64_t bit = 1ull << r;

    rd->entry = in->ctl.readers[r];
    rd->active_bit = (in->ctl.active & bit) != 0;
    for (s = 0; s < slots; s++)
      if (in->ctl.lease[s].readers & bit)
        rd->leases++;
    if (rd->entry.state == DORADMA_READER_FREE && !rd->active_bit
        && rd->leases == 0)
      continue;
    ret = ofd_is_locked (fd, r);
    rd->alive = ret;
  }
  close (fd);
}

INSPECT_API int
doradma_inspect_channel (const char *shm_dir, const char *channel,
    struct doradma_inspect *in)
{
  struct segment_paths paths;
  struct stat st;
  int fd, ret;

  memset (in, 0, sizeof *in);
  ret = segment_paths_init (&paths, shm_dir, channel, &in->object.diag);
  if (ret < 0)
    return in->object.rc = ret;
  g_strlcpy (in->channel, channel, sizeof in->channel);
  g_strlcpy (in->data_path, paths.data, sizeof in->data_path);
  g_strlcpy (in->ctl_path, paths.ctl, sizeof in->ctl_path);

  fd = open_object (paths.data, paths.label, O_RDONLY, &st, &in->object);
  if (fd < 0)
    return fd == -EBADMSG || fd == -ELOOP ? 0 : fd;
  in->size = st.st_size;
  in->dev = st.st_dev;
  in->ino = st.st_ino;
  in->uid = st.st_uid;
  in->mode = st.st_mode & 07777;
  in->writer_alive = ofd_is_locked (fd, 0);

  inspect_segment (fd, &st, paths.label, in);
  if (in->segment.rc == 0 && in->rcb_read)
    inspect_records (fd, in);
  close (fd);
  inspect_ctl (in);
  return 0;
}

INSPECT_API void
doradma_inspect_clear (struct doradma_inspect *in)
{
  g_free (in->json);
  in->json = NULL;
}

INSPECT_API const struct doradma_inspect_verdict *
doradma_inspect_first_error (const struct doradma_inspect *in)
{
  uint32_t s, e;

  if (in->object.rc != 0)
    return &in->object;
  if (in->segment.rc != 0)
    return &in->segment;
  if (in->ctl_object.rc != 0)
    return &in->ctl_object;
  if (in->ctl_valid.rc != 0)
    return &in->ctl_valid;
  for (s = 0; s < in->slot_count; s++)
    if (in->slots[s].state == DORADMA_INSPECT_SLOT_FRAME
        && in->slots[s].valid.rc != 0)
      return &in->slots[s].valid;
  for (e = 0; e < DORADMA_CAPS_ENTRIES; e++)
    if (in->caps_table[e].consistent && in->caps_table[e].valid.rc != 0)
      return &in->caps_table[e].valid;
  return NULL;
}

INSPECT_API const char *
doradma_inspect_status (const struct doradma_inspect *in)
{
  if (in->object.rc != 0 || in->segment.rc != 0)
    return "invalid";
  if (in->writer_alive == 0)
    return "stale";
  return doradma_inspect_state_name (in->rcb.state);
}

INSPECT_API const char *
doradma_inspect_state_name (uint32_t state)
{
  switch (state) {
    case DORADMA_STATE_LIVE:
      return "live";
    case DORADMA_STATE_EOS:
      return "eos";
    case DORADMA_STATE_SUPERSEDED:
      return "superseded";
    default:
      return "unknown";
  }
}

INSPECT_API uint64_t
doradma_inspect_newest_seq (const struct doradma_inspect *in)
{
  if (in->segment.rc != 0 || !in->rcb_read)
    return 0;
  return DORADMA_NEWEST_SEQ (in->rcb.newest);
}

INSPECT_API uint64_t
doradma_inspect_published (const struct doradma_inspect *in)
{
  uint64_t newest = doradma_inspect_newest_seq (in);

  if (newest == 0 || newest < in->rcb.first_seq)
    return 0;
  return newest - in->rcb.first_seq + 1;
}

INSPECT_API uint32_t
doradma_inspect_live_readers (const struct doradma_inspect *in)
{
  uint32_t r, n = 0;

  for (r = 0; r < DORADMA_MAX_READERS; r++)
    if (in->readers[r].entry.state == DORADMA_READER_ACTIVE
        && in->readers[r].alive == 1)
      n++;
  return n;
}

INSPECT_API uint64_t
doradma_inspect_lost (const struct doradma_inspect *in, uint32_t r)
{
  const struct doradma_inspect_reader *rd;
  uint64_t newest = doradma_inspect_newest_seq (in), consumed, held = 0;
  uint32_t s;

  if (r >= DORADMA_MAX_READERS || newest == 0)
    return 0;
  rd = &in->readers[r];
  consumed = rd->entry.consumed_seq;
  if (!(rd->entry.flags & DORADMA_READER_BACKPRESSURE) || consumed >= newest)
    return 0;
  /* Frames after `consumed` still in a slot (or being rewritten: counted
   * as held, so the answer is a lower bound, never a false loss). */
  for (s = 0; s < in->slot_count; s++) {
    const struct doradma_inspect_slot *sl = &in->slots[s];
    if (sl->state != DORADMA_INSPECT_SLOT_FRAME && sl->state !=
        DORADMA_INSPECT_SLOT_EMPTY)
      held++;
    else if (sl->state == DORADMA_INSPECT_SLOT_FRAME && sl->rec.seq > consumed
        && sl->rec.seq <= newest)
      held++;
  }
  return newest - consumed > held ? newest - consumed - held : 0;
}

INSPECT_API enum doradma_object_kind
doradma_object_classify (const char *name, char *channel)
{
  const char *rest, *tilde;
  size_t len;

  if (strncmp (name, "dora_pool_", 10) == 0)
    return DORADMA_OBJECT_DORA_POOL;
  if (strncmp (name, "doradma.", 8) != 0)
    return DORADMA_OBJECT_OTHER;
  rest = name + 8;
  tilde = strchr (rest, '~');
  len = tilde ? (size_t) (tilde - rest) : strlen (rest);
  if (len == 0 || len > DORADMA_NAME_MAX)
    return DORADMA_OBJECT_OTHER;
  memcpy (channel, rest, len);
  channel[len] = '\0';
  if (doradma_name_validate (channel, NULL) < 0)
    return DORADMA_OBJECT_OTHER;
  if (tilde == NULL)
    return DORADMA_OBJECT_DATA;
  if (strcmp (tilde, "~ctl") == 0)
    return DORADMA_OBJECT_CTL;
  if (strncmp (tilde, "~new.", 5) == 0 || strncmp (tilde, "~ctl~new.", 9) == 0)
    return DORADMA_OBJECT_LEFTOVER;
  return DORADMA_OBJECT_OTHER;
}
