/* doradma — public API of libdoradma, the shared-memory frame ring.
 *
 * One writer process creates a channel with doradma_writer_create(): a data
 * object (header, JSON, slots, ring control block) and a control object
 * (leases, reader entries, eventcounts), both complete before their names
 * exist, the writer holding an OFD lock on byte 0 of the data object for as
 * long as it lives.
 *
 * The writer loop is:
 *   doradma_writer_acquire()  choose a free slot and mark it WRITING (odd gen),
 *                             waiting for space in lossless mode;
 *   fill doradma_writer_slot_data() in place;
 *   doradma_writer_publish()  record geometry + timestamps, even gen, newest,
 *                             wake sleeping readers (no system call when none
 *                             sleeps), or doradma_writer_abandon() when the
 *                             frame will never be published;
 *   doradma_writer_eos()      at the end; doradma_writer_close() unlinks.
 *
 * Any number of reader processes (up to 64 per channel) open the channel with
 * doradma_reader_open(): it maps the data object read-only, validates every
 * byte once, joins by taking a reader entry's OFD lock, then loops:
 *   doradma_reader_next()     wait for and lease the next (or newest) frame;
 *                             the slot cannot be rewritten while leased;
 *   ... use frame.data ...
 *   doradma_reader_release()  from any thread, when the frame is done with.
 * or doradma_reader_copy_next(), which copies under the seqlock and takes no
 * lease. Dead readers are reclaimed by the writer; a dead writer is reported
 * to readers as -EOWNERDEAD within their wait slice.
 *
 * Every function returns 0 (or a count) on success and -errno on failure;
 * cold paths also fill an optional struct doradma_diag with a message naming
 * the object and the field at fault. No function logs, and none changes
 * the caller's errno (each restores it on return; tests/lib/errno-kept).
 */
#ifndef DORADMA_RING_H
#define DORADMA_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <doradma/layout.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error detail for cold paths, caller-owned, filled without allocation.
 * `field` is a static string naming the field at fault ("rcb.slot_count",
 * "name", "json.doradma.caps"...), NULL when no single field is at fault. */
struct doradma_diag {
  const char *field;
  char msg[200];
};

#define DORADMA_NAME_MAX 200u

/* Validates a channel name: 1..200 bytes of [A-Za-z0-9_.-], not starting with
 * '.', no "..". Makes no system call.
 * Returns 0, or -EINVAL (diag.field = "name"). */
int doradma_name_validate (const char *channel, struct doradma_diag *diag);

/* The shm directory: `dir` if not NULL, else $DORADMA_SHM_DIR if set and not
 * empty, else "/dev/shm". Never NULL. */
const char *doradma_shm_dir (const char *dir);

/* ------------------------------------------------------------------------ */
/* Frames                                                                   */
/* ------------------------------------------------------------------------ */

/* What a writer publishes with a frame and a reader gets back (validated). */
struct doradma_frame_info {
  uint64_t seq;             /* set by publish; >= 1 */
  uint32_t caps_epoch;      /* set by publish from the writer's current caps */
  uint32_t n_planes;
  uint32_t width, height;
  struct doradma_shm_plane planes[DORADMA_MAX_PLANES];
  uint32_t crop_x, crop_y, crop_width, crop_height;   /* crop_width 0 = none */
  uint64_t pts, dts, duration, offset, offset_end;    /* DORADMA_TIME_NONE */
  uint32_t flags;
  uint32_t video_flags;
  uint64_t payload_bytes;
  uint64_t publish_time;    /* set by publish (CLOCK_MONOTONIC ns) */
  uint64_t mono_pts;        /* PTS as CLOCK_MONOTONIC ns, or DORADMA_TIME_NONE */
};

/* A frame handed to a reader. */
struct doradma_frame {
  uint32_t slot;
  const uint8_t *data;      /* host pointer to the slot (NULL for device slots) */
  uint64_t data_offset;     /* offset of the slot from the data object's base */
  uint64_t skipped;         /* frames between the previous delivery and this one */
  struct doradma_frame_info info;
};

/* The frame record of `info` as a slot stores it (seq, caps_epoch and
 * publish_time included, reserved words zero). */
void doradma_frame_record_encode (const struct doradma_frame_info *info,
    struct doradma_shm_slot *rec);

/* Checks a local copy of a frame record by the slot record rules
 * (docs/format.md, "Reader validation"), with `capacity` as the slot
 * stride, and fills *info from the checked values. For records that did not
 * come from a ring (the network bridge's wire header). Returns 0 or
 * -EBADMSG (diag.field "slot.*"). */
int doradma_frame_record_validate (const struct doradma_shm_slot *rec,
    uint64_t capacity, struct doradma_frame_info *info,
    struct doradma_diag *diag);

/* The caps string rule of the ring: video/x-raw, no caps features, one
 * structure, printable ASCII, NUL within min (len, DORADMA_CAPS_MAX).
 * Returns 0 or -EBADMSG (diag.field "caps*"). */
int doradma_caps_validate (const char *caps, size_t len,
    struct doradma_diag *diag);

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */
/*                                                                          */
/* Every writer call is thread-safe (one mutex inside; waits happen outside */
/* it), except doradma_writer_close, which must be the last call.           */
/* ------------------------------------------------------------------------ */

struct doradma_writer;

enum doradma_slot_policy {
  DORADMA_POLICY_LATEST = 0,   /* never wait for readers */
  DORADMA_POLICY_LOSSLESS = 1, /* wait until every back-pressure reader consumed */
};

struct doradma_writer_config {
  const char *channel;
  const char *shm_dir;      /* NULL: doradma_shm_dir (NULL) */
  uint32_t slots;           /* 1..64 */
  uint64_t slot_size;       /* bytes a frame needs; rounded up to the page size */
  uint32_t mode;            /* file mode of both objects; 0 means 0600; o+w is -EINVAL */
  const char *caps;         /* initial caps, video/x-raw without caps features */
  const char *transport;    /* "shmem" (default), "unified" or "ipc": JSON only */
  const uint8_t *ipc_handle;/* 64 bytes: slots in device memory (ipc_flag 1), else NULL */
  uint64_t first_seq;       /* first frame sequence; 0 means 1; at most
                             * DORADMA_FIRST_SEQ_MAX (-EINVAL) */
  uint64_t latency;         /* producer latency, ns (0: unknown): in the RCB
                             * before the name is linked, so a reader that
                             * joins at once reads it */
};

/* Creates the channel. A stale channel (no live writer) is replaced; a live
 * writer's channel is refused.
 * Returns 0 and *out, or -EINVAL (bad name or config), -EBUSY (a live writer:
 * diag.msg names its pid), -EPERM (name owned by another user: diag names the
 * owner), -EPERM / -EISDIR (the name or doradma.<ch>~ctl held by another
 * user's object or a non-file that we cannot rename over: diag.field
 * "channel" or "ctl", diag.msg names its type and owner uid), -ENOSPC (shm
 * directory too small: diag names its free space), -errno of a failed
 * system call. On success diag is cleared (field NULL, msg ""). */
int doradma_writer_create (const struct doradma_writer_config *cfg,
    struct doradma_writer **out, struct doradma_diag *diag);

/* Replaces `old`'s segment by a new one built from `cfg` (same channel):
 * sequence numbers continue, back-pressure readers of `old` are carried over
 * as RESERVED entries, `old` gets final_seq and SUPERSEDED and its readers are
 * woken. `old` stays valid (its slots still mapped, abandon works) until
 * closed, but its acquire and publish return -ESTALE: nobody reads past its
 * final_seq. Closing it never unlinks the new segment. Errors as
 * doradma_writer_create; on any error `old` is not superseded and keeps
 * serving its readers. The data name names its data object again (a
 * failure at ~ctl renames it back over the data name; if that rename fails
 * too, diag names the data path). ~ctl names what it named before: after a
 * failure at ~ctl because the name is another's object (a squatter), new
 * readers cannot join until that object is gone. */
int doradma_writer_replace (struct doradma_writer *old,
    const struct doradma_writer_config *cfg, struct doradma_writer **out,
    struct doradma_diag *diag);

/* Clean stop: unlinks both names (~ctl first) if they still resolve to this
 * writer's objects and were not superseded, releases the lock, unmaps. NULL
 * is a no-op.
 *
 * fork() without exec: in the child, every writer's data fd is replaced by
 * /dev/null and its data mapping by anonymous memory (pthread_atfork), so
 * the child never keeps the writer lock, hence a dead parent's channel,
 * alive; a child must not use the writer (its slots are no longer the
 * segment's), and
 * its doradma_writer_close only frees memory: it never unlinks the parent's
 * names nor wakes its readers. */
void doradma_writer_close (struct doradma_writer *w);

/* Chooses a slot for the next frame and marks it WRITING: not the newest, not
 * already WRITING, not held (doradma_writer_hold), no lease, and (LOSSLESS)
 * consumed by every back-pressure reader. Waits for space up to
 * `timeout_ns` (0: do not wait, < 0: forever). Dead readers' entries and
 * leases are reclaimed on the way: at most once per 50 ms wait slice while
 * waiting (however often readers wake it), and at most once a second when
 * no slot is free and timeout_ns is 0 (so a reader killed just after a
 * sweep may keep its slots for up to a second).
 * Returns 0 and *slot, -EAGAIN (none free, timeout 0), -ETIMEDOUT,
 * -EINTR (doradma_writer_interrupt), -ESTALE (replaced: see
 * doradma_writer_replace). */
int doradma_writer_acquire (struct doradma_writer *w,
    enum doradma_slot_policy policy, int64_t timeout_ns, uint32_t *slot);

/* Same, but also returns -EINTR as soon as *cancel (read atomically) is
 * non-zero; set it, then call doradma_writer_wake (). Lets several callers
 * (buffer pools) cancel their own waits without the writer-wide interrupt. */
int doradma_writer_acquire_cancellable (struct doradma_writer *w,
    enum doradma_slot_policy policy, int64_t timeout_ns, const int *cancel,
    uint32_t *slot);

/* Spin-then-sleep for the acquire's wait for space (lossless): poll for
 * up to spin_ns (pause hint, no system call) before sleeping on the futex;
 * 0 (the default) sleeps at once. Ends at once on a release, interrupt or
 * cancel; dead readers are swept once per wait slice as when sleeping.
 * Costs one core for up to spin_ns per full ring. Any thread. */
void doradma_writer_set_spin (struct doradma_writer *w, uint64_t spin_ns);

/* Wakes every acquire or wait_readers waiting in this writer. */
void doradma_writer_wake (struct doradma_writer *w);

/* Marks slot `slot` as referenced in this process (held = 1: a buffer
 * upstream still points at it, e.g. a decoder's reference frame), so
 * acquire never chooses it, or no longer (0; wakes a waiting acquire).
 * Returns 0 or -EINVAL. */
int doradma_writer_hold (struct doradma_writer *w, uint32_t slot, int held);

/* Waits until at least n readers have joined (joins are signalled, no
 * polling). Dead readers are reclaimed meanwhile. Returns 0, -EAGAIN
 * (timeout 0), -ETIMEDOUT, -EINTR (interrupt or *cancel). */
int doradma_writer_wait_readers (struct doradma_writer *w, uint32_t n,
    int64_t timeout_ns, const int *cancel);

/* Marks a specific slot WRITING, if it is free (e.g. the slot a pooled buffer
 * owns). Returns 0, -EBUSY (leased, newest, unconsumed or already WRITING),
 * -EINVAL (slot out of range). */
int doradma_writer_acquire_slot (struct doradma_writer *w,
    enum doradma_slot_policy policy, uint32_t slot);

/* Host pointer to slot `slot` (writable), NULL when slots live in device memory. */
uint8_t *doradma_writer_slot_data (struct doradma_writer *w, uint32_t slot);
uint64_t doradma_writer_slot_stride (const struct doradma_writer *w);
uint32_t doradma_writer_slot_count (const struct doradma_writer *w);

/* Publishes the WRITING slot `slot` with `info` (geometry checked against the
 * slot stride: -EOVERFLOW; info->seq, caps_epoch and publish_time are set
 * here). Wakes readers, and an acquire waiting in another thread.
 * Returns 0, -EINVAL (slot not WRITING), -EOVERFLOW (geometry, or the
 * sequence reached DORADMA_SEQ_MAX, 2^56 - 1), -ESTALE (this
 * writer was replaced), -EPIPE (after doradma_writer_eos: readers stop at
 * final_seq, so the frame would never be read; abandon the slot and start
 * a new segment, e.g. doradma_writer_replace). */
int doradma_writer_publish (struct doradma_writer *w, uint32_t slot,
    struct doradma_frame_info *info);

/* Gives up a WRITING slot: it becomes empty (seq 0), never readable as a
 * frame; an acquire waiting in another thread may take it at once.
 * Returns 0 or -EINVAL (slot not WRITING). */
int doradma_writer_abandon (struct doradma_writer *w, uint32_t slot);

/* Sets the caps of frames published from now on (a new caps epoch, in band).
 * The string must be video/x-raw without caps features, < 960 bytes.
 * The caps table has 4 entries: an epoch reuses the entry of epoch - 4,
 * which is refused while a frame of that epoch is still in the ring (a
 * lagging reader would lose its caps); replace the segment instead.
 * Returns 0 and *epoch, or -EINVAL, -E2BIG, -EBUSY. */
int doradma_writer_set_caps (struct doradma_writer *w, const char *caps,
    uint32_t *epoch);

/* Producer latency in ns, published for doradmasrc's LATENCY answer. For
 * changes after creation: the initial value is the config's `latency`. */
void doradma_writer_set_latency (struct doradma_writer *w, uint64_t latency_ns);

/* End of stream: final_seq = last published sequence, state EOS, readers
 * woken. Publish is refused from then on (-EPIPE). */
int doradma_writer_eos (struct doradma_writer *w);

/* Reclaims entries of dead readers (their OFD lock is free): clears their
 * lease bits, frees the entry. Returns the number reclaimed. */
int doradma_writer_sweep (struct doradma_writer *w);

/* Evicts live back-pressure readers that have not consumed the oldest frame
 * the writer needs: they stop holding the writer back (their leases stay
 * honoured). Returns the number evicted; the pids go to diag->msg. */
int doradma_writer_evict_stalled (struct doradma_writer *w, struct doradma_diag *diag);

/* A lossless writer calls this before doradma_writer_replace: waits until
 * every back-pressure reader the previous replace carried into `w` has
 * adopted its entry (it reopened the name and found this segment, which it
 * then drains after the next replace), died (its entry is freed after the
 * RESERVED grace), stopped (doradma_reader_stop: freed at the next sweep)
 * or was evicted. Replacing earlier would lose this
 * segment's frames: such a reader, still draining an older segment, would
 * reopen the name after the next replace and find only the successor.
 * Adoptions are signalled on `space` (no polling). Returns 0, -EAGAIN
 * (timeout 0), -ETIMEDOUT, -EINTR (interrupt or *cancel), -ESTALE (`w`
 * was replaced). */
int doradma_writer_wait_carried (struct doradma_writer *w, int64_t timeout_ns,
    const int *cancel);

/* Evicts the carried readers doradma_writer_wait_carried waits for: the next
 * replace does not carry them, so they join the successor at its newest
 * frame and lose this segment's frames. Returns the number evicted; the
 * pids go to diag->msg. */
int doradma_writer_evict_carried (struct doradma_writer *w,
    struct doradma_diag *diag);

/* Interrupts (on = 1) a blocking doradma_writer_acquire and makes later ones
 * return -EINTR until called with on = 0. Safe from any thread. */
void doradma_writer_interrupt (struct doradma_writer *w, int on);

struct doradma_writer_stats {
  uint64_t published;       /* frames published */
  uint64_t abandoned;       /* slots abandoned */
  uint64_t full_waits;      /* acquires that had to wait for space */
  uint64_t spins;           /* of those, got a slot while polling */
  uint64_t sleeps;          /* of those, slept on the futex (once or more) */
  uint64_t reclaimed;       /* dead reader entries reclaimed */
  uint64_t evicted;         /* stalled readers evicted */
  uint32_t readers;         /* reader entries ACTIVE now */
  uint64_t last_seq;        /* last published sequence, 0 if none */
};
void doradma_writer_get_stats (struct doradma_writer *w, struct doradma_writer_stats *st);

/* The data object's fd (for CUDA registration etc.) and its path. */
int doradma_writer_fd (const struct doradma_writer *w);

/* ------------------------------------------------------------------------ */
/* Reader                                                                   */
/* ------------------------------------------------------------------------ */

struct doradma_reader;

enum doradma_read_mode {
  DORADMA_READ_NEXT = 0,    /* every frame in order (skips counted when lapped) */
  DORADMA_READ_LATEST = 1,  /* the newest frame, skipping older ones */
};

struct doradma_reader_config {
  const char *channel;
  const char *shm_dir;      /* NULL: doradma_shm_dir (NULL) */
  int backpressure;         /* 1: a lossless writer waits for this reader */
  int64_t allowed_uid;      /* < 0: only objects owned by our uid */
  uint64_t token;           /* adopt a RESERVED entry with this token (0: none) */
};

/* Opens and validates the channel, maps the data object read-only, joins a
 * reader entry. A late joiner starts after the newest frame minus one (it gets
 * the newest frame first). Never blocks on what squats the name (a FIFO, a
 * socket): it is refused with -EBADMSG (diag.field "object.type" names the
 * file type and its owner). The header and the JSON are read with pread
 * and validated, and the object's size must be exactly what they describe
 * (-EBADMSG, "object.size"), before anything is mapped.
 * Returns 0 and *out, or -EINVAL (name), -ENOENT (no channel yet),
 * -EACCES / -EPERM (owner or mode: diag names the owner), -EBADMSG (malformed
 * segment: diag names the field), -EPROTONOSUPPORT (layout version or
 * incompat bit), -EUSERS (64 readers: diag names their pids), -ESTALE (the
 * segment is superseded and its successor not yet there), -errno. */
int doradma_reader_open (const struct doradma_reader_config *cfg,
    struct doradma_reader **out, struct doradma_diag *diag);

/* Validates a data object image of `len` bytes (the fuzz entry point; the
 * control object is validated by doradma_ctl_validate). Returns 0 or
 * -EBADMSG / -EPROTONOSUPPORT with diag. */
int doradma_segment_validate (const uint8_t *image, size_t len,
    struct doradma_diag *diag);
int doradma_ctl_validate (const uint8_t *image, size_t len, uint64_t token,
    struct doradma_diag *diag);

/* Leaves the entry (clears every lease this reader still holds), unmaps,
 * closes. Frames still leased become invalid: keep the reader open until
 * they are released. NULL is a no-op. */
void doradma_reader_close (struct doradma_reader *r);

/* The application reads no more, but frames it leased are still in use
 * (views kept past a pipeline's NULL): the entry leaves back-pressure and
 * the writer's count of readers at once (state STOPPED), while the slots
 * leased now stay pinned until released. Later next/copy_next return
 * -ESHUTDOWN; release and ref_slot work as before; close frees the entry.
 * Idempotent. Any thread, but not during a next/copy_next of this reader. */
void doradma_reader_stop (struct doradma_reader *r);

/* Reader calls: doradma_reader_next/copy_next from one thread at a time;
 * ref_slot, release, consume, interrupt and get_stats from any thread. */

/* Waits up to timeout_ns (< 0 forever, 0 no wait) for a frame and leases it.
 * Returns 0 and *frame, or -EAGAIN (none yet, timeout 0), -ETIMEDOUT,
 * -EINTR (doradma_reader_interrupt), -EPIPE (EOS: every frame up to final_seq
 * was delivered), -ESTALE (superseded and drained: reopen the channel),
 * -EPERM (diag.field "fork": called in a child forked without exec after
 * the open; a reader belongs to the process that opened it),
 * -ESHUTDOWN (after doradma_reader_stop),
 * -EOWNERDEAD (the writer is gone: died, or stopped cleanly, which
 * doradma_reader_writer_stopped tells and diag.field "writer.stopped"
 * names), -EBADMSG (a frame record failed validation:
 * diag names the field; the frame was skipped: counted in `skipped` and,
 * with back-pressure, consumed). */
int doradma_reader_next (struct doradma_reader *r, enum doradma_read_mode mode,
    int64_t timeout_ns, struct doradma_frame *frame, struct doradma_diag *diag);

/* Same, but copies the payload into dst (cap bytes) under the seqlock and
 * holds no lease. A copy torn by the writer is discarded and counted, and
 * the next frame is tried. -ENOBUFS when the frame is larger than cap. */
int doradma_reader_copy_next (struct doradma_reader *r,
    enum doradma_read_mode mode, int64_t timeout_ns, void *dst, size_t cap,
    struct doradma_frame *frame, struct doradma_diag *diag);

/* Takes one more reference on a leased slot (for another wrapper), or
 * releases one; the lease word bit is cleared when the last goes. Any thread. */
void doradma_reader_ref_slot (struct doradma_reader *r, uint32_t slot);
void doradma_reader_release (struct doradma_reader *r, uint32_t slot);

/* Leases held by this reader now. */
uint32_t doradma_reader_leases (struct doradma_reader *r);

/* Marks frames up to `seq` as consumed (lossless back-pressure). Monotonic. */
void doradma_reader_consume (struct doradma_reader *r, uint64_t seq);

/* Copies caps of `epoch` into buf (NUL-terminated). Returns 0, -ENOENT (epoch
 * no longer in the table), -EBADMSG (not video/x-raw or has caps features),
 * -ENOBUFS. */
int doradma_reader_caps (struct doradma_reader *r, uint32_t epoch, char *buf,
    size_t len, struct doradma_diag *diag);

uint64_t doradma_reader_latency (struct doradma_reader *r);

/* Spin-then-sleep: when no frame is ready, doradma_reader_next /
 * copy_next poll the ring for up to spin_ns (with the CPU's pause hint, no
 * system call) before sleeping on the futex; 0 (the default) sleeps at
 * once. A spinning reader keeps one core busy for up to spin_ns per frame,
 * and a writer that finds no sleeper publishes without a system call. The
 * spin ends at once on a publish, EOS, supersede or
 * doradma_reader_interrupt; a dead writer is noticed as soon as when
 * sleeping (the liveness probe runs once per 100 ms wait slice, polling or
 * not). Any thread; read at the start of each wait. */
void doradma_reader_set_spin (struct doradma_reader *r, uint64_t spin_ns);

/* Interrupts a blocking doradma_reader_next (on = 1) until on = 0. Any
 * thread; it moves the notify word, so it is never slept through. */
void doradma_reader_interrupt (struct doradma_reader *r, int on);

/* After -EOWNERDEAD: 1 when the writer stopped cleanly (it closed the
 * channel without EOS: a producer set to NULL, Ctrl-C), 0 when it died.
 * Any thread. */
int doradma_reader_writer_stopped (struct doradma_reader *r);

struct doradma_reader_stats {
  uint64_t frames;          /* frames delivered */
  uint64_t skipped;         /* frames never delivered (lapped or latest mode) */
  uint64_t torn;            /* copy reads discarded as torn */
  uint64_t lease_retries;   /* lease handshakes lost to the writer */
  uint64_t spins;           /* waits that got a frame while polling */
  uint64_t sleeps;          /* waits that slept on the futex (once or more) */
  uint32_t entry;           /* our reader entry index */
  int evicted;              /* the writer evicted us (cleared when we resume) */
};
void doradma_reader_get_stats (struct doradma_reader *r, struct doradma_reader_stats *st);

/* Read-only facts of the open segment. */
struct doradma_segment_info {
  uint32_t slot_count;
  uint64_t slot_stride;
  uint64_t slots_offset;
  uint64_t map_size;        /* bytes of the data object */
  const uint8_t *map_base;  /* base of the read-only mapping */
  int ipc;                  /* slots live in device memory */
  uint8_t ipc_handle[DORADMA_IPC_HANDLE_LEN];
  char transport[16];
  uint64_t ino, dev;        /* identity of the data object */
  uint32_t writer_pid;
};
void doradma_reader_segment_info (struct doradma_reader *r, struct doradma_segment_info *info);
int doradma_reader_fd (const struct doradma_reader *r);

/* The token of our entry: pass it as cfg.token when reopening after a
 * supersede to adopt the RESERVED entry the writer carried over. */
uint64_t doradma_reader_token (const struct doradma_reader *r);
/* Sequence of the last frame delivered (0 if none). */
uint64_t doradma_reader_last_seq (const struct doradma_reader *r);
/* After a reopen (-ESTALE), continues the sequence of the previous reader,
 * whose last delivered frame was `seq`: the next doradma_reader_next
 * delivers the frame after it. Only where the sequence does continue: when
 * this reader adopted the entry a doradma_writer_replace carried over
 * (cfg.token), or when this segment's first sequence is seq + 1. Otherwise
 * (a new writer took over a dead writer's channel and counts from its own
 * start) the reader stays where it joined, at the new writer's newest
 * frame: the stream is discontinuous there (doradmasrc marks DISCONT on
 * the first buffer after every reopen).
 * Returns 1 if the sequence continues, 0 if it does not. */
int doradma_reader_set_last_seq (struct doradma_reader *r, uint64_t seq);

/* Is this channel's control object writable by a uid other than the
 * writer's and ours (a group write bit, or an owner that is neither)?
 * Whoever may write it can clear our lease bits and have the writer
 * rewrite a frame we still read zero-copy (docs/threat-model.md): readers
 * for which this returns 1 should copy (doradma_reader_copy_next), whose
 * seqlock check detects such a rewrite. Returns 1 or 0. */
int doradma_reader_ctl_writable_by_others (const struct doradma_reader *r);

/* Waits until the channel's data object exists (inotify on the shm directory,
 * no polling), up to timeout_ns (< 0 forever). Anything at the name counts
 * (a FIFO, a dangling symlink: doradma_reader_open then names the
 * squatter). `cancel_fd` (or -1) is an fd
 * that becomes readable to interrupt. Returns 0, -ETIMEDOUT, -EINTR, -EINVAL. */
int doradma_channel_wait (const char *shm_dir, const char *channel,
    int64_t timeout_ns, int cancel_fd);

/* Same, but waits until the name resolves to another object than (dev, ino)
 * — e.g. the segment of a writer that died (doradma_segment_info's dev and
 * ino) — so a reader can wait for the successor without polling. */
int doradma_channel_wait_new (const char *shm_dir, const char *channel,
    uint64_t dev, uint64_t ino, int64_t timeout_ns, int cancel_fd);

#ifdef __cplusplus
}
#endif
#endif /* DORADMA_RING_H */
