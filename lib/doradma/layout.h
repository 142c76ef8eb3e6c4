/* doradma — the shared-memory format, version 1.
 *
 * This header IS the format: docs/format.md mirrors it byte for byte, and every
 * offset below is pinned by a static assert at the end of the file. Only
 * fixed-width integers, no pointers, no bitfields, explicit reserved space.
 *
 * A channel "cam0" has two objects in the shm directory (default /dev/shm):
 *
 *   doradma.cam0       DATA object. Written only by the writer; readers open it
 *                      O_RDONLY and map it PROT_READ.
 *   doradma.cam0~ctl   CONTROL object. Read-write for readers: lease words,
 *                      reader entries and the two futex eventcounts.
 *
 * DATA object:
 *
 *   0              256               data_offset (page multiple)
 *   +--------------+-----------------+---------+---------+-----+-----------+
 *   | fixed header | JSON, padded    | slot 0  | slot 1  | ... |    RCB    |
 *   | (dora compat)| with spaces     |         |         |     |           |
 *   +--------------+-----------------+---------+---------+-----+-----------+
 *                                    ^ slots_offset        rcb_offset ^
 *   slot i at slots_offset + i * slot_stride; rcb_offset =
 *   slots_offset + slot_count * slot_stride (0 slot bytes when the slots live
 *   in CUDA device memory, transport "ipc"). The RCB is page aligned.
 *
 * Who writes what: W = the writer, R = readers, X = both.
 * Ordering words are named at each field; lib/atomic.h implements them.
 *
 * Version history of DORADMA_LAYOUT_VERSION:
 *   1  first version (caps table, per-slot geometry, split control object).
 */
#ifndef DORADMA_LAYOUT_H
#define DORADMA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

_Static_assert (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
    "doradma segments are little-endian and accessed with native atomics");

#define DORADMA_LAYOUT_VERSION 1u

/* ------------------------------------------------------------------------ */
/* Fixed header, bytes 0..256 of the data object (dora-rs DORADMA format).  */
/* ------------------------------------------------------------------------ */

#define DORADMA_MAGIC "DORADMA"       /* 8 bytes with the trailing NUL */
#define DORADMA_HEADER_SIZE 256u
#define DORADMA_METADATA_ALIGN 256u
#define DORADMA_JSON_MAX (64u * 1024u) /* json_len cap, checked before parsing */
#define DORADMA_IPC_HANDLE_LEN 64u
/* dora's word 96 is a whole-payload seqlock; our slots are rewritten in place,
 * so we keep it permanently odd and dora readers fail closed (report "torn")
 * instead of accepting a torn copy. */
#define DORADMA_DORA_GEN_ODD 1u

struct doradma_shm_header {
  uint8_t magic[8];         /* 0x00 W "DORADMA\0" */
  uint64_t json_len;        /* 0x08 W bytes of JSON at 256, padding spaces included */
  uint64_t data_offset;     /* 0x10 W = 256 + roundup(json_len, 256), a page multiple */
  uint64_t ipc_flag;        /* 0x18 W 1 = slots live in CUDA device memory */
  uint8_t ipc_handle[64];   /* 0x20 W cudaIpcMemHandle_t when ipc_flag == 1 */
  uint64_t dora_gen;        /* 0x60 W always DORADMA_DORA_GEN_ODD */
  uint64_t dora_slot_gen[19]; /* 0x68 W each DORADMA_DORA_GEN_ODD: the per-slot
                             * gen words 1..19 of dora's FORK-B readers */
};

/* ------------------------------------------------------------------------ */
/* Ring control block (RCB), in the data object at rcb_offset.              */
/* Written by W only. Readers validate line 0 once at open and copy it to   */
/* locals; everything else is read with the orderings given per field.      */
/* ------------------------------------------------------------------------ */

#define DORADMA_RCB_MAGIC 0x31424352414d4452ull   /* bytes "RDMARCB1" in memory */
#define DORADMA_MAX_SLOTS 64u
#define DORADMA_MAX_READERS 64u
#define DORADMA_MAX_PLANES 4u
#define DORADMA_CAPS_ENTRIES 4u        /* caps table: epoch e lives at e % 4 */
#define DORADMA_CAPS_MAX 960u          /* caps string bytes, NUL included */

/* rcb.compat_flags: unknown bits are ignored by readers. None defined yet. */
#define DORADMA_COMPAT_KNOWN 0ull
/* rcb.incompat_flags: an unknown bit makes readers refuse, naming the bit. */
#define DORADMA_INCOMPAT_DEVICE_SLOTS (1ull << 0) /* slots in CUDA memory (ipc) */
#define DORADMA_INCOMPAT_KNOWN DORADMA_INCOMPAT_DEVICE_SLOTS

/* rcb.state */
#define DORADMA_STATE_LIVE 1u
#define DORADMA_STATE_EOS 2u          /* no frame after final_seq, ever */
#define DORADMA_STATE_SUPERSEDED 3u   /* drain to final_seq, then reopen the name */

/* A frame's `newest` word packs the sequence and the slot so that readers
 * never see the sequence of frame n+1 with the slot of frame n. */
#define DORADMA_NEWEST_PACK(seq, slot) (((uint64_t) (seq) << 8) | (uint64_t) (slot))
#define DORADMA_NEWEST_SEQ(w) ((w) >> 8)
#define DORADMA_NEWEST_SLOT(w) ((uint32_t) ((w) & 0xff))

/* Sequences fit the 56 bits `newest` gives them; a writer starts at most
 * at DORADMA_FIRST_SEQ_MAX (2^32 frames of room) and refuses to publish
 * past DORADMA_SEQ_MAX (-EOVERFLOW) rather than wrap. */
#define DORADMA_SEQ_MAX ((UINT64_C (1) << 56) - 1)
#define DORADMA_FIRST_SEQ_MAX (DORADMA_SEQ_MAX - (UINT64_C (1) << 32))

#define DORADMA_TIME_NONE UINT64_MAX   /* GST_CLOCK_TIME_NONE */

/* Geometry of one plane of a frame inside its slot. Readers check
 * offset + stride * (rows - 1) + row_bytes <= payload_bytes <= slot_stride. */
struct doradma_shm_plane {
  uint64_t offset;          /* +0x00 bytes from the start of the slot */
  uint32_t stride;          /* +0x08 bytes between rows, > 0 */
  uint32_t rows;            /* +0x0c rows in this plane */
  uint32_t row_bytes;       /* +0x10 bytes of pixels per row, <= stride */
  uint32_t reserved;        /* +0x14 zero */
};

/* One slot record, 256 bytes. `gen` is the slot's seqlock: odd while the
 * writer owns the slot (WRITING), even when the record and the payload are a
 * complete frame (or empty: seq == 0). Publication point: the even store of
 * gen, RELEASE. Readers: ACQUIRE load of gen, copy, ACQUIRE fence, RELAXED
 * reload (lib/seqlock.h), or a lease (lib/lease.h) which pins the slot. */
struct doradma_shm_slot {
  uint64_t gen;             /* 0x00 W seqlock; odd store RELAXED + fence, even store RELEASE */
  uint64_t seq;             /* 0x08 W frame sequence (>= 1), 0 = empty */
  uint32_t caps_epoch;      /* 0x10 W index into the caps table (epoch % 4) */
  uint32_t n_planes;        /* 0x14 W 1..4 */
  uint32_t width;           /* 0x18 W pixels */
  uint32_t height;          /* 0x1c W pixels */
  struct doradma_shm_plane planes[4]; /* 0x20 W geometry per plane */
  uint32_t crop_x;          /* 0x80 W crop rectangle; crop_width == 0: no crop */
  uint32_t crop_y;          /* 0x84 W */
  uint32_t crop_width;      /* 0x88 W */
  uint32_t crop_height;     /* 0x8c W */
  uint64_t pts;             /* 0x90 W ns, capture domain; DORADMA_TIME_NONE = none */
  uint64_t dts;             /* 0x98 W ns, capture domain */
  uint64_t duration;        /* 0xa0 W ns */
  uint64_t offset;          /* 0xa8 W GstBuffer offset */
  uint64_t offset_end;      /* 0xb0 W GstBuffer offset_end */
  uint32_t flags;           /* 0xb8 W GstBufferFlags (DISCONT, DELTA_UNIT, ...) */
  uint32_t video_flags;     /* 0xbc W GstVideoBufferFlags high bits (interlacing) */
  uint64_t payload_bytes;   /* 0xc0 W bytes of the slot that hold the frame */
  uint64_t publish_time;    /* 0xc8 W CLOCK_MONOTONIC ns when published */
  uint64_t mono_pts;        /* 0xd0 W the PTS as CLOCK_MONOTONIC ns; DORADMA_TIME_NONE = none */
  uint64_t reserved[5];     /* 0xd8 W zero */
};

/* One caps table entry, 1024 bytes, its own seqlock (same shape as a slot). */
struct doradma_shm_caps {
  uint64_t gen;             /* 0x00 W seqlock */
  uint32_t epoch;           /* 0x08 W the epoch stored here */
  uint32_t length;          /* 0x0c W strlen(caps), < DORADMA_CAPS_MAX */
  uint8_t reserved[48];     /* 0x10 W zero */
  char caps[960];           /* 0x40 W "video/x-raw, ..." NUL-terminated, no caps features */
};

struct doradma_shm_rcb {
  /* line 0, 0x000: identity. Written once before the name exists. */
  uint64_t magic;           /* 0x000 W DORADMA_RCB_MAGIC */
  uint32_t layout_version;  /* 0x008 W DORADMA_LAYOUT_VERSION */
  uint32_t page_size;       /* 0x00c W sysconf(_SC_PAGESIZE) of the writer */
  uint64_t compat_flags;    /* 0x010 W DORADMA_COMPAT_* */
  uint64_t incompat_flags;  /* 0x018 W DORADMA_INCOMPAT_* */
  uint32_t slot_count;      /* 0x020 W 1..64 */
  uint32_t writer_pid;      /* 0x024 W for messages only, never for liveness */
  uint64_t slot_stride;     /* 0x028 W bytes per slot, page multiple */
  uint64_t slots_offset;    /* 0x030 W = data_offset */
  uint64_t ctl_token;       /* 0x038 W random; equals ctl.token of this segment's ctl */
  /* line 1, 0x040: stream state. */
  uint32_t state;           /* 0x040 W DORADMA_STATE_*; stored RELEASE after final_seq */
  uint32_t caps_epoch;      /* 0x044 W newest caps epoch (frames carry their own) */
  uint64_t newest;          /* 0x048 W DORADMA_NEWEST_PACK; RELEASE after the slot's gen */
  uint64_t final_seq;       /* 0x050 W last sequence of this segment (EOS, SUPERSEDED) */
  uint64_t latency;         /* 0x058 W producer latency, ns (RELAXED) */
  uint64_t writer_start;    /* 0x060 W writer's start time (clock ticks), messages only */
  uint64_t first_seq;       /* 0x068 W first sequence of this segment */
  uint64_t stopped;         /* 0x070 W 1: the writer closed cleanly (RELEASE, before
                             * its lock goes); 0: live, or it died */
  uint64_t reserved1;       /* 0x078 W zero */
  /* 0x080: the caps table, 4 x 1024 bytes. */
  struct doradma_shm_caps caps[4];
  /* 0x1080: compact slot_seq[], 8 per cache line, so a scan reads 8 lines.
   * slot_seq[s] == slots[s].seq once published; RELEASE after the gen store,
   * ACQUIRE by readers; only a hint: readers confirm with the record. */
  uint64_t slot_seq[64];
  /* 0x1280: slot records. */
  struct doradma_shm_slot slots[64];
};                          /* 0x5280 bytes */

/* ------------------------------------------------------------------------ */
/* CONTROL object `doradma.<channel>~ctl`. Read-write for every reader, so   */
/* the writer distrusts all of it: lease bits of slots >= slot_count are     */
/* ignored, consumed_seq is clamped, its own words are never read back.      */
/* Liveness: reader entry r holds an OFD write lock on byte r of this object. */
/* ------------------------------------------------------------------------ */

#define DORADMA_CTL_MAGIC 0x314c5443414d4452ull   /* bytes "RDMACTL1" in memory */

/* reader entry state */
#define DORADMA_READER_FREE 0u
#define DORADMA_READER_RESERVED 1u   /* carried over a supersede; token must match */
#define DORADMA_READER_ACTIVE 2u
#define DORADMA_READER_EVICTED 3u    /* stalled lossless reader, no back-pressure */
#define DORADMA_READER_STOPPED 4u    /* reads no more; only its leases stay honoured */

/* reader entry flags */
#define DORADMA_READER_BACKPRESSURE (1u << 0) /* `next` reader: lossless writer waits */

/* Eventcounts (notify, space): bit 0 = "someone may be asleep", bits 1..31
 * count. Bumper: CAS (old + 2) & ~1 RELEASE, FUTEX_WAKE iff old & 1. Sleeper:
 * v = ACQUIRE load BEFORE checking its condition, CAS v | 1, FUTEX_WAIT(v | 1). */

struct doradma_shm_lease {
  uint64_t readers;         /* +0x00 X bit r = reader entry r holds a lease on the slot */
  uint64_t pad[7];          /* own cache line: readers of different slots don't collide */
};

struct doradma_shm_reader {
  uint32_t state;           /* +0x00 X DORADMA_READER_*; W frees, R[r] activates */
  uint32_t flags;           /* +0x04 R[r] DORADMA_READER_BACKPRESSURE */
  uint64_t token;           /* +0x08 R[r] random; matches a RESERVED entry after supersede */
  uint64_t consumed_seq;    /* +0x10 R[r] monotonic, RELEASE after the frame is done with */
  uint32_t pid;             /* +0x18 R[r] for messages only */
  uint32_t reserved0;       /* +0x1c zero */
  /* For tools only (doradma watch), relaxed stores by R[r] at join and at
   * each delivery; zero in entries of readers built before they existed. */
  uint64_t delivered;       /* +0x20 R[r] frames delivered since it joined */
  uint64_t skipped;         /* +0x28 R[r] frames it never got (lapped, latest mode) */
  uint64_t last_seq;        /* +0x30 R[r] seq of the last frame delivered (join: newest - 1) */
  uint64_t last_time;       /* +0x38 R[r] CLOCK_MONOTONIC ns of that delivery (join time) */
};

struct doradma_shm_ctl {
  /* line 0: identity, written once by W before the name exists. */
  uint64_t magic;           /* 0x000 W DORADMA_CTL_MAGIC */
  uint32_t layout_version;  /* 0x008 W DORADMA_LAYOUT_VERSION */
  uint32_t slot_count;      /* 0x00c W copy of rcb.slot_count, for tools only */
  uint64_t token;           /* 0x010 W equals rcb.ctl_token */
  uint64_t reserved0[5];    /* 0x018 zero */
  /* line 1: readers sleep here, the writer bumps it at publish/EOS/supersede. */
  uint32_t notify;          /* 0x040 X eventcount (futex word) */
  uint32_t pad1[15];
  /* line 2: the writer sleeps here, readers bump it at release/consume. */
  uint32_t space;           /* 0x080 X eventcount (futex word) */
  uint32_t pad2[15];
  /* line 3: joined reader entries, so lossless min(consumed_seq) reads only those. */
  uint64_t active;          /* 0x0c0 X bit r set by R[r] after its entry is ACTIVE (RELEASE) */
  uint64_t pad3[7];
  struct doradma_shm_lease lease[64];     /* 0x100 one word per slot */
  struct doradma_shm_reader readers[64];  /* 0x1100 one entry per reader */
};                          /* 0x2100 bytes */

/* ------------------------------------------------------------------------ */
/* Pinned offsets (docs/format.md lists the same numbers).                  */
/* ------------------------------------------------------------------------ */

#define DORADMA_ASSERT_OFFSET(T, f, o) \
  _Static_assert (offsetof (struct T, f) == (o), #T "." #f " offset")
#define DORADMA_ASSERT_SIZE(T, s) \
  _Static_assert (sizeof (struct T) == (s), #T " size")

/* *INDENT-OFF* */
DORADMA_ASSERT_OFFSET (doradma_shm_header, magic, 0x00);
DORADMA_ASSERT_OFFSET (doradma_shm_header, json_len, 0x08);
DORADMA_ASSERT_OFFSET (doradma_shm_header, data_offset, 0x10);
DORADMA_ASSERT_OFFSET (doradma_shm_header, ipc_flag, 0x18);
DORADMA_ASSERT_OFFSET (doradma_shm_header, ipc_handle, 0x20);
DORADMA_ASSERT_OFFSET (doradma_shm_header, dora_gen, 0x60);
DORADMA_ASSERT_OFFSET (doradma_shm_header, dora_slot_gen, 0x68);
DORADMA_ASSERT_SIZE (doradma_shm_header, 256);

DORADMA_ASSERT_OFFSET (doradma_shm_plane, offset, 0x00);
DORADMA_ASSERT_OFFSET (doradma_shm_plane, stride, 0x08);
DORADMA_ASSERT_OFFSET (doradma_shm_plane, rows, 0x0c);
DORADMA_ASSERT_OFFSET (doradma_shm_plane, row_bytes, 0x10);
DORADMA_ASSERT_OFFSET (doradma_shm_plane, reserved, 0x14);
DORADMA_ASSERT_SIZE (doradma_shm_plane, 24);

DORADMA_ASSERT_OFFSET (doradma_shm_slot, gen, 0x00);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, seq, 0x08);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, caps_epoch, 0x10);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, n_planes, 0x14);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, width, 0x18);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, height, 0x1c);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, planes, 0x20);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, crop_x, 0x80);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, crop_y, 0x84);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, crop_width, 0x88);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, crop_height, 0x8c);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, pts, 0x90);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, dts, 0x98);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, duration, 0xa0);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, offset, 0xa8);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, offset_end, 0xb0);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, flags, 0xb8);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, video_flags, 0xbc);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, payload_bytes, 0xc0);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, publish_time, 0xc8);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, mono_pts, 0xd0);
DORADMA_ASSERT_OFFSET (doradma_shm_slot, reserved, 0xd8);
DORADMA_ASSERT_SIZE (doradma_shm_slot, 256);

DORADMA_ASSERT_OFFSET (doradma_shm_caps, gen, 0x00);
DORADMA_ASSERT_OFFSET (doradma_shm_caps, epoch, 0x08);
DORADMA_ASSERT_OFFSET (doradma_shm_caps, length, 0x0c);
DORADMA_ASSERT_OFFSET (doradma_shm_caps, reserved, 0x10);
DORADMA_ASSERT_OFFSET (doradma_shm_caps, caps, 0x40);
DORADMA_ASSERT_SIZE (doradma_shm_caps, 1024);

DORADMA_ASSERT_OFFSET (doradma_shm_rcb, magic, 0x000);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, layout_version, 0x008);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, page_size, 0x00c);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, compat_flags, 0x010);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, incompat_flags, 0x018);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, slot_count, 0x020);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, writer_pid, 0x024);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, slot_stride, 0x028);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, slots_offset, 0x030);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, ctl_token, 0x038);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, state, 0x040);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, caps_epoch, 0x044);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, newest, 0x048);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, final_seq, 0x050);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, latency, 0x058);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, writer_start, 0x060);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, first_seq, 0x068);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, stopped, 0x070);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, reserved1, 0x078);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, caps, 0x080);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, slot_seq, 0x1080);
DORADMA_ASSERT_OFFSET (doradma_shm_rcb, slots, 0x1280);
DORADMA_ASSERT_SIZE (doradma_shm_rcb, 0x5280);

DORADMA_ASSERT_SIZE (doradma_shm_lease, 64);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, state, 0x00);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, flags, 0x04);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, token, 0x08);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, consumed_seq, 0x10);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, pid, 0x18);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, reserved0, 0x1c);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, delivered, 0x20);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, skipped, 0x28);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, last_seq, 0x30);
DORADMA_ASSERT_OFFSET (doradma_shm_reader, last_time, 0x38);
DORADMA_ASSERT_SIZE (doradma_shm_reader, 64);

DORADMA_ASSERT_OFFSET (doradma_shm_ctl, magic, 0x000);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, layout_version, 0x008);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, slot_count, 0x00c);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, token, 0x010);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, notify, 0x040);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, space, 0x080);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, active, 0x0c0);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, lease, 0x100);
DORADMA_ASSERT_OFFSET (doradma_shm_ctl, readers, 0x1100);
DORADMA_ASSERT_SIZE (doradma_shm_ctl, 0x2100);
/* *INDENT-ON* */

#ifdef __cplusplus
}
#endif
#endif /* DORADMA_LAYOUT_H */
