/* Description: micro-benchmark of one frame hand-off in one process: writer
 * acquire + publish, reader next (lease) + release, on a 4-slot ring of
 * 4 KiB slots, nobody asleep. Reports ns per cycle (median of 5 runs of
 * 10^6 cycles), the same for a seqlock copy read of 4 KiB, a peer measured
 * in the same run (one 8-byte message over a socketpair per frame, the
 * minimum a socket-signalled transport such as unixfd pays), and the system
 * calls per cycle, counted with ptrace around 10^5 cycles: must be 0, and
 * 0 futex calls (exit 1 otherwise). `--markdown FILE` writes the figures as
 * docs/bench/micro.md. Not part of `meson test`: run `meson compile -C
 * build bench-micro` or `meson test --benchmark`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"

#define CYCLES 1000000
#define RUNS 5
#define COUNTED 100000
#define BYTES 4096

static struct doradma_writer *w;
static struct doradma_reader *r;
static struct doradma_frame_info info;
static uint8_t copybuf[BYTES];

static inline int
cycle_lease (void)
{
  struct doradma_frame f;
  uint32_t slot;
  int rc;

  if ((rc = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot)) < 0)
    return rc;
  if ((rc = doradma_writer_publish (w, slot, &info)) < 0)
    return rc;
  if ((rc = doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL)) < 0)
    return rc;
  doradma_reader_release (r, f.slot);
  return 0;
}

static inline int
cycle_copy (void)
{
  struct doradma_frame f;
  uint32_t slot;
  int rc;

  if ((rc = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot)) < 0)
    return rc;
  if ((rc = doradma_writer_publish (w, slot, &info)) < 0)
    return rc;
  return doradma_reader_copy_next (r, DORADMA_READ_NEXT, 0, copybuf, BYTES,
      &f, NULL);
}

static int sv[2];

static inline int
cycle_socket (void)
{
  uint64_t idx = 1;

  if (write (sv[0], &idx, sizeof idx) != sizeof idx)
    return -errno;
  if (read (sv[1], &idx, sizeof idx) != sizeof idx)
    return -errno;
  return 0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
measure (int (*cycle) (void), const char *name)
{
  double runs[RUNS];

  for (int i = 0; i < 10000; i++)       /* warm up */
    if (cycle () < 0)
      return -1;
  for (int k = 0; k < RUNS; k++) {
    uint64_t t0 = t_now_ns ();
    for (int i = 0; i < CYCLES; i++) {
      int rc = cycle ();
      if (rc < 0) {
        fprintf (stderr, "%s: cycle failed: %s\n", name, t_errname (rc));
        return -1;
      }
    }
    runs[k] = (double) (t_now_ns () - t0) / CYCLES;
  }
  qsort (runs, RUNS, sizeof runs[0], cmp_double);
  printf ("%-28s %8.1f ns/cycle (median of %d x %d; min %.1f, max %.1f)\n",
      name, runs[RUNS / 2], RUNS, CYCLES, runs[0], runs[RUNS - 1]);
  return runs[RUNS / 2];
}

static char *dir;

static int
bench_open (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_diag diag;
  char ch[64];

  t_channel (ch, sizeof ch, "bench");
  t_writer_config (&wc, ch, dir, 4, BYTES);
  t_reader_config (&rc, ch, dir, 0);
  memset (&diag, 0, sizeof diag);
  if (doradma_writer_create (&wc, &w, &diag) < 0 ||
      doradma_reader_open (&rc, &r, &diag) < 0) {
    fprintf (stderr, "setup: %s\n", diag.msg);
    return -1;
  }
  return 0;
}

/* Runs in a forked, traced child: lib handles do not cross fork, so the
 * child opens its own channel (the parent's stays the parent's). */
static int
counted_cycles (void *arg)
{
  int (*cycle) (void) = (int (*)(void)) arg;
  int code = 0;

  w = NULL;
  r = NULL;
  if (bench_open () < 0)
    return 1;
  for (int i = 0; i < 1000; i++)
    if (cycle () < 0)
      return 1;
  t_mark_begin ();
  for (int i = 0; i < COUNTED; i++)
    if (cycle () < 0) {
      code = 1;
      break;
    }
  t_mark_end ();
  doradma_reader_close (r);
  doradma_writer_close (w);
  return code;
}

int
main (int argc, char **argv)
{
  struct t_syscounts sc_lease, sc_copy;
  const char *md = NULL;
  double ns_lease, ns_copy, ns_sock;
  int code_lease, code_copy, ret = 1;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--markdown") == 0 && i + 1 < argc)
      md = argv[++i];

  dir = t_shm_dir_new (NULL, "bench");
  if (dir == NULL)
    return 1;
  t_frame_info (&info, BYTES);
  if (bench_open () < 0)
    goto out;
  t_frame_info (&info, BYTES);
  if (socketpair (AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
    goto out;

  ns_lease = measure (cycle_lease, "publish+lease+release");
  ns_copy = measure (cycle_copy, "publish+copy read (4 KiB)");
  ns_sock = measure (cycle_socket, "peer: socketpair message");
  if (ns_lease < 0 || ns_copy < 0 || ns_sock < 0)
    goto out;

  code_lease = t_count_syscalls (counted_cycles, (void *) cycle_lease,
      &sc_lease);
  code_copy = t_count_syscalls (counted_cycles, (void *) cycle_copy, &sc_copy);
  if (code_lease == T_EXIT_SKIP || code_copy == T_EXIT_SKIP) {
    printf ("system calls: not counted (ptrace not permitted)\n");
  } else {
    printf ("system calls per cycle: lease %.4f (futex %.4f), copy %.4f "
        "(futex %.4f), over %d cycles each\n",
        (double) sc_lease.total / COUNTED, (double) sc_lease.futex / COUNTED,
        (double) sc_copy.total / COUNTED, (double) sc_copy.futex / COUNTED,
        COUNTED);
  }
  printf ("ratio: a doradma hand-off costs %.3f of a socketpair message\n",
      ns_lease / ns_sock);

  if (md != NULL) {
    FILE *f = fopen (md, "w");
    struct utsname u;
    char cpu[600] = "unknown";
    FILE *ci = fopen ("/proc/cpuinfo", "r");
    char line[512];
    time_t now = time (NULL);
    char date[32];

    uname (&u);
    while (ci != NULL && fgets (line, sizeof line, ci) != NULL)
      if (strncmp (line, "model name", 10) == 0) {
        char *p = strchr (line, ':');
        snprintf (cpu, sizeof cpu, "%s", p ? p + 2 : line);
        cpu[strcspn (cpu, "\n")] = '\0';
        break;
      }
    if (ci != NULL)
      fclose (ci);
    strftime (date, sizeof date, "%Y-%m-%d", gmtime (&now));
    if (f == NULL) {
      perror (md);
      goto out;
    }
    fprintf (f, "# Micro-benchmark: one frame hand-off\n\n"
        "Generated by `tests/bench/micro.c` (`meson compile -C build "
        "bench-micro`) on %s.\n\n"
        "One process, nobody asleep: writer `doradma_writer_acquire` "
        "(LATEST) + `doradma_writer_publish`, then reader "
        "`doradma_reader_next` (lease) + `doradma_reader_release`, on a ring "
        "of 4 slots of 4 KiB. The payload is not touched, so this is the "
        "protocol's own cost. Median of %d runs of %d cycles.\n\n"
        "| cycle | ns per cycle | system calls per cycle | futex calls per "
        "cycle |\n|---|---:|---:|---:|\n", date, RUNS, CYCLES);
    if (code_lease == T_EXIT_SKIP) {
      fprintf (f, "| publish + lease + release | %.1f | not counted | not "
          "counted |\n| publish + copy read (4 KiB) | %.1f | not counted | "
          "not counted |\n", ns_lease, ns_copy);
    } else {
      fprintf (f, "| publish + lease + release | %.1f | %.4f | %.4f |\n"
          "| publish + copy read (4 KiB) | %.1f | %.4f | %.4f |\n",
          ns_lease, (double) sc_lease.total / COUNTED,
          (double) sc_lease.futex / COUNTED, ns_copy,
          (double) sc_copy.total / COUNTED, (double) sc_copy.futex / COUNTED);
    }
    fprintf (f, "| peer: one 8-byte socketpair message (write + read) | %.1f "
        "| 2 | 0 |\n\n"
        "Ratio, same run: a doradma hand-off costs **%.3f** of the socket "
        "message a socket-signalled transport (unixfd, shm) pays per frame "
        "before any payload moves.\n\n"
        "System calls are counted with ptrace around %d cycles (the "
        "benchmark's own tracer, `t_count_syscalls` in tests/lib/helpers.c): "
        "the design's \"zero system calls per frame when nobody sleeps\" "
        "(DESIGN.md §3) holds when both columns are 0.\n\n"
        "Machine: %s, %ld CPUs, Linux %s %s.\n", ns_sock, ns_lease / ns_sock,
        COUNTED, cpu, sysconf (_SC_NPROCESSORS_ONLN), u.release, u.machine);
    fclose (f);
    printf ("wrote %s\n", md);
  }
  ret = 0;
  if (code_lease != T_EXIT_SKIP && (code_lease != 0 || code_copy != 0 ||
          sc_lease.futex != 0 || sc_copy.futex != 0 || sc_lease.total != 0 ||
          sc_copy.total != 0)) {
    fprintf (stderr, "FAIL: system calls on the hot path (or a cycle "
        "failed: exit %d/%d)\n", code_lease, code_copy);
    ret = 1;
  }
out:
  doradma_reader_close (r);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return ret;
}
