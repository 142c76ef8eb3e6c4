/* doradma — dora-rs memory-pool segments (a second format, beside the ring).
 *
 * A dora pool is ONE buffer in a named POSIX shm object, described by a
 * 256-byte fixed header and a JSON object, guarded by a single generation
 * word (a seqlock) and nothing else: no leases, no futex, no liveness. The
 * format and every rule cited here as "spec §N" are in
 * docs/dora.md and the project's reference copy of the dora interop spec.
 *
 *   0    magic "DORADMA\0"      8   json_len (u64 LE)   16 data_offset (u64 LE)
 *   24   ipc_flag (== 1: CUDA IPC handle present)       32 ipc handle (64 B)
 *   96   write_gen (u64, atomic: even = complete, odd = being written)
 *   104  reserved (zero)        256 JSON (json_len B), zero padding
 *   data_offset  payload (`size` bytes; absent in a header-only ipc pool)
 *
 * Reading (spec §6, §4.1):
 *   doradma_pool_reader_open()   validates the header and JSON once (a
 *                                pread copy, before mapping) into a private
 *                                struct doradma_pool_info (no double fetch);
 *   doradma_pool_reader_copy()   copies the payload of a NEW complete
 *                                generation: acquire-load gen (odd: none),
 *                                copy (pread from the fd: a pool shrunk
 *                                under it is a short read, not SIGBUS),
 *                                acquire fence, relaxed reload; a changed
 *                                gen means the copy is torn and is never
 *                                reported as a frame;
 *   doradma_pool_read_begin()/_read_ok()   the same bracket for callers that
 *                                copy themselves (through a device alias).
 * Writing (the Rust crate's header and JSON, spec §1-§3):
 *   doradma_pool_writer_create() validates the name, refuses to clobber a
 *                                live writer's pool, replaces a stale one,
 *                                and publishes a complete header (mode 0600);
 *   doradma_pool_writer_begin()/_end()   gen odd, payload stores, gen even.
 *
 * Every int function returns 0 or -errno and fills the optional `diag`.
 * Nothing here is GStreamer, and nothing touches the doradma ring format. */
#ifndef DORADMA_DORA_POOL_H
#define DORADMA_DORA_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doradma/ring.h>       /* struct doradma_diag */

#ifdef __cplusplus
extern "C"
{
#endif

#define DORADMA_POOL_PREFIX "dora_pool_"
/* glibc refuses shm names with strlen + 1 >= NAME_MAX (spec §5.1) */
#define DORADMA_POOL_NAME_MAX 253u
#define DORADMA_POOL_HEADER_SIZE 256u
#define DORADMA_POOL_METADATA_ALIGN 256u
#define DORADMA_POOL_OFF_JSON_LEN 8u
#define DORADMA_POOL_OFF_DATA_OFFSET 16u
#define DORADMA_POOL_OFF_IPC_FLAG 24u
#define DORADMA_POOL_OFF_IPC_HANDLE 32u
#define DORADMA_POOL_IPC_HANDLE_LEN 64u
#define DORADMA_POOL_OFF_WRITE_GEN 96u
/* the payload cap of dora's writers (inclusive); enforced on create only */
#define DORADMA_POOL_MAX_BYTES (1ull << 30)
/* dimensions kept in struct doradma_pool_info (more are validated, not kept) */
#define DORADMA_POOL_MAX_DIMS 8u
/* the longest pool JSON read: dora defines no limit, real pools have < 200
 * bytes (8 dimensions with Python's whitespace stay under 400) */
#define DORADMA_POOL_JSON_MAX 4096u
/* bytes of the JSON kept for messages */
#define DORADMA_POOL_JSON_KEEP 1024u

  enum doradma_pool_transport
  {
    DORADMA_POOL_SHMEM = 0,     /* payload in the shm object */
    DORADMA_POOL_UNIFIED = 1,   /* same layout; readers may use a CUDA alias */
    DORADMA_POOL_IPC = 2,       /* header only; payload in another process's
                                 * GPU memory, reached by the IPC handle */
  };

  const char *doradma_pool_transport_name (enum doradma_pool_transport t);

/* What a validated header and JSON say; plain private copies. */
  struct doradma_pool_info
  {
    uint64_t segment_len;       /* fstat size of the object */
    uint64_t json_len;
    uint64_t data_offset;
    uint64_t ipc_flag;          /* raw; only == 1 means "handle present" */
    uint8_t ipc_handle[DORADMA_POOL_IPC_HANDLE_LEN];
    uint64_t size;              /* JSON size: payload bytes */
    char dtype[32];             /* JSON dtype (longer ones: unknown dtype) */
    unsigned elem_size;         /* bytes per element, 0 = unknown dtype */
    bool has_shape;
    unsigned n_dims;            /* may exceed DORADMA_POOL_MAX_DIMS */
    uint64_t shape[DORADMA_POOL_MAX_DIMS];
    char pinned_type[16];       /* "" when absent */
    enum doradma_pool_transport transport;      /* from ipc_flag, checked (§6.17) */
    char json[DORADMA_POOL_JSON_KEEP];  /* the JSON, for messages; NUL-
                                         * terminated, cut with "..." */
  };

/* A pool name: "dora_pool_" then 1.. bytes of [A-Za-z0-9_.-], no "..", no
 * '/', at most 253 bytes in all. Makes no system call.
 * Returns 0 or -EINVAL (diag.field "dora-pool"). */
  int doradma_pool_name_validate (const char *name, struct doradma_diag *diag);

/* Builds dora's "dora_pool_{dataflow}_{node}_{pool}" into `out`; each
 * component non-empty, no ".." (checked first: "path traversal"), only
 * [A-Za-z0-9_.-]. Returns 0, -EINVAL or -ENAMETOOLONG (over 253 bytes). */
  int doradma_pool_name_build (char *out, size_t out_size, const char *dataflow,
      const char *node, const char *pool, struct doradma_diag *diag);

/* Bytes per element of a dtype (spec §6 table; "torch." prefix and numpy
 * typestrs accepted), 0 when unknown. */
  unsigned doradma_pool_dtype_size (const char *dtype);

/* data_offset = 256 + ceil(json_len / 256) * 256, saturating. */
  uint64_t doradma_pool_data_offset_for (uint64_t json_len);

/* Every check of spec §6 (rules 1-22, 24) over `len` bytes at `seg`, which
 * may be shared memory that changes under us: the fixed header and the JSON
 * are copied first and only the copies are examined. Fills *info.
 * Returns 0 or -EBADMSG (diag.msg contains the spec's quoted fragment:
 * "too small", "past the end", "overflows", "does not fit", "magic", ...). */
  int doradma_pool_parse (const uint8_t * seg, uint64_t len,
      struct doradma_pool_info *info, struct doradma_diag *diag);

/* The same on the first `avail` bytes of a segment of `len` bytes (a pread
 * copy of its header and JSON; avail >= min (len, 256 +
 * DORADMA_POOL_JSON_MAX)), before anything is mapped. */
  int doradma_pool_parse_prefix (const uint8_t * head, uint64_t avail,
      uint64_t len, struct doradma_pool_info *info, struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Reader */

  struct doradma_pool_reader;

/* Opens <shm dir>/<name> (the shm dir is $DORADMA_SHM_DIR or /dev/shm, as
 * glibc's shm_open) read-only without blocking, validates the header and
 * JSON from a pread copy, then maps it whole (PROT_READ, not prefaulted).
 * The owner rule, as a ring reader's: the object must be a regular file
 * owned by our uid or by `allowed_uid` (-1: ours only) and not writable by
 * others; anyone else can plant a name in /dev/shm.
 * Returns 0, -EINVAL (bad name), -ENOENT (no such pool: diag names it),
 * -EPERM (another owner: diag field "owner"), -EACCES (we may not read it,
 * or it is writable by others: field "owner" / "mode"), -EAGAIN (refused,
 * but half-made: zeros where its creator has not yet written the header or
 * the JSON; diag names the rule, "not complete yet"; ask again), -EBADMSG
 * (not a regular file: field "object.type"; else diag names the rule). */
  int doradma_pool_reader_open (const char *shm_dir, const char *name,
      int64_t allowed_uid, struct doradma_pool_reader **out,
      struct doradma_diag *diag);

  const struct doradma_pool_info *doradma_pool_reader_info (const struct
      doradma_pool_reader *r);
/* Mapping base (the object's byte 0) and its length: what a CUDA host
 * registration must cover (spec §3). */
  const uint8_t *doradma_pool_reader_base (const struct doradma_pool_reader *r);
  int doradma_pool_reader_fd (const struct doradma_pool_reader *r);

/* Opens a read: the acquire-loaded generation in *gen (a load from the
 * mapping, after an fstat). Returns 0 when it is even (a complete payload),
 * -EAGAIN when odd (being written, or abandoned mid-write), -EBADMSG when
 * the object is now shorter than its 256-byte header (shrunk by its owner:
 * the load would fault). */
  int doradma_pool_read_begin (const struct doradma_pool_reader *r,
      uint64_t * gen);
/* Closes a read opened with `gen`: acquire fence, relaxed reload (false,
 * without the load, when the object is now shorter than its header). True
 * when the bytes copied in between are one complete generation. */
  bool doradma_pool_read_ok (const struct doradma_pool_reader *r, uint64_t gen);

/* Copies `n` payload bytes (n <= info.size; host pools only) into `dst`
 * if a complete generation other than `last_gen` is present, with pread
 * from the pool's fd (one copy; no payload byte is loaded from the
 * mapping).
 * Returns 0 (copied; *gen = its generation), -EAGAIN (no new complete
 * generation: odd, or still `last_gen`), -ESTALE (torn: the writer moved
 * during the copy; dst holds garbage), -EBADMSG (the object shrank below
 * the payload before or during the copy: diag names the pool and its size
 * now), -ENODATA (an ipc pool: no payload in this object). */
  int doradma_pool_reader_copy (struct doradma_pool_reader *r, void *dst,
      size_t n, uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag);

/* The same for `rows` rows of `row_bytes`, `src_pitch` apart in the payload
 * and `dst_pitch` apart in `dst` (a tightly packed tensor into padded
 * GStreamer rows). -EINVAL when the rows do not fit the payload. */
  int doradma_pool_reader_copy_rows (struct doradma_pool_reader *r, void *dst,
      size_t dst_pitch, size_t src_pitch, size_t row_bytes, size_t rows,
      uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag);

/* One rectangle of a copy: `rows` rows of `row_bytes`, from payload byte
 * `src_offset` on, `src_pitch` apart, to `dst_offset` on in the
 * destination, `dst_pitch` apart (a plane of a video frame). */
  struct doradma_pool_rect
  {
    uint64_t src_offset;
    size_t src_pitch;
    size_t dst_offset;
    size_t dst_pitch;
    size_t row_bytes;
    size_t rows;
  };

/* The bounds of every copy: each of the `n` rects is non-empty, its rows no
 * wider than either pitch, and it fits the `payload` bytes it reads and
 * the `dst_len` bytes it writes (no overflow on the way). Makes no system
 * call: callers that copy themselves (through a device alias) check their
 * rects here once. Returns 0 or -EINVAL (diag field "size" names the rect,
 * its sizes and the bound it crosses). */
  int doradma_pool_rects_check (const struct doradma_pool_rect *rects,
      unsigned n, uint64_t payload, size_t dst_len, struct doradma_diag *diag);

/* doradma_pool_reader_copy_rows for `n` rects (the planes of one frame),
 * all inside one generation bracket: one complete generation, or -ESTALE.
 * The rects are checked by doradma_pool_rects_check against info.size and
 * `dst_len` first (-EINVAL). */
  int doradma_pool_reader_copy_rects (struct doradma_pool_reader *r,
      void *dst, size_t dst_len, const struct doradma_pool_rect *rects,
      unsigned n, uint64_t last_gen, uint64_t * gen, struct doradma_diag *diag);

/* 1 when the name no longer resolves to the object we map (freed or
 * re-created by its writer), 0 when it still does. */
  int doradma_pool_reader_replaced (const struct doradma_pool_reader *r);

  void doradma_pool_reader_close (struct doradma_pool_reader *r);

/* ------------------------------------------------------------------------ */
/* Writer */

  struct doradma_pool_writer_config
  {
    const char *shm_dir;        /* NULL: $DORADMA_SHM_DIR or /dev/shm */
    const char *name;           /* validated by doradma_pool_name_validate */
    const char *dtype;          /* e.g. "uint8"; [A-Za-z0-9._<>|=] only */
    const uint64_t *shape;      /* 1..DORADMA_POOL_MAX_DIMS dims */
    unsigned n_dims;
    uint64_t size;              /* payload bytes; 0 = product(shape) * elem */
    enum doradma_pool_transport transport;      /* shmem or unified (ipc refused) */
  };

  struct doradma_pool_writer;

/* Creates the pool, exclusively, mode 0600, complete before its name exists
 * (O_TMPFILE, posix_fallocate, header, JSON, then linkat). The writer holds
 * an OFD write lock on byte 0 for its life. An object already at the name:
 *   - locked by another doradma writer: -EBUSY;
 *   - mapped writable by any process we can see (a dora writer, or a dora
 *     reader, which maps read-write): -EBUSY, diag names the pid;
 *   - owned by another user or not a regular file: -EPERM / -EINVAL;
 *   - otherwise stale: locked by us, checked to still be at the name,
 *     unlinked, and our new object linked in its place.
 * The new pool's gen is 1 (odd: nothing written yet), so no reader accepts
 * the zero payload as a frame (dora's Rust writer leaves 0: spec §10.6).
 * Returns 0, -EINVAL, -EBUSY, -EPERM, -ENOSPC, -EFBIG (size over 1 GiB). */
  int doradma_pool_writer_create (const struct doradma_pool_writer_config *cfg,
      struct doradma_pool_writer **out, struct doradma_diag *diag);

  uint8_t *doradma_pool_writer_payload (struct doradma_pool_writer *w);
  uint64_t doradma_pool_writer_size (const struct doradma_pool_writer *w);
/* The compact JSON written at byte 256 (NUL-terminated). */
  const char *doradma_pool_writer_json (const struct doradma_pool_writer *w);

/* Starts a write: gen to odd (unless a previous cycle was abandoned and it
 * is odd already), release fence. Returns the even baseline. */
  uint64_t doradma_pool_writer_begin (struct doradma_pool_writer *w);
/* Ends a write: ok publishes baseline + 2 with a release store; !ok leaves
 * gen odd (the payload is destroyed; readers see no frame until the next
 * successful write). */
  void doradma_pool_writer_end (struct doradma_pool_writer *w,
      uint64_t baseline, bool ok);

/* Unmaps, unlinks the name if it still resolves to our object, releases the
 * lock. NULL is a no-op. */
  void doradma_pool_writer_close (struct doradma_pool_writer *w);

#ifdef __cplusplus
}
#endif
#endif                          /* DORADMA_DORA_POOL_H */
