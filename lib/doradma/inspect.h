/* doradma — read-only inspection and cleanup of channels, for tools (the
 * `doradma` command). Not part of the frame API in ring.h.
 *
 * Inspection never joins a channel, never takes a lease or a lock and never
 * maps a shared object: each object is opened O_RDONLY | O_NONBLOCK |
 * O_NOFOLLOW, must be a regular file (fstat), and the parts shown are copied
 * with pread into private memory (a peer that truncates an object cannot
 * raise SIGBUS here), then checked with the lib's own validators
 * (segment_parse, slot_record_validate, caps_string_validate, ctl_parse).
 * Slot records and caps entries are copied between two reads of their gen
 * word: a copy the writer changed meanwhile is reported as torn.
 *
 * Liveness is the writer's rule: the writer holds an OFD lock on byte 0 of
 * the data object, reader entry r on byte r of the control object
 * (F_OFD_GETLK through the read-only fd).
 *
 * Cleanup (doradma_clean_channel) removes a channel only while holding the
 * OFD lock of the data object at its name, exactly as a writer that replaces
 * a stale channel does, so a live channel is never touched. */
#ifndef DORADMA_INSPECT_H
#define DORADMA_INSPECT_H

#include <stdint.h>

#include <doradma/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The verdict on one part: rc 0 or -errno, diag.field/msg say why. */
struct doradma_inspect_verdict {
  int rc;
  struct doradma_diag diag;
};

enum doradma_inspect_slot_state {
  DORADMA_INSPECT_SLOT_EMPTY = 0,   /* gen even, seq 0 */
  DORADMA_INSPECT_SLOT_FRAME,       /* gen even, a record (see `valid`) */
  DORADMA_INSPECT_SLOT_WRITING,     /* gen odd: the writer owns it */
  DORADMA_INSPECT_SLOT_TORN,        /* gen changed while we copied it */
};

struct doradma_inspect_slot {
  enum doradma_inspect_slot_state state;
  struct doradma_shm_slot rec;      /* the copy (gen as first read) */
  uint64_t slot_seq;                /* rcb.slot_seq[s], a hint */
  uint64_t leases;                  /* ctl lease word (0 without ctl) */
  struct doradma_inspect_verdict valid;  /* slot_record_validate, FRAME only */
};

struct doradma_inspect_caps {
  int consistent;                   /* gen even and unchanged while copied */
  struct doradma_shm_caps entry;    /* the copy */
  struct doradma_inspect_verdict valid;  /* caps_string_validate */
};

struct doradma_inspect_reader {
  struct doradma_shm_reader entry;  /* the copy */
  int alive;                        /* 1 entry lock held, 0 free, -errno */
  int active_bit;                   /* ctl.active bit set */
  uint32_t leases;                  /* slots < slot_count whose lease bit is set */
};

struct doradma_inspect {
  char channel[DORADMA_NAME_MAX + 1];
  char data_path[4096];
  char ctl_path[4096];

  /* data object: open, fstat, regular file */
  struct doradma_inspect_verdict object;
  uint64_t size, dev, ino;
  uint32_t uid, mode;
  int writer_alive;                 /* 1 writer lock held, 0 free, -errno */

  /* fixed header and JSON, as read (whatever their validity) */
  int header_read;
  struct doradma_shm_header header;
  char *json;                       /* NUL-terminated copy, NULL if unread */
  uint64_t json_read;               /* bytes of it read */

  /* segment_parse on the copy: header, JSON, RCB line 0, default caps */
  struct doradma_inspect_verdict segment;
  /* the validated description (segment.rc == 0 only) */
  uint32_t slot_count, page_size, writer_pid;
  uint64_t slot_stride, slots_offset, rcb_offset, ctl_token, json_len,
      data_offset;
  int ipc;
  char transport[16];
  char caps[DORADMA_CAPS_MAX];

  /* RCB, read when its place is known and inside the object, even when the
   * segment is invalid (then only shown, never trusted) */
  int rcb_read;
  uint64_t rcb_at;
  struct doradma_shm_rcb rcb;
  struct doradma_inspect_slot slots[DORADMA_MAX_SLOTS];     /* valid segment */
  struct doradma_inspect_caps caps_table[DORADMA_CAPS_ENTRIES];

  /* control object */
  struct doradma_inspect_verdict ctl_object;  /* open, fstat, size */
  struct doradma_inspect_verdict ctl_valid;   /* ctl_parse (token of the RCB) */
  int ctl_read;
  struct doradma_shm_ctl ctl;
  struct doradma_inspect_reader readers[DORADMA_MAX_READERS];
};

/* Inspects `channel` in `shm_dir` (NULL: doradma_shm_dir (NULL)). Fills *in
 * (free with doradma_inspect_clear) whatever the segment's validity.
 * Returns 0 (the data object exists; see the verdicts), -EINVAL (bad name,
 * diag in in->object), -ENOENT (no data object), or -errno of open/fstat. */
int doradma_inspect_channel (const char *shm_dir, const char *channel,
    struct doradma_inspect *in);
void doradma_inspect_clear (struct doradma_inspect *in);

/* The first failed verdict (object, segment, ctl object, ctl, then frame
 * records and caps entries in use), or NULL when every part is valid. */
const struct doradma_inspect_verdict *doradma_inspect_first_error (
    const struct doradma_inspect *in);

/* "live", "eos", "superseded", "stale" (the writer lock is free), or
 * "invalid" (the segment failed validation). */
const char *doradma_inspect_status (const struct doradma_inspect *in);
/* rcb.state in words: "live", "eos", "superseded", "unknown". */
const char *doradma_inspect_state_name (uint32_t state);

/* Sequence of the newest frame (0: none) and frames published in this
 * segment (newest - first_seq + 1), from the RCB copy. */
uint64_t doradma_inspect_newest_seq (const struct doradma_inspect *in);
uint64_t doradma_inspect_published (const struct doradma_inspect *in);
/* Frames a back-pressure reader (entry r) will never get: published after
 * its consumed_seq and already overwritten (no slot holds them). 0 for a
 * reader without back-pressure (its consumed_seq is not kept current) and
 * under a lossless writer, which waits for it. A lower bound: a slot being
 * rewritten counts as still holding a frame. */
uint64_t doradma_inspect_lost (const struct doradma_inspect *in, uint32_t r);
/* Reader entries in state ACTIVE whose lock is held. */
uint32_t doradma_inspect_live_readers (const struct doradma_inspect *in);

/* What a name in the shm directory is. */
enum doradma_object_kind {
  DORADMA_OBJECT_OTHER = 0,
  DORADMA_OBJECT_DATA,              /* doradma.<channel> */
  DORADMA_OBJECT_CTL,               /* doradma.<channel>~ctl */
  DORADMA_OBJECT_LEFTOVER,          /* doradma.<channel>[~ctl]~new.*: a replace cut short */
  DORADMA_OBJECT_DORA_POOL,         /* dora_pool_* */
};
/* Classifies a directory entry name; for doradma objects fills `channel`
 * (DORADMA_NAME_MAX + 1 bytes) with a name doradma_name_validate accepts. */
enum doradma_object_kind doradma_object_classify (const char *name,
    char *channel);

/* What doradma_clean_channel removed (names without the directory). */
struct doradma_clean_report {
  int removed_data;
  int removed_ctl;
  int removed_leftovers;
};

/* Removes `channel`'s objects if its writer is dead: takes the OFD lock of
 * the data object at the name (as a replacing writer does), checks the name
 * still resolves to it, removes the control object and leftovers, then the
 * data object, then drops the lock. A control object without a data object
 * is removed only if no data object appears while it is moved aside. The
 * control name and leftover names are judged like the data name: a control
 * object is removed only when it is a regular file of ours (any owner's
 * with DORADMA_CLEAN_ANY_OWNER) and still the inode judged; leftovers only
 * when they are regular files of ours, others are left.
 * Returns 0 (something removed; *rep says what), -EBUSY (a live writer,
 * ours or, where we can open it, another user's: checked before the
 * owner), -ENOENT (nothing there), -EPERM (not ours), -EBADMSG (a FIFO,
 * link, directory... at a name: diag names it), -EAGAIN (the control name
 * changed while we looked: nothing removed), -errno. */
int doradma_clean_channel (const char *shm_dir, const char *channel,
    struct doradma_clean_report *rep, struct doradma_diag *diag);
/* The same; DORADMA_CLEAN_ANY_OWNER also removes objects of other users
 * (root's `doradma clean --force`). A live writer's channel is never
 * removed. */
#define DORADMA_CLEAN_ANY_OWNER (1u << 0)
int doradma_clean_channel_flags (const char *shm_dir, const char *channel,
    unsigned flags, struct doradma_clean_report *rep,
    struct doradma_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* DORADMA_INSPECT_H */
