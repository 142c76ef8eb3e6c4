/* doradma GStreamer plugin — the consumer (see gstdoradmaconsumer.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "gstdoradmaconsumerprivate.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"
#include "gstdoradmasrcframe.h"

/* doradmasrc's: GST_DEBUG=doradmasrc:5 shows the whole consumer side */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

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
/* Opening (waiting for the channel and joining it: gstdoradmaconsumeropen.c) */

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
  if ((ret = gst_doradma_consumer_open_reader (c, 0, &rh)) != GST_FLOW_OK)
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

  if ((ret = gst_doradma_consumer_open_reader (c, token, &rh)) != GST_FLOW_OK)
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
