/* Description: lossless hand-over across doradma_writer_replace (review #5,
 * #19). A back-pressure reader's entry is carried into the new segment as
 * RESERVED and adopted when the reader reopens with its token, so that no
 * frame is lost:
 *  - however long the reader takes to drain the old segment: the grace
 *    that frees an unadopted entry runs from when its old lock is first
 *    seen free, not from the replace (a reader that closes the old segment
 *    before opening the new one while the writer is waiting for space);
 *  - while someone else holds the entry's lock for a moment (a joiner's
 *    probe, the writer's sweep);
 *  - across two replaces in quick succession (A -> B -> C) before the
 *    reader reopens;
 *  - across two replaces when the middle segment holds frames (a caps
 *    change, then a pool with bigger slots): the second waits
 *    (doradma_writer_wait_carried) until the reader, still draining the
 *    first, has adopted its entry in the middle one, whose frames it then
 *    reads; and the wait ends in -ETIMEDOUT, or at once after
 *    doradma_writer_evict_carried;
 *  - with the entry's tool counters (delivered, skipped, last_seq,
 *    last_time) copied into the new control object.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define BYTES 4096
#define MS 1000000ll

static char ch[64], *dir;

/* Writer A with frames 1..3 and a back-pressure reader that read frame 1. */
static int
setup (struct doradma_writer **a, struct doradma_reader **r, const char *tag)
{
  struct doradma_frame f;

  t_channel (ch, sizeof ch, tag);
  T_RC (t_open_pair (dir, ch, 4, BYTES, 1, a, r), 0, "open A");
  for (int i = 0; i < 3; i++)
    T_RC (t_publish (*a, DORADMA_POLICY_LOSSLESS, 0, BYTES, NULL, NULL), 0,
        "publish on A");
  T_RC (doradma_reader_next (*r, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
      "next");
  doradma_reader_release (*r, f.slot);
  return 0;
err:
  return -1;
}

/* The reader drains the old segment (frames 2, 3), then -ESTALE. */
static int
drain (struct doradma_reader *r)
{
  struct doradma_frame f;

  for (uint64_t s = 2; s <= 3; s++) {
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
        "drain the old segment");
    T_CHECK (f.info.seq == s, "seq %llu", (unsigned long long) f.info.seq);
    doradma_reader_release (r, f.slot);
  }
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), -ESTALE,
      "drained");
  return 0;
err:
  return -1;
}

static int
reopen (uint64_t token, struct doradma_reader **r2)
{
  struct doradma_reader_config rc;

  t_reader_config (&rc, ch, dir, 1);
  rc.token = token;
  return doradma_reader_open (&rc, r2, NULL);
}

/* After adoption every frame of the new writer arrives without a gap. */
static int
lossless_after (struct doradma_writer *w, struct doradma_reader *r2,
    uint64_t token, uint64_t first, uint64_t next)
{
  struct doradma_frame f;

  T_CHECK (doradma_reader_token (r2) == token, "the reserved entry was not "
      "adopted: a fresh entry, token %llx", (unsigned long long)
      doradma_reader_token (r2));
  for (uint64_t s = first; s < first + 6; s++) {
    T_RC (doradma_reader_next (r2, DORADMA_READ_NEXT, 500 * MS, &f, NULL), 0,
        "next in the new segment");
    T_CHECK (f.info.seq == s && f.skipped == 0, "seq %llu (want %llu), "
        "skipped %llu: frames lost in lossless mode",
        (unsigned long long) f.info.seq, (unsigned long long) s,
        (unsigned long long) f.skipped);
    doradma_reader_release (r2, f.slot);
    if (next < first + 6) {
      T_RC (t_publish_as (w, DORADMA_POLICY_LOSSLESS, 500 * MS, BYTES, next,
              NULL), 0, "lossless publish");
      next++;
    }
  }
  return 0;
err:
  return -1;
}

/* Publishes frames first.. until the lossless writer has to wait. */
static uint64_t
fill (struct doradma_writer *w, uint64_t first)
{
  uint64_t s = first;

  while (t_publish_as (w, DORADMA_POLICY_LOSSLESS, 0, BYTES, s, NULL) == 0)
    s++;
  return s;
}

/* The entry's tool counters (delivered, skipped, last_seq, last_time) are
 * carried into the new control object with the entry: watch/show must not
 * see the adopted reader restart at 0 with last_time 0. */
static int
case_counters_carried (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_reader_stats st;
  struct doradma_shm_ctl *old_ctl = NULL, *new_ctl = NULL;
  struct doradma_shm_reader o, n;
  int res = -1;

  T_CHECK (setup (&a, &r, "hcc") == 0, "setup");
  doradma_reader_get_stats (r, &st);
  old_ctl = t_ctl_map (dir, ch);
  T_CHECK (old_ctl != NULL, "map the old ctl");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace");
  new_ctl = t_ctl_map (dir, ch);
  T_CHECK (new_ctl != NULL, "map the new ctl");
  o = old_ctl->readers[st.entry];
  n = new_ctl->readers[st.entry];
  T_CHECK (o.delivered == 1 && o.last_seq == 1 && o.last_time != 0,
      "old entry: delivered %llu last_seq %llu last_time %llu",
      (unsigned long long) o.delivered, (unsigned long long) o.last_seq,
      (unsigned long long) o.last_time);
  T_CHECK (n.delivered == o.delivered && n.skipped == o.skipped &&
      n.last_seq == o.last_seq && n.last_time == o.last_time,
      "carried entry: delivered %llu skipped %llu last_seq %llu last_time "
      "%llu, want %llu %llu %llu %llu", (unsigned long long) n.delivered,
      (unsigned long long) n.skipped, (unsigned long long) n.last_seq,
      (unsigned long long) n.last_time, (unsigned long long) o.delivered,
      (unsigned long long) o.skipped, (unsigned long long) o.last_seq,
      (unsigned long long) o.last_time);
  res = 0;
err:
  if (new_ctl)
    t_ctl_unmap (new_ctl);
  if (old_ctl)
    t_ctl_unmap (old_ctl);
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

static int
case_slow_drain (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  uint64_t token, t0, next;
  uint32_t slot;
  int res = -1;

  T_CHECK (setup (&a, &r, "hos") == 0, "setup");
  token = doradma_reader_token (r);
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace");
  next = fill (b, 4);
  /* Downstream is slow: 2.3 s pass before the reader drains, while the
   * writer waits for space (and sweeps). */
  t0 = t_now_ns ();
  while (t_now_ns () - t0 < 2300 * MS)
    doradma_writer_acquire (b, DORADMA_POLICY_LOSSLESS, 100 * MS, &slot);
  T_CHECK (drain (r) == 0, "drain");
  /* Close first, reopen after a gap in which the writer waits on. */
  doradma_reader_close (r);
  r = NULL;
  doradma_writer_acquire (b, DORADMA_POLICY_LOSSLESS, 150 * MS, &slot);
  T_RC (reopen (token, &r2), 0, "reopen");
  T_CHECK (lossless_after (b, r2, token, 4, next) == 0, "slow drain");
  res = 0;
err:
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

struct holder
{
  int fd;
  int entry;
};

/* Somebody else's open file description holds the entry lock for 50 ms. */
static void *
hold_entry (void *arg)
{
  struct holder *h = arg;
  struct flock fl = {.l_type = F_WRLCK,.l_whence = SEEK_SET,
    .l_start = h->entry,.l_len = 1
  };
  struct timespec ts = { 0, 50 * MS };

  nanosleep (&ts, NULL);
  fl.l_type = F_UNLCK;
  fcntl (h->fd, F_OFD_SETLK, &fl);
  return NULL;
}

static int
case_transient_holder (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_reader_stats st;
  struct holder h = { -1, 0 };
  struct flock fl = {.l_type = F_WRLCK,.l_whence = SEEK_SET,.l_len = 1 };
  char path[512];
  pthread_t th;
  uint64_t token, next;
  int res = -1;

  T_CHECK (setup (&a, &r, "hot") == 0, "setup");
  token = doradma_reader_token (r);
  doradma_reader_get_stats (r, &st);
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace");
  next = fill (b, 4);
  T_CHECK (drain (r) == 0, "drain");
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
  h.fd = open (path, O_RDWR | O_CLOEXEC);
  T_CHECK (h.fd >= 0, "open %s", path);
  h.entry = (int) st.entry;
  fl.l_start = h.entry;
  T_CHECK (fcntl (h.fd, F_OFD_SETLK, &fl) == 0, "lock entry %d", h.entry);
  pthread_create (&th, NULL, hold_entry, &h);
  T_RC (reopen (token, &r2), 0, "reopen while the entry lock is held");
  pthread_join (th, NULL);
  T_CHECK (lossless_after (b, r2, token, 4, next) == 0, "transient holder");
  res = 0;
err:
  if (h.fd >= 0)
    close (h.fd);
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

static int
case_two_replaces (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL, *c = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  uint64_t token, next;
  int res = -1;

  T_CHECK (setup (&a, &r, "ho2") == 0, "setup");
  token = doradma_reader_token (r);
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace A -> B");
  T_RC (doradma_writer_replace (b, &wc, &c, NULL), 0, "replace B -> C");
  next = fill (c, 4);
  T_CHECK (drain (r) == 0, "drain A");
  T_RC (reopen (token, &r2), 0, "reopen");
  T_CHECK (lossless_after (c, r2, token, 4, next) == 0, "A -> B -> C");
  res = 0;
err:
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (c);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

struct second_replace
{
  struct doradma_writer *b, *c;
  int wait_rc, replace_rc;
  int done;                     /* atomic */
};

/* What a lossless producer does before its second replace. */
static void *
replace_once_adopted (void *arg)
{
  struct second_replace *x = arg;
  struct doradma_writer_config wc;

  x->wait_rc = doradma_writer_wait_carried (x->b, 20000 * MS, NULL);
  t_writer_config (&wc, ch, dir, 4, 2 * BYTES);
  x->replace_rc = doradma_writer_replace (x->b, &wc, &x->c, NULL);
  __atomic_store_n (&x->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* The reader reads `first`..`last` in order, nothing skipped. */
static int
read_in_order (struct doradma_reader *r, uint64_t first, uint64_t last,
    const char *where)
{
  struct doradma_frame f;

  for (uint64_t s = first; s <= last; s++) {
    T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 2000 * MS, &f, NULL), 0,
        where);
    T_CHECK (f.info.seq == s && f.skipped == 0, "%s: seq %llu (want %llu), "
        "skipped %llu: frames lost in lossless mode", where,
        (unsigned long long) f.info.seq, (unsigned long long) s,
        (unsigned long long) f.skipped);
    doradma_reader_release (r, f.slot);
  }
  return 0;
err:
  return -1;
}

static int
case_two_replaces_middle_frames (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL, *r3 = NULL;
  struct doradma_frame f;
  struct second_replace x = { 0 };
  struct timespec pause = { 0, 200 * MS };
  pthread_t th;
  int started = 0, res = -1;
  uint64_t token;

  T_CHECK (setup (&a, &r, "ho4") == 0, "setup");
  token = doradma_reader_token (r);
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace A -> B");
  for (uint64_t s = 4; s <= 5; s++)
    T_RC (t_publish_as (b, DORADMA_POLICY_LOSSLESS, 0, BYTES, s, NULL), 0,
        "publish on B");
  /* The reader is still in A: its entry in B is not adopted. */
  T_RC (doradma_writer_wait_carried (b, 0, NULL), -EAGAIN, "wait, no time");
  T_RC (doradma_writer_wait_carried (b, 60 * MS, NULL), -ETIMEDOUT,
      "wait 60 ms");
  x.b = b;
  T_CHECK (pthread_create (&th, NULL, replace_once_adopted, &x) == 0, "thread");
  started = 1;
  nanosleep (&pause, NULL);
  T_CHECK (!__atomic_load_n (&x.done, __ATOMIC_ACQUIRE), "B was replaced "
      "while its reader was still in A");
  T_CHECK (drain (r) == 0, "drain A");
  T_RC (reopen (token, &r2), 0, "reopen after A");
  T_CHECK (doradma_reader_token (r2) == token, "B's entry was not adopted");
  doradma_reader_set_last_seq (r2, doradma_reader_last_seq (r));
  pthread_join (th, NULL);
  started = 0;
  T_RC (x.wait_rc, 0, "wait_carried once adopted");
  T_RC (x.replace_rc, 0, "replace B -> C");
  T_CHECK (read_in_order (r2, 4, 5, "B") == 0, "B's frames");
  T_RC (doradma_reader_next (r2, DORADMA_READ_NEXT, 0, &f, NULL), -ESTALE,
      "B drained");
  T_RC (t_publish_as (x.c, DORADMA_POLICY_LOSSLESS, 0, BYTES, 6, NULL), 0,
      "publish 6 on C");
  T_RC (reopen (token, &r3), 0, "reopen after B");
  T_CHECK (doradma_reader_token (r3) == token, "C's entry was not adopted");
  doradma_reader_set_last_seq (r3, doradma_reader_last_seq (r2));
  T_CHECK (read_in_order (r3, 6, 6, "C") == 0, "C's frames");
  /* Nothing left to wait for in C: its reader adopted the entry. */
  T_RC (doradma_writer_wait_carried (x.c, 0, NULL), 0, "C settled");
  res = 0;
err:
  if (started)
    pthread_join (th, NULL);
  doradma_reader_close (r3);
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (x.c);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

/* on-reader-stall=evict: the carried reader is no longer waited for. */
static int
case_evict_carried (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  int res = -1;

  T_CHECK (setup (&a, &r, "ho5") == 0, "setup");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  T_RC (doradma_writer_replace (a, &wc, &b, NULL), 0, "replace A -> B");
  T_RC (t_publish_as (b, DORADMA_POLICY_LOSSLESS, 0, BYTES, 4, NULL), 0,
      "publish on B");
  T_RC (doradma_writer_wait_carried (b, 0, NULL), -EAGAIN, "wait");
  T_RC (doradma_writer_evict_carried (b, &diag), 1, "evict");
  T_CHECK (strstr (diag.msg, "pid") != NULL, "diag names the pid: %s",
      diag.msg);
  T_RC (doradma_writer_wait_carried (b, 0, NULL), 0, "wait after evict");
  res = 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return res;
}

int
main (void)
{
  int failed = 0;

  t_watchdog (60);
  dir = t_shm_dir_new (NULL, "handover");
  if (dir == NULL)
    return T_EXIT_FAIL;
  T_EXPECT (failed, case_transient_holder () == 0, "transient lock holder");
  T_EXPECT (failed, case_two_replaces () == 0, "two quick replaces");
  T_EXPECT (failed, case_slow_drain () == 0, "slow drain, close first");
  T_EXPECT (failed, case_two_replaces_middle_frames () == 0,
      "two replaces, frames in the middle segment");
  T_EXPECT (failed, case_evict_carried () == 0, "evict carried readers");
  T_EXPECT (failed, case_counters_carried () == 0, "tool counters carried");
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
