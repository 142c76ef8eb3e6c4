/* Description: soak with kill -9. One writer and three readers, each its
 * own process (fork + exec of this binary), in a private shm directory.
 * Every round the supervisor kills one of them at a random moment with
 * SIGKILL and starts it again, then waits until every process has made
 * progress again (the readers on the new writer when the writer died).
 *
 * Asserted, every round:
 *   - no torn frame is ever delivered: the writer stamps the sequence into
 *     every 4 KiB page (first, second and last word), readers check every
 *     page of every frame they lease or copy;
 *   - survivors never crash or hang: each child must still run, and its
 *     heartbeat (bumped at least every 100 ms wait slice) must advance;
 *     a killed child must have died of SIGKILL, not of anything else;
 *   - readers resume on the new writer: after -EOWNERDEAD / -ESTALE they
 *     wait (doradma_channel_wait) and reopen; they must deliver frames of
 *     the new writer within the round's deadline;
 *   - no fd growth: long-lived readers count /proc/self/fd at every reopen;
 * and at the end, after a clean stop, nothing is left in the shm directory.
 *
 * Rounds: argv[1], else $DORADMA_SOAK_ROUNDS, else 200 (about 1-2 min on 2
 * cores). Readers: 0 = next + lease + back-pressure, 1 = latest + lease
 * (holds up to 2 leases), 2 = next + copy. The writer alternates latest and
 * lossless (with doradma_writer_evict_stalled on timeout). */
#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NPROC 4                 /* 0 = writer, 1..3 = readers */
#define SLOTS 6
#define PAGES 16
#define SLOT_BYTES (PAGES * 4096)
#define MS 1000000ll
#define ROUND_DEADLINE_NS (8000 * MS)
#define HANG_NS (5000 * MS)

struct status
{
  uint64_t hb[NPROC];           /* heartbeats */
  uint64_t frames[NPROC];       /* frames delivered (writer: published) */
  uint64_t reopens[NPROC];
  uint64_t fds[NPROC];          /* fds counted at the last open */
  uint64_t torn_discarded[NPROC];
  uint64_t evictions;
  uint64_t writer_gen;          /* first_seq of the current writer */
};

static struct status *status;
static volatile sig_atomic_t stopping;

static void
on_term (int sig)
{
  stopping = 1;
}

static struct status *
map_status (const char *dir, int create)
{
  char path[4096];
  void *p;
  int fd;

  snprintf (path, sizeof path, "%s/soak-status", dir);
  fd = open (path, O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0600);
  if (fd < 0 || (create && ftruncate (fd, sizeof (struct status)) != 0))
    return NULL;
  p = mmap (NULL, sizeof (struct status), PROT_READ | PROT_WRITE, MAP_SHARED,
      fd, 0);
  close (fd);
  return p == MAP_FAILED ? NULL : p;
}

#define BUMP(f) __atomic_fetch_add (&(f), 1, __ATOMIC_RELAXED)
#define GET(f) __atomic_load_n (&(f), __ATOMIC_RELAXED)
#define SET(f, v) __atomic_store_n (&(f), (v), __ATOMIC_RELAXED)

/* ------------------------------------------------------------------------ */
/* stamps                                                                   */
/* ------------------------------------------------------------------------ */

static void
stamp (uint8_t * p, uint64_t seq)
{
  for (uint64_t off = 0; off < SLOT_BYTES; off += 4096) {
    __atomic_store_n ((uint64_t *) (p + off), seq, __ATOMIC_RELAXED);
    __atomic_store_n ((uint64_t *) (p + off + 8), ~seq, __ATOMIC_RELAXED);
    __atomic_store_n ((uint64_t *) (p + off + 4088), seq, __ATOMIC_RELAXED);
  }
}

/* Returns the index of the first bad page, or -1. */
static int
check (const uint8_t * p, uint64_t bytes, uint64_t seq, uint64_t * bad)
{
  if (bytes != SLOT_BYTES) {
    *bad = bytes;
    return PAGES;
  }
  for (uint64_t off = 0; off < SLOT_BYTES; off += 4096) {
    uint64_t a =
        __atomic_load_n ((const uint64_t *) (p + off), __ATOMIC_RELAXED);
    uint64_t b =
        __atomic_load_n ((const uint64_t *) (p + off + 8), __ATOMIC_RELAXED);
    uint64_t c =
        __atomic_load_n ((const uint64_t *) (p + off + 4088), __ATOMIC_RELAXED);
    if (a != seq || b != ~seq || c != seq) {
      *bad = a != seq ? a : c;
      return (int) (off / 4096);
    }
  }
  return -1;
}

/* ------------------------------------------------------------------------ */
/* writer process                                                           */
/* ------------------------------------------------------------------------ */

static int
run_writer (const char *dir, const char *ch)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_frame_info info;
  struct doradma_writer_stats st;
  struct doradma_diag diag;
  uint64_t t0 = t_now_ns (), n = 0;
  uint32_t slot;
  int ret;

  t_writer_config (&wc, ch, dir, SLOTS, SLOT_BYTES);
  /* Sequences never repeat across writers: a stale page of an earlier
   * writer can never pass for a page of this one. */
  wc.first_seq = t_now_ns () / 1000;
  for (;;) {
    ret = doradma_writer_create (&wc, &w, &diag);
    if (ret == 0)
      break;
    /* -EBUSY cannot last: the previous writer was reaped, its lock is gone. */
    if (ret != -EBUSY || t_now_ns () - t0 > 3000 * MS) {
      t_log ("writer_create: %s: %s", t_errname (ret), diag.msg);
      return 1;
    }
    usleep (5000);
  }
  SET (status->writer_gen, wc.first_seq);
  while (!stopping) {
    enum doradma_slot_policy pol = (n / 200) % 2 ? DORADMA_POLICY_LOSSLESS :
        DORADMA_POLICY_LATEST;

    BUMP (status->hb[0]);
    ret = doradma_writer_acquire (w, pol, 100 * MS, &slot);
    if (ret == -ETIMEDOUT && pol == DORADMA_POLICY_LOSSLESS) {
      if (doradma_writer_evict_stalled (w, NULL) > 0)
        BUMP (status->evictions);
      ret = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 100 * MS, &slot);
    }
    if (ret == -ETIMEDOUT || ret == -EAGAIN)
      continue;
    if (ret != 0) {
      t_log ("writer acquire: %s", t_errname (ret));
      return 1;
    }
    doradma_writer_get_stats (w, &st);
    stamp (doradma_writer_slot_data (w, slot),
        st.last_seq ? st.last_seq + 1 : wc.first_seq);
    t_frame_info (&info, SLOT_BYTES);
    ret = doradma_writer_publish (w, slot, &info);
    if (ret != 0) {
      t_log ("writer publish: %s", t_errname (ret));
      return 1;
    }
    if (info.seq != (st.last_seq ? st.last_seq + 1 : wc.first_seq)) {
      t_log ("publish assigned %llu", (unsigned long long) info.seq);
      return 1;
    }
    BUMP (status->frames[0]);
    n++;
    usleep (300);
  }
  doradma_writer_close (w);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* reader processes                                                         */
/* ------------------------------------------------------------------------ */

static int
count_fds (void)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *de;
  int n = 0;

  if (d == NULL)
    return -1;
  while ((de = readdir (d)) != NULL)
    if (de->d_name[0] != '.')
      n++;
  closedir (d);
  return n;
}

static int
run_reader (const char *dir, const char *ch, int idx)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_segment_info si;
  struct doradma_frame f, held[2];
  struct doradma_diag diag;
  uint8_t *buf = malloc (SLOT_BYTES);
  uint64_t dead_ino = 0, last = 0, bad;
  int nheld = 0, fds0 = -1, ret, page;
  int copy = idx == 3, latest = idx == 2;

  t_reader_config (&rc, ch, dir, idx == 1);
  while (!stopping) {
    /* (Re)open: wait for the name, refuse the dead writer's segment. */
    if (r == NULL) {
      BUMP (status->hb[idx]);
      ret = doradma_reader_open (&rc, &r, &diag);
      if (ret == -ENOENT) {
        ret = doradma_channel_wait (dir, ch, 100 * MS, -1);
        if (ret != 0 && ret != -ETIMEDOUT) {
          t_log ("reader %d channel_wait: %s", idx, t_errname (ret));
          return 1;
        }
        continue;
      }
      if (ret == -ESTALE) {     /* ctl name still the predecessor's */
        usleep (5000);
        continue;
      }
      if (ret != 0) {
        t_log ("reader %d open: %s: %s", idx, t_errname (ret), diag.msg);
        return 1;
      }
      doradma_reader_segment_info (r, &si);
      if (si.ino == dead_ino) {
        /* Still the dead writer's segment: no API waits for its
         * replacement (channel_wait returns at once while the stale name
         * exists), so look again shortly. */
        doradma_reader_close (r);
        r = NULL;
        usleep (5000);
        continue;
      }
      {
        int n = count_fds ();
        if (fds0 < 0)
          fds0 = n;
        SET (status->fds[idx], n);
        if (n > fds0) {
          t_log ("reader %d: %d fds open after %llu reopens, %d at the first",
              idx, n, (unsigned long long) GET (status->reopens[idx]), fds0);
          return 1;
        }
      }
      BUMP (status->reopens[idx]);
      last = 0;
    }

    BUMP (status->hb[idx]);
    if (copy)
      ret = doradma_reader_copy_next (r, DORADMA_READ_NEXT, 100 * MS, buf,
          SLOT_BYTES, &f, &diag);
    else
      ret = doradma_reader_next (r, latest ? DORADMA_READ_LATEST :
          DORADMA_READ_NEXT, 100 * MS, &f, &diag);
    if (ret == 0) {
      page =
          check (copy ? buf : f.data, f.info.payload_bytes, f.info.seq, &bad);
      if (page >= 0) {
        t_log ("reader %d: TORN frame %llu: page %d carries %llu (%s)", idx,
            (unsigned long long) f.info.seq, page, (unsigned long long) bad,
            copy ? "copy" : "lease");
        return 1;
      }
      if (f.info.seq <= last) {
        t_log ("reader %d: frame %llu after %llu", idx,
            (unsigned long long) f.info.seq, (unsigned long long) last);
        return 1;
      }
      last = f.info.seq;
      BUMP (status->frames[idx]);
      if (!copy) {
        if (latest && nheld < 2 && (f.info.seq % 3) == 0) {
          held[nheld++] = f;    /* hold a couple, like a queue would */
        } else {
          doradma_reader_release (r, f.slot);
          while (nheld > 0 && (f.info.seq % 5) == 0) {
            nheld--;
            if (check (held[nheld].data, SLOT_BYTES, held[nheld].info.seq,
                    &bad) >= 0) {
              t_log ("reader %d: held frame %llu changed under its lease",
                  idx, (unsigned long long) held[nheld].info.seq);
              return 1;
            }
            doradma_reader_release (r, held[nheld].slot);
          }
        }
      }
      continue;
    }
    if (ret == -ETIMEDOUT || ret == -EINTR)
      continue;
    if (ret == -EOWNERDEAD || ret == -ESTALE || ret == -EPIPE) {
      struct doradma_reader_stats st;
      doradma_reader_get_stats (r, &st);
      SET (status->torn_discarded[idx], GET (status->torn_discarded[idx]) +
          st.torn);
      if (ret == -EOWNERDEAD)
        dead_ino = si.ino;
      while (nheld > 0)
        doradma_reader_release (r, held[--nheld].slot);
      doradma_reader_close (r);
      r = NULL;
      continue;
    }
    t_log ("reader %d: next: %s: %s", idx, t_errname (ret), diag.msg);
    return 1;
  }
  while (nheld > 0)
    doradma_reader_release (r, held[--nheld].slot);
  doradma_reader_close (r);
  free (buf);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* supervisor                                                               */
/* ------------------------------------------------------------------------ */

static char self[4096];

static pid_t
spawn (const char *dir, const char *ch, int idx)
{
  char sidx[16];                /* "%d" of any int, for gcc's -Wformat-truncation */
  pid_t pid;

  snprintf (sidx, sizeof sidx, "%d", idx);
  fflush (NULL);
  pid = fork ();
  if (pid == 0) {
    execl (self, self, idx == 0 ? "writer" : "reader", dir, ch, sidx,
        (char *) NULL);
    _exit (127);
  }
  return pid;
}

static const char *
who (int i)
{
  static const char *const n[] = { "writer", "reader 1 (next, lease, bp)",
    "reader 2 (latest, lease)", "reader 3 (next, copy)"
  };
  return n[i];
}

/* Fails if any child has exited. */
static int
all_alive (pid_t * pids)
{
  for (int i = 0; i < NPROC; i++) {
    int st;
    pid_t r = waitpid (pids[i], &st, WNOHANG);
    if (r == pids[i]) {
      t_log ("%s (pid %d) ended by itself: %s %d", who (i), (int) pids[i],
          WIFSIGNALED (st) ? "signal" : "exit",
          WIFSIGNALED (st) ? WTERMSIG (st) : WEXITSTATUS (st));
      pids[i] = -1;
      return 0;
    }
  }
  return 1;
}

/* Waits until every process advanced its frame counter past `since` (and
 * heartbeats move), checking liveness meanwhile. */
static int
wait_progress (pid_t * pids, const uint64_t * since, uint64_t deadline_ns)
{
  uint64_t t0 = t_now_ns ();

  for (;;) {
    int done = 1;
    if (!all_alive (pids))
      return -1;
    for (int i = 0; i < NPROC; i++)
      if (GET (status->frames[i]) <= since[i])
        done = 0;
    if (done)
      return 0;
    if (t_now_ns () - t0 > deadline_ns) {
      for (int i = 0; i < NPROC; i++)
        if (GET (status->frames[i]) <= since[i])
          t_log ("%s made no progress in %.1f s (frames %llu, heartbeat %llu)",
              who (i), deadline_ns / 1e9,
              (unsigned long long) GET (status->frames[i]),
              (unsigned long long) GET (status->hb[i]));
      return -1;
    }
    usleep (2000);
  }
}

static int
supervise (unsigned rounds)
{
  char *dir = t_shm_dir_new (NULL, "soak");
  char ch[64], path[4096];
  pid_t pids[NPROC];
  uint64_t since[NPROC], hb_last[NPROC], hb_time[NPROC];
  unsigned round = 0, kills[NPROC] = { 0 };
  uint64_t t_start = t_now_ns ();
  int i, ret = T_EXIT_FAIL, left;
  DIR *d;
  struct dirent *de;

  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "soak");
  status = map_status (dir, 1);
  if (status == NULL)
    return T_EXIT_FAIL;
  if (readlink ("/proc/self/exe", self, sizeof self - 1) < 0)
    return T_EXIT_FAIL;
  srandom ((unsigned) t_now_ns ());

  for (i = 0; i < NPROC; i++)
    pids[i] = spawn (dir, ch, i);
  memset (since, 0, sizeof since);
  if (wait_progress (pids, since, ROUND_DEADLINE_NS) != 0)
    goto out;

  for (round = 0; round < rounds; round++) {
    int v = random () % NPROC, st;
    uint64_t now;

    usleep ((useconds_t) (random () % 150000));
    if (!all_alive (pids))
      goto out;
    /* Heartbeats of survivors: a hang is a heartbeat that stops. */
    now = t_now_ns ();
    for (i = 0; i < NPROC; i++) {
      uint64_t hb = GET (status->hb[i]);
      if (round == 0 || hb != hb_last[i]) {
        hb_last[i] = hb;
        hb_time[i] = now;
      } else if (now - hb_time[i] > HANG_NS) {
        t_log ("%s hangs: heartbeat stuck for %.1f s", who (i),
            (now - hb_time[i]) / 1e9);
        goto out;
      }
    }
    kill (pids[v], SIGKILL);
    if (waitpid (pids[v], &st, 0) != pids[v] || !WIFSIGNALED (st) ||
        WTERMSIG (st) != SIGKILL) {
      t_log ("%s did not die of our SIGKILL: status 0x%x", who (v), st);
      pids[v] = -1;
      goto out;
    }
    kills[v]++;
    for (i = 0; i < NPROC; i++)
      since[i] = GET (status->frames[i]);
    pids[v] = spawn (dir, ch, v);
    hb_time[v] = t_now_ns ();
    /* Everyone works again: readers on the new writer when it was v. */
    if (wait_progress (pids, since, ROUND_DEADLINE_NS) != 0) {
      t_log ("round %u: after killing %s", round, who (v));
      goto out;
    }
  }
  ret = T_EXIT_PASS;
out:
  /* Clean stop: SIGTERM, each must exit 0. */
  for (i = NPROC - 1; i >= 0; i--)
    if (pids[i] > 0)
      kill (pids[i], SIGTERM);
  for (i = NPROC - 1; i >= 0; i--) {
    if (pids[i] <= 0)
      continue;
    int st = t_wait (pids[i], 5000);
    if (st != 0) {
      t_log ("%s: clean stop ended with %d", who (i), st);
      ret = T_EXIT_FAIL;
    }
  }
  t_log ("%u rounds in %.1f s: kills writer %u, readers %u/%u/%u; frames: "
      "published %llu, delivered %llu/%llu/%llu; reopens %llu/%llu/%llu; "
      "fds %llu/%llu/%llu; torn copies discarded %llu; evictions %llu",
      round, (t_now_ns () - t_start) / 1e9, kills[0], kills[1], kills[2],
      kills[3], (unsigned long long) status->frames[0],
      (unsigned long long) status->frames[1],
      (unsigned long long) status->frames[2],
      (unsigned long long) status->frames[3],
      (unsigned long long) status->reopens[1],
      (unsigned long long) status->reopens[2],
      (unsigned long long) status->reopens[3],
      (unsigned long long) status->fds[1], (unsigned long long) status->fds[2],
      (unsigned long long) status->fds[3],
      (unsigned long long) status->torn_discarded[3],
      (unsigned long long) status->evictions);
  munmap (status, sizeof *status);
  snprintf (path, sizeof path, "%s/soak-status", dir);
  unlink (path);
  /* Nothing may be left: not the names, not a temporary link. */
  left = 0;
  d = opendir (dir);
  while (d && (de = readdir (d)) != NULL) {
    if (strcmp (de->d_name, ".") && strcmp (de->d_name, "..")) {
      t_log ("left in the shm dir: %s", de->d_name);
      left++;
    }
  }
  if (d)
    closedir (d);
  if (left)
    ret = T_EXIT_FAIL;
  t_shm_dir_remove (dir);
  return ret;
}

int
main (int argc, char **argv)
{
  unsigned rounds = 200;
  const char *env = getenv ("DORADMA_SOAK_ROUNDS");

  if (argc == 5 && (strcmp (argv[1], "writer") == 0 ||
          strcmp (argv[1], "reader") == 0)) {
    struct sigaction sa;
    memset (&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction (SIGTERM, &sa, NULL);
    status = map_status (argv[2], 0);
    if (status == NULL)
      return 1;
    if (argv[1][0] == 'w')
      return run_writer (argv[2], argv[3]);
    return run_reader (argv[2], argv[3], atoi (argv[4]));
  }
  if (argc == 2)
    rounds = (unsigned) strtoul (argv[1], NULL, 10);
  else if (env != NULL && env[0] != '\0')
    rounds = (unsigned) strtoul (env, NULL, 10);
  /* Bounded: 2.5 s a round at worst, plus the start. */
  t_watchdog (60 + rounds * 3 / 2);
  return supervise (rounds);
}
