/* Private to the writer's files (writer*.c, see writer.c): the writer's
 * state and the helpers they share.
 *
 * The writer never reads its own state back from shared memory (gen, newest,
 * state live in private copies) and distrusts every reader-written word:
 * only lease words of slots in use are read, consumed_seq is clamped. */
#ifndef DORADMA_WRITER_PRIVATE_H
#define DORADMA_WRITER_PRIVATE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fork-guard.h"
#include "segment.h"

#define SLOT_FREE 0
#define SLOT_WRITING 1

#define SWEEP_INTERVAL_NS 1000000000ull
#define WAIT_SLICE_NS 50000000ll
/* Predecessors' ctl objects whose entry locks tell a RESERVED entry's
 * liveness: the one replaced, and those its own RESERVED entries came from
 * (two quick replaces A -> B -> C: C's entries from A still live on A's). */
#define OLD_CTL_MAX 4

struct doradma_writer
{
  struct segment_paths paths;
  int data_fd;
  int ctl_fd;
  uint8_t *map;
  uint64_t map_size;
  struct doradma_shm_ctl *ctl;
  uint64_t ctl_size;
  struct doradma_shm_rcb *rcb;
  struct doradma_segment_desc desc;
  struct stat data_st, ctl_st;

  pthread_mutex_t lock;         /* slot choice + mark: one marker at a time */
  uint64_t gen[DORADMA_MAX_SLOTS];      /* private copies of the gen words */
  uint64_t seq[DORADMA_MAX_SLOTS];      /* private copies of published seqs */
  uint8_t state[DORADMA_MAX_SLOTS];
  uint64_t held;                /* slots referenced in this process (upstream) */
  uint64_t caps_gen[DORADMA_CAPS_ENTRIES];
  uint32_t caps_epoch;
  uint32_t newest_slot;         /* UINT32_MAX: none */
  uint32_t slot_epoch[DORADMA_MAX_SLOTS];       /* caps epoch of w->seq[s] */
  uint64_t next_seq;
  uint64_t last_seq;
  int superseded;               /* a successor owns the names now */
  int eos;                      /* doradma_writer_eos was called */
  int interrupted;              /* atomic */
  pid_t pid;                    /* creator: a forked child never unlinks */
  struct fork_guard guard;

  /* RESERVED entries: entry r's reader holds byte r of old_ctl_fd[
   * reserved_ctl[r]], where its entry (old_ctl[...], read-only) carries
   * reserved_token[r] until it leaves; reserved_free_since[r] is when that
   * lock was first seen free (0: not yet). */
  int old_ctl_fd[OLD_CTL_MAX];
  const struct doradma_shm_ctl *old_ctl[OLD_CTL_MAX];
  uint64_t carried;             /* entries we made RESERVED at the replace */
  uint8_t reserved_ctl[DORADMA_MAX_READERS];
  uint64_t reserved_token[DORADMA_MAX_READERS];
  uint64_t reserved_free_since[DORADMA_MAX_READERS];

  uint64_t last_sweep;
  uint64_t last_forged_check;   /* publish's look for forged RESERVED */
  uint64_t spin_ns;             /* atomic: poll this long before sleeping */
  struct doradma_writer_stats stats;
};

/* writer.c */
int check_config (const struct doradma_writer_config *cfg,
    struct doradma_diag *diag);
/* A writer with both objects created, filled and locked, still unnamed. */
int writer_build (const struct doradma_writer_config *cfg,
    struct doradma_writer **out, struct doradma_diag *diag);
void writer_free (struct doradma_writer *w);

/* writer-stream.c: writes caps entry `epoch` (a seqlock of its own). */
void write_caps_entry (struct doradma_writer *w, uint32_t epoch,
    const char *caps);

/* writer-readers.c; the _locked ones with w->lock held */
int sweep_locked (struct doradma_writer *w);
void sweep_forged_locked (struct doradma_writer *w, uint64_t now);
uint64_t min_consumed_locked (struct doradma_writer *w);
int evict_locked (struct doradma_writer *w, uint64_t which,
    struct doradma_diag *diag);
uint32_t active_readers (struct doradma_writer *w);

#endif
