/* iox-ping: iceoryx, the outside anchor for spin-ping, measured the same
 * way. A publisher process loans a chunk of SIZE bytes per period (a frame
 * of the benchmark's size), stamps CLOCK_MONOTONIC into it just before the
 * loan and again just before publish, and publishes; a subscriber process
 * takes it either by spinning on iox_sub_take_chunk ("spin") or by
 * sleeping in a waitset on the subscriber's HAS_DATA state ("wait"), and
 * reads the clock as soon as the take returns. Prints one JSON line like
 * spin-ping's: p50/p99 of stamp -> delivered ("e2e") and of publish ->
 * delivered ("pub").
 *
 * Needs a running iox-roudi whose mempools hold SIZE-byte chunks (bench.py
 * starts one with its own config, in a private /tmp and /dev/shm).
 * Writer and reader are two processes of one program (forked before either
 * registers with RouDi) so that the results come back through one shared
 * mapping, exactly as in spin-ping.
 *
 * Usage: iox-ping ITERS PERIOD_US SIZE spin|wait sleep|busy WCPU RCPU */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <iceoryx_binding_c/log.h>
#include <iceoryx_binding_c/publisher.h>
#include <iceoryx_binding_c/runtime.h>
#include <iceoryx_binding_c/subscriber.h>
#include <iceoryx_binding_c/wait_set.h>

#include "ping.h"

#define SERVICE "doradma-bench", "iox-ping", "frame"
#define TIMEOUT_NS 5000000000ull

struct stamp
{
  uint64_t loaned;              /* clock just before the loan */
  uint64_t published;           /* clock just before publish */
  uint64_t seq;                 /* 1..ITERS */
};

/* Takes one chunk: spinning on take, or asleep in the waitset until the
 * subscriber has data. NULL after TIMEOUT_NS without a frame. */
static const struct stamp *
take (iox_sub_t sub, iox_ws_t ws)
{
  const void *payload;
  uint64_t deadline = now_ns () + TIMEOUT_NS;

  for (;;) {
    if (iox_sub_take_chunk (sub, &payload) == ChunkReceiveResult_SUCCESS)
      return payload;
    if (now_ns () > deadline)
      return NULL;
    if (ws) {
      iox_notification_info_t info[1];
      uint64_t missed;
      struct timespec tmo = { 1, 0 };

      iox_ws_timed_wait (ws, tmo, info, 1, &missed);
    }
  }
}

static int
subscriber (int iters, int spin, uint64_t * res)
{
  iox_sub_storage_t sub_storage;
  iox_ws_storage_t ws_storage;
  iox_sub_options_t opts;
  iox_sub_t sub;
  iox_ws_t ws = NULL;
  char name[64];
  int i;

  snprintf (name, sizeof name, "iox-ping-sub-%d", (int) getpid ());
  iox_runtime_init (name);
  iox_sub_options_init (&opts);
  opts.queueCapacity = 4;
  opts.historyRequest = 0;
  opts.queueFullPolicy = QueueFullPolicy_DISCARD_OLDEST_DATA;
  sub = iox_sub_init (&sub_storage, SERVICE, &opts);
  iox_sub_subscribe (sub);
  if (!spin) {
    ws = iox_ws_init (&ws_storage);
    if (iox_ws_attach_subscriber_state (ws, sub, SubscriberState_HAS_DATA, 0,
            NULL) != WaitSetResult_SUCCESS) {
      fprintf (stderr, "iox-ping: cannot attach the subscriber to a waitset\n");
      return 1;
    }
  }
  /* until the last frame: a subscriber preempted for a few periods loses
   * the oldest (queue of 4), so there may be fewer samples than frames */
  for (i = 0; i < iters; i++) {
    const struct stamp *s = take (sub, ws);
    uint64_t t = now_ns (), seq;

    if (!s) {
      fprintf (stderr, "iox-ping: subscriber: no frame %d in 5 s\n", i);
      return 1;
    }
    res[i] = t - s->loaned;
    res[iters + i] = t - s->published;
    seq = s->seq;
    iox_sub_release_chunk (sub, s);
    if (seq >= (uint64_t) iters) {
      i++;
      break;
    }
  }
  res[2 * iters + 2] = i;
  if (ws) {
    iox_ws_detach_subscriber_state (ws, sub, SubscriberState_HAS_DATA);
    iox_ws_deinit (ws);
  }
  iox_sub_deinit (sub);
  iox_runtime_shutdown ();
  return 0;
}

static int
publisher (int iters, int period_us, uint32_t size, int busy)
{
  iox_pub_storage_t pub_storage;
  iox_pub_options_t opts;
  iox_pub_t pub;
  char name[64];
  uint64_t next, deadline;
  int i;

  snprintf (name, sizeof name, "iox-ping-pub-%d", (int) getpid ());
  iox_runtime_init (name);
  iox_pub_options_init (&opts);
  opts.historyCapacity = 0;
  opts.subscriberTooSlowPolicy = ConsumerTooSlowPolicy_DISCARD_OLDEST_DATA;
  pub = iox_pub_init (&pub_storage, SERVICE, &opts);
  deadline = now_ns () + TIMEOUT_NS;
  while (!iox_pub_has_subscribers (pub)) {
    if (now_ns () > deadline) {
      fprintf (stderr, "iox-ping: publisher: no subscriber in 5 s\n");
      return 1;
    }
    usleep (1000);
  }
  next = now_ns () + 10000000ull;
  for (i = 0; i < iters; i++) {
    struct stamp *s;
    void *payload;
    uint64_t t;
    enum iox_AllocationResult ret;

    next += (uint64_t) period_us *1000;
    pace_until (next, busy);
    t = now_ns ();
    ret = iox_pub_loan_chunk (pub, &payload, size);
    if (ret != AllocationResult_SUCCESS) {
      fprintf (stderr, "iox-ping: publisher: cannot loan %u bytes (error %d):"
          " does RouDi's config have a mempool that large?\n", size, ret);
      return 1;
    }
    s = payload;
    s->loaned = t;
    s->seq = (uint64_t) i + 1;
    s->published = now_ns ();
    iox_pub_publish_chunk (pub, payload);
  }
  /* the subscriber still holds the last chunk: deinit after it is done */
  return 0;
}

int
main (int argc, char **argv)
{
  int iters, period_us, spin, busy, wcpu, rcpu, st, ret;
  uint32_t size;
  uint64_t *res;
  pid_t pid;

  if (argc < 8) {
    fprintf (stderr, "usage: %s ITERS PERIOD_US SIZE spin|wait sleep|busy "
        "WCPU RCPU\n", argv[0]);
    return 2;
  }
  iters = atoi (argv[1]);
  period_us = atoi (argv[2]);
  size = (uint32_t) strtoul (argv[3], NULL, 10);
  spin = strcmp (argv[4], "spin") == 0;
  busy = strcmp (argv[5], "busy") == 0;
  wcpu = atoi (argv[6]);
  rcpu = atoi (argv[7]);
  if (size < sizeof (struct stamp))
    size = sizeof (struct stamp);
  /* results: e2e[iters], pub[iters], (unused) x2, samples */
  res = mmap (NULL, (2 * iters + 3) * sizeof *res, PROT_READ | PROT_WRITE,
      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (res == MAP_FAILED)
    return 1;
  iox_set_loglevel (Iceoryx_LogLevel_Warn);
  pid = fork ();
  if (pid == 0) {
    pin (rcpu);
    /* exit, not _exit: the runtime deregisters from RouDi at exit */
    exit (subscriber (iters, spin, res));
  }
  pin (wcpu);
  ret = publisher (iters, period_us, size, busy);
  waitpid (pid, &st, 0);
  iox_runtime_shutdown ();
  if (ret != 0)
    return ret;
  if (!WIFEXITED (st) || WEXITSTATUS (st) != 0) {
    fprintf (stderr, "iox-ping: the subscriber failed\n");
    return 1;
  }
  print_samples ("iox", iters, (int) res[2 * iters + 2], period_us, size,
      spin, busy, res, "");
  return 0;
}
