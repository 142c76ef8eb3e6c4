/* Description: implementation of the t_* test helpers (see helpers.h). */
#include "helpers.h"
#include "segment.h"
#include "steps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void
t_log_at (const char *file, int line, const char *fmt, ...)
{
  char buf[512];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s:%d: [%d] %s\n", file, line, (int) getpid (), buf);
  fflush (stderr);
}

const char *
t_errname (int rc)
{
  static __thread char unknown[32];
  /* *INDENT-OFF* */
  static const struct { int e; const char *n; } names[] = {
    { 0, "OK" }, { EINVAL, "-EINVAL" }, { ENOENT, "-ENOENT" },
    { EBADMSG, "-EBADMSG" }, { EPROTONOSUPPORT, "-EPROTONOSUPPORT" },
    { EAGAIN, "-EAGAIN" }, { ETIMEDOUT, "-ETIMEDOUT" },
    { EOWNERDEAD, "-EOWNERDEAD" }, { EBUSY, "-EBUSY" }, { ESTALE, "-ESTALE" },
    { EOVERFLOW, "-EOVERFLOW" }, { EPIPE, "-EPIPE" }, { EINTR, "-EINTR" },
    { ENOSPC, "-ENOSPC" }, { EPERM, "-EPERM" }, { EACCES, "-EACCES" },
    { EUSERS, "-EUSERS" }, { ENOBUFS, "-ENOBUFS" }, { E2BIG, "-E2BIG" },
    { EEXIST, "-EEXIST" }, { ENOMEM, "-ENOMEM" }, { ENOSYS, "-ENOSYS" },
  };
  /* *INDENT-ON* */
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].e == -rc)
      return names[i].n;
  snprintf (unknown, sizeof unknown, "%d", rc);
  return unknown;
}

uint64_t
t_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

const char *
t_channel (char *buf, size_t len, const char *tag)
{
  static unsigned counter;

  snprintf (buf, len, "t-%s-%d-%u", tag, (int) getpid (),
      __atomic_fetch_add (&counter, 1, __ATOMIC_RELAXED));
  return buf;
}

char *
t_shm_dir_new (const char *base, const char *tag)
{
  char *dir = malloc (4096);

  if (dir == NULL)
    return NULL;
  snprintf (dir, 4096, "%s/dtest-%s-%d-XXXXXX",
      base ? base : doradma_shm_dir (NULL), tag, (int) getpid ());
  if (mkdtemp (dir) == NULL) {
    t_log ("mkdtemp %s: %s", dir, strerror (errno));
    free (dir);
    return NULL;
  }
  return dir;
}

int
t_leftovers (const char *dir, const char *filter)
{
  DIR *d;
  struct dirent *de;
  int n = 0;

  if (dir == NULL)
    dir = doradma_shm_dir (NULL);
  d = opendir (dir);
  if (d == NULL)
    return -errno;
  while ((de = readdir (d)) != NULL) {
    if (strncmp (de->d_name, "doradma", 7) != 0)
      continue;
    if (filter != NULL && strstr (de->d_name, filter) == NULL)
      continue;
    t_log ("left over: %s/%s", dir, de->d_name);
    n++;
  }
  closedir (d);
  return n;
}

int
t_shm_dir_remove (char *dir)
{
  DIR *d;
  struct dirent *de;
  int n;

  if (dir == NULL)
    return 0;
  n = t_leftovers (dir, NULL);
  d = opendir (dir);
  if (d != NULL) {
    while ((de = readdir (d)) != NULL) {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      unlinkat (dirfd (d), de->d_name, 0);
    }
    closedir (d);
  }
  rmdir (dir);
  free (dir);
  return n < 0 ? 0 : n;
}

static char t_caps_buf[256];

void
t_writer_config (struct doradma_writer_config *cfg, const char *channel,
    const char *shm_dir, uint32_t slots, uint64_t slot_size)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->channel = channel;
  cfg->shm_dir = shm_dir;
  cfg->slots = slots;
  cfg->slot_size = slot_size;
  cfg->mode = 0600;
  snprintf (t_caps_buf, sizeof t_caps_buf,
      "video/x-raw, format=(string)GRAY8, width=(int)4096, height=(int)%u, "
      "framerate=(fraction)30/1", (unsigned) ((slot_size + 4095) / 4096));
  cfg->caps = t_caps_buf;
  cfg->transport = "shmem";
}

void
t_reader_config (struct doradma_reader_config *cfg, const char *channel,
    const char *shm_dir, int backpressure)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->channel = channel;
  cfg->shm_dir = shm_dir;
  cfg->backpressure = backpressure;
  cfg->allowed_uid = -1;
}

void
t_frame_info (struct doradma_frame_info *info, uint64_t bytes)
{
  uint32_t rows = (uint32_t) ((bytes + 4095) / 4096);

  memset (info, 0, sizeof *info);
  info->n_planes = 1;
  info->width = 4096;
  info->height = rows;
  info->planes[0].offset = 0;
  info->planes[0].stride = 4096;
  info->planes[0].rows = rows;
  info->planes[0].row_bytes = 4096;
  info->payload_bytes = (uint64_t) rows *4096;
  info->pts = info->dts = info->duration = DORADMA_TIME_NONE;
  info->offset = info->offset_end = DORADMA_TIME_NONE;
  info->mono_pts = DORADMA_TIME_NONE;
}

/* Each 4 KiB page carries the sequence in its first and last word. Relaxed
 * atomics: the racing accesses are the point of the tests, not UB. */
void
t_stamp (uint8_t * p, uint64_t bytes, uint64_t seq)
{
  for (uint64_t off = 0; off + 4096 <= bytes; off += 4096) {
    __atomic_store_n ((uint64_t *) (p + off), seq, __ATOMIC_RELAXED);
    __atomic_store_n ((uint64_t *) (p + off + 4088), seq, __ATOMIC_RELAXED);
  }
}

uint64_t
t_check_stamps (const uint8_t * p, uint64_t bytes, uint64_t seq, uint64_t * bad)
{
  uint64_t n = 0;

  for (uint64_t off = 0; off + 4096 <= bytes; off += 4096) {
    uint64_t a =
        __atomic_load_n ((const uint64_t *) (p + off), __ATOMIC_RELAXED);
    uint64_t b = __atomic_load_n ((const uint64_t *) (p + off + 4088),
        __ATOMIC_RELAXED);
    if (a != seq || b != seq) {
      if (n == 0 && bad != NULL)
        *bad = a != seq ? a : b;
      n++;
    }
  }
  return n;
}

int
t_publish_as (struct doradma_writer *w, enum doradma_slot_policy policy,
    int64_t timeout_ns, uint64_t bytes, uint64_t expect_seq,
    uint32_t * slot_out)
{
  struct doradma_frame_info info;
  uint32_t slot;
  uint8_t *data;
  int rc;

  rc = doradma_writer_acquire (w, policy, timeout_ns, &slot);
  if (rc < 0)
    return rc;
  /* Stamp the sequence publish will assign before publishing it. */
  data = doradma_writer_slot_data (w, slot);
  if (data != NULL)
    t_stamp (data, bytes, expect_seq);
  t_frame_info (&info, bytes);
  rc = doradma_writer_publish (w, slot, &info);
  if (rc < 0)
    return rc;
  if (info.seq != expect_seq) {
    t_log ("publish assigned seq %llu, expected %llu",
        (unsigned long long) info.seq, (unsigned long long) expect_seq);
    return -EPROTO;
  }
  if (slot_out != NULL)
    *slot_out = slot;
  return 0;
}

int
t_publish (struct doradma_writer *w, enum doradma_slot_policy policy,
    int64_t timeout_ns, uint64_t bytes, uint64_t * seq, uint32_t * slot_out)
{
  struct doradma_writer_stats st;
  int rc;

  doradma_writer_get_stats (w, &st);
  rc = t_publish_as (w, policy, timeout_ns, bytes, st.last_seq + 1, slot_out);
  if (rc == 0 && seq != NULL)
    *seq = st.last_seq + 1;
  return rc;
}

struct doradma_shm_ctl *
t_ctl_map (const char *shm_dir, const char *channel)
{
  char path[512];
  void *p;
  int fd;

  snprintf (path, sizeof path, "%s/doradma.%s~ctl", doradma_shm_dir (shm_dir),
      channel);
  fd = open (path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    t_log ("open %s: %s", path, strerror (errno));
    return NULL;
  }
  p = mmap (NULL, sizeof (struct doradma_shm_ctl), PROT_READ | PROT_WRITE,
      MAP_SHARED, fd, 0);
  close (fd);
  if (p == MAP_FAILED) {
    t_log ("mmap %s: %s", path, strerror (errno));
    return NULL;
  }
  return p;
}

uint8_t *
t_data_map_rw (const char *shm_dir, const char *channel, size_t *len)
{
  char path[512];
  struct stat st;
  void *p;
  int fd;

  snprintf (path, sizeof path, "%s/doradma.%s", doradma_shm_dir (shm_dir),
      channel);
  fd = open (path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    t_log ("open %s: %s", path, strerror (errno));
    return NULL;
  }
  if (fstat (fd, &st) != 0) {
    t_log ("fstat %s: %s", path, strerror (errno));
    close (fd);
    return NULL;
  }
  p = mmap (NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close (fd);
  if (p == MAP_FAILED) {
    t_log ("mmap %s: %s", path, strerror (errno));
    return NULL;
  }
  *len = st.st_size;
  return p;
}

void
t_ctl_unmap (struct doradma_shm_ctl *ctl)
{
  if (ctl != NULL)
    munmap (ctl, sizeof *ctl);
}

const struct doradma_shm_rcb *
t_reader_rcb (struct doradma_reader *r)
{
  struct doradma_segment_info si;

  doradma_reader_segment_info (r, &si);
  return (const struct doradma_shm_rcb *) (si.map_base + si.slots_offset +
      (si.ipc ? 0 : (uint64_t) si.slot_count * si.slot_stride));
}

void *
t_shared_alloc (size_t len)
{
  void *p = mmap (NULL, len, PROT_READ | PROT_WRITE,
      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

  return p == MAP_FAILED ? NULL : p;
}

struct t_barrier *
t_barrier_new (uint32_t n)
{
  struct t_barrier *b = t_shared_alloc (sizeof *b);

  if (b != NULL)
    b->n = n;
  return b;
}

void
t_barrier_wait (struct t_barrier *b)
{
  uint32_t gen = __atomic_load_n (&b->gen, __ATOMIC_ACQUIRE);

  if (__atomic_add_fetch (&b->count, 1, __ATOMIC_ACQ_REL) == b->n) {
    __atomic_store_n (&b->count, 0, __ATOMIC_RELAXED);
    __atomic_store_n (&b->gen, gen + 1, __ATOMIC_RELEASE);
    return;
  }
  for (unsigned spins = 0; __atomic_load_n (&b->gen, __ATOMIC_ACQUIRE) == gen;
      spins++) {
    if (spins > 64)
      sched_yield ();
  }
}

pid_t
t_fork (int (*fn) (void *), void *arg)
{
  pid_t pid;

  fflush (NULL);
  pid = fork ();
  if (pid == 0) {
    /* Never outlive a failed test: no orphan holds a lease or a channel. */
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    _exit (fn (arg));
  }
  if (pid > 0)
    t_child_add (pid, "forked child (t_fork)");
  return pid;
}

struct live_writer
{
  const char *channel, *dir;
  struct t_barrier *bar;
};

static int
live_writer (void *arg)
{
  struct live_writer *lw = arg;
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  int ok;

  t_writer_config (&wc, lw->channel, lw->dir, 2, 4096);
  ok = doradma_writer_create (&wc, &w, NULL) == 0;
  t_barrier_wait (lw->bar);
  if (!ok)
    return 1;
  pause ();
  return 0;
}

pid_t
t_fork_live_writer (const char *channel, const char *dir)
{
  struct live_writer lw = { channel, dir, t_barrier_new (2) };
  pid_t pid = t_fork (live_writer, &lw);

  t_barrier_wait (lw.bar);
  return pid;
}

void
t_unlink_channel (const char *dir, const char *channel)
{
  struct segment_paths p;

  if (segment_paths_init (&p, dir, channel, NULL) < 0)
    return;
  unlink (p.data);
  unlink (p.ctl);
  /* a writer killed while creating leaves its temporaries: the writer's
   * own sweep removes them */
  segment_remove_leftovers (&p);
}

int
t_wait (pid_t pid, int timeout_ms)
{
  uint64_t deadline = t_now_ns () + (uint64_t) timeout_ms * 1000000ull;
  int st;

  t_waiting_for (pid);
  for (;;) {
    pid_t r = waitpid (pid, &st, WNOHANG);
    if (r == pid)
      break;
    if (r < 0) {
      t_waiting_for (0);
      return -1;
    }
    if (t_now_ns () > deadline) {
      t_log ("child %d did not finish within %d ms: killed", (int) pid,
          timeout_ms);
      kill (pid, SIGKILL);
      waitpid (pid, &st, 0);
      t_waiting_for (0);
      t_child_gone (pid);
      return -1;
    }
    usleep (1000);
  }
  t_waiting_for (0);
  t_child_gone (pid);
  if (WIFEXITED (st))
    return WEXITSTATUS (st);
  if (WIFSIGNALED (st))
    return 128 + WTERMSIG (st);
  return -1;
}

/* ------------------------------------------------------------------------ */
/* System call counting with ptrace: the tracer counts syscall-entry stops  */
/* between a SIGUSR1 and a SIGUSR2 the child raises (signals suppressed).   */
/* ------------------------------------------------------------------------ */

static int t_traced;

static void
t_mark (int sig)
{
  if (t_traced)
    syscall (SYS_tgkill, getpid (), syscall (SYS_gettid), sig);
}

void
t_mark_begin (void)
{
  t_mark (SIGUSR1);
}

void
t_mark_end (void)
{
  t_mark (SIGUSR2);
}

#define T_NO_PTRACE 99

int
t_count_syscalls (int (*fn) (void *), void *arg, struct t_syscounts *out)
{
  uint64_t total[2] = { 0, 0 }, futex[2] = { 0, 0 };
  int window = -1, counting = 0, st, code;
  pid_t pid;

  memset (out, 0, sizeof *out);
  fflush (NULL);
  pid = fork ();
  if (pid < 0)
    return T_EXIT_FAIL;
  if (pid == 0) {
    if (ptrace (PTRACE_TRACEME, 0, NULL, NULL) < 0)
      _exit (T_NO_PTRACE);
    raise (SIGSTOP);
    t_traced = 1;
    /* Window 0 calibrates the cost of the markers themselves. */
    t_mark_begin ();
    t_mark_end ();
    _exit (fn (arg));
  }
  if (waitpid (pid, &st, 0) != pid)
    return T_EXIT_FAIL;
  if (WIFEXITED (st)) {
    t_log ("ptrace not permitted here: cannot count system calls");
    return WEXITSTATUS (st) == T_NO_PTRACE ? T_EXIT_SKIP : T_EXIT_FAIL;
  }
  if (ptrace (PTRACE_SETOPTIONS, pid, NULL,
          (void *) (long) (PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) < 0) {
    t_log ("PTRACE_SETOPTIONS: %s", strerror (errno));
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    return T_EXIT_SKIP;
  }
  int sig = 0;
  for (;;) {
    if (ptrace (PTRACE_SYSCALL, pid, NULL, (void *) (long) sig) < 0)
      break;
    sig = 0;
    if (waitpid (pid, &st, 0) != pid)
      break;
    if (WIFEXITED (st) || WIFSIGNALED (st))
      break;
    if (!WIFSTOPPED (st))
      continue;
    int s = WSTOPSIG (st);
    if (s == (SIGTRAP | 0x80)) {
      struct __ptrace_syscall_info si;
      memset (&si, 0, sizeof si);
      if (ptrace (PTRACE_GET_SYSCALL_INFO, pid, (void *) sizeof si, &si) > 0
          && si.op == PTRACE_SYSCALL_INFO_ENTRY && counting) {
        total[window]++;
        if (si.entry.nr == SYS_futex)
          futex[window]++;
      }
    } else if (s == SIGUSR1) {
      if (window < 1)
        window++;
      counting = 1;
    } else if (s == SIGUSR2) {
      counting = 0;
    } else if (s != SIGSTOP) {
      sig = s;
    }
  }
  if (WIFEXITED (st))
    code = WEXITSTATUS (st);
  else if (WIFSIGNALED (st))
    code = 128 + WTERMSIG (st);
  else
    code = T_EXIT_FAIL;
  if (window < 1) {
    t_log ("the child never marked its window");
    return code == T_EXIT_PASS ? T_EXIT_FAIL : code;
  }
  out->total = total[1] > total[0] ? total[1] - total[0] : 0;
  out->futex = futex[1];
  return code;
}

void
t_watchdog (unsigned seconds)
{
  t_deadline_arm (seconds);
}

int
t_diag_matches (const char *file, int line, const char *what, int ret,
    int want, const struct doradma_diag *diag, const char *field)
{
  if (ret != want) {
    t_log_at (file, line, "CHECK FAILED: %s: got %d (%s), want %d (%s)%s%s",
        what, ret, t_errname (ret), want, t_errname (want),
        diag && ret < 0 ? "; diag: " : "", diag && ret < 0 ? diag->msg : "");
    return 0;
  }
  if (want < 0 && field != NULL && (diag->field == NULL
          || strcmp (diag->field, field) != 0)) {
    t_log_at (file, line, "CHECK FAILED: %s: field \"%s\", want \"%s\" (%s)",
        what, diag->field ? diag->field : "(null)", field, diag->msg);
    return 0;
  }
  if (want < 0 && diag->msg[0] == '\0') {
    t_log_at (file, line, "CHECK FAILED: %s: empty diag message", what);
    return 0;
  }
  return 1;
}

int
t_open_pair (const char *dir, const char *channel, uint32_t slots,
    uint64_t slot_size, int backpressure, struct doradma_writer **w,
    struct doradma_reader **r)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_diag diag = { 0 };
  int ret;

  t_writer_config (&wc, channel, dir, slots, slot_size);
  ret = doradma_writer_create (&wc, w, &diag);
  if (ret < 0) {
    t_log ("writer_create: %s: %s", t_errname (ret), diag.msg);
    return ret;
  }
  if (r == NULL)
    return 0;
  t_reader_config (&rc, channel, dir, backpressure);
  ret = doradma_reader_open (&rc, r, &diag);
  if (ret < 0)
    t_log ("reader_open: %s: %s", t_errname (ret), diag.msg);
  return ret;
}
