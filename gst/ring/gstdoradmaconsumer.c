/* doradma GStreamer plugin — the consumer (see gstdoradmaconsumer.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gstdoradmaconsumer.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"
#include "gstdoradmasrcframe.h"

/* doradmasrc's: GST_DEBUG=doradmasrc:5 shows the whole consumer side */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

#define N_LATENCY_SAMPLES 512
/* A wait this long for something that should be brief gets a warning */
#define WAIT_WARN_NS (3 * GST_SECOND)

/* _read's outcomes besides GST_FLOW_OK */
#define AGAIN GST_FLOW_CUSTOM_SUCCESS   /* no frame (timeout 0) */

struct _GstDoradmaConsumer
{
  GstElement *owner;            /* errors and messages go there; not a ref */
  GstDoradmaConsumerSettings s;
  GstDoradmaWantCudaFunc want_cuda;
  gpointer want_cuda_data;
  int cancel_fd;
  gint unlocked;
  gint copy_forced;             /* atomic: `copy` unset, and this segment's
                                 * control object is writable by others */

  /* the reader pointer, the counters of closed readers, the announced
   * latency and the CUDA path change under `lock`; the streaming thread
   * reads the pointer without it (it is the only writer) */
  GMutex lock;
  GstDoradmaReaderHandle *rh;
  guint64 acc_torn, acc_skipped, acc_retries, dropped, delivered;
  guint64 acc_spins, acc_sleeps;
  guint64 lat[N_LATENCY_SAMPLES];       /* ns publish → delivery */
  guint n_lat;
  guint64 latency;
  gboolean have_latency;
  GstDoradmaCudaPath path;

  /* streaming thread only */
  guint64 lost_ino, lost_dev;   /* a dead writer's segment, not to reopen */
  GstClockTime joined;          /* CLOCK_MONOTONIC of the last (re)open */
  gboolean discont;
  gboolean new_segment;
  GstDoradmaConsumerFrame pending;      /* set aside by _skip_to_newest */
  gboolean have_pending;
  GstBufferPool *raw_pool;      /* copy mode: slot-sized buffers */
  gsize raw_size;
  GstDoradmaLeaseShells *shells;        /* free lease memories */
};

/* ---------------------------------------------------------------------- */
/* Construction */

GstDoradmaConsumer *
gst_doradma_consumer_new (GstElement * owner,
    const GstDoradmaConsumerSettings * settings,
    GstDoradmaWantCudaFunc want_cuda, gpointer user_data)
{
  GstDoradmaConsumer *c;
  int fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);

  if (fd < 0) {
    GST_ELEMENT_ERROR (owner, RESOURCE, OPEN_READ, (NULL),
        ("eventfd: %s", g_strerror (errno)));
    return NULL;
  }
  c = g_new0 (GstDoradmaConsumer, 1);
  c->owner = owner;
  c->s = *settings;
  c->s.channel = g_strdup (settings->channel);
  c->want_cuda = want_cuda;
  c->want_cuda_data = user_data;
  c->cancel_fd = fd;
  g_mutex_init (&c->lock);
  c->discont = TRUE;
  c->shells = gst_doradma_lease_shells_new ();
  return c;
}

/* Lets the current reader go, keeping its counters. */
static void
retire_reader (GstDoradmaConsumer * c, GstDoradmaReaderHandle * rh)
{
  struct doradma_reader_stats rs = { 0 };

  if (rh == NULL)
    return;
  doradma_reader_get_stats (rh->r, &rs);
  g_mutex_lock (&c->lock);
  c->acc_torn += rs.torn;
  c->acc_skipped += rs.skipped;
  c->acc_retries += rs.lease_retries;
  c->acc_spins += rs.spins;
  c->acc_sleeps += rs.sleeps;
  g_mutex_unlock (&c->lock);
  /* We read no more: the entry leaves back-pressure now, not when the
   * last buffer still out comes back (a view kept past NULL would stall a
   * lossless producer); the slots of those buffers stay leased. */
  doradma_reader_stop (rh->r);
  /* outstanding buffers keep the mapping until they are freed */
  gst_doradma_reader_handle_unref (rh);
}

static void
drop_reader (GstDoradmaConsumer * c)
{
  GstDoradmaReaderHandle *rh;

  g_mutex_lock (&c->lock);
  rh = c->rh;
  c->rh = NULL;
  g_mutex_unlock (&c->lock);
  retire_reader (c, rh);
}

void
gst_doradma_consumer_free (GstDoradmaConsumer * c)
{
  if (c == NULL)
    return;
  if (c->have_pending)
    gst_doradma_consumer_drop (c, &c->pending);
  gst_doradma_pool_clear (&c->raw_pool);
  drop_reader (c);
  gst_doradma_lease_shells_close (c->shells);
  close (c->cancel_fd);
  g_mutex_clear (&c->lock);
  g_free (c->s.channel);
  g_free (c);
}

/* ---------------------------------------------------------------------- */
/* Errors */

static void
post_open_error (GstDoradmaConsumer * c, int r, const struct doradma_diag *diag)
{
  const gchar *channel = c->s.channel;
  const gchar *field = diag->field ? diag->field : "";

  switch (-r) {
    case EACCES:
    case EPERM:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_AUTHORIZED,
          ("Not allowed to read channel \"%s\"", channel),
          ("%s: %s (allowed-uid %" G_GINT64_FORMAT ")", diag->msg,
              g_strerror (-r), c->s.allowed_uid),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EBADMSG:
    case EPROTONOSUPPORT:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, STREAM, FORMAT,
          ("Channel \"%s\" is not a valid doradma ring", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING, field,
              NULL));
      break;
    case EUSERS:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, BUSY,
          ("Channel \"%s\" has no free reader entry", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EINVAL:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, SETTINGS,
          ("Invalid channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    default:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, OPEN_READ,
          ("Could not open channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
  }
}

/* ---------------------------------------------------------------------- */
/* CUDA: which path for this segment */

/* `auto` unless $DORADMA_TRANSPORT (which overrides `auto` only) names a
 * reader transport; `ipc` there is the writer's business: the segment
 * says whether its slots are in GPU memory. FALSE after posting an error
 * for a bad value. */
static gboolean
resolve_transport (GstDoradmaConsumer * c, GstDoradmaSrcTransport * out)
{
  GstDoradmaTransport from_env;

  *out = c->s.transport;
  if (*out != GST_DORADMA_SRC_TRANSPORT_AUTO)
    return TRUE;
  if (!gst_doradma_transport_from_env_or_error (c->owner, &from_env))
    return FALSE;
  if (from_env == GST_DORADMA_TRANSPORT_SHMEM)
    *out = GST_DORADMA_SRC_TRANSPORT_SHMEM;
  else if (from_env == GST_DORADMA_TRANSPORT_UNIFIED)
    *out = GST_DORADMA_SRC_TRANSPORT_UNIFIED;
  return TRUE;
}

/* The segment's ipc flag forces an IPC import; `unified` (or `auto` with a
 * CUDA downstream) registers the mapping. Returns the GstDoradmaCudaReader,
 * NULL for plain shmem, or sets *fatal after posting an error. */
static GstDoradmaCudaReader *
setup_cuda (GstDoradmaConsumer * c, struct doradma_reader *reader,
    gboolean * fatal)
{
  struct doradma_segment_info si;
  GstDoradmaSrcTransport t;
  GstDoradmaCudaReader *cr;
  gboolean want, needed;
  gchar *reason = NULL;

  *fatal = FALSE;
  if (!resolve_transport (c, &t)) {
    *fatal = TRUE;
    return NULL;
  }
  doradma_reader_segment_info (reader, &si);
  want = c->want_cuda && c->want_cuda (c->want_cuda_data);
  needed = si.ipc || t == GST_DORADMA_SRC_TRANSPORT_UNIFIED;
  if (!needed && !(t == GST_DORADMA_SRC_TRANSPORT_AUTO && want)) {
    GST_DEBUG_OBJECT (c->owner, "CUDA path none (downstream %s CUDA memory)",
        want ? "wants" : "does not want");
    return NULL;
  }
  cr = gst_doradma_cuda_reader_new (reader, &reason);
  if (cr == NULL) {
    if (needed) {
      GST_ELEMENT_ERROR (c->owner, RESOURCE, SETTINGS,
          ("%s needs CUDA: %s", si.ipc ?
              "The writer's slots live in GPU memory (transport ipc); reading "
              "them" : "transport=unified", reason),
          ("segment transport \"%s\"", si.transport));
      *fatal = TRUE;
    } else {
      GST_INFO_OBJECT (c->owner, "auto: staying on shmem: %s", reason);
    }
    g_free (reason);
    return NULL;
  }
  GST_INFO_OBJECT (c->owner, "CUDA path %s (segment transport \"%s\")",
      gst_doradma_cuda_path_name (gst_doradma_cuda_reader_path (cr)),
      si.transport);
  return cr;
}

/* ---------------------------------------------------------------------- */
/* Opening */

/* Sleeps `ms`, or less when interrupted. FALSE when interrupted. */
static gboolean
cancellable_sleep (GstDoradmaConsumer * c, gint ms)
{
  struct pollfd pfd = { c->cancel_fd, POLLIN, 0 };

  if (g_atomic_int_get (&c->unlocked))
    return FALSE;
  poll (&pfd, 1, ms);
  return !g_atomic_int_get (&c->unlocked);
}

/* The owner uid the lib may accept besides ours: the configured one, or
 * for -1 (any) the current owner of the data object. The lib checks the
 * object it opened, so a name swapped in between is refused, not trusted. */
static gint64
owner_to_allow (GstDoradmaConsumer * c)
{
  gchar *path;
  struct stat st;
  gint64 uid = -1;

  if (c->s.allowed_uid >= 0)
    return c->s.allowed_uid;
  path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL),
      c->s.channel);
  if (stat (path, &st) == 0)
    uid = st.st_uid;
  g_free (path);
  return uid;
}

/* Waits for the channel and joins it, without touching c->rh. `token`:
 * adopt the entry a superseded segment's writer carried over (0: none). */
static GstFlowReturn
open_reader (GstDoradmaConsumer * c, guint64 token,
    GstDoradmaReaderHandle ** out)
{
  struct doradma_reader_config cfg = { 0 };
  struct doradma_diag diag = { 0 };
  struct doradma_reader *reader;
  GstDoradmaCudaReader *cr;
  GstClockTime start = gst_doradma_monotonic_now ();
  GstClockTime stale_since = GST_CLOCK_TIME_NONE;
  gboolean fatal, warned = FALSE;
  int r;

  cfg.channel = c->s.channel;
  cfg.backpressure = c->s.mode == DORADMA_READ_NEXT;
  for (;;) {
    gint64 left = -1;

    if (c->s.timeout > 0) {
      GstClockTime spent = gst_doradma_monotonic_now () - start;

      if (spent >= c->s.timeout)
        goto timed_out;
      left = c->s.timeout - spent;
    }
    /* after a writer died, wait (inotify) until its name is replaced */
    r = doradma_channel_wait_new (NULL, c->s.channel, c->lost_dev,
        c->lost_ino, left, c->cancel_fd);
    if (r == -EINTR || g_atomic_int_get (&c->unlocked))
      return GST_FLOW_FLUSHING;
    if (r == -ETIMEDOUT)
      goto timed_out;
    if (r < 0)
      goto open_failed;

    cfg.token = token;
    cfg.allowed_uid = owner_to_allow (c);
    c->joined = gst_doradma_monotonic_now ();
    r = doradma_reader_open (&cfg, &reader, &diag);
    if (r == -ENOENT && token) {
      token = 0;
      continue;
    }
    if (r == -ESTALE) {
      /* A replace links the data object a moment before its control
       * object: a control object of another segment for seconds is not
       * that (a peer's scribble, a writer killed mid-replace). Said
       * once; we go on waiting, as for a successor. */
      GstClockTime now = gst_doradma_monotonic_now ();

      if (!GST_CLOCK_TIME_IS_VALID (stale_since))
        stale_since = now;
      else if (!warned && now - stale_since >= WAIT_WARN_NS) {
        GST_ELEMENT_WARNING_WITH_DETAILS (c->owner, RESOURCE, OPEN_READ,
            ("Waiting for channel \"%s\": its control object does not "
                "belong to its data object", c->s.channel),
            ("%s (for %" GST_TIME_FORMAT ")", diag.msg,
                GST_TIME_ARGS (now - stale_since)),
            ("channel", G_TYPE_STRING, c->s.channel, "field", G_TYPE_STRING,
                diag.field ? diag.field : "", NULL));
        warned = TRUE;
      }
    } else {
      stale_since = GST_CLOCK_TIME_NONE;
    }
    if (r == -ENOENT || r == -ESTALE) {
      /* gone again, or the successor is not linked yet */
      if (!cancellable_sleep (c, 5))
        return GST_FLOW_FLUSHING;
      continue;
    }
    if (r < 0)
      goto open_failed;
    if (c->lost_ino) {
      struct doradma_segment_info si;

      doradma_reader_segment_info (reader, &si);
      if (si.ino == c->lost_ino && si.dev == c->lost_dev) {
        /* replaced and back again in between: wait once more */
        doradma_reader_close (reader);
        continue;
      }
      c->lost_ino = c->lost_dev = 0;
    }
    break;
  }

  /* A peer that may write the control object (group-writable, or owned by
   * a third uid) can clear our lease bit and get a frame we read zero-copy
   * rewritten (docs/threat-model.md); copying detects that (seqlock). */
  /* decided again for every segment: `copy` reads TRUE meanwhile */
  if (!c->s.copy && !c->s.copy_set
      && doradma_reader_ctl_writable_by_others (reader)) {
    if (!g_atomic_int_get (&c->copy_forced))
      GST_ELEMENT_WARNING (c->owner, RESOURCE, OPEN_READ,
          ("Copying every frame of channel \"%s\": its control object is "
              "writable by other users", c->s.channel),
          ("set copy-mode=never to read zero-copy anyway, copy-mode=always to "
              "say so"));
    g_atomic_int_set (&c->copy_forced, TRUE);
  } else {
    g_atomic_int_set (&c->copy_forced, FALSE);
  }

  cr = setup_cuda (c, reader, &fatal);
  if (fatal) {
    doradma_reader_close (reader);
    return GST_FLOW_ERROR;
  }
  doradma_reader_set_spin (reader, c->s.spin_time);
  *out = gst_doradma_reader_handle_new (reader, c->shells);
  (*out)->cuda = cr;
  GST_INFO_OBJECT (c->owner, "joined channel \"%s\"", c->s.channel);
  return GST_FLOW_OK;

  /* ERRORS */
timed_out:
  if (GST_CLOCK_TIME_IS_VALID (stale_since)) {
    /* it was there all along: say what kept us out */
    GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_FOUND,
        ("Could not join channel \"%s\" within %" GST_TIME_FORMAT ": its "
            "control object does not belong to its data object",
            c->s.channel, GST_TIME_ARGS (c->s.timeout)), ("%s", diag.msg),
        ("channel", G_TYPE_STRING, c->s.channel, NULL));
    return GST_FLOW_ERROR;
  } else {
    GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_FOUND,
        ("Channel \"%s\" did not appear within %" GST_TIME_FORMAT,
            c->s.channel, GST_TIME_ARGS (c->s.timeout)), ("no %s/doradma.%s",
            doradma_shm_dir (NULL), c->s.channel),
        ("channel", G_TYPE_STRING, c->s.channel, NULL));
    return GST_FLOW_ERROR;
  }
open_failed:
  {
    post_open_error (c, r, &diag);
    return GST_FLOW_ERROR;
  }
}

/* Makes `rh` the current reader (interrupted if we are unlocked) and lets
 * the previous one go. */
static void
install_reader (GstDoradmaConsumer * c, GstDoradmaReaderHandle * rh)
{
  GstDoradmaReaderHandle *old;

  g_mutex_lock (&c->lock);
  old = c->rh;
  c->rh = rh;
  c->path = gst_doradma_cuda_reader_path (rh->cuda);
  if (g_atomic_int_get (&c->unlocked))
    doradma_reader_interrupt (rh->r, 1);
  g_mutex_unlock (&c->lock);
  retire_reader (c, old);
  c->discont = TRUE;
  c->new_segment = TRUE;
}

static GstFlowReturn
ensure_open (GstDoradmaConsumer * c)
{
  GstDoradmaReaderHandle *rh;
  GstFlowReturn ret;

  if (c->rh)
    return GST_FLOW_OK;
  if ((ret = open_reader (c, 0, &rh)) != GST_FLOW_OK)
    return ret;
  install_reader (c, rh);
  return GST_FLOW_OK;
}

/* Superseded and drained: the successor continues the sequence numbers
 * when it carried our entry over. Open it (adopting that entry) BEFORE
 * letting the old reader go, so a lossless writer never sees the entry
 * unclaimed. A successor that did not carry us over (a new writer that
 * took over a dead writer's channel restarts at 1, or the adoption failed)
 * is joined like any channel: its newest frame first. The first frame is
 * DISCONT either way. */
static GstFlowReturn
reopen_superseded (GstDoradmaConsumer * c)
{
  guint64 token = doradma_reader_token (c->rh->r);
  guint64 last = doradma_reader_last_seq (c->rh->r);
  GstDoradmaReaderHandle *rh;
  GstFlowReturn ret;

  if ((ret = open_reader (c, token, &rh)) != GST_FLOW_OK)
    return ret;
  if (doradma_reader_token (rh->r) == token) {
    doradma_reader_set_last_seq (rh->r, last);
    GST_INFO_OBJECT (c->owner, "segment replaced after seq %"
        G_GUINT64_FORMAT ": continuing", last);
  } else {
    GST_INFO_OBJECT (c->owner, "segment replaced after seq %"
        G_GUINT64_FORMAT " by one that did not carry us over: joining it",
        last);
  }
  install_reader (c, rh);
  return GST_FLOW_OK;
}

gboolean
gst_doradma_consumer_copying (GstDoradmaConsumer * c)
{
  return c->s.copy || g_atomic_int_get (&c->copy_forced);
}

/* The writer is gone: TRUE to wait for a new one (the reader is let go),
 * FALSE with *ret to stop. A writer that stopped cleanly (set to NULL
 * without EOS, Ctrl-C) is waited for without a warning, whatever
 * on-writer-lost says (that is for deaths): an element message tells the
 * application. */
static gboolean
writer_lost (GstDoradmaConsumer * c, GstFlowReturn * ret)
{
  struct doradma_segment_info si;
  const gchar *channel = c->s.channel;

  doradma_reader_segment_info (c->rh->r, &si);
  if (doradma_reader_writer_stopped (c->rh->r)) {
    GST_INFO_OBJECT (c->owner, "the writer (pid %u) of channel \"%s\" "
        "stopped: waiting for a new one", si.writer_pid, channel);
    gst_element_post_message (c->owner,
        gst_message_new_element (GST_OBJECT (c->owner),
            gst_structure_new ("doradmasrc-writer-stopped", "channel",
                G_TYPE_STRING, channel, "writer-pid", G_TYPE_UINT,
                si.writer_pid, NULL)));
    c->lost_ino = si.ino;
    c->lost_dev = si.dev;
    drop_reader (c);
    return TRUE;
  }
  switch (c->s.on_writer_lost) {
    case GST_DORADMA_WRITER_LOST_EOS:
      GST_INFO_OBJECT (c->owner, "writer pid %u died: EOS", si.writer_pid);
      *ret = GST_FLOW_EOS;
      return FALSE;
    case GST_DORADMA_WRITER_LOST_ERROR:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, READ,
          ("The writer of channel \"%s\" died", channel),
          ("writer pid %u: %s", si.writer_pid, g_strerror (EOWNERDEAD)),
          ("channel", G_TYPE_STRING, channel, NULL));
      *ret = GST_FLOW_ERROR;
      return FALSE;
    case GST_DORADMA_WRITER_LOST_WAIT:
    default:
      GST_ELEMENT_WARNING_WITH_DETAILS (c->owner, RESOURCE, READ,
          ("The writer of channel \"%s\" died; waiting for a new one",
              channel), ("writer pid %u: %s", si.writer_pid,
              g_strerror (EOWNERDEAD)),
          ("channel", G_TYPE_STRING, channel, NULL));
      c->lost_ino = si.ino;
      c->lost_dev = si.dev;
      drop_reader (c);
      return TRUE;
  }
}

/* Re-announces the producer's latency when the ring's value changed (a
 * restarted producer, or one that learnt its latency after we joined). */
static void
check_latency (GstDoradmaConsumer * c)
{
  guint64 lat = doradma_reader_latency (c->rh->r);
  gboolean changed;

  g_mutex_lock (&c->lock);
  changed = !c->have_latency || lat != c->latency;
  c->latency = lat;
  c->have_latency = TRUE;
  g_mutex_unlock (&c->lock);
  if (changed) {
    GST_INFO_OBJECT (c->owner, "producer latency %" GST_TIME_FORMAT,
        GST_TIME_ARGS (lat));
    gst_element_post_message (c->owner,
        gst_message_new_latency (GST_OBJECT (c->owner)));
  }
}

/* ---------------------------------------------------------------------- */
/* Frames */

/* Copy mode: a slot-sized buffer of our pool, mapped for writing. */
static GstFlowReturn
raw_buffer (GstDoradmaConsumer * c, GstBuffer ** buf, GstMapInfo * map)
{
  struct doradma_segment_info si;
  GstFlowReturn ret;

  doradma_reader_segment_info (c->rh->r, &si);
  if (c->raw_pool == NULL || c->raw_size < si.slot_stride) {
    gst_doradma_pool_clear (&c->raw_pool);
    c->raw_size = si.slot_stride;
    c->raw_pool = gst_doradma_pool_activate (gst_buffer_pool_new (), NULL,
        c->raw_size);
    if (c->raw_pool == NULL)
      goto no_buffer;
  }
  if ((ret = gst_buffer_pool_acquire_buffer (c->raw_pool, buf, NULL))
      != GST_FLOW_OK)
    return ret;
  if (!gst_buffer_map (*buf, map, GST_MAP_WRITE)) {
    gst_clear_buffer (buf);
    goto no_buffer;
  }
  return GST_FLOW_OK;

  /* ERRORS */
no_buffer:
  {
    GST_ELEMENT_ERROR (c->owner, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate copy buffers"), ("%" G_GSIZE_FORMAT " bytes",
            c->raw_size));
    return GST_FLOW_ERROR;
  }
}

/* One read from the open reader: 0 or -errno of the lib (-ENOMEM after
 * posting when copy mode has no buffer). */
static int
read_frame (GstDoradmaConsumer * c, enum doradma_read_mode mode,
    gint64 timeout_ns, GstDoradmaConsumerFrame * fr, struct doradma_diag *diag)
{
  GstMapInfo map;
  int r;

  memset (fr, 0, sizeof (*fr));
  if (!gst_doradma_consumer_copying (c)) {
    fr->leased = TRUE;
    return doradma_reader_next (c->rh->r, mode, timeout_ns, &fr->f, diag);
  }
  if (raw_buffer (c, &fr->copy, &map) != GST_FLOW_OK)
    return -ENOMEM;
  r = doradma_reader_copy_next (c->rh->r, mode, timeout_ns, map.data,
      map.size, &fr->f, diag);
  gst_buffer_unmap (fr->copy, &map);
  if (r == 0)
    gst_buffer_resize (fr->copy, 0, fr->f.info.payload_bytes);
  else
    gst_clear_buffer (&fr->copy);
  return r;
}

/* Marks what the frame says about its predecessors. */
static void
frame_got (GstDoradmaConsumer * c, GstDoradmaConsumerFrame * fr)
{
  fr->received = gst_doradma_monotonic_now ();
  fr->discont = c->discont || fr->f.skipped > 0;
  fr->new_segment = c->new_segment;
  fr->backlog = fr->f.info.publish_time < c->joined;
  c->discont = c->new_segment = FALSE;
  check_latency (c);
}

GstFlowReturn
gst_doradma_consumer_next (GstDoradmaConsumer * c, GstDoradmaConsumerFrame * fr)
{
  GstFlowReturn ret;

  if (c->have_pending) {
    *fr = c->pending;
    c->have_pending = FALSE;
    return GST_FLOW_OK;
  }
  for (;;) {
    struct doradma_diag diag = { 0 };
    int r;

    if ((ret = ensure_open (c)) != GST_FLOW_OK)
      return ret;
    r = read_frame (c, c->s.mode, -1, fr, &diag);
    if (r == 0) {
      frame_got (c, fr);
      return GST_FLOW_OK;
    }
    switch (-r) {
      case EINTR:
        return GST_FLOW_FLUSHING;
      case EAGAIN:
      case ETIMEDOUT:
        continue;
      case ENOBUFS:
        /* copy mode: a successor's slots are bigger; raw_buffer grows */
        continue;
      case ENOMEM:
        return GST_FLOW_ERROR;
      case EPIPE:
        GST_INFO_OBJECT (c->owner, "end of stream");
        return GST_FLOW_EOS;
      case ESTALE:
        if ((ret = reopen_superseded (c)) != GST_FLOW_OK)
          return ret;
        continue;
      case EOWNERDEAD:
        if (!writer_lost (c, &ret))
          return ret;
        continue;
      case EBADMSG:
        GST_WARNING_OBJECT (c->owner, "skipped a frame: %s", diag.msg);
        c->discont = TRUE;
        continue;
      default:
        GST_ELEMENT_ERROR (c->owner, RESOURCE, READ,
            ("Could not read a frame from channel \"%s\"", c->s.channel),
            ("%s: %s", diag.msg, g_strerror (-r)));
        return GST_FLOW_ERROR;
    }
  }
}

gboolean
gst_doradma_consumer_skip_to_newest (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr)
{
  struct doradma_diag diag = { 0 };

  /* conditions such as EOS stay for _next */
  if (c->rh == NULL || c->have_pending
      || read_frame (c, DORADMA_READ_LATEST, 0, &c->pending, &diag) != 0)
    return FALSE;
  frame_got (c, &c->pending);
  c->pending.discont = TRUE;
  c->have_pending = TRUE;
  gst_doradma_consumer_drop (c, fr);
  c->discont = FALSE;           /* the gap is marked on the pending frame */
  return TRUE;
}

void
gst_doradma_consumer_release (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr)
{
  if (fr->leased)
    doradma_reader_release (c->rh->r, fr->f.slot);
  fr->leased = FALSE;
}

static void
consume (GstDoradmaConsumer * c, const GstDoradmaConsumerFrame * fr)
{
  if (c->s.mode == DORADMA_READ_NEXT)
    doradma_reader_consume (c->rh->r, fr->f.info.seq);
}

void
gst_doradma_consumer_delivered (GstDoradmaConsumer * c,
    const GstDoradmaConsumerFrame * fr)
{
  consume (c, fr);
  g_mutex_lock (&c->lock);
  c->delivered++;
  c->lat[c->n_lat++ % N_LATENCY_SAMPLES] =
      gst_doradma_monotonic_now () - fr->f.info.publish_time;
  if (c->n_lat >= 2 * N_LATENCY_SAMPLES)
    c->n_lat -= N_LATENCY_SAMPLES;
  g_mutex_unlock (&c->lock);
}

void
gst_doradma_consumer_drop (GstDoradmaConsumer * c, GstDoradmaConsumerFrame * fr)
{
  gst_doradma_consumer_release (c, fr);
  gst_clear_buffer (&fr->copy);
  consume (c, fr);
  c->discont = TRUE;
  g_mutex_lock (&c->lock);
  c->dropped++;
  g_mutex_unlock (&c->lock);
}

GstMemory *
gst_doradma_consumer_lease_memory (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr)
{
  guint64 devptr;

  g_return_val_if_fail (fr->leased, NULL);

  fr->leased = FALSE;           /* the memory owns the lease now */
  devptr = gst_doradma_cuda_reader_frame_pointer (c->rh->cuda, &fr->f);
  return gst_doradma_lease_memory (c->rh, &fr->f, devptr);
}

guint
gst_doradma_consumer_outstanding (GstDoradmaConsumer * c)
{
  return c->rh ? (guint) g_atomic_int_get (&c->rh->outstanding) : 0;
}

GstDoradmaReaderHandle *
gst_doradma_consumer_handle (GstDoradmaConsumer * c)
{
  return c->rh;
}

gboolean
gst_doradma_consumer_caps (GstDoradmaConsumer * c, guint32 epoch,
    gchar * buf, gsize len)
{
  struct doradma_diag diag = { 0 };
  int r = doradma_reader_caps (c->rh->r, epoch, buf, len, &diag);

  if (r < 0)
    GST_WARNING_OBJECT (c->owner, "caps epoch %u: %s (%s)", epoch, diag.msg,
        g_strerror (-r));
  return r == 0;
}

/* ---------------------------------------------------------------------- */
/* Any thread */

void
gst_doradma_consumer_interrupt (GstDoradmaConsumer * c, gboolean on)
{
  guint64 v = 1;

  if (on) {
    g_atomic_int_set (&c->unlocked, TRUE);
    if (write (c->cancel_fd, &v, sizeof (v)) < 0)
      GST_DEBUG_OBJECT (c->owner, "eventfd write: %s", g_strerror (errno));
  } else if (read (c->cancel_fd, &v, sizeof (v)) < 0) {
    GST_LOG_OBJECT (c->owner, "eventfd was not signalled");
  }
  g_mutex_lock (&c->lock);
  if (!on)
    g_atomic_int_set (&c->unlocked, FALSE);
  if (c->rh)
    doradma_reader_interrupt (c->rh->r, on ? 1 : 0);
  g_mutex_unlock (&c->lock);
}

guint64
gst_doradma_consumer_latency (GstDoradmaConsumer * c)
{
  guint64 lat;

  g_mutex_lock (&c->lock);
  lat = c->latency;
  g_mutex_unlock (&c->lock);
  return lat;
}

guint32
gst_doradma_consumer_slot_count (GstDoradmaConsumer * c)
{
  struct doradma_segment_info si = { 0 };

  g_mutex_lock (&c->lock);
  if (c->rh)
    doradma_reader_segment_info (c->rh->r, &si);
  g_mutex_unlock (&c->lock);
  return si.slot_count;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

void
gst_doradma_consumer_get_stats (GstDoradmaConsumer * c,
    GstDoradmaConsumerStats * st)
{
  struct doradma_reader_stats rs = { 0 };
  guint64 sorted[N_LATENCY_SAMPLES];
  guint n;

  g_mutex_lock (&c->lock);
  n = MIN (c->n_lat, N_LATENCY_SAMPLES);
  memcpy (sorted, c->lat, n * sizeof (guint64));
  if (c->rh)
    doradma_reader_get_stats (c->rh->r, &rs);
  st->frames = c->delivered;
  st->torn = c->acc_torn + rs.torn;
  st->skipped = c->acc_skipped + rs.skipped + c->dropped;
  st->lease_waits = c->acc_retries + rs.lease_retries;
  st->spins = c->acc_spins + rs.spins;
  st->sleeps = c->acc_sleeps + rs.sleeps;
  st->path = c->path;
  g_mutex_unlock (&c->lock);
  qsort (sorted, n, sizeof (guint64), cmp_u64);
  st->latency_p50 = n ? sorted[(n - 1) / 2] : 0;
  st->latency_p99 = n ? sorted[((n - 1) * 99) / 100] : 0;
}
