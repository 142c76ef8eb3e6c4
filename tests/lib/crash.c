/* Description: liveness and naming under crashes, with real processes and
 * kill -9 (one scenario per argv[1], each a meson test of its own):
 *   reader     a reader killed while holding leases: the writer reclaims
 *              them on the way (acquire succeeds on those slots) and with
 *              doradma_writer_sweep; the entry is freed.
 *   writer     the writer killed while a reader sleeps in next: the reader
 *              gets -EOWNERDEAD within its timeout (not -ETIMEDOUT).
 *   stale      a killed writer's channel is reclaimed by a new writer; a
 *              reader of the old segment does not get new frames from it.
 *   race       N processes create one channel at a barrier, fresh and
 *              stale, 100 rounds: exactly one wins, the others get -EBUSY.
 *   successor  writer A replaced by B (doradma_writer_replace): closing A
 *              leaves B's objects (same inode at the name) and B works.
 *   enospc     a 1 MiB tmpfs as shm dir: a ring that does not fit gives
 *              -ENOSPC at create, with a diag naming the free space and
 *              nothing left behind; one that fits can be written in full
 *              (no SIGBUS). Needs mount (private mount namespace); skips
 *              with the reason when not permitted.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define BYTES 4096
#define SEC 1000000000ll

struct shared
{
  struct t_barrier *bar;
  char channel[64];
  char dir[512];
  int rc[16];
  uint32_t slots[4];
  pid_t pid;
};

static struct shared *sh;

static int
open_writer (struct doradma_writer **w, uint32_t slots)
{
  struct doradma_writer_config wc;
  struct doradma_diag diag;
  int rc;

  t_writer_config (&wc, sh->channel, sh->dir, slots, BYTES);
  memset (&diag, 0, sizeof diag);
  rc = doradma_writer_create (&wc, w, &diag);
  if (rc < 0)
    t_log ("create %s: %s: %s", sh->channel, t_errname (rc), diag.msg);
  return rc;
}

/* ---- reader ---- */

static int
leasing_reader (void *arg)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_frame f;

  t_reader_config (&rc, sh->channel, sh->dir, 0);
  if (doradma_reader_open (&rc, &r, NULL) < 0)
    return 2;
  t_barrier_wait (sh->bar);     /* 1: opened */
  t_barrier_wait (sh->bar);     /* 2: frames 1, 2 published */
  for (int i = 0; i < 2; i++) {
    if (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL) < 0)
      return 3;
    sh->slots[i] = f.slot;      /* held, never released */
  }
  t_barrier_wait (sh->bar);     /* 3: holding */
  pause ();
  return 4;
}

static int
test_reader (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_writer_stats st;
  struct doradma_shm_ctl *ctl = NULL;
  uint32_t slot;
  pid_t pid = 0;

  for (int round = 0; round < 2; round++) {
    /* A fresh channel per round, so the reader's first two frames are the
     * two published after it joined. */
    t_channel (sh->channel, sizeof sh->channel, "reader");
    T_RC (open_writer (&w, 3), 0, "create");
    ctl = t_ctl_map (sh->dir, sh->channel);
    T_CHECK (ctl != NULL, "ctl");
    pid = t_fork (leasing_reader, NULL);
    t_barrier_wait (sh->bar);
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub");
    t_barrier_wait (sh->bar);
    t_barrier_wait (sh->bar);
    T_CHECK (__atomic_load_n (&ctl->lease[sh->slots[0]].readers,
            __ATOMIC_ACQUIRE) != 0, "no lease bit on slot %u", sh->slots[0]);
    /* Frame 3 takes the last free slot and becomes the newest. */
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0,
        "pub 3");
    doradma_writer_get_stats (w, &st);
    T_CHECK (st.readers == 1, "readers %u", st.readers);
    T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot), -EAGAIN,
        "acquire while a live reader holds the other slots");
    kill (pid, SIGKILL);
    T_CHECK (t_wait (pid, 5000) == 128 + SIGKILL, "reader exit");
    if (round == 0) {
      /* Reclaimed on the way: an acquire that waits finds the dead entry
       * (lib sweeps at most once a second when not waiting, so that a
       * LATEST writer polling with timeout 0 makes no system call per
       * frame; a waiting acquire sweeps at once). */
      uint64_t t0 = t_now_ns ();
      T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 3 * SEC, &slot),
          0, "acquire after the reader died");
      T_CHECK (t_now_ns () - t0 < 1500000000ull, "reclaim took %llu ms",
          (unsigned long long) (t_now_ns () - t0) / 1000000);
      T_CHECK (slot == sh->slots[0] || slot == sh->slots[1],
          "acquired slot %u, not a reclaimed one", slot);
      T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
    } else {
      T_RC (doradma_writer_sweep (w), 1, "sweep");
      T_RC (doradma_writer_sweep (w), 0, "second sweep");
    }
    for (int i = 0; i < 2; i++) {
      T_CHECK (__atomic_load_n (&ctl->lease[sh->slots[i]].readers,
              __ATOMIC_ACQUIRE) == 0, "lease bits left on slot %u",
          sh->slots[i]);
      T_RC (doradma_writer_acquire_slot (w, DORADMA_POLICY_LATEST,
              sh->slots[i]), 0, "acquire_slot of a reclaimed slot");
      T_RC (doradma_writer_abandon (w, sh->slots[i]), 0, "abandon");
    }
    doradma_writer_get_stats (w, &st);
    T_CHECK (st.reclaimed == 1 && st.readers == 0,
        "reclaimed %llu readers %u", (unsigned long long) st.reclaimed,
        st.readers);
    T_CHECK (__atomic_load_n (&ctl->active, __ATOMIC_ACQUIRE) == 0,
        "active bitmap %llx", (unsigned long long) ctl->active);
    t_ctl_unmap (ctl);
    ctl = NULL;
    doradma_writer_close (w);
    w = NULL;
  }
  return 0;
err:
  if (pid > 0) {
    kill (pid, SIGKILL);
    t_wait (pid, 5000);
  }
  t_ctl_unmap (ctl);
  doradma_writer_close (w);
  return -1;
}

/* ---- writer ---- */

static int
short_writer (void *arg)
{
  struct doradma_writer *w;

  if (open_writer (&w, 2) < 0)
    return 2;
  if (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL) < 0)
    return 3;
  t_barrier_wait (sh->bar);     /* published */
  pause ();
  return 4;
}

static void *
killer (void *arg)
{
  usleep (200000);
  kill (sh->pid, SIGKILL);
  return NULL;
}

static int
test_writer (void)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_writer *w = NULL;
  struct doradma_frame f;
  pthread_t th;
  uint64_t t0, dt;
  int code;

  sh->pid = t_fork (short_writer, NULL);
  t_barrier_wait (sh->bar);
  t_reader_config (&rc, sh->channel, sh->dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), 0, "next");
  doradma_reader_release (r, f.slot);
  /* A live writer with nothing to publish is not a lost one: the liveness
   * check (its lock held) runs every 100 ms slice of this wait. */
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 300 * (SEC / 1000), &f,
          NULL), -ETIMEDOUT, "next while the writer lives but is idle");
  pthread_create (&th, NULL, killer, NULL);
  t0 = t_now_ns ();
  code = doradma_reader_next (r, DORADMA_READ_NEXT, 5 * SEC, &f, NULL);
  dt = t_now_ns () - t0;
  pthread_join (th, NULL);
  T_CHECK (t_wait (sh->pid, 5000) == 128 + SIGKILL, "writer exit");
  t_log ("writer killed after 200 ms; the sleeping reader returned %s after "
      "%.0f ms", t_errname (code), dt / 1e6);
  T_RC (code, -EOWNERDEAD, "next while the writer is killed");
  T_CHECK (dt < 5 * SEC, "took the whole timeout");
  /* Once reported, a dead writer stays reported, also to a poll with
   * timeout 0 (which never waits a slice to find out by itself). */
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), -EOWNERDEAD,
      "next (1 s) after the writer died");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), -EOWNERDEAD,
      "next (timeout 0) after -EOWNERDEAD was reported");
  doradma_reader_close (r);
  r = NULL;
  /* Clean up the stale channel the way a new writer would. */
  T_RC (open_writer (&w, 2), 0, "replace the stale channel");
  doradma_writer_close (w);
  return 0;
err:
  doradma_reader_close (r);
  return -1;
}

/* ---- stale ---- */

static int
path_exists (const char *suffix)
{
  char path[700];
  struct stat st;

  snprintf (path, sizeof path, "%s/doradma.%s%s", sh->dir, sh->channel, suffix);
  return stat (path, &st) == 0;
}

static int
test_stale (void)
{
  struct doradma_reader_config rc;
  struct doradma_reader *old = NULL, *r = NULL;
  struct doradma_writer *w = NULL;
  struct doradma_frame f;
  uint64_t seq;
  int code;

  sh->pid = t_fork (short_writer, NULL);
  t_barrier_wait (sh->bar);
  t_reader_config (&rc, sh->channel, sh->dir, 0);
  T_RC (doradma_reader_open (&rc, &old, NULL), 0, "open the doomed segment");
  kill (sh->pid, SIGKILL);
  T_CHECK (t_wait (sh->pid, 5000) == 128 + SIGKILL, "writer exit");
  T_CHECK (path_exists ("") && path_exists ("~ctl"),
      "a killed writer's objects vanished?");

  T_RC (open_writer (&w, 2), 0, "create over the stale channel");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, BYTES, &seq, NULL), 0, "pub");
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open the new segment");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), 0, "next");
  T_CHECK (f.info.seq == seq, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (r, f.slot);
  /* The old segment's reader drains frame 1, then learns it is over. */
  code = doradma_reader_next (old, DORADMA_READ_NEXT, SEC, &f, NULL);
  if (code == 0) {
    doradma_reader_release (old, f.slot);
    code = doradma_reader_next (old, DORADMA_READ_NEXT, SEC, &f, NULL);
  }
  T_CHECK (code == -ESTALE || code == -EOWNERDEAD,
      "reader of the reclaimed segment: %s, want -ESTALE or -EOWNERDEAD",
      t_errname (code));
  doradma_reader_close (old);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return 0;
err:
  doradma_reader_close (old);
  doradma_reader_close (r);
  doradma_writer_close (w);
  return -1;
}

/* ---- race ---- */

#define RACERS 6
#define ROUNDS 100

static int
racer (void *arg)
{
  int i = (int) (intptr_t) arg;
  struct doradma_writer *w = NULL;
  struct doradma_writer_config wc;

  t_writer_config (&wc, sh->channel, sh->dir, 2, BYTES);
  t_barrier_wait (sh->bar);     /* go */
  sh->rc[i] = doradma_writer_create (&wc, &w, NULL);
  t_barrier_wait (sh->bar);     /* everyone tried */
  doradma_writer_close (w);
  return 0;
}

static int
stale_writer (void *arg)
{
  struct doradma_writer *w;

  if (open_writer (&w, 2) < 0)
    return 2;
  _exit (0);                    /* no close: a stale channel */
}

static int
test_race (void)
{
  for (int round = 0; round < ROUNDS; round++) {
    pid_t pids[RACERS];
    int wins = 0, busy = 0;

    t_channel (sh->channel, sizeof sh->channel, "race");
    if (round & 1) {
      T_CHECK (t_wait (t_fork (stale_writer, NULL), 5000) == 0, "stale writer");
      T_CHECK (path_exists (""), "no stale channel");
    }
    sh->bar->n = RACERS;
    for (int i = 0; i < RACERS; i++) {
      sh->rc[i] = 1;
      pids[i] = t_fork (racer, (void *) (intptr_t) i);
    }
    for (int i = 0; i < RACERS; i++)
      T_CHECK (t_wait (pids[i], 10000) == 0, "racer %d", i);
    for (int i = 0; i < RACERS; i++) {
      if (sh->rc[i] == 0)
        wins++;
      else if (sh->rc[i] == -EBUSY)
        busy++;
      else
        t_log ("round %d racer %d: %s", round, i, t_errname (sh->rc[i]));
    }
    T_CHECK (wins == 1 && busy == RACERS - 1,
        "round %d (%s channel): %d winners, %d -EBUSY of %d", round,
        round & 1 ? "stale" : "fresh", wins, busy, RACERS);
    T_CHECK (!path_exists ("") && !path_exists ("~ctl"),
        "round %d: the winner's clean stop left objects", round);
  }
  sh->bar->n = 2;
  return 0;
err:
  sh->bar->n = 2;
  return -1;
}

/* ---- successor ---- */

static int
test_successor (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  struct stat sb, sn;
  char path[700];
  uint64_t seq;

  T_RC (open_writer (&a, 2), 0, "create A");
  T_RC (t_publish (a, DORADMA_POLICY_LATEST, 0, BYTES, NULL, NULL), 0, "pub A");
  t_writer_config (&wc, sh->channel, sh->dir, 3, 2 * BYTES);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_replace (a, &wc, &b, &diag), 0, diag.msg);
  doradma_writer_close (a);
  a = NULL;
  snprintf (path, sizeof path, "%s/doradma.%s", sh->dir, sh->channel);
  T_CHECK (stat (path, &sn) == 0, "closing A unlinked B's data object");
  T_CHECK (fstat (doradma_writer_fd (b), &sb) == 0, "fstat B");
  T_CHECK (sn.st_ino == sb.st_ino && sn.st_dev == sb.st_dev,
      "the name no longer resolves to B");
  T_CHECK (path_exists ("~ctl"), "closing A unlinked B's ctl object");
  {
    struct doradma_frame_info info;
    uint32_t slot;
    T_RC (doradma_writer_acquire (b, DORADMA_POLICY_LATEST, 0, &slot), 0,
        "acq B");
    t_stamp (doradma_writer_slot_data (b, slot), 2 * BYTES, 2);
    t_frame_info (&info, 2 * BYTES);
    T_RC (doradma_writer_publish (b, slot, &info), 0, "publish B");
    seq = info.seq;
  }
  T_CHECK (seq == 2, "B's first seq %llu, want 2 (continued)",
      (unsigned long long) seq);
  t_reader_config (&rc, sh->channel, sh->dir, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), 0, "open B");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, SEC, &f, NULL), 0, "next");
  T_CHECK (f.info.seq == seq && t_check_stamps (f.data, 2 * BYTES, seq, NULL)
      == 0, "B's frame");
  doradma_reader_release (r, f.slot);
  doradma_reader_close (r);
  doradma_writer_close (b);
  T_CHECK (!path_exists ("") && !path_exists ("~ctl"), "B's clean stop");
  return 0;
err:
  doradma_reader_close (r);
  doradma_writer_close (a);
  doradma_writer_close (b);
  return -1;
}

/* ---- enospc ---- */

static int
enospc_child (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  const char *mnt = arg;

  if (unshare (CLONE_NEWNS) < 0) {
    t_log ("SKIP: unshare(CLONE_NEWNS): %s: cannot mount a small tmpfs",
        strerror (errno));
    return T_EXIT_SKIP;
  }
  mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=1m,mode=0700") < 0) {
    t_log ("SKIP: mount -t tmpfs -o size=1m: %s", strerror (errno));
    return T_EXIT_SKIP;
  }
  snprintf (sh->dir, sizeof sh->dir, "%s", mnt);
  t_channel (sh->channel, sizeof sh->channel, "nospc");

  /* 4 x 256 KiB + header, RCB, ctl > 1 MiB. */
  t_writer_config (&wc, sh->channel, mnt, 4, 256 * 1024);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w, &diag), -ENOSPC, "create too big");
  t_log ("diag: %s", diag.msg);
  T_CHECK (strstr (diag.msg, "free") != NULL || strstr (diag.msg, "avail"),
      "the -ENOSPC diag does not name the free space: \"%s\"", diag.msg);
  T_CHECK (strpbrk (diag.msg, "0123456789") != NULL, "no figure in the diag");
  T_CHECK (t_leftovers (mnt, NULL) == 0, "a failed create left objects");

  /* 3 x 256 KiB fits; every byte can be written (fallocate: no SIGBUS). */
  wc.slots = 3;
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  for (uint32_t s = 0; s < 3; s++) {
    uint32_t slot;
    T_RC (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot), 0,
        "acq");
    memset (doradma_writer_slot_data (w, slot), 0x5a, 256 * 1024);
    T_RC (doradma_writer_abandon (w, slot), 0, "abandon");
  }
  doradma_writer_close (w);
  T_CHECK (t_leftovers (mnt, NULL) == 0, "objects left");
  umount (mnt);
  return T_EXIT_PASS;
err:
  doradma_writer_close (w);
  umount (mnt);
  return T_EXIT_FAIL;
}

static int
test_enospc (void)
{
  char mnt[] = "/tmp/doradma-test-enospc-XXXXXX";
  int code;

  if (mkdtemp (mnt) == NULL)
    return -1;
  code = t_wait (t_fork (enospc_child, mnt), 30000);
  rmdir (mnt);
  if (code == T_EXIT_SKIP)
    return 1;
  return code == 0 ? 0 : -1;
}

int
main (int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "";
  char *dir;
  int ret;

  t_watchdog (110);
  sh = t_shared_alloc (sizeof *sh);
  dir = t_shm_dir_new (NULL, "crash");
  if (sh == NULL || dir == NULL)
    return T_EXIT_FAIL;
  sh->bar = t_barrier_new (2);
  snprintf (sh->dir, sizeof sh->dir, "%s", dir);
  t_channel (sh->channel, sizeof sh->channel, what);

  if (strcmp (what, "reader") == 0)
    ret = test_reader ();
  else if (strcmp (what, "writer") == 0)
    ret = test_writer ();
  else if (strcmp (what, "stale") == 0)
    ret = test_stale ();
  else if (strcmp (what, "race") == 0)
    ret = test_race ();
  else if (strcmp (what, "successor") == 0)
    ret = test_successor ();
  else if (strcmp (what, "enospc") == 0)
    ret = test_enospc ();
  else {
    t_log ("usage: %s reader|writer|stale|race|successor|enospc", argv[0]);
    ret = -1;
  }
  if (t_shm_dir_remove (dir) != 0 && ret >= 0)
    ret = -1;
  return ret < 0 ? T_EXIT_FAIL : ret > 0 ? T_EXIT_SKIP : T_EXIT_PASS;
}
