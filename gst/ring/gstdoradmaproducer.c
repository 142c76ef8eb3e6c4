/* doradma GStreamer plugin — the producer side of a channel (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A segment (gstdoradmaproducersegment.c) is one libdoradma writer and its
 * slot table. A slot is chosen by libdoradma (oldest free, unleased, not
 * newest, consumed in lossless mode) AND must not be referenced in this
 * process: lent slots are held in the ring until they come back.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gstdoradmaproducer.h"
#include "gstdoradmaproducersegment.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"
#include "gstdoradmacuda.h"
#include <gst/doradma/gstdoradmamemory.h>

GST_DEBUG_CATEGORY (gst_doradma_producer_debug);
#define GST_CAT_DEFAULT gst_doradma_producer_debug

struct _GstDoradmaProducer
{
  gint refcount;
  gint unlocked;                /* atomic: the sink's waits are cancelled */
  gint stall_posted;            /* atomic: the stall error was posted (one
                                 * stall, one error, however many threads
                                 * time out on it) */
  guint64 counters[GST_DORADMA_COUNT_N];        /* atomic */

  GMutex lock;                  /* everything below */
  GstElement *owner;            /* not a reference */
  GstDoradmaProducerSettings s;
  gboolean started;
  GstDoradmaSegment *seg;
  gchar *caps;
  gboolean replace;             /* the next frame needs a new segment */
  gboolean eos;
  GstClockTime latency;
};

/* ---------------------------------------------------------------------- */
/* Errors */

/* libdoradma's create/replace errno → what the user reads:
 * "<before> \"<channel>\"<after>". */
static const struct
{
  int err;
  GstResourceError code;
  const gchar *before, *after;
} create_errors[] = {
  {EBUSY, GST_RESOURCE_ERROR_BUSY, "Channel",
      " is in use by another live writer"},
  {EPERM, GST_RESOURCE_ERROR_NOT_AUTHORIZED, "Not allowed to create channel",
      ""},
  {EACCES, GST_RESOURCE_ERROR_NOT_AUTHORIZED, "Not allowed to create channel",
      ""},
  {ENOSPC, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
      "Not enough shared memory for channel", ""},
  {EINVAL, GST_RESOURCE_ERROR_SETTINGS, "Invalid settings for channel", ""},
  {E2BIG, GST_RESOURCE_ERROR_SETTINGS, "Invalid settings for channel", ""},
  {0, GST_RESOURCE_ERROR_OPEN_WRITE, "Could not create channel", ""},
};

static GstElement *
owner_ref (GstDoradmaProducer * p)
{
  GstElement *e;

  g_mutex_lock (&p->lock);
  e = p->owner ? gst_object_ref (p->owner) : NULL;
  g_mutex_unlock (&p->lock);
  return e;
}

static void
post_create_error (GstDoradmaProducer * p, const gchar * channel, int r,
    const struct doradma_diag *diag)
{
  GstElement *e = owner_ref (p);
  guint i;

  if (e == NULL)
    return;
  for (i = 0; create_errors[i].err != 0 && create_errors[i].err != -r; i++);
  gst_element_message_full_with_details (e, GST_MESSAGE_ERROR,
      GST_RESOURCE_ERROR, create_errors[i].code,
      g_strdup_printf ("%s \"%s\"%s", create_errors[i].before, channel,
          create_errors[i].after),
      g_strdup_printf ("%s: %s", diag->msg, g_strerror (-r)), __FILE__,
      GST_FUNCTION, __LINE__, gst_structure_new ("details", "channel",
          G_TYPE_STRING, channel, "field", G_TYPE_STRING,
          diag->field ? diag->field : "", NULL));
  gst_object_unref (e);
}

/* Logs with the sink as the object (two sinks in a process are told
 * apart); the owner is looked up only when the level is enabled. Not with
 * p->lock held. */
#define PLOG(p, level, ...) G_STMT_START {                           \
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= (level)) { \
    GstElement *_o = owner_ref (p);                                  \
    GST_CAT_LEVEL_LOG (GST_CAT_DEFAULT, level, _o, __VA_ARGS__);     \
    if (_o)                                                          \
      gst_object_unref (_o);                                         \
  }                                                                  \
} G_STMT_END

#define POST(p, kind, domain, code, text, debug) G_STMT_START {  \
  GstElement *_e = owner_ref (p);                                \
  if (_e) {                                                      \
    GST_ELEMENT_##kind (_e, domain, code, text, debug);          \
    gst_object_unref (_e);                                       \
  }                                                              \
} G_STMT_END

/* ---------------------------------------------------------------------- */
/* Life cycle */

void
gst_doradma_producer_debug_init (void)
{
  GST_DEBUG_CATEGORY_INIT (gst_doradma_producer_debug, "doradmaproducer", 0,
      "doradma channel producer");
}

GstDoradmaProducer *
gst_doradma_producer_new (GstElement * owner)
{
  GstDoradmaProducer *p = g_new0 (GstDoradmaProducer, 1);

  p->refcount = 1;
  g_mutex_init (&p->lock);
  p->owner = owner;
  p->latency = GST_CLOCK_TIME_NONE;
  return p;
}

GstDoradmaProducer *
gst_doradma_producer_ref (GstDoradmaProducer * p)
{
  g_atomic_int_inc (&p->refcount);
  return p;
}

void
gst_doradma_producer_unref (GstDoradmaProducer * p)
{
  if (p == NULL || !g_atomic_int_dec_and_test (&p->refcount))
    return;
  gst_doradma_segment_unref (p->seg);
  g_free (p->caps);
  g_free (p->s.channel);
  g_mutex_clear (&p->lock);
  g_free (p);
}

void
gst_doradma_producer_detach (GstDoradmaProducer * p)
{
  g_mutex_lock (&p->lock);
  p->owner = NULL;
  g_mutex_unlock (&p->lock);
}

void
gst_doradma_producer_start (GstDoradmaProducer * p,
    const GstDoradmaProducerSettings * s)
{
  guint i;

  g_mutex_lock (&p->lock);
  g_free (p->s.channel);
  p->s = *s;
  p->s.channel = g_strdup (s->channel);
  p->started = TRUE;
  p->replace = p->eos = FALSE;
  g_atomic_int_set (&p->unlocked, FALSE);
  g_atomic_int_set (&p->stall_posted, FALSE);
  p->latency = GST_CLOCK_TIME_NONE;
  for (i = 0; i < GST_DORADMA_COUNT_N; i++)
    __atomic_store_n (&p->counters[i], 0, __ATOMIC_RELAXED);
  g_mutex_unlock (&p->lock);
}

void
gst_doradma_producer_stop (GstDoradmaProducer * p)
{
  GstDoradmaSegment *seg;

  g_mutex_lock (&p->lock);
  p->started = FALSE;
  seg = p->seg;
  p->seg = NULL;
  g_clear_pointer (&p->caps, g_free);
  g_mutex_unlock (&p->lock);
  /* the channel is unlinked when the last slot memory comes back */
  gst_doradma_segment_unref (seg);
}

const GstDoradmaProducerSettings *
gst_doradma_producer_settings (GstDoradmaProducer * p)
{
  /* written only by start, before any streaming */
  return &p->s;
}

/* ---------------------------------------------------------------------- */
/* Caps, latency, EOS */

void
gst_doradma_producer_set_caps (GstDoradmaProducer * p, const gchar * caps,
    gsize frame_size)
{
  g_mutex_lock (&p->lock);
  g_free (p->caps);
  p->caps = g_strdup (caps);
  if (p->seg && !p->replace && frame_size <= p->seg->stride) {
    uint32_t epoch = 0;

    /* the frames still fit the slots: a new caps epoch, in band */
    if (doradma_writer_set_caps (p->seg->w, caps, &epoch) < 0)
      p->replace = TRUE;
    GST_INFO_OBJECT (p->owner, "caps epoch %u: %s", epoch, caps);
  } else if (p->seg) {
    p->replace = TRUE;
  }
  g_mutex_unlock (&p->lock);
}

void
gst_doradma_producer_set_latency (GstDoradmaProducer * p, GstClockTime latency)
{
  g_mutex_lock (&p->lock);
  p->latency = latency;
  if (p->seg && GST_CLOCK_TIME_IS_VALID (latency))
    doradma_writer_set_latency (p->seg->w, latency);
  g_mutex_unlock (&p->lock);
  PLOG (p, GST_LEVEL_DEBUG, "latency %" GST_TIME_FORMAT,
      GST_TIME_ARGS (latency));
}

GstClockTime
gst_doradma_producer_get_latency (GstDoradmaProducer * p)
{
  GstClockTime l;

  g_mutex_lock (&p->lock);
  l = p->latency;
  g_mutex_unlock (&p->lock);
  return l;
}

void
gst_doradma_producer_eos (GstDoradmaProducer * p)
{
  g_mutex_lock (&p->lock);
  if (p->seg)
    doradma_writer_eos (p->seg->w);
  p->eos = TRUE;
  g_mutex_unlock (&p->lock);
}

void
gst_doradma_producer_new_stream (GstDoradmaProducer * p)
{
  /* EOS on a ring is final: readers of this segment finish with it, and
   * the next frame goes into a new one (sequence numbers continue; readers
   * still draining it follow through the supersede). */
  g_mutex_lock (&p->lock);
  if (p->eos && p->seg)
    p->replace = TRUE;
  p->eos = FALSE;
  g_mutex_unlock (&p->lock);
}

/* ---------------------------------------------------------------------- */
/* The segment */

/* Lossless, before replacing `seg`: readers a replace carried into it
 * that are still draining an older segment must reach this one first, or
 * they would reopen the name after this replace and lose its frames. Waits
 * within `timeout`, then applies on-reader-stall. Not with p->lock held. */
static GstFlowReturn
await_carried_readers (GstDoradmaProducer * p, GstDoradmaSegment * seg,
    const gint * cancel)
{
  struct doradma_diag diag = { 0 };
  GstDoradmaStallPolicy on_stall;
  GstClockTime timeout;
  gboolean warned = FALSE;
  int r, n;

  g_mutex_lock (&p->lock);
  timeout = p->s.timeout;
  on_stall = p->s.on_stall;
  g_mutex_unlock (&p->lock);
  PLOG (p, GST_LEVEL_DEBUG, "replacing the segment: waiting for readers "
      "still in an older one");
  for (;;) {
    r = doradma_writer_wait_carried (seg->w, GST_CLOCK_TIME_IS_VALID (timeout)
        && !warned ? (gint64) timeout : -1, cancel);
    if (r == 0 || r == -ESTALE)
      return GST_FLOW_OK;
    if (r == -EINTR)
      return GST_FLOW_FLUSHING;
    switch (on_stall) {
      case GST_DORADMA_STALL_EVICT:
        n = doradma_writer_evict_carried (seg->w, &diag);
        if (n > 0)
          POST (p, WARNING, RESOURCE, BUSY,
              ("Evicted %d lossless reader(s) still in an older segment: "
                  "they lose the frames of the one being replaced", n),
              ("%s", diag.msg));
        continue;
      case GST_DORADMA_STALL_WAIT:
        PLOG (p, GST_LEVEL_WARNING, "a lossless reader has not reached the "
            "segment being replaced for %" GST_TIME_FORMAT ", still waiting "
            "(on-reader-stall=wait)", GST_TIME_ARGS (timeout));
        warned = TRUE;
        continue;
      case GST_DORADMA_STALL_ERROR:
      default:
        POST (p, ERROR, RESOURCE, BUSY,
            ("A lossless reader has not reached the segment being replaced "
                "within %" GST_TIME_FORMAT ": replacing it would lose its "
                "frames", GST_TIME_ARGS (timeout)),
            ("on-reader-stall=error; the reader is still draining an older "
                "segment (new caps or bigger frames twice in a row); raise "
                "`timeout`, or use on-reader-stall=evict"));
        return GST_FLOW_ERROR;
    }
  }
}

/* The current segment when its slots hold `size` bytes, else a new one.
 * A new reference in *out. */
static GstFlowReturn
producer_segment (GstDoradmaProducer * p, gsize size, const gint * cancel,
    GstDoradmaSegment ** out)
{
  /* zeroed only where a segment is made: this runs once per frame */
  struct doradma_writer_config cfg;
  struct doradma_diag diag;
  struct doradma_writer *w = NULL;
  guint8 ipc_handle[DORADMA_IPC_HANDLE_LEN];
  GstDoradmaCudaSlots *area = NULL;
  GstDoradmaSegment *seg, *old;
  gchar *channel, *reason = NULL;
  GstFlowReturn ret;
  int r;

again:
  g_mutex_lock (&p->lock);
  if (!p->started) {
    g_mutex_unlock (&p->lock);
    return GST_FLOW_FLUSHING;
  }
  if (p->seg && !p->replace && p->seg->stride >= size) {
    *out = gst_doradma_segment_ref (p->seg);
    g_mutex_unlock (&p->lock);
    return GST_FLOW_OK;
  }
  if (p->caps == NULL) {
    g_mutex_unlock (&p->lock);
    POST (p, ERROR, CORE, NEGOTIATION, (NULL),
        ("no caps before the first buffer"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* Once no carried reader is pending it stays so (replace carries
   * readers only into the new segment): this check under the lock holds
   * until the replace below. */
  if (p->seg && p->s.mode == GST_DORADMA_MODE_LOSSLESS &&
      doradma_writer_wait_carried (p->seg->w, 0, NULL) == -EAGAIN) {
    old = gst_doradma_segment_ref (p->seg);
    g_mutex_unlock (&p->lock);
    ret = await_carried_readers (p, old, cancel);
    gst_doradma_segment_unref (old);
    if (ret != GST_FLOW_OK)
      return ret;
    goto again;
  }

  memset (&cfg, 0, sizeof cfg);
  memset (&diag, 0, sizeof diag);
  channel = g_strdup (p->s.channel);
  cfg.channel = channel;
  cfg.slots = p->s.slots;
  cfg.mode = p->s.permissions;
  cfg.slot_size = size;
  cfg.caps = p->caps;
  cfg.transport = gst_doradma_transport_name (p->s.transport);
  /* written before the name is linked: readers that join before the first
   * frame, even at once, read the right latency */
  if (GST_CLOCK_TIME_IS_VALID (p->latency))
    cfg.latency = p->latency;

  if (p->s.transport == GST_DORADMA_TRANSPORT_IPC) {
    /* the slot area is one device allocation; its IPC handle goes into
     * the header (the lib rounds the slot stride up to the page size) */
    gsize page = (gsize) sysconf (_SC_PAGESIZE);
    gsize stride = (size + page - 1) / page * page;

    area = gst_doradma_cuda_slots_new (stride * cfg.slots, ipc_handle, &reason);
    if (area == NULL)
      goto no_device_memory;
    cfg.ipc_handle = ipc_handle;
  }

  old = p->seg;
  if (old == NULL)
    r = doradma_writer_create (&cfg, &w, &diag);
  else
    /* Frames no longer fit, or a new stream after EOS: a new segment,
     * sequence numbers continue, our outstanding buffers keep the old one
     * mapped. */
    r = doradma_writer_replace (old->w, &cfg, &w, &diag);
  if (r < 0)
    goto create_failed;

  GST_INFO_OBJECT (p->owner, "%s channel \"%s\": %u slots of %"
      G_GUINT64_FORMAT " bytes, "
      "transport %s, caps %s", old ? "replaced" : "created", channel,
      doradma_writer_slot_count (w), doradma_writer_slot_stride (w),
      cfg.transport, p->caps);
  /* what the lib laid out must fit the allocation */
  g_assert (area == NULL || doradma_writer_slot_count (w) *
      doradma_writer_slot_stride (w) <= gst_doradma_cuda_slots_size (area));

  doradma_writer_set_spin (w, p->s.spin_time);
  seg = gst_doradma_segment_new (w, area);
  p->seg = seg;
  p->replace = FALSE;
  *out = gst_doradma_segment_ref (seg);
  g_mutex_unlock (&p->lock);

  gst_doradma_segment_unref (old);
  g_free (channel);
  return GST_FLOW_OK;

  /* ERRORS */
no_device_memory:
  {
    g_mutex_unlock (&p->lock);
    POST (p, ERROR, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate GPU memory for channel \"%s\"", channel),
        ("%s", reason));
    g_free (reason);
    g_free (channel);
    return GST_FLOW_ERROR;
  }
create_failed:
  {
    g_mutex_unlock (&p->lock);
    gst_doradma_cuda_slots_free (area);
    post_create_error (p, channel, r, &diag);
    g_free (channel);
    return GST_FLOW_ERROR;
  }
}

GstFlowReturn
gst_doradma_producer_prepare (GstDoradmaProducer * p, gsize size)
{
  GstDoradmaSegment *seg = NULL;
  GstFlowReturn ret = producer_segment (p, size, &p->unlocked, &seg);

  gst_doradma_segment_unref (seg);
  return ret;
}

void
gst_doradma_producer_check_slots (GstDoradmaProducer * p, guint upstream_min)
{
  guint n = 0;

  g_mutex_lock (&p->lock);
  if (p->seg)
    n = p->seg->n_slots;
  g_mutex_unlock (&p->lock);
  if (n > 0 && upstream_min + 2 > n)
    POST (p, WARNING, RESOURCE, SETTINGS,
        ("Too few slots: upstream keeps up to %u buffers, the ring has %u",
            upstream_min, n),
        ("slots >= 1 (newest) + upstream outstanding + sum of reader "
            "max-leases + 1; extra frames go through fallback buffers"));
}

/* ---------------------------------------------------------------------- */
/* Slots */

static guint32
readers_now (GstDoradmaSegment * seg)
{
  struct doradma_writer_stats ws = { 0 };

  doradma_writer_get_stats (seg->w, &ws);
  return ws.readers;
}

/* Lossless, no slot within `timeout`: the stall policy. FALSE after posting
 * the error. */
static gboolean
apply_stall_policy (GstDoradmaProducer * p, GstDoradmaSegment * seg,
    GstDoradmaStallPolicy on_stall, GstClockTime timeout, gboolean * warned)
{
  struct doradma_diag diag = { 0 };
  guint32 readers = readers_now (seg);
  int n;

  switch (on_stall) {
    case GST_DORADMA_STALL_EVICT:
      n = doradma_writer_evict_stalled (seg->w, &diag);
      if (n > 0)
        POST (p, WARNING, RESOURCE, BUSY,
            ("Evicted %d stalled reader(s) from back-pressure", n),
            ("%s", diag.msg));
      return TRUE;
    case GST_DORADMA_STALL_WAIT:
      if (!*warned)
        PLOG (p, GST_LEVEL_WARNING, "no free slot for %" GST_TIME_FORMAT
            ", still waiting "
            "(on-reader-stall=wait, %u readers)", GST_TIME_ARGS (timeout),
            readers);
      *warned = TRUE;
      return TRUE;
    case GST_DORADMA_STALL_ERROR:
    default:
      break;
  }
  /* a decoder's threads each time out on their own acquisition */
  if (!g_atomic_int_compare_and_exchange (&p->stall_posted, FALSE, TRUE))
    return FALSE;
  /* Only back-pressure readers and our own held slots keep a slot busy:
   * with no reader, upstream holds them all. */
  if (readers == 0)
    POST (p, ERROR, RESOURCE, BUSY,
        ("No free frame slot within %" GST_TIME_FORMAT ": upstream holds "
            "every slot (no reader is connected)", GST_TIME_ARGS (timeout)),
        ("on-reader-stall=error; raise `slots` above what upstream keeps"));
  else
    POST (p, ERROR, RESOURCE, BUSY,
        ("No free frame slot within %" GST_TIME_FORMAT ": a lossless reader "
            "stalled (%u readers), or upstream holds every slot",
            GST_TIME_ARGS (timeout), readers),
        ("on-reader-stall=error; raise `slots`, `timeout`, or use "
            "on-reader-stall=evict"));
  return FALSE;
}

GstFlowReturn
gst_doradma_producer_acquire (GstDoradmaProducer * p, gsize size,
    gboolean dontwait, const gint * cancel, GstMemory ** mem)
{
  GstClockTime deadline = GST_CLOCK_TIME_NONE, timeout;
  enum doradma_slot_policy policy;
  GstDoradmaStallPolicy on_stall;
  gboolean waited = FALSE, warned = FALSE;
  GstFlowReturn ret;
  GstDoradmaSegment *seg;
  guint32 s;
  int r;

  *mem = NULL;
  if (cancel == NULL)
    cancel = &p->unlocked;
  g_mutex_lock (&p->lock);
  policy = p->s.mode == GST_DORADMA_MODE_LOSSLESS && !dontwait ?
      DORADMA_POLICY_LOSSLESS : DORADMA_POLICY_LATEST;
  timeout = p->s.timeout;
  on_stall = p->s.on_stall;
  g_mutex_unlock (&p->lock);

  for (;;) {
    gint64 wait_ns;

    if (g_atomic_int_get (cancel))
      return GST_FLOW_FLUSHING;
    if ((ret = producer_segment (p, size, cancel, &seg)) != GST_FLOW_OK)
      return ret;

    if (!waited || policy == DORADMA_POLICY_LATEST) {
      wait_ns = 0;
    } else if (!GST_CLOCK_TIME_IS_VALID (deadline)) {
      wait_ns = -1;
    } else {
      GstClockTime now = gst_doradma_monotonic_now ();

      wait_ns = now < deadline ? (gint64) (deadline - now) : 0;
    }
    /* Waits sleep in the ring: a slot memory coming back, a reader
     * consuming, or a wake after *cancel was set ends them. */
    r = doradma_writer_acquire_cancellable (seg->w, policy, wait_ns, cancel,
        &s);
    if (r == 0)
      break;
    if (r == -ESTALE) {
      /* replaced by another thread meanwhile: take the new segment */
      gst_doradma_segment_unref (seg);
      continue;
    }
    if (r == -EINTR) {
      gst_doradma_segment_unref (seg);
      return GST_FLOW_FLUSHING;
    }
    if (r == -EAGAIN && policy == DORADMA_POLICY_LATEST) {
      gst_doradma_segment_unref (seg);
      return GST_FLOW_OK;
    }
    if (r == -EAGAIN && !waited) {
      /* lossless: wait for readers to consume, within `timeout` */
      waited = TRUE;
      gst_doradma_producer_count (p, GST_DORADMA_COUNT_WAITS);
      if (GST_CLOCK_TIME_IS_VALID (timeout))
        deadline = gst_doradma_monotonic_now () + timeout;
      gst_doradma_segment_unref (seg);
      continue;
    }
    if (r != -ETIMEDOUT && r != -EAGAIN)
      goto lib_error;
    if (!apply_stall_policy (p, seg, on_stall, timeout, &warned)) {
      gst_doradma_segment_unref (seg);
      return GST_FLOW_ERROR;
    }
    deadline = on_stall == GST_DORADMA_STALL_WAIT ? GST_CLOCK_TIME_NONE :
        gst_doradma_monotonic_now () + timeout;
    gst_doradma_segment_unref (seg);
  }

  *mem = gst_doradma_segment_lend (seg, s, size);
  PLOG (p, GST_LEVEL_LOG, "lent slot %u", s);
  gst_doradma_segment_unref (seg);
  return GST_FLOW_OK;

  /* ERRORS */
lib_error:
  {
    gst_doradma_segment_unref (seg);
    POST (p, ERROR, RESOURCE, WRITE, ("Could not acquire a frame slot"),
        ("doradma_writer_acquire: %s", g_strerror (-r)));
    return GST_FLOW_ERROR;
  }
}

gboolean
gst_doradma_producer_is_writing (GstDoradmaProducer * p, GstMemory * mem)
{
  GstDoradmaSegment *seg = gst_doradma_segment_of (mem);
  gboolean ret;

  if (seg == NULL)
    return FALSE;
  g_mutex_lock (&p->lock);
  ret = seg == p->seg;
  g_mutex_unlock (&p->lock);
  return ret && gst_doradma_segment_is_writing (seg, mem);
}

GstFlowReturn
gst_doradma_producer_publish (GstDoradmaProducer * p, GstMemory * mem,
    struct doradma_frame_info *fi)
{
  GstDoradmaSegment *seg = gst_doradma_segment_of (mem);
  guint32 slot = gst_doradma_memory_get_slot (mem);
  int r;

  g_return_val_if_fail (seg != NULL, GST_FLOW_ERROR);
  r = doradma_writer_publish (seg->w, slot, fi);
  if (r == -ESTALE)
    return GST_FLOW_CUSTOM_SUCCESS;
  if (r == -EPIPE) {
    /* never after _new_stream: EOS and a frame without a flush between */
    POST (p, ERROR, STREAM, FAILED, ("Could not publish a frame after the "
            "end of the stream"), ("doradma_writer_publish: %s",
            g_strerror (-r)));
    return GST_FLOW_ERROR;
  }
  if (r < 0) {
    POST (p, ERROR, STREAM, FORMAT, ("Could not publish a frame"),
        ("doradma_writer_publish: %s (%ux%u, %u planes, %" G_GUINT64_FORMAT
            " bytes, slot stride %" G_GUINT64_FORMAT ")", g_strerror (-r),
            fi->width, fi->height, fi->n_planes, fi->payload_bytes,
            seg->stride));
    return GST_FLOW_ERROR;
  }
  gst_doradma_segment_published (seg, mem);
  gst_doradma_producer_count (p, GST_DORADMA_COUNT_FRAMES);
  PLOG (p, GST_LEVEL_LOG, "published seq %" G_GUINT64_FORMAT " in slot %u",
      fi->seq, slot);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_doradma_producer_wait_readers (GstDoradmaProducer * p, guint n)
{
  GstDoradmaSegment *seg;
  GstFlowReturn ret;
  int r;

  if ((ret = producer_segment (p, 0, &p->unlocked, &seg)) != GST_FLOW_OK)
    return ret;
  /* Joins bump the ring's `space` eventcount: no polling. */
  r = doradma_writer_wait_readers (seg->w, n, -1, &p->unlocked);
  gst_doradma_segment_unref (seg);
  if (r == 0)
    return GST_FLOW_OK;
  if (r == -EINTR)
    return GST_FLOW_FLUSHING;
  POST (p, ERROR, RESOURCE, FAILED, ("Could not wait for %u readers", n),
      ("doradma_writer_wait_readers: %s", g_strerror (-r)));
  return GST_FLOW_ERROR;
}

/* ---------------------------------------------------------------------- */
/* Cancelling waits */

void
gst_doradma_producer_wake (GstDoradmaProducer * p)
{
  g_mutex_lock (&p->lock);
  if (p->seg)
    doradma_writer_wake (p->seg->w);
  g_mutex_unlock (&p->lock);
}

void
gst_doradma_producer_unlock (GstDoradmaProducer * p)
{
  g_atomic_int_set (&p->unlocked, TRUE);
  gst_doradma_producer_wake (p);
}

void
gst_doradma_producer_unlock_stop (GstDoradmaProducer * p)
{
  g_atomic_int_set (&p->unlocked, FALSE);
}

/* ---------------------------------------------------------------------- */
/* Counters */

void
gst_doradma_producer_count (GstDoradmaProducer * p, GstDoradmaCounter c)
{
  __atomic_add_fetch (&p->counters[c], 1, __ATOMIC_RELAXED);
}

GstStructure *
gst_doradma_producer_get_stats (GstDoradmaProducer * p)
{
  struct doradma_writer_stats ws = { 0 };
  GstDoradmaTransport transport;
  GstDoradmaSegment *seg;

#define C(c) __atomic_load_n (&p->counters[GST_DORADMA_COUNT_##c], \
    __ATOMIC_RELAXED)
  g_mutex_lock (&p->lock);
  seg = p->seg ? gst_doradma_segment_ref (p->seg) : NULL;
  transport = p->s.transport;
  g_mutex_unlock (&p->lock);
  if (seg) {
    /* readers now; spins and sleeps of the current segment's writer */
    doradma_writer_get_stats (seg->w, &ws);
    gst_doradma_segment_unref (seg);
  }
  return gst_structure_new ("doradmasink-stats",
      "frames", G_TYPE_UINT64, C (FRAMES),
      "copies", G_TYPE_UINT64, C (COPIES),
      "drops", G_TYPE_UINT64, C (DROPS),
      "fallback-buffers", G_TYPE_UINT64, C (FALLBACK),
      "full-ring-waits", G_TYPE_UINT64, C (WAITS),
      "spins", G_TYPE_UINT64, ws.spins,
      "sleeps", G_TYPE_UINT64, ws.sleeps,
      "transport", G_TYPE_STRING, gst_doradma_transport_name (transport),
      "uploads", G_TYPE_UINT64, C (UPLOADS),
      "device-copies", G_TYPE_UINT64, C (DEVICE_COPIES),
      "readers", G_TYPE_UINT, ws.readers, NULL);
#undef C
}
