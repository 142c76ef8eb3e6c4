/* spin-ping: the lib alone, across two processes pinned to two CPUs: a
 * writer publishes one frame of SIZE bytes (default 4 KiB) per period, a
 * reader waits for it with
 * doradma_reader_next and a spin of SPIN_NS (0: sleeps on the futex).
 * The writer stamps CLOCK_MONOTONIC into the frame just before acquire;
 * the reader reads the clock as soon as next returns. Prints one JSON line:
 * p50/p99 of stamp -> delivered ("e2e") and of publish -> delivered
 * ("pub"), spins and sleeps. PACE "sleep" paces the writer with
 * clock_nanosleep (its core goes idle between frames, as a camera's
 * does), "busy" by polling the clock (its core stays hot).
 *
 * Usage: spin-ping ITERS PERIOD_US SPIN_NS sleep|busy WRITER_CPU READER_CPU
 *        [SIZE]
 * SIZE is the slot's size: the frame size of the benchmark's trial, so that
 * iox-ping (iceoryx, the same measurement) loans chunks of the same size.
 * Only the stamp is written either way: neither copies pixels.
 * Decomposes benchmark dm-spin: what the ring costs without GStreamer. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doradma/doradma.h>

#include "ping.h"

int
main (int argc, char **argv)
{
  struct doradma_writer_config wc = { 0 };
  struct doradma_reader_config rc = { 0 };
  struct doradma_writer *w;
  char ch[64];
  int iters, period_us, busy, wcpu, rcpu, i, st;
  uint32_t size = 4096;
  char caps[160];
  uint64_t spin, *res;
  pid_t pid;

  if (argc < 7) {
    fprintf (stderr, "usage: %s ITERS PERIOD_US SPIN_NS sleep|busy WCPU RCPU\n",
        argv[0]);
    return 2;
  }
  iters = atoi (argv[1]);
  period_us = atoi (argv[2]);
  spin = strtoull (argv[3], NULL, 10);
  busy = strcmp (argv[4], "busy") == 0;
  wcpu = atoi (argv[5]);
  rcpu = atoi (argv[6]);
  if (argc > 7)
    size = (uint32_t) strtoul (argv[7], NULL, 10);
  if (size < sizeof (uint64_t))
    size = sizeof (uint64_t);
  /* results: e2e[iters], pub[iters], spins, sleeps, samples */
  res = mmap (NULL, (2 * iters + 3) * sizeof *res, PROT_READ | PROT_WRITE,
      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  snprintf (ch, sizeof ch, "spin-ping-%d", (int) getpid ());
  wc.channel = ch;
  wc.slots = 4;
  wc.slot_size = size;
  snprintf (caps, sizeof caps, "video/x-raw, format=(string)GRAY8, "
      "width=(int)%u, height=(int)1, framerate=(fraction)30/1", size);
  wc.caps = caps;
  wc.transport = "shmem";
  if (doradma_writer_create (&wc, &w, NULL) < 0) {
    fprintf (stderr, "spin-ping: cannot create the channel\n");
    return 1;
  }
  pid = fork ();
  if (pid == 0) {
    struct doradma_reader *r;
    struct doradma_reader_stats rs;
    struct doradma_frame f;

    pin (rcpu);
    rc.channel = ch;
    rc.allowed_uid = -1;
    if (doradma_reader_open (&rc, &r, NULL) < 0)
      _exit (1);
    doradma_reader_set_spin (r, spin);
    /* until the last frame: a reader preempted for a few periods is
     * lapped (skips), so there may be fewer samples than frames */
    for (i = 0; i < iters; i++) {
      uint64_t stamp, t;

      int ret = doradma_reader_next (r, DORADMA_READ_NEXT, 5000000000ll, &f,
          NULL);

      if (ret < 0) {
        fprintf (stderr, "spin-ping: reader: frame %d: %s\n", i,
            strerror (-ret));
        _exit (1);
      }
      t = now_ns ();
      memcpy (&stamp, f.data, sizeof stamp);
      res[i] = t - stamp;
      res[iters + i] = t - f.info.publish_time;
      doradma_reader_release (r, f.slot);
      if (f.info.seq >= (uint64_t) iters) {
        i++;
        break;
      }
    }
    res[2 * iters + 2] = i;
    doradma_reader_get_stats (r, &rs);
    res[2 * iters] = rs.spins;
    res[2 * iters + 1] = rs.sleeps;
    doradma_reader_close (r);
    _exit (0);
  }
  pin (wcpu);
  if (doradma_writer_wait_readers (w, 1, 5000000000ll, NULL) < 0)
    return 1;
  {
    uint64_t next = now_ns () + 10000000ull;

    for (i = 0; i < iters; i++) {
      struct doradma_frame_info info = { 0 };
      uint32_t slot;
      uint64_t t;

      next += (uint64_t) period_us *1000;
      pace_until (next, busy);
      t = now_ns ();
      int ret = doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot);

      if (ret < 0) {
        fprintf (stderr, "spin-ping: writer: frame %d: %s\n", i,
            strerror (-ret));
        return 1;
      }
      memcpy (doradma_writer_slot_data (w, slot), &t, sizeof t);
      info.n_planes = 1;
      info.width = size;
      info.height = 1;
      info.planes[0].stride = size;
      info.planes[0].rows = 1;
      info.planes[0].row_bytes = size;
      info.payload_bytes = size;
      info.pts = info.dts = info.duration = DORADMA_TIME_NONE;
      info.offset = info.offset_end = DORADMA_TIME_NONE;
      info.mono_pts = DORADMA_TIME_NONE;
      if ((ret = doradma_writer_publish (w, slot, &info)) < 0) {
        fprintf (stderr, "spin-ping: writer: publish %d: %s\n", i,
            strerror (-ret));
        return 1;
      }
    }
  }
  waitpid (pid, &st, 0);
  doradma_writer_close (w);
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0) {
    fprintf (stderr, "spin-ping: the reader failed\n");
    return 1;
  }
  {
    char extra[96];

    snprintf (extra, sizeof extra, ", \"spin_ns\": %llu, \"spins\": %llu, "
        "\"sleeps\": %llu", (unsigned long long) spin,
        (unsigned long long) res[2 * iters],
        (unsigned long long) res[2 * iters + 1]);
    print_samples ("ring", iters, (int) res[2 * iters + 2], period_us, size,
        spin != 0, busy, res, extra);
  }
  return 0;
}
