/* Private to the reader's files (reader*.c, see reader.c): the reader's
 * state and the helpers they share. */
#ifndef DORADMA_READER_PRIVATE_H
#define DORADMA_READER_PRIVATE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>

#include "fork-guard.h"
#include "segment.h"

#define STAT_ADD(f, n) __atomic_fetch_add (&(f), (n), __ATOMIC_RELAXED)
#define STAT_GET(f) __atomic_load_n (&(f), __ATOMIC_RELAXED)
#define LEASE_ATTEMPTS 64

struct doradma_reader
{
  struct segment_paths paths;
  int data_fd;
  int ctl_fd;
  const uint8_t *map;
  uint64_t map_size;
  struct doradma_shm_ctl *ctl;
  uint64_t ctl_size;
  const struct doradma_shm_rcb *rcb;
  struct doradma_segment_desc desc;
  struct stat data_st;
  unsigned fork_gen;            /* releases in a forked child are no-ops */
  struct fork_guard guard;      /* a forked child drops our entry lock */

  uint32_t entry;
  uint64_t bit;
  uint64_t token;
  int backpressure;
  int adopted;                  /* took over the RESERVED entry of our token */
  uint64_t first_seq;           /* rcb.first_seq, untrusted: compared only */

  pthread_mutex_t lock;         /* refs[] and the lease handshake */
  uint32_t refs[DORADMA_MAX_SLOTS];
  uint32_t n_leases;

  uint64_t last_seq;
  uint64_t evict_skipped;       /* frames an eviction jumped over, counted
                                 * with the next frame delivered or refused */
  int writer_lost;              /* seen once: every later wait says so at once */
  int stopped;                  /* atomic: doradma_reader_stop */
  int interrupted;              /* atomic */
  uint64_t spin_ns;             /* atomic: poll this long before sleeping */
  struct doradma_reader_stats stats;
};

/* reader.c: how many forks this process has seen (a reader opened in
 * another generation is its parent's). */
unsigned fork_generation (void);

/* reader-consume.c: resumes after the writer evicted us, if it did. */
void check_evicted (struct doradma_reader *r);

#endif
