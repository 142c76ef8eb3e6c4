/* Description: the channel life cycle in /dev/shm (the default directory):
 * create makes both objects with the configured mode whatever the umask;
 * a reader opens, sees the geometry and caps, gets frames; a new caps epoch
 * travels in band; a second live writer is refused with -EBUSY; a reader of
 * a missing channel gets -ENOENT; doradma_channel_wait times out, then
 * returns when the channel appears; a clean stop leaves nothing behind.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static const char *wait_channel;

static void *
create_later (void *arg)
{
  struct doradma_writer_config cfg;
  struct doradma_writer **w = arg;

  usleep (100000);
  t_writer_config (&cfg, wait_channel, NULL, 2, 4096);
  if (doradma_writer_create (&cfg, w, NULL) < 0)
    *w = NULL;
  return NULL;
}

static int
object_mode (const char *channel, const char *suffix, mode_t * mode)
{
  char path[512];
  struct stat st;

  snprintf (path, sizeof path, "%s/doradma.%s%s", doradma_shm_dir (NULL),
      channel, suffix);
  if (stat (path, &st) < 0)
    return -errno;
  *mode = st.st_mode & 07777;
  return 0;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL, *w2 = NULL, *wl = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_segment_info si;
  struct doradma_frame f;
  struct doradma_diag diag;
  char ch[64], ch2[64], caps[DORADMA_CAPS_MAX];
  uint32_t epoch;
  uint64_t seq, t0;
  mode_t mode;
  pthread_t th;
  int thread_started = 0, failed = 0;

  t_watchdog (60);
  t_channel (ch, sizeof ch, "co");
  umask (077);

  /* Missing channel. */
  t_reader_config (&rc, ch, NULL, 0);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_reader_open (&rc, &r, &diag), -ENOENT, "open missing channel");

  /* Create with mode 0640 under umask 077: fchmod makes it 0640. */
  t_writer_config (&wc, ch, NULL, 3, 10000);
  wc.mode = 0640;
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_RC (object_mode (ch, "", &mode), 0, "stat data object");
  T_CHECK (mode == 0640, "data object mode %o, want 0640", (unsigned) mode);
  T_RC (object_mode (ch, "~ctl", &mode), 0, "stat ctl object");
  T_CHECK (mode == 0640, "ctl object mode %o, want 0640", (unsigned) mode);
  T_CHECK (doradma_writer_slot_count (w) == 3, "slot count %u",
      doradma_writer_slot_count (w));
  T_CHECK (doradma_writer_slot_stride (w) >= 10000 &&
      doradma_writer_slot_stride (w) % (uint64_t) sysconf (_SC_PAGESIZE) == 0,
      "slot stride %llu is not a page multiple >= 10000",
      (unsigned long long) doradma_writer_slot_stride (w));
  T_CHECK (doradma_writer_fd (w) >= 0, "writer fd");
  T_CHECK (doradma_writer_slot_data (w, 0) != NULL, "no host pointer");

  /* A second live writer for the same channel, same process: -EBUSY. */
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_writer_create (&wc, &w2, &diag), -EBUSY, "second writer");
  T_CHECK (w2 == NULL, "second writer handed out");
  {
    char pid[16];
    snprintf (pid, sizeof pid, "%d", (int) getpid ());
    T_CHECK (strstr (diag.msg, pid) != NULL,
        "-EBUSY diag does not name the writer pid %s: \"%s\"", pid, diag.msg);
  }

  /* Reader. */
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_reader_open (&rc, &r, &diag), 0, diag.msg);
  doradma_reader_segment_info (r, &si);
  T_CHECK (si.slot_count == 3, "reader slot_count %u", si.slot_count);
  T_CHECK (si.slot_stride == doradma_writer_slot_stride (w),
      "reader slot_stride %llu", (unsigned long long) si.slot_stride);
  T_CHECK (si.writer_pid == (uint32_t) getpid (), "writer_pid %u",
      si.writer_pid);
  T_CHECK (si.ipc == 0 && strcmp (si.transport, "shmem") == 0,
      "transport %s ipc %d", si.transport, si.ipc);
  T_CHECK (si.map_base != NULL && si.map_size >= si.slots_offset + 3 *
      si.slot_stride, "map_size %llu", (unsigned long long) si.map_size);
  T_CHECK (doradma_reader_fd (r) >= 0, "reader fd");

  /* Nothing yet. */
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 0, &f, NULL), -EAGAIN,
      "next before any frame");
  t0 = t_now_ns ();
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 50000000, &f, NULL),
      -ETIMEDOUT, "next with 50 ms timeout");
  T_CHECK (t_now_ns () - t0 >= 45000000, "timed out early: %llu ns",
      (unsigned long long) (t_now_ns () - t0));

  /* A frame with its caps. */
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 8192, &seq, NULL), 0,
      "publish");
  T_CHECK (seq == 1, "first seq %llu", (unsigned long long) seq);
  memset (&diag, 0, sizeof diag);
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 1000000000, &f, &diag), 0,
      diag.msg);
  T_CHECK (f.info.seq == 1 && f.data != NULL, "frame seq %llu",
      (unsigned long long) f.info.seq);
  T_CHECK (t_check_stamps (f.data, 8192, 1, NULL) == 0, "payload");
  T_CHECK (f.info.payload_bytes == 8192 && f.info.n_planes == 1 &&
      f.info.planes[0].stride == 4096, "geometry");
  T_CHECK (doradma_reader_leases (r) == 1, "leases %u",
      doradma_reader_leases (r));
  T_RC (doradma_reader_caps (r, f.info.caps_epoch, caps, sizeof caps, NULL), 0,
      "caps of the frame's epoch");
  T_CHECK (strcmp (caps, wc.caps) == 0, "caps \"%s\" != \"%s\"", caps, wc.caps);
  doradma_reader_release (r, f.slot);
  T_CHECK (doradma_reader_leases (r) == 0, "leases after release %u",
      doradma_reader_leases (r));

  /* Caps change in band. */
  const char *caps2 = "video/x-raw, format=(string)GRAY8, width=(int)4096, "
      "height=(int)1, framerate=(fraction)60/1";
  T_RC (doradma_writer_set_caps (w, caps2, &epoch), 0, "set_caps");
  T_CHECK (epoch != f.info.caps_epoch, "same epoch after set_caps");
  /* ring.h: set_caps returns -EINVAL for a caps string it refuses. */
  T_EXPECT_RC (failed, doradma_writer_set_caps (w,
          "video/x-raw(memory:NVMM), format=NV12", NULL), -EINVAL,
      "set_caps with caps features");
  T_EXPECT_RC (failed, doradma_writer_set_caps (w, "audio/x-raw", NULL),
      -EINVAL, "set_caps of audio/x-raw");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, &seq, NULL), 0,
      "publish 2");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 1000000000, &f, NULL), 0,
      "next 2");
  T_CHECK (f.info.seq == 2
      && f.info.caps_epoch == epoch, "seq %llu epoch %u",
      (unsigned long long) f.info.seq, f.info.caps_epoch);
  T_RC (doradma_reader_caps (r, epoch, caps, sizeof caps, NULL), 0, "caps 2");
  T_CHECK (strcmp (caps, caps2) == 0, "caps2 \"%s\"", caps);
  T_RC (doradma_reader_caps (r, epoch, caps, 8, NULL), -ENOBUFS,
      "short caps buf");
  doradma_reader_release (r, f.slot);

  /* Clean stop: reader, then writer; nothing left. */
  doradma_reader_close (r);
  r = NULL;
  doradma_writer_close (w);
  w = NULL;
  T_CHECK (t_leftovers (NULL, ch) == 0, "objects left after a clean stop");

  /* Waiting for a channel: times out, then sees it appear. */
  t_channel (ch2, sizeof ch2, "wait");
  t0 = t_now_ns ();
  T_RC (doradma_channel_wait (NULL, ch2, 50000000, -1), -ETIMEDOUT,
      "channel_wait on a missing channel");
  wait_channel = ch2;
  T_CHECK (pthread_create (&th, NULL, create_later, &wl) == 0, "thread");
  thread_started = 1;
  T_RC (doradma_channel_wait (NULL, ch2, 5000000000ll, -1), 0,
      "channel_wait while a writer appears");
  pthread_join (th, NULL);
  thread_started = 0;
  T_CHECK (wl != NULL, "late writer failed");
  doradma_writer_close (wl);
  wl = NULL;
  T_CHECK (t_leftovers (NULL, ch2) == 0, "objects left");
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (thread_started)
    pthread_join (th, NULL);
  doradma_reader_close (r);
  doradma_writer_close (w);
  doradma_writer_close (wl);
  return T_EXIT_FAIL;
}
