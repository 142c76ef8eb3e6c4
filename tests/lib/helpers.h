/* Description: t_* helpers shared by the tests of libdoradma (tests/lib)
 * and the micro-benchmark (tests/bench). The liburing test/helpers.h model:
 * main() returns T_EXIT_PASS, T_EXIT_FAIL or T_EXIT_SKIP (77 = Meson SKIP).
 */
#ifndef DORADMA_TEST_HELPERS_H
#define DORADMA_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <doradma/doradma.h>

#include "steps.h"

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

/* Prints "file:line: message" on stderr. */
#define t_log(...) t_log_at (__FILE__, __LINE__, __VA_ARGS__)
void t_log_at (const char *file, int line, const char *fmt, ...)
    __attribute__((format (printf, 3, 4)));

/* Fails the test (goto err) unless `cond` holds, printing the condition. */
#define T_CHECK(cond, ...) do { \
    if (!(cond)) { \
      t_log ("CHECK FAILED: %s", #cond); \
      t_log (__VA_ARGS__); \
      goto err; \
    } \
  } while (0)

/* Like T_CHECK / T_RC but records the failure in `failed` and goes on. */
#define T_EXPECT(failed, cond, ...) do { \
    if (!(cond)) { \
      t_log ("CHECK FAILED: %s", #cond); \
      t_log (__VA_ARGS__); \
      (failed)++; \
    } \
  } while (0)
#define T_EXPECT_RC(failed, rc, want, what) do { \
    int t_rc_ = (rc), t_want_ = (want); \
    if (t_rc_ != t_want_) { \
      t_log ("%s: got %d (%s), want %d (%s)", (what), t_rc_, t_errname (t_rc_), \
          t_want_, t_errname (t_want_)); \
      (failed)++; \
    } \
  } while (0)

/* Records a failure in `failed` unless `ret` == `want` and, when want < 0,
 * diag->field is `field` (NULL: any) and diag->msg is not empty; `what`
 * names the case. For validators: the error and the field at fault. */
#define T_EXPECT_DIAG(failed, ret, want, diag, field, what) do { \
    if (!t_diag_matches (__FILE__, __LINE__, (what), (ret), (want), (diag), \
            (field))) \
      (failed)++; \
  } while (0)
struct doradma_diag;
int t_diag_matches (const char *file, int line, const char *what, int ret,
    int want, const struct doradma_diag *diag, const char *field);

/* Fails unless `rc` == `want` (both ints, typically 0 / -errno). */
#define T_RC(rc, want, what) do { \
    int t_rc_ = (rc), t_want_ = (want); \
    if (t_rc_ != t_want_) { \
      t_log ("%s: got %d (%s), want %d (%s)", (what), t_rc_, t_errname (t_rc_), \
          t_want_, t_errname (t_want_)); \
      goto err; \
    } \
  } while (0)

/* "-ENOENT" style name of a 0 / -errno return (static buffer for unknowns). */
const char *t_errname (int rc);

/* CLOCK_MONOTONIC in ns. */
uint64_t t_now_ns (void);

/* A channel name unique to this process and call: "t-<tag>-<pid>-<n>". */
const char *t_channel (char *buf, size_t len, const char *tag);

/* A private shm directory: creates "<base>/dtest-<tag>-<pid>-XXXXXX" (base
 * NULL: doradma_shm_dir (NULL), the test's own directory under
 * tests/isolate.sh) and returns it (static storage per call, malloc'ed).
 * t_shm_dir_remove() checks it holds no doradma* object, removes every
 * entry and the directory, and returns the number of doradma* leftovers. */
char *t_shm_dir_new (const char *base, const char *tag);
int t_shm_dir_remove (char *dir);

/* Number of doradma* objects in `dir` (NULL: doradma_shm_dir (NULL)) whose
 * name contains `filter` (NULL: any); each is printed. -errno on failure. */
int t_leftovers (const char *dir, const char *filter);

/* A writer config with test defaults: `slots` slots of `slot_size`, GRAY8
 * caps of width x height, mode 0600. */
void t_writer_config (struct doradma_writer_config *cfg, const char *channel,
    const char *shm_dir, uint32_t slots, uint64_t slot_size);
void t_reader_config (struct doradma_reader_config *cfg, const char *channel,
    const char *shm_dir, int backpressure);

/* A writer of `slots` slots of `slot_size` (t_writer_config) on `channel`
 * in `dir`, and (r not NULL) a reader of it (t_reader_config with
 * `backpressure`). Returns 0, or -errno after logging the diag. */
int t_open_pair (const char *dir, const char *channel, uint32_t slots,
    uint64_t slot_size, int backpressure, struct doradma_writer **w,
    struct doradma_reader **r);

/* Frame info for a single-plane payload of `bytes` bytes (rows of 4096). */
void t_frame_info (struct doradma_frame_info *info, uint64_t bytes);

/* Stamps `seq` into every 4 KiB page of `bytes` bytes at `p`, and checks
 * that every page carries `seq`; t_check_stamps returns the number of pages
 * that do not (and the first bad value in *bad if not NULL). */
void t_stamp (uint8_t * p, uint64_t bytes, uint64_t seq);
uint64_t t_check_stamps (const uint8_t * p, uint64_t bytes, uint64_t seq,
    uint64_t * bad);

/* acquire (LATEST, no wait) + stamp + publish of `bytes`. Returns 0 and the
 * sequence in *seq, or -errno. */
int t_publish (struct doradma_writer *w, enum doradma_slot_policy policy,
    int64_t timeout_ns, uint64_t bytes, uint64_t * seq, uint32_t * slot);
/* Same, for a writer whose next sequence the caller knows better than its
 * stats (a replacement writer continues its predecessor's sequence). */
int t_publish_as (struct doradma_writer *w, enum doradma_slot_policy policy,
    int64_t timeout_ns, uint64_t bytes, uint64_t expect_seq, uint32_t * slot);

/* Maps the control object of `channel` read-write (for inspecting notify,
 * space, lease words). Returns NULL on failure; unmap with t_ctl_unmap. */
struct doradma_shm_ctl *t_ctl_map (const char *shm_dir, const char *channel);
void t_ctl_unmap (struct doradma_shm_ctl *ctl);
/* Maps the data object of `channel` read-write, as a hostile writer (or
 * anyone with write access) could write it; *len gets its size. Returns
 * NULL on failure; munmap (p, *len) when done. */
uint8_t *t_data_map_rw (const char *shm_dir, const char *channel, size_t *len);
/* The RCB inside a reader's read-only mapping. */
const struct doradma_shm_rcb *t_reader_rcb (struct doradma_reader *r);

/* Process barrier in MAP_SHARED memory (survives fork), spinning. */
struct t_barrier
{
  uint32_t count;
  uint32_t gen;
  uint32_t n;
};
struct t_barrier *t_barrier_new (uint32_t n);   /* MAP_SHARED | MAP_ANONYMOUS */
void t_barrier_wait (struct t_barrier *b);
/* Shared anonymous memory for results of forked children. */
void *t_shared_alloc (size_t len);

/* Forks a child running fn(arg); its return value is the exit code. */
pid_t t_fork (int (*fn) (void *), void *arg);
/* Forks a child that creates channel `channel` in `dir` (2 slots of 4096
 * bytes) and sleeps until it is killed; returns its pid once the writer
 * exists (or the child has failed and exits 1): for tests of a writer that
 * dies. */
pid_t t_fork_live_writer (const char *channel, const char *dir);
/* Removes the names a killed writer left behind in `dir`. */
void t_unlink_channel (const char *dir, const char *channel);
/* Waits for pid up to timeout_ms (kill -9 after it). Returns the exit code,
 * 128 + signal if killed by a signal, or -1 on timeout. */
int t_wait (pid_t pid, int timeout_ms);

/* Counts the system calls a forked child makes between t_mark_begin() and
 * t_mark_end() (ptrace, no strace needed): the child runs fn(arg). The
 * markers themselves cost a fixed number of calls, subtracted here.
 * Returns the child's exit code, or T_EXIT_SKIP when ptrace is not allowed
 * or the architecture is not supported. */
struct t_syscounts
{
  uint64_t total;               /* system calls in the window, marker cost removed */
  uint64_t futex;               /* of which futex(2) */
};
int t_count_syscalls (int (*fn) (void *), void *arg, struct t_syscounts *out);
void t_mark_begin (void);
void t_mark_end (void);

/* t_deadline_arm (steps.h): fails the test (exit 1) after `seconds` (its
 * own deadline, below meson's timeout), reporting the step, the child it
 * waited for and the children still alive, which it kills. */
void t_watchdog (unsigned seconds);

#endif
