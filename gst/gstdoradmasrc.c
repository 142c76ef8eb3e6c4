/* doradma GStreamer plugin — doradmasrc
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-doradmasrc
 * @title: doradmasrc
 *
 * Reads raw video frames from a doradma channel written by a doradmasink in
 * another process. It is a live source: it waits for the channel to appear,
 * takes its caps from the ring, and pushes buffers whose memory points
 * straight at the ring's shared pages (read-only, zero copies). Each such
 * buffer holds a lease on its slot, released when the buffer is freed, from
 * any thread. Beyond `max-leases` outstanding buffers, frames are copied
 * into a local pool so that a downstream that holds many buffers cannot pin
 * the whole ring.
 *
 * Timestamps are carried from the producer's capture domain through
 * CLOCK_MONOTONIC into this pipeline's running time; the producer's latency
 * is added to the LATENCY answer. A producer that is replaced (caps that no
 * longer fit its slots) is followed without a gap; one that dies is waited
 * for (`on-writer-lost=wait`), and its successor's new caps are picked up.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! doradmasink channel=cam0
 * gst-launch-1.0 doradmasrc channel=cam0 ! videoconvert ! autovideosink
 * ]|
 * Display frames published by another process.
 * |[
 * gst-launch-1.0 doradmasrc channel=cam0 read-mode=latest ! videoconvert ! fpsdisplaysink
 * ]|
 * A preview that always shows the newest frame and never slows the producer.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmamemory.h"
#include "gstdoradmaframemeta.h"
#include "gstdoradmacuda.h"
#include "gstdoradmaallocator.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

G_DECLARE_FINAL_TYPE (GstDoradmaSrc, gst_doradma_src, GST, DORADMA_SRC,
    GstPushSrc);

#define N_LATENCY_SAMPLES 512

/* doradmasrc's copy-to: copy each frame into a CUDA slab and release the
 * lease at once (issue 5). */
typedef enum
{
  GST_DORADMA_COPY_TO_NONE,
  GST_DORADMA_COPY_TO_UMA,
  GST_DORADMA_COPY_TO_PINNED,
  GST_DORADMA_COPY_TO_DEVICE,
} GstDoradmaCopyTo;

static GType
gst_doradma_copy_to_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_DORADMA_COPY_TO_NONE, "Lease the slot (zero-copy)", "none"},
    {GST_DORADMA_COPY_TO_UMA, "Copy into a managed (UMA) slab", "uma"},
    {GST_DORADMA_COPY_TO_PINNED, "Copy into a pinned host slab", "pinned"},
    {GST_DORADMA_COPY_TO_DEVICE, "Copy into a device slab", "device"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstDoradmaCopyTo", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_DORADMA_COPY_TO (gst_doradma_copy_to_get_type ())

struct _GstDoradmaSrc
{
  GstPushSrc parent;

  /* properties, under the object lock */
  gchar *channel;
  guint64 timeout;
  GstDoradmaReadMode read_mode;
  gboolean copy;
  guint max_leases;
  GstDoradmaWriterLost on_writer_lost;
  GstClockTime processing_deadline;
  GstDoradmaTransport transport;
  GstDoradmaCopyTo copy_to;
  guint64 copy_budget;

  /* the reader; the pointer changes under the object lock */
  DoradmaReaderHandle *rh;
  guint64 lost_ino, lost_dev;   /* a dead writer's segment, not to reopen */
  guint64 producer_latency;
  int cancel_fd;
  gint unlocked;

  /* stream state, streaming thread only */
  GstCaps *caps;
  GstVideoInfo info;
  guint32 epoch;
  gboolean have_epoch;
  gboolean discont;
  gboolean downstream_meta;
  GstBufferPool *copy_pool;     /* default layout, for over-quota copies */
  GstBufferPool *raw_pool;      /* slot-sized, for copy=true */
  gsize raw_size;

  /* CUDA (gstdoradmacuda.h) */
  gboolean want_cuda;           /* downstream asked for memory:CUDAMemory */
  gboolean cuda_out;            /* we output memory:CUDAMemory */
  GstCaps *out_caps;            /* caps as pushed (features included) */
  DoradmaCudaPath path;         /* of the current reader, under stats_lock */
  DoradmaCudaCopier *copier;
  GstAllocator *slab_alloc;     /* copy-to */
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda_ctx;     /* under the object lock */
  GstBufferPool *cuda_pool;
#endif

  /* statistics */
  GMutex stats_lock;
  guint64 n_frames, n_copies, n_bad;
  guint64 n_device_copies, n_slab;
  guint64 acc_torn, acc_skipped, acc_retries;  /* of closed readers */
  guint64 lat[N_LATENCY_SAMPLES];
  guint n_lat;
};

G_DEFINE_TYPE (GstDoradmaSrc, gst_doradma_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmasrc, "doradmasrc",
    GST_RANK_NONE, gst_doradma_src_get_type (), doradma_element_init (plugin));

#define DEFAULT_CHANNEL NULL
#define DEFAULT_TIMEOUT 0
#define DEFAULT_READ_MODE GST_DORADMA_READ_MODE_NEXT
#define DEFAULT_COPY FALSE
#define DEFAULT_MAX_LEASES 4
#define DEFAULT_ON_WRITER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_PROCESSING_DEADLINE (20 * GST_MSECOND)
#define DEFAULT_TRANSPORT GST_DORADMA_TRANSPORT_AUTO
#define DEFAULT_COPY_TO GST_DORADMA_COPY_TO_NONE
#define DEFAULT_COPY_BUDGET 0

enum
{
  PROP_0,
  PROP_CHANNEL,
  PROP_TIMEOUT,
  PROP_READ_MODE,
  PROP_COPY,
  PROP_MAX_LEASES,
  PROP_ON_WRITER_LOST,
  PROP_PROCESSING_DEADLINE,
  PROP_TRANSPORT,
  PROP_COPY_TO,
  PROP_COPY_BUDGET,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

#ifdef HAVE_GST_CUDA
#define SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL) "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, \
        GST_VIDEO_FORMATS_ALL)
#else
#define SRC_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL)
#endif
#define CUDA_FEATURE "memory:CUDAMemory"

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

/* Buffer flags carried from the writer (the sink's list). */
#define CARRIED_FLAGS (GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_RESYNC | \
    GST_BUFFER_FLAG_CORRUPTED | GST_BUFFER_FLAG_MARKER | \
    GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_NON_DROPPABLE)
#define VIDEO_FLAGS (GST_VIDEO_BUFFER_FLAG_INTERLACED | \
    GST_VIDEO_BUFFER_FLAG_TFF | GST_VIDEO_BUFFER_FLAG_RFF | \
    GST_VIDEO_BUFFER_FLAG_ONEFIELD | GST_VIDEO_BUFFER_FLAG_MULTIPLE_VIEW | \
    GST_VIDEO_BUFFER_FLAG_FIRST_IN_BUNDLE | \
    GST_VIDEO_BUFFER_FLAG_TOP_FIELD | GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD | \
    GST_VIDEO_BUFFER_FLAG_MARKER)

/* ---------------------------------------------------------------------- */
/* Stats */

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static GstStructure *
gst_doradma_src_get_stats (GstDoradmaSrc * self)
{
  struct doradma_reader_stats rs = { 0 };
  guint64 sorted[N_LATENCY_SAMPLES], p50 = 0, p99 = 0;
  DoradmaReaderHandle *rh = NULL;
  const gchar *transport;
  GstStructure *s;
  guint n;

  GST_OBJECT_LOCK (self);
  if (self->rh)
    rh = doradma_reader_handle_ref (self->rh);
  GST_OBJECT_UNLOCK (self);
  if (rh) {
    doradma_reader_get_stats (rh->r, &rs);
    doradma_reader_handle_unref (rh);
  }

  g_mutex_lock (&self->stats_lock);
  transport = self->path == DORADMA_CUDA_PATH_IPC ? "ipc" :
      self->path == DORADMA_CUDA_PATH_NONE ? "shmem" : "unified";
  n = MIN (self->n_lat, N_LATENCY_SAMPLES);
  memcpy (sorted, self->lat, n * sizeof (guint64));
  qsort (sorted, n, sizeof (guint64), cmp_u64);
  if (n > 0) {
    p50 = sorted[(n - 1) / 2];
    p99 = sorted[((n - 1) * 99) / 100];
  }
  s = gst_structure_new ("doradmasrc-stats",
      "frames", G_TYPE_UINT64, self->n_frames,
      "torn", G_TYPE_UINT64, self->acc_torn + rs.torn,
      "skipped", G_TYPE_UINT64, self->acc_skipped + rs.skipped + self->n_bad,
      "copies", G_TYPE_UINT64, self->n_copies,
      "lease-waits", G_TYPE_UINT64, self->acc_retries + rs.lease_retries,
      "latency-p50", G_TYPE_UINT64, p50,
      "latency-p99", G_TYPE_UINT64, p99,
      "transport", G_TYPE_STRING, transport,
      "cuda-path", G_TYPE_STRING, doradma_cuda_path_name (self->path),
      "cuda-registrations", G_TYPE_UINT64, doradma_gst_cuda_registrations (),
      "memory", G_TYPE_STRING, self->cuda_out ? CUDA_FEATURE : "system",
      "device-copies", G_TYPE_UINT64, self->n_device_copies,
      "copied-to-slab", G_TYPE_UINT64, self->n_slab, NULL);
  g_mutex_unlock (&self->stats_lock);
  return s;
}

static void
post_stats (GstDoradmaSrc * self)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_doradma_src_get_stats (self)));
}

/* ---------------------------------------------------------------------- */
/* Opening and closing the reader */

/* Deactivates and drops a pool (NULL is fine). */
static void
clear_pool (GstBufferPool ** pool)
{
  if (*pool == NULL)
    return;
  gst_buffer_pool_set_active (*pool, FALSE);
  gst_clear_object (pool);
}

static void
drop_reader (GstDoradmaSrc * self)
{
  struct doradma_reader_stats rs = { 0 };
  DoradmaReaderHandle *rh;

  GST_OBJECT_LOCK (self);
  rh = self->rh;
  self->rh = NULL;
  GST_OBJECT_UNLOCK (self);
  if (rh == NULL)
    return;

  doradma_reader_get_stats (rh->r, &rs);
  g_mutex_lock (&self->stats_lock);
  self->acc_torn += rs.torn;
  self->acc_skipped += rs.skipped;
  self->acc_retries += rs.lease_retries;
  g_mutex_unlock (&self->stats_lock);
  /* outstanding buffers keep the mapping until they are freed */
  doradma_reader_handle_unref (rh);
}

/* Sleeps `ms`, or less when unlocked. Returns FALSE when unlocked. */
static gboolean
cancellable_sleep (GstDoradmaSrc * self, gint ms)
{
  struct pollfd pfd = { self->cancel_fd, POLLIN, 0 };

  if (g_atomic_int_get (&self->unlocked))
    return FALSE;
  poll (&pfd, 1, ms);
  return !g_atomic_int_get (&self->unlocked);
}

static void
post_open_error (GstDoradmaSrc * self, const gchar * channel, int r,
    const struct doradma_diag *diag)
{
  const gchar *field = diag->field ? diag->field : "";

  switch (-r) {
    case EACCES:
    case EPERM:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, NOT_AUTHORIZED,
          ("Not allowed to read channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EBADMSG:
    case EPROTONOSUPPORT:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, STREAM, FORMAT,
          ("Channel \"%s\" is not a valid doradma ring", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING, field,
              NULL));
      break;
    case EUSERS:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, BUSY,
          ("Channel \"%s\" has no free reader entry", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EINVAL:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
          ("Invalid channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    default:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, OPEN_READ,
          ("Could not open channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
  }
}

/* ---------------------------------------------------------------------- */
/* CUDA: which transport, and does downstream want memory:CUDAMemory? */

/* `auto` unless $DORADMA_TRANSPORT (which overrides `auto` only) says
 * otherwise; FALSE with an element error for a bad value. */
static gboolean
resolve_transport (GstDoradmaSrc * self, GstDoradmaTransport * out)
{
  GstDoradmaTransport t;
  gchar *bad = NULL;
  const gchar *env = g_getenv ("DORADMA_TRANSPORT");

  GST_OBJECT_LOCK (self);
  t = self->transport;
  GST_OBJECT_UNLOCK (self);
  if (t == GST_DORADMA_TRANSPORT_AUTO && (env == NULL || env[0] == '\0'
          || g_str_equal (env, "auto"))) {
    *out = GST_DORADMA_TRANSPORT_AUTO;
    return TRUE;
  }
  if (!doradma_transport_resolve (t, out, &bad)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid value \"%s\" in the DORADMA_TRANSPORT environment variable",
            bad), ("DORADMA_TRANSPORT must be empty, auto, shmem, unified "
            "or ipc"));
    g_free (bad);
    return FALSE;
  }
  return TRUE;
}

/* Downstream explicitly accepts memory:CUDAMemory (ANY does not count:
 * an appsink without caps gets the zero-copy system-memory path). */
static gboolean
downstream_wants_cuda (GstDoradmaSrc * self)
{
  GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (self), NULL);
  gboolean want = FALSE;
  guint i;

  if (peer == NULL || gst_caps_is_any (peer)) {
    gst_clear_caps (&peer);
    return FALSE;
  }
  for (i = 0; i < gst_caps_get_size (peer) && !want; i++) {
    GstCapsFeatures *f = gst_caps_get_features (peer, i);

    want = f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, CUDA_FEATURE);
  }
  gst_caps_unref (peer);
  return want;
}

/* Decides the CUDA path of a freshly opened reader and sets it up: the
 * segment's ipc flag forces an IPC import; `unified` (or `auto` with a
 * CUDA downstream) registers the mapping. Returns the DoradmaCudaReader,
 * NULL for plain shmem, or sets *fatal after posting an error. */
static DoradmaCudaReader *
setup_cuda (GstDoradmaSrc * self, struct doradma_reader *reader,
    gboolean * fatal)
{
  struct doradma_segment_info si;
  GstDoradmaTransport t;
  DoradmaCudaReader *cr;
  gboolean needed;
  gchar *reason = NULL;

  *fatal = FALSE;
  if (!resolve_transport (self, &t)) {
    *fatal = TRUE;
    return NULL;
  }
  doradma_reader_segment_info (reader, &si);
  self->want_cuda = downstream_wants_cuda (self);
  if (!si.ipc && t == GST_DORADMA_TRANSPORT_IPC)
    GST_WARNING_OBJECT (self, "transport=ipc, but the writer's slots are in "
        "shared memory (transport \"%s\"): reading them as shmem",
        si.transport);
  if (!si.ipc && t != GST_DORADMA_TRANSPORT_UNIFIED
      && !(t == GST_DORADMA_TRANSPORT_AUTO && self->want_cuda)) {
    GST_DEBUG_OBJECT (self, "CUDA path none (transport %s, downstream %s "
        "CUDA memory)", doradma_transport_name (t),
        self->want_cuda ? "wants" : "does not want");
    return NULL;
  }
  needed = si.ipc || t == GST_DORADMA_TRANSPORT_UNIFIED;
  cr = doradma_cuda_reader_new (reader, &reason);
  if (cr == NULL) {
    if (needed) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("%s needs CUDA: %s", si.ipc ?
              "The writer's slots live in GPU memory (transport ipc); reading "
              "them" : "transport=unified", reason),
          ("segment transport \"%s\"", si.transport));
      *fatal = TRUE;
    } else {
      GST_INFO_OBJECT (self, "auto: staying on shmem: %s", reason);
    }
    g_free (reason);
    return NULL;
  }
  GST_INFO_OBJECT (self, "CUDA path %s (transport property %s, segment "
      "transport \"%s\")", doradma_cuda_path_name (doradma_cuda_reader_path
          (cr)), doradma_transport_name (t), si.transport);
  return cr;
}

/* Waits for the channel and joins it. `token`: adopt the entry a superseded
 * segment's writer carried over (0: none). */
static GstFlowReturn
open_reader (GstDoradmaSrc * self, guint64 token)
{
  struct doradma_reader_config cfg = { 0 };
  struct doradma_diag diag = { 0 };
  struct doradma_reader *reader;
  gchar *channel;
  guint64 timeout;
  GstClockTime start = doradma_monotonic_now ();
  int r;

  GST_OBJECT_LOCK (self);
  channel = g_strdup (self->channel);
  timeout = self->timeout;
  cfg.backpressure = self->read_mode == GST_DORADMA_READ_MODE_NEXT;
  GST_OBJECT_UNLOCK (self);
  cfg.channel = channel;
  cfg.allowed_uid = -1;

  for (;;) {
    gint64 left = -1;

    if (timeout > 0) {
      GstClockTime spent = doradma_monotonic_now () - start;

      if (spent >= timeout)
        goto timed_out;
      left = timeout - spent;
    }
    /* After a writer died, wait (inotify) until its name is replaced. */
    r = doradma_channel_wait_new (NULL, channel, self->lost_dev,
        self->lost_ino, left, self->cancel_fd);
    if (r == -EINTR || g_atomic_int_get (&self->unlocked))
      goto flushing;
    if (r == -ETIMEDOUT)
      goto timed_out;
    if (r < 0)
      goto open_failed;

    cfg.token = token;
    r = doradma_reader_open (&cfg, &reader, &diag);
    if (r == -ENOENT && token) {
      token = 0;
      continue;
    }
    if (r == -ENOENT || r == -ESTALE) {
      /* gone again, or the successor is not linked yet */
      if (!cancellable_sleep (self, 5))
        goto flushing;
      continue;
    }
    if (r < 0)
      goto open_failed;

    if (self->lost_ino) {
      struct doradma_segment_info si;

      doradma_reader_segment_info (reader, &si);
      if (si.ino == self->lost_ino && si.dev == self->lost_dev) {
        /* replaced and back again in between: wait once more */
        doradma_reader_close (reader);
        continue;
      }
      self->lost_ino = self->lost_dev = 0;
    }
    break;
  }

  {
    gboolean fatal;
    DoradmaCudaReader *cr = setup_cuda (self, reader, &fatal);

    if (fatal) {
      doradma_reader_close (reader);
      g_free (channel);
      return GST_FLOW_ERROR;
    }
    g_mutex_lock (&self->stats_lock);
    self->path = doradma_cuda_reader_path (cr);
    g_mutex_unlock (&self->stats_lock);
    GST_OBJECT_LOCK (self);
    self->rh = doradma_reader_handle_new (reader);
    self->rh->cuda = cr;
    GST_OBJECT_UNLOCK (self);
  }

  GST_OBJECT_LOCK (self);
  if (g_atomic_int_get (&self->unlocked))
    doradma_reader_interrupt (reader, 1);
  GST_OBJECT_UNLOCK (self);

  {
    guint64 lat = doradma_reader_latency (reader);

    if (lat != self->producer_latency) {
      self->producer_latency = lat;
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_latency (GST_OBJECT (self)));
    }
  }
  self->discont = TRUE;
  GST_INFO_OBJECT (self, "joined channel \"%s\"", channel);
  g_free (channel);
  return GST_FLOW_OK;

  /* ERRORS */
flushing:
  {
    g_free (channel);
    return GST_FLOW_FLUSHING;
  }
timed_out:
  {
    GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, NOT_FOUND,
        ("Channel \"%s\" did not appear within %" GST_TIME_FORMAT, channel,
            GST_TIME_ARGS (timeout)), ("no %s/doradma.%s",
            doradma_shm_dir (NULL), channel),
        ("channel", G_TYPE_STRING, channel, NULL));
    g_free (channel);
    return GST_FLOW_ERROR;
  }
open_failed:
  {
    post_open_error (self, channel, r, &diag);
    g_free (channel);
    return GST_FLOW_ERROR;
  }
}

/* ---------------------------------------------------------------------- */
/* Caps and geometry */

static gint set_output_caps (GstDoradmaSrc * self, GstCaps * caps,
    const GstVideoInfo * info, const gchar * str);

/* Returns 0 (caps set), 1 (epoch unreadable: skip the frame) or -1 (error
 * posted). */
static gint
update_caps (GstDoradmaSrc * self, guint32 epoch)
{
  struct doradma_diag diag = { 0 };
  gchar str[DORADMA_CAPS_MAX];
  GstCaps *caps;
  GstCapsFeatures *f;
  GstVideoInfo info;
  int r;

  r = doradma_reader_caps (self->rh->r, epoch, str, sizeof (str), &diag);
  if (r < 0) {
    GST_WARNING_OBJECT (self, "caps epoch %u: %s (%s)", epoch, diag.msg,
        g_strerror (-r));
    return 1;
  }

  /* the lib checked the string; check what GStreamer makes of it */
  caps = gst_caps_from_string (str);
  if (caps == NULL || gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps)
      || !gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-raw")
      || ((f = gst_caps_get_features (caps, 0))
          && !gst_caps_features_is_equal (f,
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      || !gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The writer published caps that are not plain raw video"),
        ("caps epoch %u: \"%s\"", epoch, str));
    gst_clear_caps (&caps);
    return -1;
  }

  self->epoch = epoch;
  self->have_epoch = TRUE;
  if (self->caps && gst_caps_is_equal (caps, self->caps)) {
    gst_caps_unref (caps);
    return 0;
  }
  return set_output_caps (self, caps, &info, str);
}

/* Pushes `caps` (system memory, taken) or their memory:CUDAMemory twin when
 * downstream asks for it and gstreamer-cuda works here. */
static gint
set_output_caps (GstDoradmaSrc * self, GstCaps * caps, const GstVideoInfo *
    info, const gchar * str)
{
  GstCaps *out = gst_caps_copy (caps);
  gboolean cuda_out = FALSE;

  if (downstream_wants_cuda (self)) {
    gchar *reason = NULL;

    if (doradma_gst_cuda_memory_available (&reason)) {
      gst_caps_set_features (out, 0, gst_caps_features_new (CUDA_FEATURE,
              NULL));
      cuda_out = TRUE;
    } else {
      GST_WARNING_OBJECT (self, "downstream asks for %s: %s; offering "
          "system memory", CUDA_FEATURE, reason);
      g_free (reason);
    }
  }

  GST_INFO_OBJECT (self, "caps %" GST_PTR_FORMAT, out);
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->caps, caps);
  gst_caps_replace (&self->out_caps, out);
  GST_OBJECT_UNLOCK (self);
  self->info = *info;
  self->discont = TRUE;
  self->cuda_out = cuda_out;
  /* pools of the previous caps */
  clear_pool (&self->copy_pool);
#ifdef HAVE_GST_CUDA
  clear_pool (&self->cuda_pool);
#endif
  if (!gst_base_src_set_caps (GST_BASE_SRC (self), out)) {
    if (cuda_out) {
      /* downstream changed its mind: system memory */
      GST_OBJECT_LOCK (self);
      gst_caps_replace (&self->out_caps, caps);
      GST_OBJECT_UNLOCK (self);
      self->cuda_out = FALSE;
      if (gst_base_src_set_caps (GST_BASE_SRC (self), caps))
        goto done;
    }
    gst_caps_unref (out);
    gst_caps_unref (caps);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream refused %s", str));
    return -1;
  }
done:
  GST_INFO_OBJECT (self, "output: %s memory", self->cuda_out ? CUDA_FEATURE :
      "system");
  gst_caps_unref (out);
  gst_caps_unref (caps);
  return 0;
}

/* Does the record cover what the caps need? */
static gboolean
frame_fits_caps (GstDoradmaSrc * self, const struct doradma_frame_info *fi)
{
  const GstVideoInfo *info = &self->info;
  guint p;

  if (fi->width != (guint) GST_VIDEO_INFO_WIDTH (info)
      || fi->height != (guint) GST_VIDEO_INFO_HEIGHT (info)
      || fi->n_planes != GST_VIDEO_INFO_N_PLANES (info))
    return FALSE;
  for (p = 0; p < fi->n_planes; p++) {
    guint32 rows, row_bytes;

    doradma_plane_needs (info, p, &rows, &row_bytes);
    if (fi->planes[p].rows < rows || fi->planes[p].row_bytes < row_bytes
        || fi->planes[p].stride < row_bytes)
      return FALSE;
  }
  return TRUE;
}

/* The frame is laid out as the caps' default layout (no meta needed). */
static gboolean
frame_is_default_layout (GstDoradmaSrc * self,
    const struct doradma_frame_info *fi)
{
  guint p;

  if (fi->payload_bytes < self->info.size)
    return FALSE;
  for (p = 0; p < fi->n_planes; p++) {
    if (fi->planes[p].offset != self->info.offset[p]
        || fi->planes[p].stride != (guint32) self->info.stride[p])
      return FALSE;
  }
  return TRUE;
}

static void
add_frame_metas (GstDoradmaSrc * self, GstBuffer * buf,
    const struct doradma_frame_info *fi)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  guint p;

  for (p = 0; p < fi->n_planes; p++) {
    offset[p] = fi->planes[p].offset;
    stride[p] = fi->planes[p].stride;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&self->info), fi->width, fi->height,
      fi->n_planes, offset, stride);
  if (fi->crop_width > 0 && fi->crop_height > 0) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = fi->crop_x;
    crop->y = fi->crop_y;
    crop->width = fi->crop_width;
    crop->height = fi->crop_height;
  }
}

static GstBufferPool *
make_pool (GstDoradmaSrc * self, GstBufferPool * pool, gsize size)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, self->caps, size, 0, 0);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* Copies a leased frame (wrapped in `leased`) into a buffer of the local
 * pool, in the default layout. Returns NULL on failure. */
static GstBuffer *
copy_to_pool (GstDoradmaSrc * self, GstBuffer * leased)
{
  GstVideoFrame src, dst;
  GstBuffer *out = NULL;

  if (self->copy_pool == NULL)
    self->copy_pool = make_pool (self, gst_video_buffer_pool_new (),
        self->info.size);
  if (self->copy_pool == NULL
      || gst_buffer_pool_acquire_buffer (self->copy_pool, &out, NULL)
      != GST_FLOW_OK)
    return NULL;

  if (!gst_video_frame_map (&src, &self->info, leased, GST_MAP_READ)) {
    gst_buffer_unref (out);
    return NULL;
  }
  if (!gst_video_frame_map (&dst, &self->info, out, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&src);
    gst_buffer_unref (out);
    return NULL;
  }
  gst_video_frame_copy (&dst, &src);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  {
    GstVideoCropMeta *c = gst_buffer_get_video_crop_meta (leased), *oc;

    if (c) {
      oc = gst_buffer_add_video_crop_meta (out);
      oc->x = c->x;
      oc->y = c->y;
      oc->width = c->width;
      oc->height = c->height;
    }
  }
  return out;
}

/* ---------------------------------------------------------------------- */
/* Device paths: memory:CUDAMemory output, ipc → system memory, copy-to */

static void
add_crop_meta (GstBuffer * buf, const struct doradma_frame_info *fi)
{
  if (fi->crop_width > 0 && fi->crop_height > 0) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = fi->crop_x;
    crop->y = fi->crop_y;
    crop->width = fi->crop_width;
    crop->height = fi->crop_height;
  }
}

/* The leased frame as a copy source: its device pointer when the segment
 * is registered or IPC-mapped, else its host pointer. */
static void
frame_source (GstDoradmaSrc * self, const struct doradma_frame *frame,
    DoradmaCudaFrame * src, guint32 * rows, guint32 * row_bytes)
{
  guint p;

  memset (src, 0, sizeof (*src));
  src->ptr = doradma_cuda_reader_frame_pointer (self->rh->cuda, frame);
  src->kind = DORADMA_CUDA_MEM_DEVICE;
  if (src->ptr == 0) {
    src->ptr = (guint64) (guintptr) frame->data;
    src->kind = DORADMA_CUDA_MEM_HOST;
  }
  for (p = 0; p < frame->info.n_planes; p++) {
    src->offset[p] = frame->info.planes[p].offset;
    src->stride[p] = frame->info.planes[p].stride;
    doradma_plane_needs (&self->info, p, &rows[p], &row_bytes[p]);
  }
}

static gboolean
ensure_copier (GstDoradmaSrc * self, gchar ** err)
{
  if (self->copier == NULL)
    self->copier = doradma_cuda_copier_new (err);
  return self->copier != NULL;
}

/* Copies into `dst`, waits for the copy, then gives the lease back. */
static gboolean
device_copy_and_release (GstDoradmaSrc * self,
    const struct doradma_frame *frame, const DoradmaCudaFrame * dst,
    gchar ** err)
{
  DoradmaCudaFrame src;
  guint32 rows[GST_VIDEO_MAX_PLANES], rb[GST_VIDEO_MAX_PLANES];
  gboolean ok;

  frame_source (self, frame, &src, rows, rb);
  ok = ensure_copier (self, err)
      && doradma_cuda_copier_copy (self->copier, frame->info.n_planes, dst,
      &src, rows, rb, err)
      /* GPU work is not ordered by the lease's CPU fences (#9): the copy
       * must be complete before the writer may reuse the slot */
      && doradma_cuda_copier_sync (self->copier, err);
  doradma_reader_release (self->rh->r, frame->slot);
  if (ok) {
    g_mutex_lock (&self->stats_lock);
    self->n_device_copies++;
    g_mutex_unlock (&self->stats_lock);
  }
  return ok;
}

/* ipc segment, system-memory output: download into the local pool. */
static GstBuffer *
download_frame (GstDoradmaSrc * self, const struct doradma_frame *frame,
    gchar ** err)
{
  DoradmaCudaFrame dst = { 0 };
  GstVideoFrame vf;
  GstBuffer *out = NULL;
  guint p;
  gboolean ok;

  if (self->copy_pool == NULL)
    self->copy_pool = make_pool (self, gst_video_buffer_pool_new (),
        self->info.size);
  if (self->copy_pool == NULL
      || gst_buffer_pool_acquire_buffer (self->copy_pool, &out, NULL)
      != GST_FLOW_OK || !gst_video_frame_map (&vf, &self->info, out,
          GST_MAP_WRITE)) {
    doradma_reader_release (self->rh->r, frame->slot);
    gst_clear_buffer (&out);
    *err = g_strdup ("no local buffer to download into");
    return NULL;
  }
  dst.kind = DORADMA_CUDA_MEM_HOST;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
    dst.offset[p] = (gsize) vf.data[p];
    dst.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
  }
  ok = device_copy_and_release (self, frame, &dst, err);
  gst_video_frame_unmap (&vf);
  if (!ok) {
    gst_buffer_unref (out);
    return NULL;
  }
  add_crop_meta (out, &frame->info);
  g_mutex_lock (&self->stats_lock);
  self->n_copies++;
  g_mutex_unlock (&self->stats_lock);
  return out;
}

/* copy-to: the frame into a CUDA slab, lease released at once. */
static GstBuffer *
copy_to_slab (GstDoradmaSrc * self, GstDoradmaCopyTo to,
    const struct doradma_frame *frame, gchar ** err)
{
  static const GstDoradmaSlabKind kinds[] = {
    GST_DORADMA_SLAB_KIND_MANAGED, GST_DORADMA_SLAB_KIND_MANAGED,
    GST_DORADMA_SLAB_KIND_PINNED, GST_DORADMA_SLAB_KIND_DEVICE
  };
  gsize size = frame->info.payload_bytes;
  GError *e = NULL;
  GstMemory *mem = NULL;
  GstBuffer *buf;

  if (self->slab_alloc == NULL) {
    guint64 budget;

    GST_OBJECT_LOCK (self);
    budget = self->copy_budget;
    GST_OBJECT_UNLOCK (self);
    self->slab_alloc = gst_doradma_slab_allocator_new (kinds[to], budget, &e);
    if (self->slab_alloc == NULL)
      goto failed;
  }
  if ((mem = gst_doradma_slab_allocator_alloc (self->slab_alloc, size,
              &e)) == NULL)
    goto failed;
  if (frame->data) {
    /* memcpy (managed, pinned) or a synchronous cuMemcpyHtoD (device) */
    if (!gst_doradma_slab_memory_upload (mem, 0, frame->data, size, &e))
      goto failed;
    doradma_reader_release (self->rh->r, frame->slot);
  } else {
    DoradmaCudaFrame dst = { 0 };
    guint p;

    dst.ptr = gst_doradma_slab_memory_get_device_pointer (mem);
    dst.kind = DORADMA_CUDA_MEM_DEVICE;
    for (p = 0; p < frame->info.n_planes; p++) {
      dst.offset[p] = frame->info.planes[p].offset;
      dst.stride[p] = frame->info.planes[p].stride;
    }
    if (!device_copy_and_release (self, frame, &dst, err)) {
      gst_memory_unref (mem);
      return NULL;
    }
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  add_frame_metas (self, buf, &frame->info);
  g_mutex_lock (&self->stats_lock);
  self->n_slab++;
  g_mutex_unlock (&self->stats_lock);
  return buf;

failed:
  doradma_reader_release (self->rh->r, frame->slot);
  if (mem)
    gst_memory_unref (mem);
  *err = g_strdup_printf ("copy-to %s: %s", to == GST_DORADMA_COPY_TO_UMA ?
      "uma" : to == GST_DORADMA_COPY_TO_PINNED ? "pinned" : "device",
      e ? e->message : "failed");
  g_clear_error (&e);
  return NULL;
}

#ifdef HAVE_GST_CUDA
static GstCudaContext *
get_cuda_context (GstDoradmaSrc * self, gchar ** err)
{
  return doradma_gst_cuda_element_context (GST_ELEMENT (self), &self->cuda_ctx,
      err);
}

#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED
/* >= 1.24: wrap the slot itself; the lease goes back in the notify, once
 * the GPU is done with it. (Not compiled on the 1.22 dev machines.) */
typedef struct
{
  DoradmaReaderHandle *rh;
  guint32 slot;
} WrapLease;

static void
wrap_lease_notify (gpointer data)
{
  WrapLease *l = data;

  doradma_cuda_reader_sync (l->rh->cuda);
  if (l->rh->pid == getpid ())
    doradma_reader_release (l->rh->r, l->slot);
  g_atomic_int_add (&l->rh->outstanding, -1);
  doradma_reader_handle_unref (l->rh);
  g_free (l);
}

static GstBuffer *
wrap_frame (GstDoradmaSrc * self, GstCudaContext * ctx,
    const struct doradma_frame *frame)
{
  GstVideoInfo winfo = self->info;
  WrapLease *l = g_new0 (WrapLease, 1);
  GstMemory *mem;
  GstBuffer *buf;
  guint p;

  for (p = 0; p < frame->info.n_planes; p++) {
    winfo.offset[p] = frame->info.planes[p].offset;
    winfo.stride[p] = frame->info.planes[p].stride;
  }
  winfo.size = frame->info.payload_bytes;
  l->rh = doradma_reader_handle_ref (self->rh);
  l->slot = frame->slot;
  g_atomic_int_inc (&self->rh->outstanding);
  mem = gst_cuda_allocator_alloc_wrapped (NULL, ctx, NULL, &winfo,
      doradma_cuda_reader_frame_pointer (self->rh->cuda, frame), l,
      wrap_lease_notify);
  if (mem == NULL) {
    wrap_lease_notify (l);
    return NULL;
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (&winfo), GST_VIDEO_INFO_WIDTH (&winfo),
      GST_VIDEO_INFO_HEIGHT (&winfo), GST_VIDEO_INFO_N_PLANES (&winfo),
      winfo.offset, winfo.stride);
  add_crop_meta (buf, &frame->info);
  return buf;
}
#endif

/* memory:CUDAMemory output. 1.22: copy on the device into a GstCudaMemory
 * from a GstCudaBufferPool, wait, release the lease. */
static GstBuffer *
cuda_output (GstDoradmaSrc * self, const struct doradma_frame *frame,
    gchar ** err)
{
  DoradmaCudaFrame dst = { 0 };
  GstCudaContext *ctx;
  GstBuffer *out = NULL;
  GstMemory *mem;
  GstMapInfo map;
  guint p;
  gboolean ok;

  if ((ctx = get_cuda_context (self, err)) == NULL)
    goto fail;
#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED
  if (self->rh->cuda && (out = wrap_frame (self, ctx, frame))) {
    gst_object_unref (ctx);
    return out;
  }
#endif
  if (self->cuda_pool == NULL) {
    GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_set_params (config, self->out_caps,
        self->info.size, 0, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config)
        || !gst_buffer_pool_set_active (pool, TRUE)) {
      gst_object_unref (pool);
      *err = g_strdup ("the CUDA buffer pool refused its configuration");
      gst_object_unref (ctx);
      goto fail;
    }
    self->cuda_pool = pool;
  }
  gst_object_unref (ctx);
  if (gst_buffer_pool_acquire_buffer (self->cuda_pool, &out, NULL)
      != GST_FLOW_OK) {
    *err = g_strdup ("no buffer from the CUDA buffer pool");
    goto fail;
  }
  mem = gst_buffer_peek_memory (out, 0);
  if (!gst_is_cuda_memory (mem)
      || !gst_memory_map (mem, &map, GST_MAP_WRITE | GST_MAP_CUDA)) {
    *err = g_strdup ("could not map the CUDA memory for writing");
    goto fail;
  }
  dst.ptr = (guint64) (guintptr) map.data;
  dst.kind = DORADMA_CUDA_MEM_DEVICE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&self->info); p++) {
    dst.offset[p] = ((GstCudaMemory *) mem)->info.offset[p];
    dst.stride[p] = ((GstCudaMemory *) mem)->info.stride[p];
  }
  ok = device_copy_and_release (self, frame, &dst, err);
  gst_memory_unmap (mem, &map);
  if (!ok) {
    gst_buffer_unref (out);
    return NULL;
  }
  add_crop_meta (out, &frame->info);
  return out;

fail:
  doradma_reader_release (self->rh->r, frame->slot);
  gst_clear_buffer (&out);
  return NULL;
}
#endif

/* ---------------------------------------------------------------------- */
/* Timestamps */

static void
set_timestamps (GstDoradmaSrc * self, GstBuffer * buf,
    const struct doradma_frame_info *fi)
{
  GstClock *clock = gst_element_get_clock (GST_ELEMENT (self));
  GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
  GstClockTime pts = GST_CLOCK_TIME_NONE, dts = GST_CLOCK_TIME_NONE;

  if (clock) {
    GstClockTimeDiff diff = doradma_clock_diff (clock);
    gint64 rt;

    if (fi->mono_pts != DORADMA_TIME_NONE)
      /* the writer's CLOCK_MONOTONIC → our clock → our running time */
      rt = (gint64) fi->mono_pts - diff - (gint64) base;
    else
      rt = (gint64) gst_clock_get_time (clock) - (gint64) base;
    /* older than our base time (a late joiner's first frame, frames
     * published while we were paused): clipped to 0 */
    pts = rt < 0 ? 0 : (GstClockTime) rt;
    if (fi->pts != DORADMA_TIME_NONE && fi->dts != DORADMA_TIME_NONE
        && fi->dts <= fi->pts && pts >= fi->pts - fi->dts)
      dts = pts - (fi->pts - fi->dts);
    gst_object_unref (clock);
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = dts;
  GST_BUFFER_DURATION (buf) = fi->duration;
  GST_BUFFER_OFFSET (buf) = fi->offset;
  GST_BUFFER_OFFSET_END (buf) = fi->offset_end;
  GST_BUFFER_FLAGS (buf) = (fi->flags & CARRIED_FLAGS)
      | (fi->video_flags & VIDEO_FLAGS);
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
  } else {
    GST_BUFFER_FLAG_UNSET (buf, GST_BUFFER_FLAG_DISCONT);
  }
}

/* ---------------------------------------------------------------------- */
/* create() */

static gboolean
writer_lost (GstDoradmaSrc * self, GstFlowReturn * ret)
{
  struct doradma_segment_info si;
  GstDoradmaWriterLost policy;
  gchar *channel;

  GST_OBJECT_LOCK (self);
  policy = self->on_writer_lost;
  channel = g_strdup (self->channel);
  GST_OBJECT_UNLOCK (self);
  doradma_reader_segment_info (self->rh->r, &si);

  switch (policy) {
    case GST_DORADMA_WRITER_LOST_EOS:
      GST_INFO_OBJECT (self, "writer pid %u died: EOS", si.writer_pid);
      *ret = GST_FLOW_EOS;
      break;
    case GST_DORADMA_WRITER_LOST_ERROR:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, READ,
          ("The writer of channel \"%s\" died", channel),
          ("writer pid %u: %s", si.writer_pid, g_strerror (EOWNERDEAD)),
          ("channel", G_TYPE_STRING, channel, NULL));
      *ret = GST_FLOW_ERROR;
      break;
    case GST_DORADMA_WRITER_LOST_WAIT:
    default:
      GST_ELEMENT_WARNING_WITH_DETAILS (self, RESOURCE, READ,
          ("The writer of channel \"%s\" died; waiting for a new one",
              channel), ("writer pid %u: %s", si.writer_pid,
              g_strerror (EOWNERDEAD)),
          ("channel", G_TYPE_STRING, channel, NULL));
      self->lost_ino = si.ino;
      self->lost_dev = si.dev;
      drop_reader (self);
      self->have_epoch = FALSE;
      g_free (channel);
      return TRUE;
  }
  g_free (channel);
  return FALSE;
}

static GstFlowReturn
gst_doradma_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (psrc);
  enum doradma_read_mode mode;
  gboolean copy;
  guint max_leases;
  GstDoradmaCopyTo copy_to;
  GstFlowReturn ret;

  GST_OBJECT_LOCK (self);
  copy_to = self->copy_to;
  mode = self->read_mode == GST_DORADMA_READ_MODE_LATEST ?
      DORADMA_READ_LATEST : DORADMA_READ_NEXT;
  copy = self->copy;
  max_leases = self->max_leases;
  GST_OBJECT_UNLOCK (self);

  for (;;) {
    struct doradma_diag diag = { 0 };
    struct doradma_frame frame;
    GstBuffer *buf = NULL;
    GstMapInfo map;
    int r;

    if (self->rh == NULL && (ret = open_reader (self, 0)) != GST_FLOW_OK)
      return ret;

    if (copy) {
      struct doradma_segment_info si;

      doradma_reader_segment_info (self->rh->r, &si);
      if (self->raw_pool == NULL || self->raw_size < si.slot_stride) {
        clear_pool (&self->raw_pool);
        self->raw_size = si.slot_stride;
        self->raw_pool = make_pool (self, gst_buffer_pool_new (),
            self->raw_size);
        if (self->raw_pool == NULL)
          goto no_pool;
      }
      if ((ret = gst_buffer_pool_acquire_buffer (self->raw_pool, &buf, NULL))
          != GST_FLOW_OK)
        return ret;
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      r = doradma_reader_copy_next (self->rh->r, mode, -1, map.data,
          map.size, &frame, &diag);
      gst_buffer_unmap (buf, &map);
    } else {
      r = doradma_reader_next (self->rh->r, mode, -1, &frame, &diag);
    }

    if (r < 0) {
      gst_clear_buffer (&buf);
      switch (-r) {
        case EINTR:
          return GST_FLOW_FLUSHING;
        case EAGAIN:
        case ETIMEDOUT:
          continue;
        case EPIPE:
          GST_INFO_OBJECT (self, "end of stream");
          post_stats (self);
          return GST_FLOW_EOS;
        case ESTALE:{
          /* superseded and drained: the next segment continues the
           * sequence numbers; adopt the entry carried over for us */
          guint64 token = doradma_reader_token (self->rh->r);
          guint64 last = doradma_reader_last_seq (self->rh->r);

          GST_INFO_OBJECT (self, "segment replaced after seq %"
              G_GUINT64_FORMAT, last);
          drop_reader (self);
          if ((ret = open_reader (self, token)) != GST_FLOW_OK)
            return ret;
          doradma_reader_set_last_seq (self->rh->r, last);
          self->have_epoch = FALSE;
          continue;
        }
        case EOWNERDEAD:
          if (writer_lost (self, &ret))
            continue;
          if (ret == GST_FLOW_EOS)
            post_stats (self);
          return ret;
        case EBADMSG:
          GST_WARNING_OBJECT (self, "skipped a frame: %s", diag.msg);
          continue;
        case ENOBUFS:
          /* bigger than our copy buffers: grow them */
          self->raw_size = 0;
          continue;
        default:
          GST_ELEMENT_ERROR (self, RESOURCE, READ,
              ("Could not read a frame"), ("%s: %s", diag.msg,
                  g_strerror (-r)));
          return GST_FLOW_ERROR;
      }
    }

    /* caps of this frame's epoch */
    if (!self->have_epoch || frame.info.caps_epoch != self->epoch) {
      gint res = update_caps (self, frame.info.caps_epoch);

      if (res != 0) {
        if (buf)
          gst_buffer_unref (buf);
        else
          doradma_reader_release (self->rh->r, frame.slot);
        if (res < 0)
          return GST_FLOW_NOT_NEGOTIATED;
        self->discont = TRUE;
        continue;
      }
    }
    if (!frame_fits_caps (self, &frame.info)) {
      GST_WARNING_OBJECT (self, "frame seq %" G_GUINT64_FORMAT " (%ux%u, %u "
          "planes) does not cover caps %" GST_PTR_FORMAT ": skipped",
          frame.info.seq, frame.info.width, frame.info.height,
          frame.info.n_planes, self->caps);
      if (buf)
        gst_buffer_unref (buf);
      else
        doradma_reader_release (self->rh->r, frame.slot);
      g_mutex_lock (&self->stats_lock);
      self->n_bad++;
      g_mutex_unlock (&self->stats_lock);
      self->discont = TRUE;
      continue;
    }
    if (frame.skipped > 0)
      self->discont = TRUE;

    if (buf) {
      /* copy mode: the bytes are in the writer's layout */
      gst_buffer_resize (buf, 0, frame.info.payload_bytes);
      add_frame_metas (self, buf, &frame.info);
    } else if (self->cuda_out || copy_to != GST_DORADMA_COPY_TO_NONE
        || frame.data == NULL) {
      gchar *err = NULL;

#ifdef HAVE_GST_CUDA
      if (self->cuda_out)
        buf = cuda_output (self, &frame, &err);
      else
#endif
      if (copy_to != GST_DORADMA_COPY_TO_NONE)
        buf = copy_to_slab (self, copy_to, &frame, &err);
      else
        buf = download_frame (self, &frame, &err);
      if (buf == NULL) {
        GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
            ("Could not copy a frame on the GPU"), ("%s (CUDA path %s)",
                err ? err : "unknown error",
                doradma_cuda_path_name (self->path)));
        g_free (err);
        return GST_FLOW_ERROR;
      }
    } else {
      GstBuffer *leased = gst_buffer_new ();

      gst_buffer_append_memory (leased, doradma_memory_new_lease (self->rh,
              &frame));
      add_frame_metas (self, leased, &frame.info);
      if ((guint) g_atomic_int_get (&self->rh->outstanding) > max_leases
          || (!self->downstream_meta
              && !frame_is_default_layout (self, &frame.info))) {
        /* over quota (a downstream queue holding many buffers must not
         * pin the ring), or a layout downstream cannot read without meta */
        buf = copy_to_pool (self, leased);
        gst_buffer_unref (leased);
        if (buf == NULL)
          goto copy_failed;
        g_mutex_lock (&self->stats_lock);
        self->n_copies++;
        g_mutex_unlock (&self->stats_lock);
      } else {
        buf = leased;
      }
    }
    if (mode == DORADMA_READ_NEXT)
      doradma_reader_consume (self->rh->r, frame.info.seq);

    set_timestamps (self, buf, &frame.info);
    gst_buffer_add_doradma_frame_meta (buf, frame.info.seq, frame.skipped,
        frame.info.publish_time, frame.info.caps_epoch);

    g_mutex_lock (&self->stats_lock);
    self->n_frames++;
    self->lat[self->n_lat++ % N_LATENCY_SAMPLES] =
        doradma_monotonic_now () - frame.info.publish_time;
    if (self->n_lat >= 2 * N_LATENCY_SAMPLES)
      self->n_lat -= N_LATENCY_SAMPLES;
    g_mutex_unlock (&self->stats_lock);

    GST_LOG_OBJECT (self, "seq %" G_GUINT64_FORMAT " slot %u: %"
        GST_PTR_FORMAT, frame.info.seq, frame.slot, buf);
    *outbuf = buf;
    return GST_FLOW_OK;
  }

  /* ERRORS */
no_pool:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate copy buffers"), ("%" G_GSIZE_FORMAT " bytes",
            self->raw_size));
    return GST_FLOW_ERROR;
  }
copy_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not copy a frame into a local buffer"),
        ("caps %" GST_PTR_FORMAT, self->caps));
    return GST_FLOW_ERROR;
  }
}

/* ---------------------------------------------------------------------- */
/* Base class vfuncs */

static GstCaps *
gst_doradma_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  if (self->out_caps)
    caps = gst_caps_ref (self->out_caps);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (bsrc));
  GST_OBJECT_UNLOCK (self);

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);

    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
gst_doradma_src_negotiate (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  /* The caps come from the ring: until a frame told us, nothing to do. */
  if (self->out_caps == NULL)
    return TRUE;
  return gst_base_src_set_caps (bsrc, self->out_caps);
}

static gboolean
gst_doradma_src_decide_allocation (GstBaseSrc * bsrc, GstQuery * query)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  self->downstream_meta = gst_query_find_allocation_meta (query,
      GST_VIDEO_META_API_TYPE, NULL);
  return GST_BASE_SRC_CLASS (gst_doradma_src_parent_class)->decide_allocation
      (bsrc, query);
}

static gboolean
gst_doradma_src_query (GstBaseSrc * bsrc, GstQuery * query)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    GstClockTime min, max, deadline, dur = GST_CLOCK_TIME_NONE;
    GstDoradmaReadMode rmode;
    guint32 slots = 0;

    GST_OBJECT_LOCK (self);
    deadline = self->processing_deadline;
    rmode = self->read_mode;
    if (self->rh) {
      struct doradma_segment_info si;

      self->producer_latency = doradma_reader_latency (self->rh->r);
      doradma_reader_segment_info (self->rh->r, &si);
      slots = si.slot_count;
    }
    GST_OBJECT_UNLOCK (self);
    if (self->caps && GST_VIDEO_INFO_FPS_N (&self->info) > 0)
      dur = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&self->info),
          GST_VIDEO_INFO_FPS_N (&self->info));

    /* live; the producer's latency plus our own deadline */
    min = self->producer_latency + deadline;
    if (rmode == GST_DORADMA_READ_MODE_LATEST)
      max = min;
    else if (GST_CLOCK_TIME_IS_VALID (dur) && slots > 1)
      max = min + (slots - 1) * dur;
    else
      max = GST_CLOCK_TIME_NONE;
    GST_DEBUG_OBJECT (self, "latency min %" GST_TIME_FORMAT " max %"
        GST_TIME_FORMAT, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
    gst_query_set_latency (query, TRUE, min, max);
    return TRUE;
  }
#ifdef HAVE_GST_CUDA
  if (doradma_gst_cuda_element_query (GST_ELEMENT (self), &self->cuda_ctx,
          query))
    return TRUE;
#endif
  return GST_BASE_SRC_CLASS (gst_doradma_src_parent_class)->query (bsrc,
      query);
}

#ifdef HAVE_GST_CUDA
static void
gst_doradma_src_set_context (GstElement * element, GstContext * context)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (element);

  doradma_gst_cuda_element_set_context (element, &self->cuda_ctx, context);
  GST_ELEMENT_CLASS (gst_doradma_src_parent_class)->set_context (element,
      context);
}
#endif

static gboolean
gst_doradma_src_start (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  struct doradma_diag diag = { 0 };
  gchar *channel;
  int r;

  GST_OBJECT_LOCK (self);
  channel = g_strdup (self->channel);
  GST_OBJECT_UNLOCK (self);
  if (channel == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("No channel name set"),
        ("set the `channel` property"));
    return FALSE;
  }
  if ((r = doradma_name_validate (channel, &diag)) < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
        ("Invalid channel name \"%s\"", channel),
        ("%s: %s", diag.msg, g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, NULL));
    g_free (channel);
    return FALSE;
  }
  g_free (channel);

  self->cancel_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (self->cancel_fd < 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ, (NULL),
        ("eventfd: %s", g_strerror (errno)));
    return FALSE;
  }
  self->have_epoch = FALSE;
  self->discont = TRUE;
  self->lost_ino = self->lost_dev = 0;
  self->producer_latency = 0;
  g_mutex_lock (&self->stats_lock);
  self->n_frames = self->n_copies = self->n_bad = 0;
  self->n_device_copies = self->n_slab = 0;
  self->path = DORADMA_CUDA_PATH_NONE;
  self->acc_torn = self->acc_skipped = self->acc_retries = 0;
  self->n_lat = 0;
  g_mutex_unlock (&self->stats_lock);
  return TRUE;
}

static gboolean
gst_doradma_src_stop (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);

  drop_reader (self);
  clear_pool (&self->copy_pool);
  clear_pool (&self->raw_pool);
#ifdef HAVE_GST_CUDA
  clear_pool (&self->cuda_pool);
#endif
  g_clear_pointer (&self->copier, doradma_cuda_copier_free);
  gst_clear_object (&self->slab_alloc);
  self->cuda_out = FALSE;
  GST_OBJECT_LOCK (self);
  gst_clear_caps (&self->caps);
  gst_clear_caps (&self->out_caps);
  GST_OBJECT_UNLOCK (self);
  if (self->cancel_fd >= 0) {
    close (self->cancel_fd);
    self->cancel_fd = -1;
  }
  return TRUE;
}

static gboolean
gst_doradma_src_unlock (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  guint64 one = 1;

  g_atomic_int_set (&self->unlocked, TRUE);
  if (self->cancel_fd >= 0 && write (self->cancel_fd, &one, sizeof (one)) < 0)
    GST_DEBUG_OBJECT (self, "eventfd write: %s", g_strerror (errno));
  GST_OBJECT_LOCK (self);
  if (self->rh)
    doradma_reader_interrupt (self->rh->r, 1);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_doradma_src_unlock_stop (GstBaseSrc * bsrc)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (bsrc);
  guint64 v;

  if (self->cancel_fd >= 0 && read (self->cancel_fd, &v, sizeof (v)) < 0)
    GST_LOG_OBJECT (self, "eventfd was not signalled");
  GST_OBJECT_LOCK (self);
  g_atomic_int_set (&self->unlocked, FALSE);
  if (self->rh)
    doradma_reader_interrupt (self->rh->r, 0);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GObject */

static void
gst_doradma_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  GST_OBJECT_LOCK (self);
  if (prop_id != PROP_PROCESSING_DEADLINE
      && GST_STATE (self) > GST_STATE_READY) {
    GST_WARNING_OBJECT (self, "cannot change %s while running", pspec->name);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_CHANNEL:
      g_free (self->channel);
      self->channel = g_value_dup_string (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_READ_MODE:
      self->read_mode = g_value_get_enum (value);
      break;
    case PROP_COPY:
      self->copy = g_value_get_boolean (value);
      break;
    case PROP_MAX_LEASES:
      self->max_leases = g_value_get_uint (value);
      break;
    case PROP_ON_WRITER_LOST:
      self->on_writer_lost = g_value_get_enum (value);
      break;
    case PROP_PROCESSING_DEADLINE:
      self->processing_deadline = g_value_get_uint64 (value);
      break;
    case PROP_TRANSPORT:
      self->transport = g_value_get_enum (value);
      break;
    case PROP_COPY_TO:
      self->copy_to = g_value_get_enum (value);
      break;
    case PROP_COPY_BUDGET:
      self->copy_budget = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (prop_id == PROP_PROCESSING_DEADLINE)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_doradma_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_src_get_stats (self));
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_READ_MODE:
      g_value_set_enum (value, self->read_mode);
      break;
    case PROP_COPY:
      g_value_set_boolean (value, self->copy);
      break;
    case PROP_MAX_LEASES:
      g_value_set_uint (value, self->max_leases);
      break;
    case PROP_ON_WRITER_LOST:
      g_value_set_enum (value, self->on_writer_lost);
      break;
    case PROP_PROCESSING_DEADLINE:
      g_value_set_uint64 (value, self->processing_deadline);
      break;
    case PROP_TRANSPORT:
      g_value_set_enum (value, self->transport);
      break;
    case PROP_COPY_TO:
      g_value_set_enum (value, self->copy_to);
      break;
    case PROP_COPY_BUDGET:
      g_value_set_uint64 (value, self->copy_budget);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_src_finalize (GObject * object)
{
  GstDoradmaSrc *self = GST_DORADMA_SRC (object);

  g_free (self->channel);
  gst_clear_caps (&self->caps);
  gst_clear_caps (&self->out_caps);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&self->cuda_ctx);
#endif
  g_mutex_clear (&self->stats_lock);

  G_OBJECT_CLASS (gst_doradma_src_parent_class)->finalize (object);
}

static void
gst_doradma_src_class_init (GstDoradmaSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bsrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *psrc_class = GST_PUSH_SRC_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_src_debug, "doradmasrc", 0,
      "doradma shared-memory ring reader");

  gst_element_class_set_static_metadata (element_class,
      "doradma ring source", "Source/Video",
      "Reads raw video frames that a doradmasink in another process "
      "publishes into a shared-memory ring, without copying",
      "doradma authors <https://github.com/doradma/doradma>");
  gst_element_class_add_static_pad_template (element_class, &src_template);

  gobject_class->set_property = gst_doradma_src_set_property;
  gobject_class->get_property = gst_doradma_src_get_property;
  gobject_class->finalize = gst_doradma_src_finalize;

  bsrc_class->start = GST_DEBUG_FUNCPTR (gst_doradma_src_start);
  bsrc_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_src_stop);
  bsrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_doradma_src_get_caps);
  bsrc_class->negotiate = GST_DEBUG_FUNCPTR (gst_doradma_src_negotiate);
  bsrc_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_doradma_src_decide_allocation);
  bsrc_class->query = GST_DEBUG_FUNCPTR (gst_doradma_src_query);
  bsrc_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_src_unlock);
  bsrc_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_doradma_src_unlock_stop);
  psrc_class->create = GST_DEBUG_FUNCPTR (gst_doradma_src_create);
#ifdef HAVE_GST_CUDA
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_doradma_src_set_context);
#endif

  /**
   * GstDoradmaSrc:channel:
   *
   * Name of the channel to read (as doradmasink's `channel`).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Channel name to read ([A-Za-z0-9_.-], 1-200 bytes)", DEFAULT_CHANNEL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:timeout:
   *
   * Nanoseconds to wait for the channel to appear before posting an error.
   * 0 waits forever.
   *
   * Since: 0.1
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Nanoseconds to wait for the channel to appear (0 = forever)", 0,
      G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:read-mode:
   *
   * `next` delivers every frame in order (a lossless writer waits for this
   * reader; a latest writer may lap it: skips are counted and flagged
   * DISCONT); `latest` always delivers the newest frame.
   *
   * Since: 0.1
   */
  properties[PROP_READ_MODE] = g_param_spec_enum ("read-mode", "Read mode",
      "next: every frame in order; latest: the newest frame, skipping older "
      "ones", GST_TYPE_DORADMA_READ_MODE, DEFAULT_READ_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy:
   *
   * Copy every frame into a local buffer under the slot's seqlock instead
   * of leasing the slot (torn copies are discarded and counted). The
   * writer is never held back by this reader's buffers.
   *
   * Since: 0.1
   */
  properties[PROP_COPY] = g_param_spec_boolean ("copy", "Copy",
      "Copy frames into local buffers instead of leasing slots (zero-copy "
      "off)", DEFAULT_COPY,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:max-leases:
   *
   * Zero-copy buffers this element may have outstanding at once. Beyond
   * it, frames are copied into a local pool (counted in `stats`), so a
   * downstream that holds many buffers cannot pin the ring.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LEASES] = g_param_spec_uint ("max-leases",
      "Max leases", "Zero-copy buffers outstanding at once; beyond, frames "
      "are copied (0 = always copy)", 0, DORADMA_MAX_SLOTS,
      DEFAULT_MAX_LEASES,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:on-writer-lost:
   *
   * What to do when the writer process dies: warn and wait for a new writer
   * on the same channel (its caps may differ), end the stream, or error.
   *
   * Since: 0.1
   */
  properties[PROP_ON_WRITER_LOST] = g_param_spec_enum ("on-writer-lost",
      "On writer lost", "The writer died: wait for a new one, EOS, or error",
      GST_TYPE_DORADMA_WRITER_LOST, DEFAULT_ON_WRITER_LOST,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:processing-deadline:
   *
   * Added to the producer's latency in the LATENCY answer: the time this
   * pipeline needs to process a frame.
   *
   * Since: 0.1
   */
  properties[PROP_PROCESSING_DEADLINE] =
      g_param_spec_uint64 ("processing-deadline", "Processing deadline",
      "Nanoseconds added to the producer's latency in the LATENCY answer", 0,
      G_MAXUINT64, DEFAULT_PROCESSING_DEADLINE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstDoradmaSrc:transport:
   *
   * How frames reach the GPU. `shmem`: host memory only. `unified`: the
   * whole read-only data mapping is page-locked with CUDA once per process
   * and buffers carry its device alias (gst_doradma_memory_get_device_pointer
   * ()); an error names what is missing without CUDA. `auto`: `unified`
   * when downstream asks for memory:CUDAMemory, else `shmem`, never an
   * error ($DORADMA_TRANSPORT overrides `auto` only). A writer whose slots
   * live in GPU memory (transport ipc) is always read through its CUDA IPC
   * handle, whatever this says. The path taken is the stats' `cuda-path`.
   *
   * Since: 0.2
   */
  properties[PROP_TRANSPORT] = g_param_spec_enum ("transport", "Transport",
      "auto: unified when downstream wants CUDA memory, else shmem; unified: "
      "register the ring with CUDA (device pointers); an ipc writer forces "
      "ipc", GST_TYPE_DORADMA_TRANSPORT, DEFAULT_TRANSPORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-to:
   *
   * Copy every frame into a CUDA slab of the given kind (managed "uma",
   * mapped "pinned" host memory, or "device" memory, which is not mappable)
   * and release the slot's lease at once, so downstream may keep buffers as
   * long as it likes without holding the writer back. Counted in the
   * stats' `copied-to-slab`. Applies to system-memory output.
   *
   * Since: 0.2
   */
  properties[PROP_COPY_TO] = g_param_spec_enum ("copy-to", "Copy to",
      "Copy frames into CUDA slabs and release the lease at once",
      GST_TYPE_DORADMA_COPY_TO, DEFAULT_COPY_TO,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-budget:
   *
   * Byte budget of the copy-to slab allocator (0: $DORADMA_SLAB_POOL_BYTES,
   * else 512 MiB).
   *
   * Since: 0.2
   */
  properties[PROP_COPY_BUDGET] = g_param_spec_uint64 ("copy-budget",
      "Copy budget", "Bytes the copy-to slabs may hold (0: "
      "$DORADMA_SLAB_POOL_BYTES, else 512 MiB)", 0, G_MAXUINT64,
      DEFAULT_COPY_BUDGET,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:stats:
   *
   * Counters since start, as a "doradmasrc-stats" structure (also posted as
   * an element message at EOS):
   *
   * - frames (guint64): frames pushed
   * - torn (guint64): copy reads discarded because the writer overwrote them
   * - skipped (guint64): frames never delivered (lapped, latest mode, or a
   *   record that did not cover the caps)
   * - copies (guint64): frames copied locally (over max-leases, or a layout
   *   downstream cannot read without GstVideoMeta)
   * - lease-waits (guint64): lease handshakes lost to the writer and retried
   * - latency-p50, latency-p99 (guint64): ns from publish to delivery, over
   *   the last 512 frames
   * - transport (string): shmem, unified or ipc, as taken
   * - cuda-path (string): none, unified, unified-integrated (iGPU) or ipc
   * - cuda-registrations (guint64): host registrations of segments made in
   *   this process (one per data object, shared by readers of it)
   * - memory (string): "system" or "memory:CUDAMemory" (output)
   * - device-copies (guint64): frames copied by the GPU (CUDA output on
   *   1.22, ipc downloads, copy-to from device slots)
   * - copied-to-slab (guint64): frames copied by copy-to
   *
   * Since: 0.1
   */
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, torn, skipped, copies, lease-waits, latency-p50, "
      "latency-p99 (ns)", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES,
      properties);

  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_READ_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_TRANSPORT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_COPY_TO, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_WRITER_LOST, 0);
}

static void
gst_doradma_src_init (GstDoradmaSrc * self)
{
  g_mutex_init (&self->stats_lock);
  self->timeout = DEFAULT_TIMEOUT;
  self->read_mode = DEFAULT_READ_MODE;
  self->copy = DEFAULT_COPY;
  self->max_leases = DEFAULT_MAX_LEASES;
  self->on_writer_lost = DEFAULT_ON_WRITER_LOST;
  self->processing_deadline = DEFAULT_PROCESSING_DEADLINE;
  self->transport = DEFAULT_TRANSPORT;
  self->copy_to = DEFAULT_COPY_TO;
  self->copy_budget = DEFAULT_COPY_BUDGET;
  self->cancel_fd = -1;

  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}
