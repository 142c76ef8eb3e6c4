/* doradma GStreamer plugin — doradmasink
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-doradmasink
 * @title: doradmasink
 *
 * Publishes raw video frames into a doradma channel: a ring of frame slots in
 * POSIX shared memory (`/dev/shm/doradma.<channel>`) that any number of
 * doradmasrc elements in other processes on the same host read without
 * copying.
 *
 * The sink proposes a buffer pool whose buffers ARE ring slots, so
 * videotestsrc, videoconvert, videoscale and decoders write frames in place
 * and publishing is a few stores. Buffers from elsewhere are copied into a
 * slot (counted in the `stats` property). In `latest` mode the sink never
 * waits for readers; in `lossless` mode it waits until every `next`-mode
 * reader consumed a frame before reusing its slot.
 *
 * The channel is created when caps and allocation are known and removed from
 * /dev/shm on a clean stop; a channel held by another live writer is refused
 * with an error naming its pid.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,width=1280,height=720 ! doradmasink channel=cam0
 * gst-launch-1.0 doradmasrc channel=cam0 ! videoconvert ! autovideosink
 * ]|
 * Two processes: the first publishes a test pattern on channel "cam0", the
 * second displays it.
 * |[
 * gst-launch-1.0 filesrc location=in.mkv ! decodebin ! doradmasink channel=rec mode=lossless
 * gst-launch-1.0 doradmasrc channel=rec read-mode=next ! x264enc ! matroskamux ! filesink location=out.mkv
 * ]|
 * Lossless: the decoder waits for the recorder, no frame is skipped.
 *
 * Since: 0.1
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "gstdoradmaelements.h"
#include "gstdoradmadora.h"
#include "gstdoradmapool.h"
#include "gstdoradmacuda.h"

GST_DEBUG_CATEGORY_STATIC (gst_doradma_sink_debug);
#define GST_CAT_DEFAULT gst_doradma_sink_debug

G_DECLARE_FINAL_TYPE (GstDoradmaSink, gst_doradma_sink, GST, DORADMA_SINK,
    GstBaseSink);

struct _GstDoradmaSink
{
  GstBaseSink parent;

  /* properties, under the object lock */
  gchar *channel;
  guint slots;
  GstDoradmaTransport transport;
  GstDoradmaMode mode;
  guint permissions;
  guint64 timeout;
  guint wait_for_readers;
  GstDoradmaStallPolicy on_stall;

  /* the segment; `wlock` guards creation/replacement and the caps */
  GMutex wlock;
  DoradmaWriterHandle *wh;
  GstVideoInfo info;
  gchar *caps_str;
  gboolean caps_pending;        /* caps did not fit in band: replace */
  GstClockTime latency;

  /* CUDA: transport as resolved at start; for ipc, the device slot area of
   * each segment made (freed at stop, after the writer handle) */
  GstDoradmaTransport resolved;
  DoradmaCudaCopier *copier;
  gboolean cuda_in;             /* caps carry memory:CUDAMemory */
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda_ctx;
#endif

  gint unlocked;                /* atomic: unlock() until unlock_stop() */
  gboolean readers_reached;     /* wait-for-readers was satisfied once */

  /* statistics, atomic */
  guint64 n_frames, n_copies, n_drops, n_fallback, n_waits;
  guint64 n_uploads, n_device_copies;
};

G_DEFINE_TYPE (GstDoradmaSink, gst_doradma_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (doradmasink, "doradmasink",
    GST_RANK_NONE, gst_doradma_sink_get_type (),
    doradma_element_init (plugin));

#define DEFAULT_CHANNEL NULL
#define DEFAULT_SLOTS 8
#define DEFAULT_TRANSPORT GST_DORADMA_TRANSPORT_AUTO
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_PERMISSIONS 0600
#define DEFAULT_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_WAIT_FOR_READERS 0
#define DEFAULT_ON_STALL GST_DORADMA_STALL_ERROR

enum
{
  PROP_0,
  PROP_CHANNEL,
  PROP_SLOTS,
  PROP_TRANSPORT,
  PROP_MODE,
  PROP_PERMISSIONS,
  PROP_TIMEOUT,
  PROP_WAIT_FOR_READERS,
  PROP_ON_READER_STALL,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

#define CUDA_FEATURE "memory:CUDAMemory"
#ifdef HAVE_GST_CUDA
#define SINK_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL) "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES (CUDA_FEATURE, GST_VIDEO_FORMATS_ALL)
#else
#define SINK_CAPS GST_VIDEO_CAPS_MAKE (GST_VIDEO_FORMATS_ALL)
#endif

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (SINK_CAPS));

#define STAT_ADD(field) __atomic_add_fetch (&self->field, 1, __ATOMIC_RELAXED)
#define STAT_GET(field) __atomic_load_n (&self->field, __ATOMIC_RELAXED)

/* ---------------------------------------------------------------------- */
/* Errors */

static void
post_create_error (GstDoradmaSink * self, const gchar * channel, int r,
    const struct doradma_diag *diag)
{
  switch (-r) {
    case EBUSY:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, BUSY,
          ("Channel \"%s\" is in use by another live writer", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EPERM:
    case EACCES:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, NOT_AUTHORIZED,
          ("Not allowed to create channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case ENOSPC:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough shared memory for channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EINVAL:
    case E2BIG:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
          ("Invalid settings for channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING,
              diag->field ? diag->field : "", NULL));
      break;
    default:
      GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, OPEN_WRITE,
          ("Could not create channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
  }
}

/* ---------------------------------------------------------------------- */
/* Hooks for the pool */

DoradmaWriterHandle *
gst_doradma_sink_prepare_writer (GstElement * element, gsize size)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);
  struct doradma_writer_config cfg = { 0 };
  struct doradma_diag diag = { 0 };
  struct doradma_writer *w = NULL;
  DoradmaWriterHandle *wh, *old;
  GstDoradmaTransport transport;
  guint8 ipc_handle[DORADMA_IPC_HANDLE_LEN];
  DoradmaCudaSlots *area = NULL;
  gchar *channel, *bad = NULL;
  int r;

  g_mutex_lock (&self->wlock);
  if (self->wh && !self->caps_pending && self->wh->stride >= size) {
    wh = doradma_writer_handle_ref (self->wh);
    g_mutex_unlock (&self->wlock);
    return wh;
  }
  if (self->caps_str == NULL) {
    g_mutex_unlock (&self->wlock);
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no caps before the first buffer"));
    return NULL;
  }

  GST_OBJECT_LOCK (self);
  channel = g_strdup (self->channel);
  cfg.slots = self->slots;
  cfg.mode = self->permissions;
  transport = self->transport;
  GST_OBJECT_UNLOCK (self);
  doradma_transport_resolve (transport, &transport, &bad);
  g_free (bad);

  cfg.channel = channel;
  cfg.slot_size = size;
  cfg.caps = self->caps_str;
  cfg.transport = doradma_transport_name (transport);

  if (transport == GST_DORADMA_TRANSPORT_IPC) {
    /* the slot area is one device allocation; its IPC handle goes into
     * the header (the lib rounds the slot stride up to the page size) */
    gsize page = (gsize) sysconf (_SC_PAGESIZE);
    gsize stride = (size + page - 1) / page * page;
    gchar *reason = NULL;

    area = doradma_cuda_slots_new (stride * cfg.slots, ipc_handle, &reason);
    if (area == NULL) {
      g_mutex_unlock (&self->wlock);
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate GPU memory for channel \"%s\"", channel),
          ("%s", reason));
      g_free (reason);
      g_free (channel);
      return NULL;
    }
    cfg.ipc_handle = ipc_handle;
  }

  old = self->wh;
  if (old == NULL) {
    r = doradma_writer_create (&cfg, &w, &diag);
  } else {
    /* Frames no longer fit: a new segment, sequence numbers continue, our
     * outstanding buffers keep the old one mapped (#7g). */
    g_mutex_lock (&old->lock);
    r = doradma_writer_replace (old->w, &cfg, &w, &diag);
    g_mutex_unlock (&old->lock);
  }
  if (r < 0) {
    if (area)
      doradma_cuda_slots_free (area);
    g_mutex_unlock (&self->wlock);
    post_create_error (self, channel, r, &diag);
    g_free (channel);
    return NULL;
  }

  GST_INFO_OBJECT (self, "%s channel \"%s\": %u slots of %" G_GUINT64_FORMAT
      " bytes, transport %s, caps %s", old ? "replaced" : "created", channel,
      doradma_writer_slot_count (w), doradma_writer_slot_stride (w),
      cfg.transport, self->caps_str);
  if (area) {
    /* what the lib laid out must fit the allocation */
    g_assert (doradma_writer_slot_count (w) * doradma_writer_slot_stride (w)
        <= doradma_cuda_slots_size (area));
  }
  g_free (channel);

  wh = doradma_writer_handle_new (w);
  wh->device_slots = area;
  wh->device_slots_free = (GDestroyNotify) doradma_cuda_slots_free;
  if (GST_CLOCK_TIME_IS_VALID (self->latency))
    doradma_writer_set_latency (w, self->latency);
  self->wh = wh;
  self->caps_pending = FALSE;
  g_mutex_unlock (&self->wlock);

  doradma_writer_handle_unref (old);
  return doradma_writer_handle_ref (wh);
}

static gboolean
sink_cancelled (gpointer data)
{
  GstDoradmaSink *self = data;

  return g_atomic_int_get (&self->unlocked);
}

void
gst_doradma_sink_get_acquire_params (GstElement * element,
    DoradmaAcquireParams * p)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  memset (p, 0, sizeof (*p));
  GST_OBJECT_LOCK (self);
  p->policy = self->mode == GST_DORADMA_MODE_LOSSLESS ?
      DORADMA_POLICY_LOSSLESS : DORADMA_POLICY_LATEST;
  p->timeout = self->timeout ? self->timeout : GST_CLOCK_TIME_NONE;
  p->on_stall = self->on_stall;
  GST_OBJECT_UNLOCK (self);
  p->element = element;
  p->cancelled = sink_cancelled;
  p->cancelled_data = self;
}

void
gst_doradma_sink_count_fallback (GstElement * element)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  STAT_ADD (n_fallback);
}

void
gst_doradma_sink_count_wait (GstElement * element)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  STAT_ADD (n_waits);
}

/* ---------------------------------------------------------------------- */
/* Stats */

static GstStructure *
gst_doradma_sink_get_stats (GstDoradmaSink * self)
{
  struct doradma_writer_stats ws = { 0 };

  g_mutex_lock (&self->wlock);
  if (self->wh) {
    g_mutex_lock (&self->wh->lock);
    doradma_writer_get_stats (self->wh->w, &ws);
    g_mutex_unlock (&self->wh->lock);
  }
  g_mutex_unlock (&self->wlock);

  return gst_structure_new ("doradmasink-stats",
      "frames", G_TYPE_UINT64, STAT_GET (n_frames),
      "copies", G_TYPE_UINT64, STAT_GET (n_copies),
      "drops", G_TYPE_UINT64, STAT_GET (n_drops),
      "fallback-buffers", G_TYPE_UINT64, STAT_GET (n_fallback),
      "full-ring-waits", G_TYPE_UINT64, STAT_GET (n_waits),
      "transport", G_TYPE_STRING, doradma_transport_name (self->resolved),
      "uploads", G_TYPE_UINT64, STAT_GET (n_uploads),
      "device-copies", G_TYPE_UINT64, STAT_GET (n_device_copies),
      "readers", G_TYPE_UINT, ws.readers, NULL);
}

/* ---------------------------------------------------------------------- */
/* Timestamps */

/* The buffer's running time as CLOCK_MONOTONIC ns, through the pipeline
 * clock (which need not be monotonic: audio, PTP, device clocks). */
static GstClockTime
to_monotonic (GstDoradmaSink * self, GstClockTime ts)
{
  GstBaseSink *bsink = GST_BASE_SINK (self);
  GstClockTime rt, base;
  GstClockTimeDiff diff;
  GstClock *clock;
  gint64 mono;

  if (!GST_CLOCK_TIME_IS_VALID (ts) || bsink->segment.format != GST_FORMAT_TIME)
    return DORADMA_TIME_NONE;
  rt = gst_segment_to_running_time (&bsink->segment, GST_FORMAT_TIME, ts);
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return DORADMA_TIME_NONE;
  clock = gst_element_get_clock (GST_ELEMENT (self));
  if (clock == NULL)
    return DORADMA_TIME_NONE;
  base = gst_element_get_base_time (GST_ELEMENT (self));
  diff = doradma_clock_diff (clock);
  gst_object_unref (clock);

  mono = (gint64) (rt + base) + diff;
  return mono < 0 ? DORADMA_TIME_NONE : (GstClockTime) mono;
}

/* Buffer flags that mean something to a reader. */
#define CARRIED_FLAGS (GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_RESYNC | \
    GST_BUFFER_FLAG_CORRUPTED | GST_BUFFER_FLAG_MARKER | \
    GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_NON_DROPPABLE)

/* The frame record of a slot whose planes start at `offset` with `pstride`
 * (bytes from the slot's first byte). */
static void
fill_frame_info_planes (GstDoradmaSink * self, const GstVideoInfo * info,
    const gsize * offset, const gint * pstride, gsize buf_size,
    guint64 stride, GstBuffer * src, struct doradma_frame_info *fi)
{
  GstVideoCropMeta *crop;
  guint64 end = 0;
  guint p;

  memset (fi, 0, sizeof (*fi));
  fi->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  fi->width = GST_VIDEO_INFO_WIDTH (info);
  fi->height = GST_VIDEO_INFO_HEIGHT (info);
  for (p = 0; p < fi->n_planes; p++) {
    struct doradma_shm_plane *pl = &fi->planes[p];

    pl->offset = offset[p];
    pl->stride = pstride[p];
    doradma_plane_needs (info, p, &pl->rows, &pl->row_bytes);
    if (pl->rows > 0)
      end = MAX (end, pl->offset + (guint64) pl->stride * (pl->rows - 1) +
          pl->row_bytes);
  }
  fi->payload_bytes = MIN (MAX (end, buf_size), stride);

  crop = gst_buffer_get_video_crop_meta (src);
  if (crop && crop->width > 0 && crop->height > 0) {
    fi->crop_x = crop->x;
    fi->crop_y = crop->y;
    fi->crop_width = crop->width;
    fi->crop_height = crop->height;
  }
  fi->pts = GST_BUFFER_PTS (src);
  fi->dts = GST_BUFFER_DTS (src);
  fi->duration = GST_BUFFER_DURATION (src);
  fi->offset = GST_BUFFER_OFFSET (src);
  fi->offset_end = GST_BUFFER_OFFSET_END (src);
  fi->flags = GST_BUFFER_FLAGS (src) & CARRIED_FLAGS;
  fi->video_flags = GST_BUFFER_FLAGS (src) & ~(GST_BUFFER_FLAG_LAST - 1);
  fi->mono_pts = to_monotonic (self, GST_BUFFER_PTS (src));
}

static void
fill_frame_info (GstDoradmaSink * self, GstVideoFrame * f,
    const guint8 * slot_base, gsize buf_size, guint64 stride,
    GstBuffer * src, struct doradma_frame_info *fi)
{
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint pstride[GST_VIDEO_MAX_PLANES] = { 0 };
  guint p;

  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (f); p++) {
    offset[p] = (const guint8 *) f->data[p] - slot_base;
    pstride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (f, p);
  }
  fill_frame_info_planes (self, &f->info, offset, pstride, buf_size, stride,
      src, fi);
}

/* ---------------------------------------------------------------------- */
/* Rendering */

static GstFlowReturn
publish_frame (GstDoradmaSink * self, DoradmaWriterHandle * wh,
    GstMemory * mem, GstVideoFrame * f, gsize buf_size, GstBuffer * src)
{
  struct doradma_frame_info fi;
  const guint8 *base = doradma_writer_slot_data (wh->w,
      doradma_memory_slot_index (mem));
  int r;

  fill_frame_info (self, f, base, buf_size, wh->stride, src, &fi);
  r = doradma_writer_handle_publish (wh, mem, &fi);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Could not publish a frame"),
        ("doradma_writer_publish: %s (%ux%u, %u planes, %" G_GUINT64_FORMAT
            " bytes, slot stride %" G_GUINT64_FORMAT ")", g_strerror (-r),
            fi.width, fi.height, fi.n_planes, fi.payload_bytes, wh->stride));
    return GST_FLOW_ERROR;
  }
  STAT_ADD (n_frames);
  GST_LOG_OBJECT (self, "published seq %" G_GUINT64_FORMAT " in slot %u",
      fi.seq, doradma_memory_slot_index (mem));
  return GST_FLOW_OK;
}

/* A slot for a frame that render has to copy. Returns GST_FLOW_OK with
 * *mem, GST_FLOW_OK with *mem NULL when latest mode found every slot busy
 * (the frame is dropped, never waited for), or the flow error. */
static GstFlowReturn
acquire_for_render (GstDoradmaSink * self, DoradmaWriterHandle * wh,
    GstBuffer * buf, GstMemory ** mem)
{
  DoradmaAcquireParams ap;
  gboolean waited = FALSE;
  GstFlowReturn ret;

  *mem = NULL;
  gst_doradma_sink_get_acquire_params (GST_ELEMENT (self), &ap);
  ap.waited = &waited;
  for (;;) {
    ret = doradma_writer_handle_acquire (wh, &ap, mem);
    if (ret != GST_FLOW_FLUSHING)
      break;
    /* unlocked: flushing, or going to PAUSED (then wait and retry) */
    if ((ret = gst_base_sink_wait_preroll (GST_BASE_SINK (self)))
        != GST_FLOW_OK)
      return ret;
  }
  if (waited)
    STAT_ADD (n_waits);
  if (ret == GST_FLOW_EOS) {
    STAT_ADD (n_drops);
    GST_LOG_OBJECT (self, "no free slot, dropping %" GST_PTR_FORMAT, buf);
    *mem = NULL;
    return GST_FLOW_OK;
  }
  return ret;
}

static GstFlowReturn
render_copy (GstDoradmaSink * self, DoradmaWriterHandle * wh, GstBuffer * buf)
{
  GstVideoFrame src, dst;
  GstMemory *mem = NULL;
  GstBuffer *tmp;
  GstVideoInfo info = self->info;
  GstFlowReturn ret;

  ret = acquire_for_render (self, wh, buf, &mem);
  if (ret != GST_FLOW_OK || mem == NULL)
    return ret;

  /* the slot in the default layout of the caps, via a temporary buffer */
  mem->size = info.size;
  tmp = gst_buffer_new ();
  gst_buffer_append_memory (tmp, mem);

  if (!gst_video_frame_map (&src, &info, buf, GST_MAP_READ))
    goto map_failed;
  if (!gst_video_frame_map (&dst, &info, tmp, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&src);
    goto map_failed;
  }
  /* honours both sides' strides and offsets; never a flat memcpy */
  gst_video_frame_copy (&dst, &src);
  gst_video_frame_unmap (&src);
  STAT_ADD (n_copies);

  ret = publish_frame (self, wh, mem, &dst, info.size, buf);
  gst_video_frame_unmap (&dst);
  /* the slot memory returns to its handle, published */
  gst_buffer_unref (tmp);
  return ret;

  /* ERRORS */
map_failed:
  {
    gst_buffer_unref (tmp);
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not map a video frame"),
        ("buffer %" GST_PTR_FORMAT " does not match caps %s", buf,
            self->caps_str));
    return GST_FLOW_ERROR;
  }
}

/* transport=ipc: the slot is device memory. Device→device from upstream
 * memory:CUDAMemory, host→device otherwise, plane by plane honouring both
 * sides' strides; the stream is synchronised BEFORE publishing (GPU work
 * is not ordered by the ring's CPU fences, design-review #9). */
static GstFlowReturn
render_device (GstDoradmaSink * self, DoradmaWriterHandle * wh,
    GstBuffer * buf)
{
  const GstVideoInfo *info = &self->info;
  DoradmaCudaFrame dst = { 0 }, src = { 0 };
  guint32 rows[GST_VIDEO_MAX_PLANES], rb[GST_VIDEO_MAX_PLANES];
  struct doradma_frame_info fi;
  GstVideoFrame vf;
  gboolean mapped_frame = FALSE, ok;
  GstMemory *mem = NULL;
  gchar *err = NULL;
  GstFlowReturn ret;
  guint p, slot;
  int r;
#ifdef HAVE_GST_CUDA
  GstMemory *cmem = NULL;
  GstMapInfo cmap;
#endif

  if (self->copier == NULL
      && (self->copier = doradma_cuda_copier_new (&err)) == NULL)
    goto copy_failed;

  ret = acquire_for_render (self, wh, buf, &mem);
  if (ret != GST_FLOW_OK || mem == NULL)
    return ret;

  slot = doradma_memory_slot_index (mem);
  dst.ptr = doradma_cuda_slots_pointer (wh->device_slots) +
      (guint64) slot *wh->stride;
  dst.kind = DORADMA_CUDA_MEM_DEVICE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    /* the slot in the caps' default layout */
    dst.offset[p] = info->offset[p];
    dst.stride[p] = info->stride[p];
    doradma_plane_needs (info, p, &rows[p], &rb[p]);
  }

#ifdef HAVE_GST_CUDA
  if (gst_buffer_n_memory (buf) == 1
      && gst_is_cuda_memory ((cmem = gst_buffer_peek_memory (buf, 0)))) {
    GstVideoMeta *meta = gst_buffer_get_video_meta (buf);

    if (!gst_memory_map (cmem, &cmap, GST_MAP_READ | GST_MAP_CUDA)) {
      err = g_strdup ("could not map the upstream CUDA memory");
      goto abandon;
    }
    src.ptr = (guint64) (guintptr) cmap.data;
    src.kind = DORADMA_CUDA_MEM_DEVICE;
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      src.offset[p] = meta ? meta->offset[p] :
          ((GstCudaMemory *) cmem)->info.offset[p];
      src.stride[p] = meta ? meta->stride[p] :
          ((GstCudaMemory *) cmem)->info.stride[p];
    }
  } else
#endif
  {
#ifdef HAVE_GST_CUDA
    cmem = NULL;
#endif
    if (!gst_video_frame_map (&vf, info, buf, GST_MAP_READ)) {
      err = g_strdup_printf ("buffer does not match caps %s", self->caps_str);
      goto abandon;
    }
    mapped_frame = TRUE;
    src.kind = DORADMA_CUDA_MEM_HOST;
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
      src.offset[p] = (gsize) vf.data[p];
      src.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
    }
  }

  ok = doradma_cuda_copier_copy (self->copier, GST_VIDEO_INFO_N_PLANES (info),
      &dst, &src, rows, rb, &err)
      && doradma_cuda_copier_sync (self->copier, &err);
  if (mapped_frame)
    gst_video_frame_unmap (&vf);
#ifdef HAVE_GST_CUDA
  if (cmem) {
    gst_memory_unmap (cmem, &cmap);
    STAT_ADD (n_device_copies);
  } else
#endif
  if (ok)
    STAT_ADD (n_uploads);
  if (!ok)
    goto abandon;

  fill_frame_info_planes (self, info, info->offset, info->stride,
      info->size, wh->stride, buf, &fi);
  r = doradma_writer_handle_publish (wh, mem, &fi);
  gst_memory_unref (mem);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not publish a frame"),
        ("doradma_writer_publish: %s", g_strerror (-r)));
    return GST_FLOW_ERROR;
  }
  STAT_ADD (n_frames);
  STAT_ADD (n_copies);
  return GST_FLOW_OK;

abandon:
  /* the slot memory's dispose abandons a WRITING slot */
  gst_memory_unref (mem);
copy_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("Could not copy a frame into GPU memory"), ("%s", err));
  g_free (err);
  return GST_FLOW_ERROR;
}

static GstFlowReturn
wait_for_readers (GstDoradmaSink * self, DoradmaWriterHandle * wh, guint n)
{
  for (;;) {
    /* Joins bump the ring's `space` eventcount: no polling. unlock ()
     * interrupts the wait. */
    int r = doradma_writer_wait_readers (wh->w, n, -1, NULL);

    if (r == 0)
      return GST_FLOW_OK;
    if (r != -EINTR) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not wait for %u readers", n),
          ("doradma_writer_wait_readers: %s", g_strerror (-r)));
      return GST_FLOW_ERROR;
    }
    if (g_atomic_int_get (&self->unlocked)) {
      GstFlowReturn ret = gst_base_sink_wait_preroll (GST_BASE_SINK (self));

      if (ret != GST_FLOW_OK)
        return ret;
    } else {
      g_usleep (1000);
    }
  }
}

static GstFlowReturn
gst_doradma_sink_render (GstBaseSink * bsink, GstBuffer * buf)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  DoradmaWriterHandle *wh;
  GstMemory *mem = NULL;
  GstClockTime latency;
  GstFlowReturn ret;
  guint n_readers;

  wh = gst_doradma_sink_prepare_writer (GST_ELEMENT (self), self->info.size);
  if (wh == NULL)
    return GST_FLOW_ERROR;

  latency = gst_base_sink_get_latency (bsink);
  if (latency != self->latency) {
    self->latency = latency;
    doradma_writer_set_latency (wh->w, latency);
  }

  GST_OBJECT_LOCK (self);
  n_readers = self->wait_for_readers;
  GST_OBJECT_UNLOCK (self);
  /* a latch: readers that leave later do not stop publishing */
  if (n_readers > 0 && !self->readers_reached) {
    if ((ret = wait_for_readers (self, wh, n_readers)) != GST_FLOW_OK)
      goto done;
    self->readers_reached = TRUE;
  }

  if (self->resolved == GST_DORADMA_TRANSPORT_IPC) {
    ret = render_device (self, wh, buf);
    goto done;
  }

  if (gst_buffer_n_memory (buf) == 1)
    mem = gst_buffer_peek_memory (buf, 0);

  if (mem && doradma_memory_slot_handle (mem) == wh
      && doradma_memory_slot_state (mem) == DORADMA_SLOT_WRITING) {
    GstVideoFrame f;

    /* upstream wrote into the slot: publish it in place */
    if (!gst_video_frame_map (&f, &self->info, buf, GST_MAP_READ)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("Could not map a video frame"),
          ("buffer %" GST_PTR_FORMAT " does not match caps %s", buf,
              self->caps_str));
      ret = GST_FLOW_ERROR;
      goto done;
    }
    ret = publish_frame (self, wh, mem, &f, gst_buffer_get_size (buf), buf);
    gst_video_frame_unmap (&f);
  } else {
    /* system memory, a fallback buffer, a slot published before (videorate,
     * tee) or of a replaced segment: copy into a fresh slot */
    ret = render_copy (self, wh, buf);
  }

done:
  doradma_writer_handle_unref (wh);
  return ret;
}

/* ---------------------------------------------------------------------- */
/* Negotiation and allocation */

static gboolean
gst_doradma_sink_set_caps (GstBaseSink * bsink, GstCaps * caps)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  GstVideoInfo info;
  gchar *str;
  int r;

  if (!gst_video_info_from_caps (&info, caps))
    goto invalid_caps;
  {
    /* the ring records plain video/x-raw: memory:CUDAMemory is how frames
     * reach us, not what readers get */
    GstCapsFeatures *f = gst_caps_get_features (caps, 0);
    GstCaps *plain = gst_caps_copy (caps);

    self->cuda_in = f && gst_caps_features_contains (f, CUDA_FEATURE);
    gst_caps_set_features (plain, 0, NULL);
    str = gst_caps_to_string (plain);
    gst_caps_unref (plain);
  }
  if (strlen (str) >= DORADMA_CAPS_MAX) {
    g_free (str);
    goto caps_too_long;
  }

  g_mutex_lock (&self->wlock);
  self->info = info;
  g_free (self->caps_str);
  self->caps_str = str;
  if (self->wh && !self->caps_pending && info.size <= self->wh->stride) {
    uint32_t epoch = 0;

    /* the frames still fit the slots: a new caps epoch, in band */
    g_mutex_lock (&self->wh->lock);
    r = doradma_writer_set_caps (self->wh->w, str, &epoch);
    g_mutex_unlock (&self->wh->lock);
    if (r < 0)
      self->caps_pending = TRUE;
    GST_INFO_OBJECT (self, "caps epoch %u: %s", epoch, str);
  } else if (self->wh) {
    self->caps_pending = TRUE;
  }
  g_mutex_unlock (&self->wlock);
  return TRUE;

  /* ERRORS */
invalid_caps:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("invalid video caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
caps_too_long:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("caps string longer than %u bytes: %" GST_PTR_FORMAT,
            DORADMA_CAPS_MAX - 1, caps));
    return FALSE;
  }
}

static gboolean
gst_doradma_sink_propose_allocation (GstBaseSink * bsink, GstQuery * query)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  GstCaps *caps;
  gboolean need_pool;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (caps == NULL || !gst_video_info_from_caps (&info, caps)) {
    GST_DEBUG_OBJECT (self, "no video caps in the allocation query");
    return FALSE;
  }
  {
    GstCapsFeatures *f = gst_caps_get_features (caps, 0);

    if (self->resolved == GST_DORADMA_TRANSPORT_IPC
        || (f && gst_caps_features_contains (f, CUDA_FEATURE))) {
      /* slots in GPU memory cannot be written by the CPU, and CUDA memory
       * upstream keeps its own pool: frames are copied on the GPU */
      gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
      return TRUE;
    }
  }

  pool = gst_doradma_pool_new (GST_ELEMENT (self));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (self, "pool refused its own config");
    gst_object_unref (pool);
    return FALSE;
  }
  /* max 0: decoders replace pools with a small max by their own (#7b) */
  gst_query_add_allocation_pool (query, pool, info.size, 0, 0);
  gst_object_unref (pool);

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* Events, states */

static gboolean
gst_doradma_sink_event (GstBaseSink * bsink, GstEvent * event)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      g_mutex_lock (&self->wlock);
      if (self->wh) {
        g_mutex_lock (&self->wh->lock);
        doradma_writer_eos (self->wh->w);
        g_mutex_unlock (&self->wh->lock);
      }
      g_mutex_unlock (&self->wlock);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self),
              gst_doradma_sink_get_stats (self)));
      break;
    default:
      break;
  }
  return GST_BASE_SINK_CLASS (gst_doradma_sink_parent_class)->event (bsink,
      event);
}

#ifdef HAVE_GST_CUDA
/* Share device 0's primary context (where the IPC slot area lives) with a
 * CUDA neighbour (cudaupload), only where CUDA works. */
static gboolean
gst_doradma_sink_query (GstBaseSink * bsink, GstQuery * query)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  if (doradma_gst_cuda_element_query (GST_ELEMENT (self), &self->cuda_ctx,
          query))
    return TRUE;
  return GST_BASE_SINK_CLASS (gst_doradma_sink_parent_class)->query (bsink,
      query);
}

static void
gst_doradma_sink_set_context (GstElement * element, GstContext * context)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (element);

  doradma_gst_cuda_element_set_context (element, &self->cuda_ctx, context);
  GST_ELEMENT_CLASS (gst_doradma_sink_parent_class)->set_context (element,
      context);
}
#endif

static gboolean
gst_doradma_sink_start (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  struct doradma_diag diag = { 0 };
  GstDoradmaTransport transport;
  gchar *bad = NULL, *channel, *reason = NULL;
  int r;

  GST_OBJECT_LOCK (self);
  channel = g_strdup (self->channel);
  transport = self->transport;
  GST_OBJECT_UNLOCK (self);

  if (channel == NULL)
    goto no_channel;
  if ((r = doradma_name_validate (channel, &diag)) < 0)
    goto bad_channel;
  if (!doradma_transport_resolve (transport, &transport, &bad))
    goto bad_env;
  if ((transport == GST_DORADMA_TRANSPORT_UNIFIED
          || transport == GST_DORADMA_TRANSPORT_IPC)
      && !doradma_gst_cuda_available (&reason))
    goto no_cuda;
  self->resolved = transport;
  GST_INFO_OBJECT (self, "transport %s", doradma_transport_name (transport));

  self->n_frames = self->n_copies = self->n_drops = 0;
  self->n_fallback = self->n_waits = 0;
  self->n_uploads = self->n_device_copies = 0;
  self->latency = GST_CLOCK_TIME_NONE;
  self->readers_reached = FALSE;
  g_free (channel);
  return TRUE;

  /* ERRORS */
no_channel:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("No channel name set"), ("set the `channel` property"));
    return FALSE;
  }
bad_channel:
  {
    GST_ELEMENT_ERROR_WITH_DETAILS (self, RESOURCE, SETTINGS,
        ("Invalid channel name \"%s\"", channel),
        ("%s: %s", diag.msg, g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, NULL));
    g_free (channel);
    return FALSE;
  }
bad_env:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid value \"%s\" in the DORADMA_TRANSPORT environment variable",
            bad), ("DORADMA_TRANSPORT must be empty, auto, shmem, unified "
            "or ipc"));
    g_free (bad);
    g_free (channel);
    return FALSE;
  }
no_cuda:
  {
    /* names what is missing: the build, libcuda.so.1, or a device */
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Transport \"%s\" needs CUDA: %s",
            doradma_transport_name (transport), reason),
        ("channel \"%s\": use transport=shmem (or auto) on this machine",
            channel));
    g_free (reason);
    g_free (channel);
    return FALSE;
  }
}

static gboolean
gst_doradma_sink_stop (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);
  DoradmaWriterHandle *wh;

  g_mutex_lock (&self->wlock);
  wh = self->wh;
  self->wh = NULL;
  self->caps_pending = FALSE;
  g_clear_pointer (&self->caps_str, g_free);
  g_mutex_unlock (&self->wlock);

  /* the channel is unlinked when the last slot memory comes back */
  doradma_writer_handle_unref (wh);
  g_clear_pointer (&self->copier, doradma_cuda_copier_free);
  return TRUE;
}

static gboolean
gst_doradma_sink_unlock (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  g_atomic_int_set (&self->unlocked, TRUE);
  g_mutex_lock (&self->wlock);
  if (self->wh)
    doradma_writer_interrupt (self->wh->w, 1);
  g_mutex_unlock (&self->wlock);
  return TRUE;
}

static gboolean
gst_doradma_sink_unlock_stop (GstBaseSink * bsink)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (bsink);

  g_atomic_int_set (&self->unlocked, FALSE);
  g_mutex_lock (&self->wlock);
  if (self->wh)
    doradma_writer_interrupt (self->wh->w, 0);
  g_mutex_unlock (&self->wlock);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GObject */

static void
gst_doradma_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  GST_OBJECT_LOCK (self);
  if (prop_id != PROP_WAIT_FOR_READERS && GST_STATE (self) > GST_STATE_READY) {
    GST_WARNING_OBJECT (self, "cannot change %s while running",
        pspec->name);
    GST_OBJECT_UNLOCK (self);
    return;
  }
  switch (prop_id) {
    case PROP_CHANNEL:
      g_free (self->channel);
      self->channel = g_value_dup_string (value);
      break;
    case PROP_SLOTS:
      self->slots = g_value_get_uint (value);
      break;
    case PROP_TRANSPORT:
      self->transport = g_value_get_enum (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_PERMISSIONS:
      self->permissions = g_value_get_uint (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_WAIT_FOR_READERS:
      self->wait_for_readers = g_value_get_uint (value);
      break;
    case PROP_ON_READER_STALL:
      self->on_stall = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_sink_get_stats (self));
    return;
  }

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_SLOTS:
      g_value_set_uint (value, self->slots);
      break;
    case PROP_TRANSPORT:
      g_value_set_enum (value, self->transport);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_PERMISSIONS:
      g_value_set_uint (value, self->permissions);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_WAIT_FOR_READERS:
      g_value_set_uint (value, self->wait_for_readers);
      break;
    case PROP_ON_READER_STALL:
      g_value_set_enum (value, self->on_stall);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_sink_finalize (GObject * object)
{
  GstDoradmaSink *self = GST_DORADMA_SINK (object);

  doradma_writer_handle_unref (self->wh);
  g_free (self->caps_str);
  g_free (self->channel);
  g_mutex_clear (&self->wlock);

  #ifdef HAVE_GST_CUDA
  gst_clear_object (&self->cuda_ctx);
#endif
  G_OBJECT_CLASS (gst_doradma_sink_parent_class)->finalize (object);
}

static void
gst_doradma_sink_class_init (GstDoradmaSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bsink_class = GST_BASE_SINK_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_doradma_sink_debug, "doradmasink", 0,
      "doradma shared-memory ring writer");
  /* registers the "doradmapool" debug category the copy path logs to */
  g_type_ensure (GST_TYPE_DORADMA_POOL);

  gst_element_class_set_static_metadata (element_class,
      "doradma ring sink", "Sink/Video",
      "Publishes raw video frames into a shared-memory ring that doradmasrc "
      "elements in other processes read without copying",
      "doradma authors <https://github.com/doradma/doradma>");
  gst_element_class_add_static_pad_template (element_class, &sink_template);

  gobject_class->set_property = gst_doradma_sink_set_property;
  gobject_class->get_property = gst_doradma_sink_get_property;
  gobject_class->finalize = gst_doradma_sink_finalize;

  bsink_class->start = GST_DEBUG_FUNCPTR (gst_doradma_sink_start);
  bsink_class->stop = GST_DEBUG_FUNCPTR (gst_doradma_sink_stop);
  bsink_class->set_caps = GST_DEBUG_FUNCPTR (gst_doradma_sink_set_caps);
  bsink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_doradma_sink_propose_allocation);
  bsink_class->render = GST_DEBUG_FUNCPTR (gst_doradma_sink_render);
  bsink_class->event = GST_DEBUG_FUNCPTR (gst_doradma_sink_event);
  bsink_class->unlock = GST_DEBUG_FUNCPTR (gst_doradma_sink_unlock);
  bsink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_doradma_sink_unlock_stop);
#ifdef HAVE_GST_CUDA
  bsink_class->query = GST_DEBUG_FUNCPTR (gst_doradma_sink_query);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_doradma_sink_set_context);
#endif

  /**
   * GstDoradmaSink:channel:
   *
   * Name of the channel: 1 to 200 bytes of [A-Za-z0-9_.-], not starting with
   * a dot. The ring lives in /dev/shm/doradma.<channel> (or under
   * $DORADMA_SHM_DIR).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Channel name ([A-Za-z0-9_.-], 1-200 bytes); the ring is "
      "/dev/shm/doradma.<channel>", DEFAULT_CHANNEL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:slots:
   *
   * Frame slots in the ring. Sizing rule: slots >= 1 (the newest frame) +
   * buffers upstream keeps (decoder references) + the sum of the readers'
   * max-leases + 1.
   *
   * Since: 0.1
   */
  properties[PROP_SLOTS] = g_param_spec_uint ("slots", "Slots",
      "Frame slots in the ring (>= 1 newest + upstream outstanding + sum of "
      "reader max-leases + 1)", 1, DORADMA_MAX_SLOTS, DEFAULT_SLOTS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:transport:
   *
   * Where the slots live. `auto` follows $DORADMA_TRANSPORT when it is set
   * and not empty, else `shmem`. `unified` and `ipc` need CUDA.
   *
   * Since: 0.1
   */
  properties[PROP_TRANSPORT] = g_param_spec_enum ("transport", "Transport",
      "Where the slots live (auto follows $DORADMA_TRANSPORT, else shmem)",
      GST_TYPE_DORADMA_TRANSPORT, DEFAULT_TRANSPORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:mode:
   *
   * `latest` never waits for readers (frames go through a fallback buffer or
   * are dropped when every slot is busy, counted); `lossless` waits until
   * every `next`-mode reader consumed a frame before reusing its slot.
   *
   * Since: 0.1
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "latest: never wait for readers; lossless: wait for every next-mode "
      "reader", GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:permissions:
   *
   * File mode of the channel's objects in /dev/shm. Readers need read
   * access to the data object and read-write access to the control object.
   *
   * Since: 0.1
   */
  properties[PROP_PERMISSIONS] = g_param_spec_uint ("permissions",
      "Permissions", "File mode of the channel's shared-memory objects "
      "(e.g. 0600 = 384, 0660 = 432)", 0, 0777, DEFAULT_PERMISSIONS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:timeout:
   *
   * Nanoseconds lossless mode waits for a free slot before applying
   * #GstDoradmaSink:on-reader-stall. 0 waits forever.
   *
   * Since: 0.1
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Nanoseconds lossless mode waits for a free slot before applying "
      "on-reader-stall (0 = forever)", 0, G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:wait-for-readers:
   *
   * Publish nothing until this many readers joined the channel: render
   * blocks (interruptibly) until then, once per start; readers leaving
   * later do not stop publishing. 0 publishes at once.
   *
   * Since: 0.1
   */
  properties[PROP_WAIT_FOR_READERS] = g_param_spec_uint ("wait-for-readers",
      "Wait for readers", "Block rendering until this many readers joined "
      "(0 = publish at once)", 0, DORADMA_MAX_READERS,
      DEFAULT_WAIT_FOR_READERS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstDoradmaSink:on-reader-stall:
   *
   * What lossless mode does when no slot became free within `timeout`:
   * keep waiting, evict the stalled readers from back-pressure (their leases
   * stay honoured), or post an error.
   *
   * Since: 0.1
   */
  properties[PROP_ON_READER_STALL] = g_param_spec_enum ("on-reader-stall",
      "On reader stall", "Lossless mode, no slot free within timeout: wait, "
      "evict the stalled readers, or error", GST_TYPE_DORADMA_STALL_POLICY,
      DEFAULT_ON_STALL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSink:stats:
   *
   * Counters since start, as a "doradmasink-stats" structure (also posted
   * as an element message at EOS):
   *
   * - frames (guint64): frames published
   * - copies (guint64): frames copied into a slot (not written in place)
   * - drops (guint64): frames dropped in latest mode, no slot free
   * - fallback-buffers (guint64): system-memory buffers lent upstream when
   *   no slot was free
   * - full-ring-waits (guint64): slot acquisitions that had to wait
   * - readers (guint): readers joined now
   *
   * Since: 0.1
   */
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, copies, drops, fallback-buffers, full-ring-waits, "
      "readers", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES,
      properties);
  /* dora-rs memory pools (dora-pool=...): gstdoradmadora.h */
  gst_doradma_dora_sink_class_hook (gobject_class);

  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_TRANSPORT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_MODE, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_STALL_POLICY, 0);
}

static void
gst_doradma_sink_init (GstDoradmaSink * self)
{
  g_mutex_init (&self->wlock);
  self->slots = DEFAULT_SLOTS;
  self->transport = DEFAULT_TRANSPORT;
  self->mode = DEFAULT_MODE;
  self->permissions = DEFAULT_PERMISSIONS;
  self->timeout = DEFAULT_TIMEOUT;
  self->wait_for_readers = DEFAULT_WAIT_FOR_READERS;
  self->on_stall = DEFAULT_ON_STALL;
  self->latency = GST_CLOCK_TIME_NONE;
}
