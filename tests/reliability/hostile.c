/* Description: hostile peers (docs/threat-model.md). One case per argument:
 *   crafted    hand-made data objects in a private shm dir: offsets past the
 *              mapping, 65 slots, a truncated object or ctl... ->
 *              doradma_reader_open fails with the right error and field
 *              (the JSON rules live in tests/lib/validate-json.c)
 *   json-deep  64 KiB of nested JSON arrays (parser recursion)
 *   record     a valid segment whose published slot record is corrupted:
 *              doradma_reader_next returns -EBADMSG for that frame only
 *   caps       caps table entries rewritten with features / no NUL
 *   hoard      a reader that leases every slot and never releases: a latest
 *              writer gets -EAGAIN promptly, recovers when the hoarder dies
 *   lossless   a back-pressure reader that never consumes: lossless acquire
 *              times out, doradma_writer_evict_stalled unblocks it, leases
 *              of the evicted reader stay honoured
 *   ctl        the control object filled with garbage: the writer sweeps,
 *              clamps and keeps publishing; an honest reader keeps reading
 *   readonly   a reader cannot write the data object (SIGSEGV), mprotect it
 *              writable, or truncate it
 *   squat      the channel name created by another uid: writer_create says
 *              -EPERM naming the owner, the reader refuses it (root only)
 * Every case uses a private shm directory, removed at the end. */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000ll

static char *dir;

/* ------------------------------------------------------------------------ */
/* object images                                                            */
/* ------------------------------------------------------------------------ */

struct img
{
  uint8_t *data;
  size_t len;
  uint8_t *ctl;
  size_t ctl_len;
};

static int
read_file (const char *path, uint8_t ** buf, size_t *len)
{
  struct stat st;
  int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0 || fstat (fd, &st) != 0) {
    t_log ("open %s: %s", path, strerror (errno));
    if (fd >= 0)
      close (fd);
    return -1;
  }
  *len = st.st_size;
  *buf = malloc (*len);
  if (pread (fd, *buf, *len, 0) != (ssize_t) * len) {
    close (fd);
    return -1;
  }
  close (fd);
  return 0;
}

static int
write_file (const char *path, const uint8_t * buf, size_t len, mode_t mode)
{
  int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);

  if (fd < 0) {
    t_log ("create %s: %s", path, strerror (errno));
    return -1;
  }
  fchmod (fd, mode);
  if (write (fd, buf, len) != (ssize_t) len) {
    close (fd);
    return -1;
  }
  close (fd);
  return 0;
}

/* A valid channel image: a writer creates it, publishes one frame; we copy
 * both objects and let the writer remove its names. */
static int
template_image (struct img *im)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  char ch[64], path[4096];
  int ret = -1;

  t_channel (ch, sizeof ch, "tmpl");
  t_writer_config (&wc, ch, dir, 2, 4 * 4096);
  if (doradma_writer_create (&wc, &w, &diag) != 0) {
    t_log ("writer_create: %s", diag.msg);
    return -1;
  }
  if (t_publish (w, DORADMA_POLICY_LATEST, 0, 4 * 4096, NULL, NULL) != 0)
    goto out;
  snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
  if (read_file (path, &im->data, &im->len) != 0)
    goto out;
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
  if (read_file (path, &im->ctl, &im->ctl_len) != 0)
    goto out;
  ret = 0;
out:
  doradma_writer_close (w);
  return ret;
}

static struct img
img_dup (const struct img *t)
{
  struct img c = *t;

  c.data = malloc (t->len);
  memcpy (c.data, t->data, t->len);
  c.ctl = malloc (t->ctl_len);
  memcpy (c.ctl, t->ctl, t->ctl_len);
  return c;
}

static void
img_free (struct img *c)
{
  free (c->data);
  free (c->ctl);
}

static struct doradma_shm_header *
hdr_of (struct img *c)
{
  return (struct doradma_shm_header *) c->data;
}

static struct doradma_shm_rcb *
rcb_of (struct img *c)
{
  struct doradma_shm_header *h = hdr_of (c);
  /* slots_offset + 2 slots of 16 KiB (the template's layout). */
  return (struct doradma_shm_rcb *) (c->data + h->data_offset + 2 * 4 * 4096);
}

/* Installs the image as channel `ch` in the private dir, opens a reader on
 * it and checks the verdict: rc == want and diag.field starts with
 * `field` (NULL: any). Removes the objects. Returns 0 if it held. */
static int
expect_open (struct img *c, const char *what, int want, const char *field)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;
  char ch[64], pd[4096], pc[4096];
  int ret, ok;

  t_channel (ch, sizeof ch, "crafted");
  snprintf (pd, sizeof pd, "%s/doradma.%s", dir, ch);
  snprintf (pc, sizeof pc, "%s/doradma.%s~ctl", dir, ch);
  if (write_file (pd, c->data, c->len, 0600) != 0 ||
      write_file (pc, c->ctl, c->ctl_len, 0600) != 0)
    return -1;
  memset (&diag, 0, sizeof diag);
  t_reader_config (&rc, ch, dir, 0);
  ret = doradma_reader_open (&rc, &r, &diag);
  ok = ret == want && (want == 0 || field == NULL ||
      (diag.field != NULL && strncmp (diag.field, field, strlen (field)) == 0));
  if (!ok)
    t_log ("%s: got %s field %s (%s), want %s field %s", what,
        t_errname (ret), diag.field ? diag.field : "(null)", diag.msg,
        t_errname (want), field ? field : "(any)");
  else
    t_log ("%s: %s %s: %s", what, t_errname (ret),
        diag.field ? diag.field : "", ret ? diag.msg : "");
  if (ret == 0)
    doradma_reader_close (r);
  unlink (pd);
  unlink (pc);
  return ok ? 0 : -1;
}

#define EXPECT(c, what, want, field) do { \
    if (expect_open ((c), (what), (want), (field)) != 0) \
      fails++; \
  } while (0)

/* Each mutation starts from a fresh copy of the template. */
#define CASE(c) for (struct img c = img_dup (&t), *once_ = &c; once_; \
      img_free (&c), once_ = NULL)

static int
test_crafted (void)
{
  struct img t;
  int fails = 0;

  if (template_image (&t) != 0)
    return T_EXIT_FAIL;
  /* The untouched copy opens: the harness itself is sound. */
  CASE (c) EXPECT (&c, "untouched copy", 0, NULL);

  /* Header. */
  CASE (c) {
    memcpy (hdr_of (&c)->magic, "DORADMB", 8);
    EXPECT (&c, "bad magic", -EBADMSG, "header.magic");
  }
  CASE (c) {
    hdr_of (&c)->data_offset = c.len + 4096;
    EXPECT (&c, "data_offset past the mapping", -EBADMSG, "header.data_offset");
  }
  CASE (c) {
    hdr_of (&c)->data_offset = UINT64_MAX - 100;
    EXPECT (&c, "data_offset near 2^64", -EBADMSG, "header.data_offset");
  }
  CASE (c) {
    hdr_of (&c)->json_len = 1ull << 62;
    EXPECT (&c, "json_len 2^62", -EBADMSG, "header.json_len");
  }
  CASE (c) {
    hdr_of (&c)->json_len = DORADMA_JSON_MAX + 1;
    EXPECT (&c, "json_len over the cap", -EBADMSG, "header.json_len");
  }
  CASE (c) {
    hdr_of (&c)->ipc_flag = 7;
    EXPECT (&c, "ipc_flag 7", -EBADMSG, "header.ipc_flag");
  }
  CASE (c) {
    hdr_of (&c)->dora_gen = 2;
    EXPECT (&c, "dora_gen even", -EBADMSG, "header.dora_gen");
  }
  CASE (c) {
    c.len = 200;                /* shorter than the header */
    EXPECT (&c, "truncated object", -EBADMSG, "object.size");
  }
  CASE (c) {
    c.len = hdr_of (&c)->data_offset + 4096;    /* RCB cut off */
    EXPECT (&c, "RCB past the end of the object", -EBADMSG, "rcb");
  }

  /* RCB line 0. */
  CASE (c) {
    rcb_of (&c)->slot_count = 65;
    EXPECT (&c, "65 slots", -EBADMSG, "rcb.slot_count");
  }
  CASE (c) {
    rcb_of (&c)->slot_count = 0;
    EXPECT (&c, "0 slots", -EBADMSG, "rcb.slot_count");
  }
  CASE (c) {
    rcb_of (&c)->slot_stride = 1ull << 40;
    EXPECT (&c, "slot area past the mapping", -EBADMSG, "rcb.slot_stride");
  }
  CASE (c) {
    rcb_of (&c)->slot_count = 64;
    rcb_of (&c)->slot_stride = 1ull << 60;
    EXPECT (&c, "slot area overflowing u64", -EBADMSG, "rcb.slot_stride");
  }
  CASE (c) {
    rcb_of (&c)->slot_stride = 4096 + 1;
    EXPECT (&c, "slot_stride not a page multiple", -EBADMSG, "rcb.slot_stride");
  }
  CASE (c) {
    rcb_of (&c)->slots_offset = 4096 * 1000;
    EXPECT (&c, "slots_offset past the mapping", -EBADMSG, "rcb.slots_offset");
  }
  CASE (c) {
    rcb_of (&c)->magic = 0;
    EXPECT (&c, "rcb magic", -EBADMSG, "rcb.magic");
  }
  CASE (c) {
    rcb_of (&c)->layout_version = 2;
    EXPECT (&c, "layout version 2", -EPROTONOSUPPORT, "rcb.layout_version");
  }
  CASE (c) {
    rcb_of (&c)->incompat_flags = 1ull << 17;
    EXPECT (&c, "unknown incompat bit", -EPROTONOSUPPORT, "rcb.incompat_flags");
  }
  CASE (c) {
    rcb_of (&c)->page_size = 4097;
    EXPECT (&c, "page size 4097", -EBADMSG, "rcb.page_size");
  }

  /* The JSON's rules (types, values, strictness, caps) are specified once,
   * on images in memory: tests/lib/validate-json.c. Here only what needs a
   * real object: the open path's own checks. */

  /* Control object. */
  CASE (c) {
    c.ctl_len = 100;
    EXPECT (&c, "truncated ctl", -EBADMSG, "object.size");
  }
  CASE (c) {
    ((struct doradma_shm_ctl *) c.ctl)->token ^= 1;
    EXPECT (&c, "ctl of another segment", -ESTALE, "ctl.token");
  }

  img_free (&t);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

/* 64 KiB of '[': a recursive-descent parser without a depth limit blows
 * its stack here. The reader must say -EBADMSG, not crash. */
static int
test_json_deep (void)
{
  struct img t, c;
  size_t jl = DORADMA_JSON_MAX, off;
  int fails = 0;

  if (template_image (&t) != 0)
    return T_EXIT_FAIL;
  off = DORADMA_HEADER_SIZE + jl;       /* 65792: page multiple for 4 KiB? */
  off = (off + 4095) / 4096 * 4096;
  c.len = off + 4096;
  c.data = calloc (1, c.len);
  memcpy (c.data, t.data, DORADMA_HEADER_SIZE);
  hdr_of (&c)->json_len = jl;
  hdr_of (&c)->data_offset = off;
  memset (c.data + DORADMA_HEADER_SIZE, '[', jl);
  c.ctl = malloc (t.ctl_len);
  memcpy (c.ctl, t.ctl, t.ctl_len);
  c.ctl_len = t.ctl_len;
  EXPECT (&c, "64 KiB of nested arrays", -EBADMSG, "json");
  {
    /* Nested objects: {"a":{"a":... */
    size_t i;
    for (i = 0; i + 5 <= jl; i += 5)
      memcpy (c.data + DORADMA_HEADER_SIZE + i, "{\"a\":", 5);
    EXPECT (&c, "13107 nested objects", -EBADMSG, "json");
  }
  img_free (&c);
  img_free (&t);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

/* ------------------------------------------------------------------------ */
/* live segment helpers                                                     */
/* ------------------------------------------------------------------------ */

static struct doradma_shm_rcb *
rcb_in (uint8_t * map, uint32_t slots, uint64_t stride)
{
  struct doradma_shm_header *h = (struct doradma_shm_header *) map;
  return (struct doradma_shm_rcb *) (map + h->data_offset + slots * stride);
}

/* ------------------------------------------------------------------------ */
/* record: per-frame geometry outside the slot                              */
/* ------------------------------------------------------------------------ */

enum
{ C_STRIDE, C_OFFSET, C_OFFSET_WRAP, C_PAYLOAD, C_PLANES, C_ROWBYTES,
  C_ROWS, C_CROP, C_ZERO_STRIDE, C_LAST
};
static const char *const corrupt_names[] = { "stride x rows past payload",
  "plane offset past payload", "plane offset near 2^64",
  "payload_bytes > slot_stride", "n_planes 5", "row_bytes > stride",
  "rows 2^32-1", "crop outside the frame", "stride 0"
};

static const char *const corrupt_fields[] = { "slot.planes.offset",
  "slot.planes.offset", "slot.planes.offset", "slot.payload_bytes",
  "slot.n_planes", "slot.planes.row_bytes", "slot.planes.offset",
  "slot.crop", "slot.planes.stride"
};

static void
corrupt (struct doradma_shm_slot *s, int how, uint64_t stride)
{
  switch (how) {
    case C_STRIDE:
      s->planes[0].stride = 1u << 30;
      s->planes[0].row_bytes = 4096;
      break;
    case C_OFFSET:
      s->planes[0].offset = stride;
      break;
    case C_OFFSET_WRAP:
      s->planes[0].offset = UINT64_MAX - 4095;
      break;
    case C_PAYLOAD:
      s->payload_bytes = stride + 4096;
      break;
    case C_PLANES:
      s->n_planes = 5;
      break;
    case C_ROWBYTES:
      s->planes[0].row_bytes = s->planes[0].stride + 1;
      break;
    case C_ROWS:
      s->planes[0].rows = UINT32_MAX;
      break;
    case C_CROP:
      s->crop_width = 10;
      s->crop_height = 10;
      s->crop_x = UINT32_MAX - 5;
      break;
    case C_ZERO_STRIDE:
      s->planes[0].stride = 0;
      break;
  }
}

static int
test_record (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  uint8_t *map = NULL, *buf = malloc (8 * 4096);
  size_t len = 0;
  char ch[64];
  uint64_t seq, stride;
  uint32_t slot;
  int how, copy, ret;

  t_channel (ch, sizeof ch, "rec");
  T_RC (t_open_pair (dir, ch, 4, 8 * 4096, 0, &w, &r), 0, "open");
  stride = doradma_writer_slot_stride (w);
  map = t_data_map_rw (dir, ch, &len);
  T_CHECK (map != NULL, "map rw");
  for (copy = 0; copy < 2; copy++) {
    for (how = 0; how < C_LAST; how++) {
      struct doradma_shm_rcb *rcb = rcb_in (map, 4, stride);

      /* A bad frame, then a good one: the bad one is reported, skipped,
       * and the reader goes on with the next. */
      T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 8 * 4096, &seq, &slot), 0,
          "publish bad");
      corrupt (&rcb->slots[slot], how, stride);
      memset (&diag, 0, sizeof diag);
      ret = copy ? doradma_reader_copy_next (r, DORADMA_READ_NEXT, 0, buf,
          8 * 4096, &f, &diag) : doradma_reader_next (r, DORADMA_READ_NEXT, 0,
          &f, &diag);
      if (ret != -EBADMSG || diag.field == NULL ||
          strcmp (diag.field, corrupt_fields[how]) != 0) {
        t_log ("%s (%s): got %s field %s (%s), want -EBADMSG %s",
            corrupt_names[how], copy ? "copy" : "lease", t_errname (ret),
            diag.field ? diag.field : "(null)", diag.msg, corrupt_fields[how]);
        goto err;
      }
      t_log ("%s (%s): -EBADMSG %s: %s", corrupt_names[how],
          copy ? "copy" : "lease", diag.field, diag.msg);
      T_CHECK (doradma_reader_leases (r) == 0,
          "the bad frame's lease is released");
      T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 8 * 4096, &seq, &slot), 0,
          "publish good");
      ret =
          copy ? doradma_reader_copy_next (r, DORADMA_READ_NEXT, 0, buf,
          8 * 4096, &f, &diag) : doradma_reader_next (r, DORADMA_READ_NEXT, 0,
          &f, &diag);
      T_RC (ret, 0, "next after the bad frame");
      T_CHECK (f.info.seq == seq, "got seq %llu want %llu",
          (unsigned long long) f.info.seq, (unsigned long long) seq);
      T_CHECK (t_check_stamps (copy ? buf : f.data, f.info.payload_bytes, seq,
              NULL) == 0, "good frame intact");
      if (!copy)
        doradma_reader_release (r, f.slot);
    }
  }

  /* newest naming a slot past slot_count: latest readers must not index
   * with it (nothing to deliver rather than an out-of-bounds record). */
  {
    struct doradma_shm_rcb *rcb = rcb_in (map, 4, stride);
    __atomic_store_n (&rcb->newest, DORADMA_NEWEST_PACK (seq + 1, 63),
        __ATOMIC_RELEASE);
    ret = doradma_reader_next (r, DORADMA_READ_LATEST, 0, &f, &diag);
    T_RC (ret, -EAGAIN, "newest with slot 63 of 4");
    __atomic_store_n (&rcb->newest, DORADMA_NEWEST_PACK (seq + 1, 255),
        __ATOMIC_RELEASE);
    ret = doradma_reader_next (r, DORADMA_READ_LATEST, 0, &f, &diag);
    T_RC (ret, -EAGAIN, "newest with slot 255 of 4");
    /* slot_seq hints past newest are ignored. */
    __atomic_store_n (&rcb->slot_seq[0], UINT64_MAX, __ATOMIC_RELEASE);
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 8 * 4096, &seq, &slot), 0,
        "publish after garbage newest");
    ret = doradma_reader_next (r, DORADMA_READ_LATEST, 0, &f, &diag);
    T_RC (ret, 0, "latest after the writer fixed newest");
    T_CHECK (f.info.seq == seq, "latest seq");
    doradma_reader_release (r, f.slot);
  }
  munmap (map, len);
  doradma_reader_close (r);
  doradma_writer_close (w);
  free (buf);
  return T_EXIT_PASS;
err:
  if (map)
    munmap (map, len);
  doradma_reader_close (r);
  doradma_writer_close (w);
  free (buf);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* caps table                                                               */
/* ------------------------------------------------------------------------ */

static int
test_caps (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;
  uint8_t *map = NULL;
  size_t len = 0;
  char ch[64], buf[DORADMA_CAPS_MAX];
  struct doradma_shm_caps *c;
  uint64_t stride;
  int ret;

  t_channel (ch, sizeof ch, "caps");
  T_RC (t_open_pair (dir, ch, 2, 4096, 0, &w, &r), 0, "open");
  stride = doradma_writer_slot_stride (w);
  map = t_data_map_rw (dir, ch, &len);
  T_CHECK (map != NULL, "map rw");
  c = &rcb_in (map, 2, stride)->caps[1];
  T_RC (doradma_reader_caps (r, 1, buf, sizeof buf, &diag), 0, "valid caps");

  /* The writer refuses to set such caps itself (the exact code is
   * tests/lib/create-open's business). */
  T_CHECK (doradma_writer_set_caps (w, "video/x-raw(memory:NVMM), format=NV12",
          NULL) < 0, "writer_set_caps with a feature");

  {
    static const char feat[] =
        "video/x-raw(memory:CUDAMemory), format=(string)NV12";
    memcpy (c->caps, feat, sizeof feat);
  }
  ret = doradma_reader_caps (r, 1, buf, sizeof buf, &diag);
  T_CHECK (ret == -EBADMSG && diag.field
      && strcmp (diag.field, "caps.features") == 0,
      "caps table entry with a feature: %s %s", t_errname (ret), diag.msg);
  memcpy (c->caps, "image/jpeg", 11);
  ret = doradma_reader_caps (r, 1, buf, sizeof buf, &diag);
  T_CHECK (ret == -EBADMSG, "image/jpeg: %s", t_errname (ret));
  memset (c->caps, 'A', sizeof c->caps);
  ret = doradma_reader_caps (r, 1, buf, sizeof buf, &diag);
  T_CHECK (ret == -EBADMSG, "caps without NUL: %s", t_errname (ret));
  /* An epoch that is not in its entry. */
  ret = doradma_reader_caps (r, 5, buf, sizeof buf, &diag);
  T_CHECK (ret == -ENOENT, "epoch 5: %s", t_errname (ret));
  c->epoch = 77;
  ret = doradma_reader_caps (r, 1, buf, sizeof buf, &diag);
  T_CHECK (ret == -ENOENT, "entry holding another epoch: %s", t_errname (ret));
  /* An entry whose gen stays odd: bounded retries, no hang. */
  __atomic_store_n (&c->gen, 3, __ATOMIC_RELEASE);
  ret = doradma_reader_caps (r, 1, buf, sizeof buf, &diag);
  T_CHECK (ret == -EAGAIN, "entry stuck odd: %s", t_errname (ret));

  munmap (map, len);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_PASS;
err:
  if (map)
    munmap (map, len);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* hoarding readers                                                         */
/* ------------------------------------------------------------------------ */

struct hoard_arg
{
  const char *ch;
  int pipe_w;
  uint64_t spare;               /* the honest reader's bit: not forged here */
};

/* A reader process that sets every lease bit it can (its own bit in every
 * slot word, plus garbage bits of entries nobody holds) and then sleeps.
 * Forging the bit of another LIVE reader is a different attack (test_ctl):
 * those bits stay until that reader closes. */
static int
hoarder (void *p)
{
  struct hoard_arg *a = p;
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_reader_stats st;
  struct doradma_shm_ctl *ctl;
  struct doradma_diag diag;
  int s;

  t_reader_config (&rc, a->ch, dir, 0);
  if (doradma_reader_open (&rc, &r, &diag) != 0) {
    t_log ("hoarder open: %s", diag.msg);
    return 1;
  }
  doradma_reader_get_stats (r, &st);
  ctl = t_ctl_map (dir, a->ch);
  if (ctl == NULL)
    return 1;
  for (s = 0; s < 64; s++)
    __atomic_store_n (&ctl->lease[s].readers, ~a->spare, __ATOMIC_RELEASE);
  if (write (a->pipe_w, "x", 1) != 1)
    return 1;
  pause ();
  return 0;
}

static int
test_hoard (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f[8];
  struct doradma_diag diag;
  char ch[64], c;
  uint64_t t0, dt, seq;
  uint32_t slot;
  int n = 0, ret, i, p[2] = { -1, -1 };
  pid_t pid = -1;

  t_channel (ch, sizeof ch, "hoard");
  T_RC (t_open_pair (dir, ch, 4, 4096, 0, &w, &r), 0, "open");

  /* 1. An in-process reader leases every frame and keeps it. */
  for (;;) {
    ret = t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL);
    if (ret == -EAGAIN)
      break;
    T_RC (ret, 0, "publish");
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f[n], &diag), 0,
        "lease");
    n++;
    T_CHECK (n <= 4, "the writer reused a leased slot");
  }
  t_log ("hoarder holds %d leases of 4 slots", n);
  T_CHECK (n == 4, "every slot hoarded");
  t0 = t_now_ns ();
  for (i = 0; i < 100; i++)
    T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot), -EAGAIN,
        "latest acquire with every slot leased");
  dt = t_now_ns () - t0;
  t_log ("100 refused acquires took %.2f ms", dt / 1e6);
  T_CHECK (dt < 500 * MS, "acquire -EAGAIN is prompt");
  t0 = t_now_ns ();
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 150 * MS, &slot),
      -ETIMEDOUT, "acquire with a timeout");
  dt = t_now_ns () - t0;
  T_CHECK (dt >= 140 * MS && dt < 1000 * MS, "timeout honoured: %.1f ms",
      dt / 1e6);
  /* The leased frames are intact. */
  for (i = 0; i < n; i++)
    T_CHECK (t_check_stamps (f[i].data, 4096, f[i].info.seq, NULL) == 0,
        "hoarded frame %d intact", i);
  /* One release: the writer goes on with that slot only. */
  doradma_reader_release (r, f[0].slot);
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, &slot), 0,
      "publish after one release");
  T_CHECK (slot == f[0].slot, "the released slot was reused");
  for (i = 1; i < n; i++) {
    T_CHECK (t_check_stamps (f[i].data, 4096, f[i].info.seq, NULL) == 0,
        "hoarded frame %d intact", i);
    doradma_reader_release (r, f[i].slot);
  }

  /* 2. Another process writes all-ones into every lease word and sleeps
   * holding its entry: only its own bit survives the sweep, which is
   * enough to deny service while it lives. */
  T_CHECK (pipe (p) == 0, "pipe");
  {
    struct doradma_reader_stats rs;
    struct hoard_arg a = { ch, p[1], 0 };
    doradma_reader_get_stats (r, &rs);
    a.spare = 1ull << rs.entry;
    pid = t_fork (hoarder, &a);
  }
  T_CHECK (pid > 0, "fork");
  T_CHECK (read (p[0], &c, 1) == 1, "hoarder ready");
  t0 = t_now_ns ();
  ret = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot);
  T_RC (ret, -EAGAIN, "acquire against an all-ones hoarder");
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 100 * MS, &slot),
      -ETIMEDOUT, "acquire with timeout against the hoarder");
  T_CHECK (t_now_ns () - t0 < 1000 * MS, "bounded");
  kill (pid, SIGKILL);
  T_CHECK (t_wait (pid, 5000) == 128 + SIGKILL, "hoarder killed");
  pid = -1;
  /* Dead: the sweep reclaims its entry and every stray bit. */
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 2000 * MS, &slot), 0,
      "acquire after the hoarder died");
  T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
  for (i = 0; i < 20; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 1000 * MS, 4096, &seq, NULL), 0,
        "writer keeps publishing");
  T_RC (doradma_reader_next (r, DORADMA_READ_LATEST, 0, &f[0], &diag), 0,
      "honest reader after the hoarder");
  T_CHECK (f[0].info.seq == seq, "newest");
  doradma_reader_release (r, f[0].slot);

  close (p[0]);
  close (p[1]);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_PASS;
err:
  if (pid > 0) {
    kill (pid, SIGKILL);
    t_wait (pid, 5000);
  }
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

static int
test_lossless (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *stall = NULL, *hold = NULL;
  struct doradma_reader_config rc;
  struct doradma_frame f, kept;
  struct doradma_diag diag;
  struct doradma_writer_stats ws;
  char ch[64];
  uint64_t t0, dt, seq;
  uint32_t slot;
  int i, ret;

  t_channel (ch, sizeof ch, "lossless");
  T_RC (t_open_pair (dir, ch, 4, 4096, 1, &w, &stall), 0, "open");
  /* A second back-pressure reader that keeps pace but holds one lease. */
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &hold, &diag), 0, "open holder");

  for (i = 0; i < 4; i++) {
    T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 0, 4096, &seq, NULL), 0,
        "lossless publish into empty slots");
    T_RC (doradma_reader_next (hold, DORADMA_READ_NEXT, 0, &f, &diag), 0,
        "holder next");
    if (i == 3)
      kept = f;                 /* keep the newest frame's lease */
    else
      doradma_reader_release (hold, f.slot);
  }
  /* `stall` never consumed anything: every slot holds an unconsumed frame. */
  t0 = t_now_ns ();
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LOSSLESS, 0, &slot), -EAGAIN,
      "lossless acquire, no wait");
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LOSSLESS, 200 * MS, &slot),
      -ETIMEDOUT, "lossless acquire with a stalled reader");
  dt = t_now_ns () - t0;
  T_CHECK (dt >= 190 * MS && dt < 1500 * MS, "timeout honoured: %.1f ms",
      dt / 1e6);

  memset (&diag, 0, sizeof diag);
  ret = doradma_writer_evict_stalled (w, &diag);
  T_CHECK (ret == 1, "evicted %d readers (%s)", ret, diag.msg);
  t_log ("evict: %s", diag.msg);
  {
    char pid[32];
    snprintf (pid, sizeof pid, "pid %d", (int) getpid ());
    T_CHECK (strstr (diag.msg, pid) != NULL, "diag names the pid");
  }
  doradma_writer_get_stats (w, &ws);
  T_CHECK (ws.evicted == 1, "stats.evicted");

  /* Unblocked; the holder's leased frame is never reused. */
  for (i = 0; i < 12; i++) {
    T_RC (t_publish (w, DORADMA_POLICY_LOSSLESS, 500 * MS, 4096, &seq, &slot),
        0, "lossless publish after eviction");
    T_CHECK (slot != kept.slot, "a leased slot was reused after eviction");
    T_RC (doradma_reader_next (hold, DORADMA_READ_NEXT, 0, &f, &diag), 0,
        "holder keeps pace");
    doradma_reader_release (hold, f.slot);
  }
  T_CHECK (t_check_stamps (kept.data, 4096, kept.info.seq, NULL) == 0,
      "the holder's lease survived eviction");
  doradma_reader_release (hold, kept.slot);

  /* The evicted reader resumes at the newest frame, with a gap. */
  T_RC (doradma_reader_next (stall, DORADMA_READ_NEXT, 0, &f, &diag), 0,
      "evicted reader resumes");
  T_CHECK (f.info.seq == seq, "resumes at newest (%llu, want %llu)",
      (unsigned long long) f.info.seq, (unsigned long long) seq);
  doradma_reader_release (stall, f.slot);
  {
    struct doradma_reader_stats rs;
    doradma_reader_get_stats (stall, &rs);
    T_CHECK (rs.evicted, "reader stats.evicted");
  }

  doradma_reader_close (stall);
  doradma_reader_close (hold);
  doradma_writer_close (w);
  return T_EXIT_PASS;
err:
  doradma_reader_close (stall);
  doradma_reader_close (hold);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* garbage in the control object                                            */
/* ------------------------------------------------------------------------ */

static uint64_t
rnd64 (void)
{
  return ((uint64_t) random () << 42) ^ ((uint64_t) random () << 21) ^
      (uint64_t) random ();
}

static int
test_ctl (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_shm_ctl *ctl = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  struct doradma_reader_stats rs;
  char ch[64];
  uint64_t seq, ours, mine;
  uint32_t slot;
  int round, i, s, e, ret, blocked = 0;

  srandom ((unsigned) t_now_ns ());
  t_channel (ch, sizeof ch, "ctl");
  T_RC (t_open_pair (dir, ch, 8, 4096, 1, &w, &r), 0, "open");
  doradma_reader_get_stats (r, &rs);
  ours = 1ull << rs.entry;
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");

  for (round = 0; round < 20; round++) {
    /* Garbage everywhere but the honest reader's own entry and bit. */
    for (s = 0; s < 64; s++)
      __atomic_store_n (&ctl->lease[s].readers, rnd64 () & ~ours,
          __ATOMIC_RELAXED);
    __atomic_store_n (&ctl->active, rnd64 () | ~ours, __ATOMIC_RELAXED);
    for (e = 0; e < 64; e++) {
      struct doradma_shm_reader *ent = &ctl->readers[e];
      if ((1ull << e) & ours)
        continue;
      ent->state = (uint32_t) random () % 6;    /* 4, 5: no such state */
      ent->flags = (uint32_t) random ();
      ent->token = rnd64 ();
      ent->consumed_seq = (e & 1) ? UINT64_MAX - (uint64_t) e : 0;
      ent->pid = (uint32_t) random ();
    }
    /* The notify/space words: odd (a sleeper "announced") and huge. */
    __atomic_store_n (&ctl->space, (uint32_t) random () | 1, __ATOMIC_RELAXED);
    __atomic_store_n (&ctl->notify, (uint32_t) random () | 1, __ATOMIC_RELAXED);

    /* Both policies must keep publishing; lossless may need the sweep
     * (entries in ACTIVE+BACKPRESSURE with consumed 0 and no owner). */
    for (i = 0; i < 10; i++) {
      enum doradma_slot_policy pol = (i & 1) ? DORADMA_POLICY_LOSSLESS :
          DORADMA_POLICY_LATEST;
      uint64_t t0 = t_now_ns ();
      ret = t_publish (w, pol, 3000 * MS, 4096, &seq, &slot);
      T_RC (ret, 0, "publish after garbage");
      if (t_now_ns () - t0 > 50 * MS)
        blocked++;
      T_RC (doradma_reader_next (r, DORADMA_READ_LATEST, 500 * MS, &f, &diag),
          0, "honest reader");
      T_CHECK (t_check_stamps (f.data, 4096, f.info.seq, NULL) == 0,
          "frame intact");
      doradma_reader_release (r, f.slot);
    }
    /* Everything that was garbage is swept now, except what we own. */
    doradma_writer_sweep (w);
    for (s = 0; s < 64; s++) {
      mine = __atomic_load_n (&ctl->lease[s].readers, __ATOMIC_RELAXED);
      T_CHECK ((mine & ~ours) == 0, "slot %d: stray lease bits 0x%llx survive "
          "the sweep", s, (unsigned long long) mine);
    }
    for (e = 0; e < 64; e++)
      if (!((1ull << e) & ours))
        T_CHECK (ctl->readers[e].state == DORADMA_READER_FREE,
            "entry %d state %u after sweep", e, ctl->readers[e].state);
  }
  t_log ("20 garbage rounds, %d publishes waited > 50 ms (sweep)", blocked);

  /* A hostile peer can deny service with the honest reader's own bits
   * (documented); the writer still answers promptly and never blocks. */
  for (s = 0; s < 64; s++)
    __atomic_fetch_or (&ctl->lease[s].readers, ours, __ATOMIC_RELAXED);
  T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot), -EAGAIN,
      "every slot forged as leased by a live reader");
  /* Closing the reader clears its bits everywhere: back to service. */
  doradma_reader_close (r);
  r = NULL;
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL), 0,
      "publish after the forged reader left");

  t_ctl_unmap (ctl);
  doradma_writer_close (w);
  return T_EXIT_PASS;
err:
  t_ctl_unmap (ctl);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* read-only mapping                                                        */
/* ------------------------------------------------------------------------ */

static const char *ro_channel;

static int
ro_child (void *how)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_segment_info si;
  struct doradma_diag diag;
  volatile uint8_t *p;

  t_reader_config (&rc, ro_channel, dir, 0);
  if (doradma_reader_open (&rc, &r, &diag) != 0)
    return 2;
  doradma_reader_segment_info (r, &si);
  p = (volatile uint8_t *) si.map_base;
  /* Die of the signal itself, also under ASan/TSan (their SEGV handler
   * would turn it into a report and an abort). */
  {
    struct sigaction sa;
    memset (&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction (SIGSEGV, &sa, NULL);
    sigaction (SIGBUS, &sa, NULL);
  }
  switch ((int) (intptr_t) how) {
    case 0:                    /* the header */
      p[0] = 'X';
      return 3;
    case 1:                    /* a slot */
      p[si.slots_offset] = 'X';
      return 3;
    case 2:                    /* the RCB's newest word */
      p[si.slots_offset + si.slot_count * si.slot_stride + 0x48] = 0xff;
      return 3;
    case 3:                    /* make it writable */
      if (mprotect ((void *) si.map_base, si.map_size,
              PROT_READ | PROT_WRITE) == 0)
        return 4;
      return errno == EACCES ? 0 : 5;
    case 4:                    /* shrink it under everyone */
      if (ftruncate (doradma_reader_fd (r), 0) == 0)
        return 4;
      return 0;
    case 5:                    /* a new writable mapping of the same fd */
      if (mmap (NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
              doradma_reader_fd (r), 0) != MAP_FAILED)
        return 4;
      return errno == EACCES ? 0 : 5;
  }
  return 6;
}

static int
test_readonly (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  char ch[64];
  uint64_t seq;
  int how, st;

  t_channel (ch, sizeof ch, "ro");
  ro_channel = ch;
  T_RC (t_open_pair (dir, ch, 2, 4096, 0, &w, &r), 0, "open");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL), 0,
      "publish");
  for (how = 0; how < 6; how++) {
    pid_t pid = t_fork (ro_child, (void *) (intptr_t) how);
    st = t_wait (pid, 10000);
    if (how < 3)
      T_CHECK (st == 128 + SIGSEGV, "write %d through a reader mapping: "
          "child ended with %d, want SIGSEGV (%d)", how, st, 128 + SIGSEGV);
    else
      T_CHECK (st == 0, "attack %d by a reader: child ended with %d", how, st);
  }
  /* Nothing changed for the honest reader. */
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, &diag), 0, "next");
  T_CHECK (f.info.seq == seq && t_check_stamps (f.data, 4096, seq, NULL) == 0,
      "frame intact");
  doradma_reader_release (r, f.slot);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */
/* squatting                                                                */
/* ------------------------------------------------------------------------ */

#define SQUAT_UID 65534
#define VICTIM_UID 65533

struct squat_arg
{
  const char *ch;
  int mode;
  int valid;                    /* a real writer (else a plain file) */
  int ready, go;                /* pipes */
};

static int
become (uid_t uid)
{
  if (setgroups (0, NULL) != 0 || setresgid (uid, uid, uid) != 0 ||
      setresuid (uid, uid, uid) != 0) {
    t_log ("become uid %u: %s", (unsigned) uid, strerror (errno));
    return -1;
  }
  return 0;
}

static int
squatter (void *p)
{
  struct squat_arg *a = p;
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  char c, path[4096];

  if (become (SQUAT_UID) != 0)
    return 1;
  if (a->valid) {
    t_writer_config (&wc, a->ch, dir, 2, 4096);
    wc.mode = a->mode;
    if (doradma_writer_create (&wc, &w, &diag) != 0) {
      t_log ("squatter writer_create: %s", diag.msg);
      return 1;
    }
  } else {
    snprintf (path, sizeof path, "%s/doradma.%s", dir, a->ch);
    int fd = open (path, O_RDWR | O_CREAT | O_EXCL, a->mode);
    if (fd < 0)
      return 1;
    fchmod (fd, a->mode);
    close (fd);
  }
  if (write (a->ready, "r", 1) != 1 || read (a->go, &c, 1) != 1)
    return 1;
  if (w)
    doradma_writer_close (w);
  else
    unlink (path);
  return 0;
}

static const char *victim_ch;

static int
victim (void *p)
{
  int as_root = (int) (intptr_t) p;
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;
  int ret, fails = 0;

  if (!as_root && become (VICTIM_UID) != 0)
    return 1;
  t_writer_config (&wc, victim_ch, dir, 2, 4096);
  memset (&diag, 0, sizeof diag);
  ret = doradma_writer_create (&wc, &w, &diag);
  if (ret != -EPERM || strstr (diag.msg, "65534") == NULL) {
    t_log ("writer_create on a squatted name (uid %u): %s: %s", getuid (),
        t_errname (ret), diag.msg);
    fails++;
  } else
    t_log ("writer (uid %u): -EPERM: %s", getuid (), diag.msg);
  if (ret == 0)
    doradma_writer_close (w);
  t_reader_config (&rc, victim_ch, dir, 0);
  memset (&diag, 0, sizeof diag);
  ret = doradma_reader_open (&rc, &r, &diag);
  if (ret != -EPERM && ret != -EACCES) {
    t_log ("reader_open on a squatted name (uid %u): %s: %s", getuid (),
        t_errname (ret), diag.msg);
    fails++;
  } else
    t_log ("reader (uid %u): %s: %s", getuid (), t_errname (ret), diag.msg);
  if (ret == 0)
    doradma_reader_close (r);
  return fails ? 1 : 0;
}

static int
test_squat (void)
{
  static const struct
  {
    int mode, valid;
  } cases[] = {
    {0644, 1}, {0600, 1}, {0600, 0}, {0644, 0},
  };
  char ch[64];
  size_t i;

  if (geteuid () != 0) {
    printf ("SKIP: squatting needs a second uid: run as root\n");
    return T_EXIT_SKIP;
  }
  /* Both users need the directory, as /dev/shm (sticky, world-writable). */
  T_CHECK (chmod (dir, 01777) == 0, "chmod");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int ready[2], go[2], as_root;
    struct squat_arg a;
    pid_t sq;

    t_channel (ch, sizeof ch, "squat");
    victim_ch = ch;
    T_CHECK (pipe (ready) == 0 && pipe (go) == 0, "pipe");
    a.ch = ch;
    a.mode = cases[i].mode;
    a.valid = cases[i].valid;
    a.ready = ready[1];
    a.go = go[0];
    sq = t_fork (squatter, &a);
    {
      char c;
      T_CHECK (read (ready[0], &c, 1) == 1, "squatter ready");
    }
    t_log ("squatter uid %d, mode %04o, %s", SQUAT_UID, cases[i].mode,
        cases[i].valid ? "valid segment" : "plain file");
    for (as_root = 0; as_root < 2; as_root++)
      T_CHECK (t_wait (t_fork (victim, (void *) (intptr_t) as_root),
              10000) == 0, "victim (%s) case %zu",
          as_root ? "root" : "uid 65533", i);
    T_CHECK (write (go[1], "g", 1) == 1, "go");
    T_CHECK (t_wait (sq, 10000) == 0, "squatter");
    close (ready[0]);
    close (ready[1]);
    close (go[0]);
    close (go[1]);
  }
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

int
main (int argc, char **argv)
{
  /* *INDENT-OFF* */
  static const struct { const char *name; int (*fn) (void); } tests[] = {
    { "crafted", test_crafted }, { "json-deep", test_json_deep },
    { "record", test_record }, { "caps", test_caps },
    { "hoard", test_hoard }, { "lossless", test_lossless },
    { "ctl", test_ctl }, { "readonly", test_readonly },
    { "squat", test_squat },
  };
  /* *INDENT-ON* */
  int ret = T_EXIT_FAIL, leftovers;
  size_t i;

  if (argc != 2) {
    fprintf (stderr, "usage: %s CASE\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (50);
  dir = t_shm_dir_new (NULL, "hostile");
  if (dir == NULL)
    return T_EXIT_FAIL;
  for (i = 0; i < sizeof tests / sizeof tests[0]; i++)
    if (strcmp (argv[1], tests[i].name) == 0)
      ret = tests[i].fn ();
  leftovers = t_shm_dir_remove (dir);
  if (leftovers > 0 && ret == T_EXIT_PASS) {
    t_log ("%d objects left in the private shm dir", leftovers);
    ret = T_EXIT_FAIL;
  }
  return ret;
}
