/* dora pools: open and read (the generation protocol, spec §4.1), create
 * and write (the Rust crate's header and JSON, spec §1-§3), and the
 * liveness judgement that keeps a writer from clobbering a live pool. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include <glib.h>

#include <doradma/dora-pool.h>

#include "atomic.h"
#include "door.h"
#include "keep-errno.h"
#include "liveness.h"
#include "segment-desc.h"       /* diag_set */

#define DORADMA_API __attribute__ ((visibility ("default")))


static int
pool_path (char *path, size_t size, const char *shm_dir, const char *name,
    struct doradma_diag *diag)
{
  int n = snprintf (path, size, "%s/%s", doradma_shm_dir (shm_dir), name);

  if (n < 0 || (size_t) n >= size)
    return diag_set (diag, -ENAMETOOLONG, "shm_dir",
        "path of dora pool \"%s\" is too long", name);
  return 0;
}

/* The generation word inside a mapping; the base is page-aligned. */
static uint64_t *
gen_word (const uint8_t * base)
{
  return (uint64_t *) (uintptr_t) (base + DORADMA_POOL_OFF_WRITE_GEN);
}

/* ------------------------------------------------------------------------ */
/* Reader */

struct doradma_pool_reader
{
  int fd;
  uint8_t *base;
  uint64_t map_len;
  dev_t dev;
  ino_t ino;
  char path[PATH_MAX];
  struct doradma_pool_info info;
};

static bool
all_zero (const uint8_t * p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    if (p[i] != 0)
      return false;
  return true;
}

static uint64_t
le64 (const uint8_t * p)
{
  uint64_t v = 0;
  int i;

  for (i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* A pool that its creator is still writing (F1): dora's crate creates with
 * shm_open (O_CREAT | O_EXCL), ftruncate, mmap, then writes the magic,
 * json_len, data_offset and the JSON, in that order, into zero-filled
 * memory. Until it is done a reader sees nothing but zeros (0 bytes, or a
 * zero magic), or a header whose json_len / data_offset is still 0, or a
 * JSON with NUL bytes in it (JSON text never holds one). Called only for a
 * pool the parser refused: a complete pool is never taken for one. */
static bool
half_made (const uint8_t * head, size_t avail, uint64_t len)
{
  uint64_t json_len;

  if (len < DORADMA_POOL_HEADER_SIZE)
    return all_zero (head, avail);
  if (all_zero (head, 8))
    return true;
  json_len = le64 (head + DORADMA_POOL_OFF_JSON_LEN);
  if (json_len == 0 || le64 (head + DORADMA_POOL_OFF_DATA_OFFSET) == 0)
    return true;
  if (json_len > avail - DORADMA_POOL_HEADER_SIZE)
    json_len = avail - DORADMA_POOL_HEADER_SIZE;
  return memchr (head + DORADMA_POOL_HEADER_SIZE, 0, json_len) != NULL;
}

/* The parser's refusal, kept, said to be "not yet" */
static int
not_yet (struct doradma_diag *diag)
{
  char why[sizeof diag->msg];

  if (diag == NULL)
    return -EAGAIN;
  g_strlcpy (why, diag->msg, sizeof why);
  return diag_set (diag, -EAGAIN, diag->field, "%s (not complete yet: its "
      "creator may still be writing it)", why);
}

DORADMA_API int
doradma_pool_reader_open (const char *shm_dir, const char *name,
    int64_t allowed_uid, struct doradma_pool_reader **out,
    struct doradma_diag *diag)
{
  KEEP_ERRNO;
  struct door_rule rule = { allowed_uid, false, false, 0 };
  struct doradma_pool_reader *r;
  struct stat st;
  uint8_t *head = NULL;
  size_t avail;
  void *map;
  int ret;

  *out = NULL;
  if ((ret = doradma_pool_name_validate (name, diag)) < 0)
    return ret;
  r = g_new0 (struct doradma_pool_reader, 1);
  r->fd = -1;
  if ((ret = pool_path (r->path, sizeof r->path, shm_dir, name, diag)) < 0)
    goto fail;
  /* the door (door.h): no blocking on a FIFO, a regular file of our uid or
   * the allowed one, nobody else may write it */
  ret = door_open (r->path, r->path, O_RDONLY, &rule, &r->fd, &st, diag);
  if (ret == -ENOENT)
    /* 23: a missing segment names the segment */
    diag_set (diag, ret, "dora-pool", "cannot open dora pool %s: %s",
        r->path, g_strerror (-ret));
  if (ret < 0)
    goto fail;
  r->dev = st.st_dev;
  r->ino = st.st_ino;
  /* The header and JSON from a pread copy, validated before anything is
   * mapped (rule 1 first: mmap refuses length 0). */
  avail = (uint64_t) st.st_size < DORADMA_POOL_HEADER_SIZE +
      DORADMA_POOL_JSON_MAX ? (size_t) st.st_size : DORADMA_POOL_HEADER_SIZE +
      DORADMA_POOL_JSON_MAX;
  head = g_malloc (avail ? avail : 1);
  if (pread (r->fd, head, avail, 0) != (ssize_t) avail) {
    ret = diag_set (diag, -EBADMSG, "segment",
        "dora pool %s shrank while its header was read", r->path);
    goto fail;
  }
  if ((ret = doradma_pool_parse_prefix (head, avail, (uint64_t) st.st_size,
              &r->info, diag)) < 0) {
    if (half_made (head, avail, (uint64_t) st.st_size))
      ret = not_yet (diag);
    goto fail;
  }
  /* read-only: we never write a pool we read, and our mapping then never
   * counts as a writer in doradma_pool_writer_create's liveness scan; not
   * prefaulted: the payload pages are touched by the copies only */
  r->map_len = (uint64_t) st.st_size;
  if ((ret = door_map (r->fd, &st, r->map_len, PROT_READ, false, r->path,
              &map, diag)) < 0)
    goto fail;
  r->base = map;
  g_free (head);
  *out = r;
  return 0;

fail:
  g_free (head);
  doradma_pool_reader_close (r);
  return ret;
}

DORADMA_API const struct doradma_pool_info *
doradma_pool_reader_info (const struct doradma_pool_reader *r)
{
  KEEP_ERRNO;
  return &r->info;
}

DORADMA_API const uint8_t *
doradma_pool_reader_base (const struct doradma_pool_reader *r)
{
  KEEP_ERRNO;
  return r->base;
}

DORADMA_API int
doradma_pool_reader_fd (const struct doradma_pool_reader *r)
{
  KEEP_ERRNO;
  return r->fd;
}

/* Is the header (with the generation word) still inside the object? Any
 * size of at least one byte keeps page 0; we ask for the whole header. A
 * cut to 0 bytes between this fstat and the load that follows it still
 * faults: docs/dora.md ("Copying") says so. */
static bool
header_mapped (const struct doradma_pool_reader *r)
{
  struct stat st;

  return fstat (r->fd, &st) == 0 &&
      (uint64_t) st.st_size >= DORADMA_POOL_HEADER_SIZE;
}

DORADMA_API int
doradma_pool_read_begin (const struct doradma_pool_reader *r, uint64_t * gen)
{
  KEEP_ERRNO;

  /* the generation word is the one part of the pool still read from the
   * mapping (an atomic load): in an object cut below its header (to 0
   * bytes, page 0 gone) that load would fault (SIGBUS) */
  if (!header_mapped (r))
    return -EBADMSG;
  /* ACQUIRE pairs with the writer's release store of the even value: the
   * payload stores of that generation are visible to the copy that
   * follows. */
  *gen = dr_load_acquire (gen_word (r->base));
  return (*gen & 1) ? -EAGAIN : 0;
}

DORADMA_API bool
doradma_pool_read_ok (const struct doradma_pool_reader *r, uint64_t gen)
{
  KEEP_ERRNO;
  /* The acquire FENCE keeps the payload loads above from moving after the
   * reload (an acquire load would not); pairs with the writer's release
   * fence after its odd store: if we copied any byte of the next write, we
   * see its odd (or later) generation here. */
  dr_fence_acquire ();
  /* cut below its header during the copy: torn, and no load to fault */
  return (gen & 1) == 0 && header_mapped (r) &&
      dr_load_relaxed (gen_word (r->base)) == gen;
}

/* One extent of a rect: `rows` rows of `row_bytes`, `pitch` apart, from
 * `offset` on, inside `limit` bytes; each step checked before it can wrap.
 * row_bytes first: it bounds the subtraction, and a zero row (or pitch)
 * would divide by zero below. */
static bool
extent_fits (uint64_t offset, uint64_t pitch, uint64_t row_bytes,
    uint64_t rows, uint64_t limit)
{
  return rows != 0 && row_bytes != 0 && row_bytes <= pitch &&
      offset <= limit && row_bytes <= limit - offset &&
      (rows - 1) <= (limit - offset - row_bytes) / pitch;
}

DORADMA_API int
doradma_pool_rects_check (const struct doradma_pool_rect *rects, unsigned n,
    uint64_t payload, size_t dst_len, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  unsigned i;

  if (n == 0)
    return diag_set (diag, -EINVAL, "size", "a copy of no rectangle");
  for (i = 0; i < n; i++) {
    const struct doradma_pool_rect *q = &rects[i];

    if (!extent_fits (q->src_offset, q->src_pitch, q->row_bytes, q->rows,
            payload))
      return diag_set (diag, -EINVAL, "size",
          "rect %u: %zu rows of %zu bytes, %zu apart from byte %" PRIu64
          ", do not fit the %" PRIu64 "-byte payload", i, q->rows,
          q->row_bytes, q->src_pitch, q->src_offset, payload);
    if (!extent_fits (q->dst_offset, q->dst_pitch, q->row_bytes, q->rows,
            dst_len))
      return diag_set (diag, -EINVAL, "size",
          "rect %u: %zu rows of %zu bytes, %zu apart from byte %zu, do not "
          "fit the %zu-byte destination", i, q->rows, q->row_bytes,
          q->dst_pitch, q->dst_offset, dst_len);
  }
  return 0;
}

/* The pool that a read met the end of: shrunk by its owner. Names it and
 * its size now. Returns -EBADMSG. */
static int
shrank (const struct doradma_pool_reader *r, struct doradma_diag *diag)
{
  const struct doradma_pool_info *info = &r->info;
  struct stat st;

  if (fstat (r->fd, &st) != 0)
    st.st_size = -1;
  return diag_set (diag, -EBADMSG, "segment",
      "dora pool %s shrank below its payload (data_offset %" PRIu64
      " + size %" PRIu64 "): it now has %jd bytes", r->path,
      info->data_offset, info->size, (intmax_t) st.st_size);
}

/* Reads into the `n` iovecs from byte `off` of `fd` on. Returns 0,
 * -ENODATA (the end of the object came first), -errno. */
static int
pread_full (int fd, struct iovec *iov, int n, uint64_t off)
{
  while (n > 0) {
    ssize_t got = preadv (fd, iov, n, (off_t) off);

    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -errno;
    if (got == 0)
      return -ENODATA;
    off += (uint64_t) got;
    for (; n > 0 && (size_t) got >= iov->iov_len; iov++, n--)
      got -= (ssize_t) iov->iov_len;
    if (n > 0) {
      iov->iov_base = (uint8_t *) iov->iov_base + got;
      iov->iov_len -= (size_t) got;
    }
  }
  return 0;
}

/* rows gathered by one preadv (IOV_MAX is 1024) */
#define ROWS_PER_READ 64u

/* Copies one checked rect from the payload at byte `payload` of the
 * object: a contiguous one in one read, packed rows into padded ones
 * ROWS_PER_READ rows a read, rows apart in the source one read each. */
static int
read_rect (int fd, uint64_t payload, uint8_t * dst,
    const struct doradma_pool_rect *q)
{
  struct iovec iov[ROWS_PER_READ];
  size_t i, k, n;
  int ret;

  if (q->src_pitch == q->row_bytes && q->dst_pitch == q->row_bytes) {
    iov[0].iov_base = dst + q->dst_offset;
    iov[0].iov_len = q->rows * q->row_bytes;
    return pread_full (fd, iov, 1, payload + q->src_offset);
  }
  for (i = 0; i < q->rows; i += n) {
    n = q->src_pitch == q->row_bytes ? MIN (q->rows - i, ROWS_PER_READ) : 1;
    for (k = 0; k < n; k++) {
      iov[k].iov_base = dst + q->dst_offset + (i + k) * q->dst_pitch;
      iov[k].iov_len = q->row_bytes;
    }
    if ((ret = pread_full (fd, iov, (int) n, payload + q->src_offset +
                (uint64_t) i * q->src_pitch)) < 0)
      return ret;
  }
  return 0;
}

DORADMA_API int
doradma_pool_reader_copy_rects (struct doradma_pool_reader *r, void *dst,
    size_t dst_len, const struct doradma_pool_rect *rects, unsigned n,
    uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  const struct doradma_pool_info *info = &r->info;
  uint64_t g;
  unsigned k;
  int ret;

  if (info->transport == DORADMA_POOL_IPC)
    return diag_set (diag, -ENODATA, "transport",
        "dora pool %s is an ipc pool: its payload is in GPU memory", r->path);
  if ((ret = doradma_pool_rects_check (rects, n, info->size, dst_len,
              diag)) < 0)
    return ret;
  ret = doradma_pool_read_begin (r, &g);
  if (ret == -EBADMSG)
    return shrank (r, diag);
  if (ret < 0 || g == last_gen)
    return -EAGAIN;
  /* The payload is read from the fd, not the mapping: an owner that
   * shrinks the object before or during the copy makes it a short read
   * here, where a load from the mapping would fault (SIGBUS). Still one
   * copy, inside the generation bracket: the kernel's loads are this
   * thread's, ordered by the acquire load above and the fence of
   * doradma_pool_read_ok as the memcpy's were. */
  for (k = 0; k < n; k++)
    if ((ret = read_rect (r->fd, info->data_offset, dst, &rects[k])) < 0)
      return ret == -ENODATA ? shrank (r, diag) :
          diag_set (diag, ret, "segment", "read of dora pool %s: %s",
          r->path, g_strerror (-ret));
  if (!doradma_pool_read_ok (r, g))
    return -ESTALE;
  *gen = g;
  return 0;
}

DORADMA_API int
doradma_pool_reader_copy_rows (struct doradma_pool_reader *r, void *dst,
    size_t dst_pitch, size_t src_pitch, size_t row_bytes, size_t rows,
    uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  const struct doradma_pool_rect q = {
    .src_offset = 0,.src_pitch = src_pitch,.dst_offset = 0,
    .dst_pitch = dst_pitch,.row_bytes = row_bytes,.rows = rows,
  };

  /* the caller sized dst for these rows: bounded only against wrapping */
  return doradma_pool_reader_copy_rects (r, dst, SIZE_MAX, &q, 1, last_gen,
      gen, diag);
}

DORADMA_API int
doradma_pool_reader_copy (struct doradma_pool_reader *r, void *dst, size_t n,
    uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  return doradma_pool_reader_copy_rows (r, dst, n, n, n, 1, last_gen, gen,
      diag);
}

DORADMA_API int
doradma_pool_reader_replaced (const struct doradma_pool_reader *r)
{
  KEEP_ERRNO;
  struct stat st;

  if (stat (r->path, &st) != 0)
    return 1;
  return st.st_dev != r->dev || st.st_ino != r->ino;
}

DORADMA_API void
doradma_pool_reader_close (struct doradma_pool_reader *r)
{
  KEEP_ERRNO;
  if (r == NULL)
    return;
  if (r->base)
    munmap (r->base, r->map_len);
  if (r->fd >= 0)
    close (r->fd);
  g_free (r);
}

/* ------------------------------------------------------------------------ */
/* Liveness of an existing pool */

/* Returns the pid of a visible process with a writable shared mapping of
 * (dev, ino), or 0. A dora writer keeps its pool mapped read-write for its
 * life (spec §5.2); so do dora readers, which is why a pool that a dora
 * reader still maps is not replaced either. Processes of other users are
 * not visible under hidepid, but their pools are not ours to replace:
 * ownership is checked first. */
static pid_t
find_writable_mapper (dev_t dev, ino_t ino)
{
  DIR *proc = opendir ("/proc");
  struct dirent *de;
  pid_t found = 0;

  if (proc == NULL)
    return 0;
  while (found == 0 && (de = readdir (proc)) != NULL) {
    char path[300], line[512];
    FILE *f;

    if (!isdigit ((unsigned char) de->d_name[0]))
      continue;
    snprintf (path, sizeof path, "/proc/%s/maps", de->d_name);
    if ((f = fopen (path, "re")) == NULL)
      continue;
    while (fgets (line, sizeof line, f) != NULL) {
      char perms[8];
      unsigned maj, min;
      unsigned long long inode;

      if (sscanf (line, "%*s %7s %*s %x:%x %llu", perms, &maj, &min,
              &inode) != 4)
        continue;
      if (inode == (unsigned long long) ino && makedev (maj, min) == dev
          && perms[1] == 'w' && perms[3] == 's') {
        found = (pid_t) atoi (de->d_name);
        break;
      }
    }
    fclose (f);
  }
  closedir (proc);
  return found;
}

/* Judges the object at `path` (opened read-write as `fd`, locked by us on
 * success). Returns 0 when it is stale and we hold its lock, else -errno. */
static int
claim_stale (int fd, const char *path, struct doradma_diag *diag)
{
  struct stat st, again;
  pid_t pid;
  int r;

  /* door_open admitted it: a regular file of ours */
  if (fstat (fd, &st) != 0)
    return diag_set (diag, -errno, "dora-pool", "fstat %s: %s", path,
        g_strerror (errno));
  /* a doradma writer holds byte 0 for its life */
  r = ofd_trylock (fd, 0);
  if (r == -EAGAIN)
    return diag_set (diag, -EBUSY, "dora-pool",
        "dora pool %s is in use: a doradma writer holds it", path);
  if (r < 0)
    return diag_set (diag, r, "dora-pool", "lock %s: %s", path,
        g_strerror (-r));
  if ((pid = find_writable_mapper (st.st_dev, st.st_ino)) != 0)
    return diag_set (diag, -EBUSY, "dora-pool",
        "dora pool %s is in use: process %d maps it read-write (a dora "
        "writer or reader)", path, (int) pid);
  /* still the object we judged? (another replacer may have won) */
  if (stat (path, &again) != 0 || again.st_ino != st.st_ino ||
      again.st_dev != st.st_dev)
    return -EAGAIN;
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Writer */

struct doradma_pool_writer
{
  int fd;
  uint8_t *base;
  uint64_t seg_len;
  uint64_t data_offset;
  uint64_t size;
  char *json;
  char path[PATH_MAX];
  dev_t dev;
  ino_t ino;
};

static int
dtype_validate (const char *dtype, struct doradma_diag *diag)
{
  size_t i;

  if (dtype == NULL || dtype[0] == '\0' || strlen (dtype) > 31)
    return diag_set (diag, -EINVAL, "dtype", "dtype must be 1-31 bytes");
  for (i = 0; dtype[i]; i++)
    if (!g_ascii_isalnum (dtype[i]) && strchr ("._<>|=", dtype[i]) == NULL)
      return diag_set (diag, -EINVAL, "dtype",
          "dtype \"%s\" has byte 0x%02x", dtype, (unsigned char) dtype[i]);
  return 0;
}

/* The Rust crate's compact JSON, keys in insertion order (spec §2). */
static char *
build_json (const struct doradma_pool_writer_config *cfg, uint64_t size)
{
  GString *s = g_string_new (NULL);
  unsigned i;

  g_string_append_printf (s, "{\"size\":%" PRIu64 ",\"dtype\":\"%s\","
      "\"shape\":[", size, cfg->dtype);
  for (i = 0; i < cfg->n_dims; i++)
    g_string_append_printf (s, "%s%" PRIu64, i ? "," : "", cfg->shape[i]);
  g_string_append_printf (s, "],\"pinned_type\":\"%s\",\"transport\":\"%s\"}",
      cfg->transport == DORADMA_POOL_SHMEM ? "cpu" : "cuda",
      doradma_pool_transport_name (cfg->transport));
  return g_string_free (s, FALSE);
}

static void
put_le64 (uint8_t * p, uint64_t v)
{
  int i;

  for (i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

DORADMA_API int
doradma_pool_writer_create (const struct doradma_pool_writer_config *cfg,
    struct doradma_pool_writer **out, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  /* an object at the name must be a regular file of ours, any mode */
  static const struct door_rule stale_rule = { -1, false, true, 0 };
  struct doradma_pool_writer *w;
  uint64_t elems = 1, json_len;
  char proc[64];
  struct stat st;
  unsigned i, esize;
  int ret, tries;

  *out = NULL;
  if ((ret = doradma_pool_name_validate (cfg->name, diag)) < 0 ||
      (ret = dtype_validate (cfg->dtype, diag)) < 0)
    return ret;
  if (cfg->transport == DORADMA_POOL_IPC)
    return diag_set (diag, -EINVAL, "transport",
        "dora's writers create shmem or unified pools only: an ipc pool "
        "needs cudaIpcGetMemHandle of a buffer dora's Python binding owns");
  if (cfg->transport != DORADMA_POOL_SHMEM &&
      cfg->transport != DORADMA_POOL_UNIFIED)
    return diag_set (diag, -EINVAL, "transport", "unknown transport %d",
        (int) cfg->transport);
  if (cfg->n_dims == 0 || cfg->n_dims > DORADMA_POOL_MAX_DIMS)
    return diag_set (diag, -EINVAL, "shape", "shape needs 1-%u dimensions",
        DORADMA_POOL_MAX_DIMS);
  esize = doradma_pool_dtype_size (cfg->dtype);
  for (i = 0; i < cfg->n_dims; i++) {
    if (cfg->shape[i] == 0 || elems > DORADMA_POOL_MAX_BYTES / cfg->shape[i])
      return diag_set (diag, -EFBIG, "shape",
          "shape dimension %u (%" PRIu64 ") is zero or makes the pool larger "
          "than 1 GiB", i, cfg->shape[i]);
    elems *= cfg->shape[i];
  }
  if (esize == 0)
    esize = 1;
  if (cfg->size != 0 && cfg->size < elems * esize)
    return diag_set (diag, -EINVAL, "size",
        "shape needs %" PRIu64 " bytes but the pool declares only %" PRIu64,
        elems * esize, cfg->size);
  w = g_new0 (struct doradma_pool_writer, 1);
  w->fd = -1;
  w->size = cfg->size ? cfg->size : elems * esize;
  if (w->size > DORADMA_POOL_MAX_BYTES) {
    ret = diag_set (diag, -EFBIG, "size", "pool of %" PRIu64
        " bytes is larger than dora's 1 GiB limit", w->size);
    goto fail;
  }
  w->json = build_json (cfg, w->size);
  json_len = strlen (w->json);
  w->data_offset = doradma_pool_data_offset_for (json_len);
  w->seg_len = w->data_offset + w->size;
  if ((ret = pool_path (w->path, sizeof w->path, cfg->shm_dir, cfg->name,
              diag)) < 0)
    goto fail;

  /* complete and locked before the name exists: no reader ever sees a
   * half-written header */
  w->fd = open (doradma_shm_dir (cfg->shm_dir), O_TMPFILE | O_RDWR | O_CLOEXEC,
      0600);
  if (w->fd < 0) {
    ret = diag_set (diag, -errno, "shm_dir", "O_TMPFILE in %s: %s",
        doradma_shm_dir (cfg->shm_dir), g_strerror (errno));
    goto fail;
  }
  /* shm_open's mode is masked by the umask; the pool is 0600 regardless */
  if (fchmod (w->fd, 0600) != 0) {
    ret = diag_set (diag, -errno, "dora-pool", "fchmod: %s",
        g_strerror (errno));
    goto fail;
  }
  /* allocate now: a full tmpfs is an error here, never a SIGBUS later */
  if ((ret = posix_fallocate (w->fd, 0, (off_t) w->seg_len)) != 0) {
    ret = diag_set (diag, ret == ENOSPC ? -ENOSPC : -ret, "shm_dir",
        "posix_fallocate %" PRIu64 " bytes in %s: %s", w->seg_len,
        doradma_shm_dir (cfg->shm_dir), g_strerror (ret));
    goto fail;
  }
  w->base = mmap (NULL, w->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd,
      0);
  if (w->base == MAP_FAILED) {
    w->base = NULL;
    ret = diag_set (diag, -errno, "dora-pool", "mmap: %s", g_strerror (errno));
    goto fail;
  }
  /* every header byte written explicitly, as the Rust crate does */
  memset (w->base, 0, w->data_offset);
  memcpy (w->base, "DORADMA", 8);
  put_le64 (w->base + DORADMA_POOL_OFF_JSON_LEN, json_len);
  put_le64 (w->base + DORADMA_POOL_OFF_DATA_OFFSET, w->data_offset);
  memcpy (w->base + DORADMA_POOL_HEADER_SIZE, w->json, json_len);
  /* odd until the first frame: a reader never takes the zeros for one */
  dr_store_release (gen_word (w->base), 1);
  if ((ret = ofd_trylock (w->fd, 0)) < 0) {
    diag_set (diag, ret, "dora-pool", "lock: %s", g_strerror (-ret));
    goto fail;
  }
  fstat (w->fd, &st);
  w->dev = st.st_dev;
  w->ino = st.st_ino;

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", w->fd);
  for (tries = 0;; tries++) {
    int old;

    if (linkat (AT_FDCWD, proc, AT_FDCWD, w->path, AT_SYMLINK_FOLLOW) == 0)
      break;
    if (errno != EEXIST || tries >= 8) {
      ret = diag_set (diag, -errno, "dora-pool", "link %s: %s", w->path,
          g_strerror (errno));
      goto fail;
    }
    ret = door_open (w->path, w->path, O_RDWR, &stale_rule, &old, &st, diag);
    if (ret == -ENOENT)
      continue;
    if (ret < 0) {
      /* someone else's, or not a pool at all: never ours to replace */
      ret = ret == -EBADMSG ? -EINVAL : ret == -EACCES ? -EPERM : ret;
      goto fail;
    }
    ret = claim_stale (old, w->path, diag);
    if (ret == 0 && unlink (w->path) != 0 && errno != ENOENT)
      ret = diag_set (diag, -errno, "dora-pool", "unlink stale %s: %s",
          w->path, g_strerror (errno));
    /* our link below happens while we still hold the stale one's lock:
     * a second replacer that opened it waits on that lock, then finds the
     * name no longer leads to it */
    if (ret == 0 &&
        linkat (AT_FDCWD, proc, AT_FDCWD, w->path, AT_SYMLINK_FOLLOW) == 0) {
      close (old);
      break;
    }
    close (old);
    if (ret < 0 && ret != -EAGAIN)
      goto fail;
  }
  *out = w;
  return 0;

fail:
  if (w->base)
    munmap (w->base, w->seg_len);
  if (w->fd >= 0)
    close (w->fd);
  g_free (w->json);
  g_free (w);
  return ret;
}

DORADMA_API uint8_t *
doradma_pool_writer_payload (struct doradma_pool_writer *w)
{
  KEEP_ERRNO;
  return w->base + w->data_offset;
}

DORADMA_API uint64_t
doradma_pool_writer_size (const struct doradma_pool_writer *w)
{
  KEEP_ERRNO;
  return w->size;
}

DORADMA_API const char *
doradma_pool_writer_json (const struct doradma_pool_writer *w)
{
  KEEP_ERRNO;
  return w->json;
}

DORADMA_API uint64_t
doradma_pool_writer_begin (struct doradma_pool_writer *w)
{
  KEEP_ERRNO;
  uint64_t *gen = gen_word (w->base);
  uint64_t cur = dr_load_relaxed (gen);

  /* odd already: the previous cycle was abandoned; do not bump again */
  if ((cur & 1) == 0)
    dr_store_relaxed (gen, cur + 1);
  /* orders the odd marker before the payload stores that follow (pairs
   * with the reader's acquire fence before its reload) */
  dr_fence_release ();
  return cur & ~(uint64_t) 1;
}

DORADMA_API void
doradma_pool_writer_end (struct doradma_pool_writer *w, uint64_t baseline,
    bool ok)
{
  KEEP_ERRNO;
  /* RELEASE: the payload stores are visible before the even value (pairs
   * with the reader's acquire load). A failed write stays odd. */
  if (ok)
    dr_store_release (gen_word (w->base), baseline + 2);
}

DORADMA_API void
doradma_pool_writer_close (struct doradma_pool_writer *w)
{
  KEEP_ERRNO;
  struct stat st;

  if (w == NULL)
    return;
  /* unlink only a name that still leads to our object (we hold its lock,
   * so no replacer took it as stale) */
  if (stat (w->path, &st) == 0 && st.st_ino == w->ino && st.st_dev == w->dev)
    unlink (w->path);
  munmap (w->base, w->seg_len);
  close (w->fd);
  g_free (w->json);
  g_free (w);
}
