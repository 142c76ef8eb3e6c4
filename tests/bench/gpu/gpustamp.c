/* gpustamp — a test-only GStreamer plugin for the GPU transport benchmark
 * (docs/bench/gpu.md; never installed).
 *
 * gpustampsrc: produces video/x-raw(memory:CUDAMemory) frames from a
 *   GstCudaBufferPool (its own, or the downstream one when that is a CUDA
 *   pool of the same context). Per frame it writes ONLY a 24-byte header
 *   (magic, counter, CLOCK_MONOTONIC stamp) into the first bytes of plane 0
 *   with a host->device copy; it never paints the frame, so the transport,
 *   not the producer, is measured. Optional pacing (period-us, absolute
 *   clock_nanosleep); stops after num-frames.
 * gpustampsink: accepts video/x-raw(memory:CUDAMemory); takes
 *   CLOCK_MONOTONIC first thing in render, reads the header back with a
 *   device->host copy of 24 bytes -> one latency sample; counts frames and
 *   counter gaps.
 *
 * Both print one line at stop ("gpustampsrc: ..." / "gpustampsink: ...")
 * with CPU time per frame (getrusage, user+sys, after the warm-up frames);
 * the sink adds frames/s and latency p50/p99. tests/bench/gpu/run.sh runs
 * them on the GPU machine.
 *
 * Where the latency goes (docs/bench/gpu-paced-20261204.md, paced.sh):
 * the source adds h2d_p50/p99 (its own host->device stamp copy, the first
 * CUDA call of the frame after the clock_nanosleep); the sink splits every
 * sample of a buffer carrying GstDoradmaFrameMeta (publish_time,
 * receive_time, delivery_time, CLOCK_MONOTONIC like the stamp):
 *     prod   stamp -> publish   producer: h2d copy, basesrc push,
 *                               doradmasink render (its CUDA sync, 1.22's
 *                               device copy into the slot), publish
 *     wake   publish -> receive the ring's hand-off: futex wake-up and the
 *                               consumer thread's scheduling (or the poll,
 *                               with doradmasrc spin-time)
 *     src    receive -> delivery doradmasrc's work on the frame: lease,
 *                               1.26 wrap / 1.22 device copy + stream sync
 *     hand   delivery -> render GStreamer's hand-off to the sink's render
 *     (their sum, stamp -> render, is lat)
 *     d2h    render -> after the sink's 24-byte device->host read (not in
 *                               lat)
 * and prints with_meta (samples split) and STAGE_p50_us/STAGE_p99_us.
 * Frames without the meta (cudaipcsrc) give lat and d2h only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>
#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
/* the frame meta's layout only: its API type is looked up by name, so
 * this plugin does not link libgstdoradma */
#include "gstdoradmaframemeta.h"

#define STAMP_MAGIC 0x4750555354414d50ull       /* "GPUSTAMP" */
#define CAPS_STR "video/x-raw(memory:CUDAMemory), format=(string)NV12, " \
  "width=(int)[1,16384], height=(int)[1,16384], framerate=(fraction)[0/1,1000/1]"

typedef struct
{
  guint64 magic;
  guint64 counter;
  guint64 stamp_ns;
} GpuStamp;


static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* " NAME_p50_us=.. NAME_p99_us=.." of @a (sorted in place) into @out */
static void
add_pct (GString * out, const char *name, GArray * a)
{
  guint n = a->len;
  guint64 *v = (guint64 *) a->data;
  if (n == 0)
    return;
  qsort (v, n, sizeof *v, cmp_u64);
  g_string_append_printf (out, " %s_p50_us=%.1f %s_p99_us=%.1f", name,
      v[n / 2] / 1e3, name, v[(n * 99) / 100] / 1e3);
}

static guint64
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + (guint64) ts.tv_nsec;
}

static guint64
cpu_ns (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return (guint64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
      (guint64) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* One synchronous copy of the stamp between host and a CUDA memory's
 * device address, in that memory's context. */
static gboolean
stamp_copy (GstMemory * mem, GpuStamp * st, gboolean to_device)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  GstMapInfo map;
  CUDA_MEMCPY2D p;
  CUresult r;

  if (!gst_memory_map (mem, &map,
          (to_device ? GST_MAP_WRITE : GST_MAP_READ) | GST_MAP_CUDA))
    return FALSE;
  memset (&p, 0, sizeof p);
  if (to_device) {
    p.srcMemoryType = CU_MEMORYTYPE_HOST;
    p.srcHost = st;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    p.dstDevice = (CUdeviceptr) map.data;
  } else {
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    p.srcDevice = (CUdeviceptr) map.data;
    p.dstMemoryType = CU_MEMORYTYPE_HOST;
    p.dstHost = st;
  }
  p.srcPitch = p.dstPitch = p.WidthInBytes = sizeof *st;
  p.Height = 1;
  gst_cuda_context_push (cmem->context);
  r = CuMemcpy2D (&p);
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
  return r == CUDA_SUCCESS;
}

/* ------------------------------------------------------------ source ---- */

typedef struct
{
  GstBaseSrc parent;
  guint num_frames, period_us, warmup;
  GstCudaContext *ctx;
  guint64 counter, next_ns, cpu0, t0;
  GArray *h2d;
} GpuStampSrc;
typedef GstBaseSrcClass GpuStampSrcClass;

enum
{ PROP_0, PROP_NUM_FRAMES, PROP_PERIOD_US, PROP_WARMUP };

GType gpu_stamp_src_get_type (void);
G_DEFINE_TYPE (GpuStampSrc, gpu_stamp_src, GST_TYPE_BASE_SRC);

static void
src_set_property (GObject * o, guint id, const GValue * v, GParamSpec * ps)
{
  GpuStampSrc *self = (GpuStampSrc *) o;
  if (id == PROP_NUM_FRAMES)
    self->num_frames = g_value_get_uint (v);
  else if (id == PROP_PERIOD_US)
    self->period_us = g_value_get_uint (v);
  else if (id == PROP_WARMUP)
    self->warmup = g_value_get_uint (v);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static void
src_get_property (GObject * o, guint id, GValue * v, GParamSpec * ps)
{
  GpuStampSrc *self = (GpuStampSrc *) o;
  if (id == PROP_NUM_FRAMES)
    g_value_set_uint (v, self->num_frames);
  else if (id == PROP_PERIOD_US)
    g_value_set_uint (v, self->period_us);
  else if (id == PROP_WARMUP)
    g_value_set_uint (v, self->warmup);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static void
src_set_context (GstElement * e, GstContext * c)
{
  GpuStampSrc *self = (GpuStampSrc *) e;
  gst_cuda_handle_set_context (e, c, -1, &self->ctx);
  GST_ELEMENT_CLASS (gpu_stamp_src_parent_class)->set_context (e, c);
}

static gboolean
src_query (GstBaseSrc * b, GstQuery * q)
{
  GpuStampSrc *self = (GpuStampSrc *) b;
  if (GST_QUERY_TYPE (q) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (b), q, self->ctx))
    return TRUE;
  return GST_BASE_SRC_CLASS (gpu_stamp_src_parent_class)->query (b, q);
}

static gboolean
src_start (GstBaseSrc * b)
{
  GpuStampSrc *self = (GpuStampSrc *) b;
  if (!gst_cuda_ensure_element_context (GST_ELEMENT (b), -1, &self->ctx)) {
    GST_ELEMENT_ERROR (b, RESOURCE, NOT_FOUND, ("no CUDA context"), (NULL));
    return FALSE;
  }
  self->counter = 0;
  self->next_ns = 0;
  if (!self->h2d)
    self->h2d = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_set_size (self->h2d, 0);
  return TRUE;
}

static gboolean
src_stop (GstBaseSrc * b)
{
  GpuStampSrc *self = (GpuStampSrc *) b;
  if (self->counter > self->warmup + 1) {
    GString *pct = g_string_new (NULL);
    add_pct (pct, "h2d", self->h2d);
    g_print ("gpustampsrc: frames=%" G_GUINT64_FORMAT
        " cpu_us_per_frame=%.1f%s\n", self->counter,
        (cpu_ns () - self->cpu0) / 1e3 / (double) (self->counter -
            self->warmup), pct->str);
    g_string_free (pct, TRUE);
  }
  if (self->h2d)
    g_array_free (self->h2d, TRUE);
  self->h2d = NULL;
  gst_clear_object (&self->ctx);
  return TRUE;
}

static gboolean
src_decide_allocation (GstBaseSrc * b, GstQuery * q)
{
  GpuStampSrc *self = (GpuStampSrc *) b;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCaps *caps;
  GstVideoInfo info;
  guint size = 0, min = 0, max = 0;
  gboolean update = gst_query_get_n_allocation_pools (q) > 0;

  gst_query_parse_allocation (q, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (update)
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
          GST_CUDA_BUFFER_POOL (pool)->context != self->ctx))
    gst_clear_object (&pool);
  if (!pool)
    pool = gst_cuda_buffer_pool_new (self->ctx);
  size = MAX (size, (guint) info.size);
  min = MAX (min, 4);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return FALSE;
  }
  if (update)
    gst_query_set_nth_allocation_pool (q, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (q, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

static GstFlowReturn
src_fill (GstBaseSrc * b, guint64 off, guint len, GstBuffer * buf)
{
  GpuStampSrc *self = (GpuStampSrc *) b;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GpuStamp st;

  if (self->num_frames && self->counter >= self->num_frames)
    return GST_FLOW_EOS;
  if (!gst_is_cuda_memory (mem)) {
    GST_ELEMENT_ERROR (b, STREAM, FAILED, ("pool gave no CUDA memory"), (NULL));
    return GST_FLOW_ERROR;
  }
  if (self->period_us) {
    struct timespec ts;
    if (!self->next_ns)
      self->next_ns = mono_ns ();
    ts.tv_sec = self->next_ns / 1000000000ull;
    ts.tv_nsec = self->next_ns % 1000000000ull;
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
            NULL) == EINTR);
    self->next_ns += (guint64) self->period_us * 1000ull;
  }
  if (self->counter == self->warmup)
    self->cpu0 = cpu_ns ();
  st.magic = STAMP_MAGIC;
  st.counter = self->counter;
  st.stamp_ns = mono_ns ();
  if (!stamp_copy (mem, &st, TRUE)) {
    GST_ELEMENT_ERROR (b, STREAM, FAILED, ("stamp host->device copy failed"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (self->counter >= self->warmup) {
    guint64 d = mono_ns () - st.stamp_ns;
    g_array_append_val (self->h2d, d);
  }
  GST_BUFFER_PTS (buf) =
      self->counter * (self->period_us ? self->period_us : 1000)
      * GST_USECOND;
  GST_BUFFER_OFFSET (buf) = self->counter++;
  return GST_FLOW_OK;
}

static void
gpu_stamp_src_class_init (GpuStampSrcClass * k)
{
  GObjectClass *o = G_OBJECT_CLASS (k);
  GstElementClass *e = GST_ELEMENT_CLASS (k);
  GstBaseSrcClass *b = GST_BASE_SRC_CLASS (k);

  o->set_property = src_set_property;
  o->get_property = src_get_property;
  g_object_class_install_property (o, PROP_NUM_FRAMES,
      g_param_spec_uint ("num-frames", "num-frames",
          "frames to produce (0: no end)", 0, G_MAXUINT, 300,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (o, PROP_PERIOD_US,
      g_param_spec_uint ("period-us", "period-us",
          "pacing (0: as fast as possible)", 0, G_MAXUINT, 0,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (o, PROP_WARMUP, g_param_spec_uint ("warmup",
          "warmup", "frames left out of the CPU figure", 0, G_MAXUINT, 30,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_pad_template (e, gst_pad_template_new ("src",
          GST_PAD_SRC, GST_PAD_ALWAYS, gst_caps_from_string (CAPS_STR)));
  gst_element_class_set_static_metadata (e, "GPU stamp source", "Source/Video",
      "CUDA frames carrying only a stamp (benchmark)", "doradma");
  e->set_context = src_set_context;
  b->start = src_start;
  b->stop = src_stop;
  b->query = src_query;
  b->decide_allocation = src_decide_allocation;
  b->fill = src_fill;
}

static void
gpu_stamp_src_init (GpuStampSrc * self)
{
  self->num_frames = 300;
  self->warmup = 30;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

/* -------------------------------------------------------------- sink ---- */

/* the stages of a sample (the whole of it is lat) */
enum
{ PROD, WAKE, SRC, HAND, D2H, N_STAGES };

typedef struct
{
  GstBaseSink parent;
  guint warmup;
  guint64 frames, gaps, bad, last, t0, cpu0, with_meta;
  GArray *lat;
  GArray *st[N_STAGES];         /* stage_names[] */
  GType meta_api;
} GpuStampSink;

static const char *stage_names[N_STAGES] = { "prod", "wake", "src", "hand",
  "d2h"
};

typedef GstBaseSinkClass GpuStampSinkClass;

GType gpu_stamp_sink_get_type (void);
G_DEFINE_TYPE (GpuStampSink, gpu_stamp_sink, GST_TYPE_BASE_SINK);

static void
sink_set_property (GObject * o, guint id, const GValue * v, GParamSpec * ps)
{
  if (id == PROP_WARMUP)
    ((GpuStampSink *) o)->warmup = g_value_get_uint (v);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static void
sink_get_property (GObject * o, guint id, GValue * v, GParamSpec * ps)
{
  if (id == PROP_WARMUP)
    g_value_set_uint (v, ((GpuStampSink *) o)->warmup);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static gboolean
sink_start (GstBaseSink * b)
{
  GpuStampSink *self = (GpuStampSink *) b;
  self->frames = self->gaps = self->bad = 0;
  self->last = G_MAXUINT64;
  self->lat = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < N_STAGES; i++)
    self->st[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->with_meta = 0;
  self->meta_api = 0;
  return TRUE;
}


static gboolean
sink_stop (GstBaseSink * b)
{
  GpuStampSink *self = (GpuStampSink *) b;
  guint n = self->lat->len;
  if (n > 1) {
    guint64 *v = (guint64 *) self->lat->data;
    double secs = (mono_ns () - self->t0) / 1e9;
    GString *pct = g_string_new (NULL);
    double cpu = (cpu_ns () - self->cpu0) / 1e3 / n;
    for (guint i = 0; i < N_STAGES; i++)
      add_pct (pct, stage_names[i], self->st[i]);
    qsort (v, n, sizeof *v, cmp_u64);
    g_print ("gpustampsink: frames=%" G_GUINT64_FORMAT " gaps=%"
        G_GUINT64_FORMAT " bad=%" G_GUINT64_FORMAT
        " fps=%.1f lat_p50_us=%.1f lat_p99_us=%.1f"
        " lat_max_us=%.1f cpu_us_per_frame=%.1f with_meta=%" G_GUINT64_FORMAT
        "%s\n", self->frames, self->gaps,
        self->bad, n / secs, v[n / 2] / 1e3, v[(n * 99) / 100] / 1e3,
        v[n - 1] / 1e3, cpu, self->with_meta, pct->str);
    g_string_free (pct, TRUE);
  } else {
    g_print ("gpustampsink: frames=%" G_GUINT64_FORMAT
        " (too few to measure)\n", self->frames);
  }
  g_array_free (self->lat, TRUE);
  self->lat = NULL;
  for (guint i = 0; i < N_STAGES; i++)
    g_array_free (self->st[i], TRUE);
  return TRUE;
}

static GstFlowReturn
sink_render (GstBaseSink * b, GstBuffer * buf)
{
  GpuStampSink *self = (GpuStampSink *) b;
  guint64 now = mono_ns (), d;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GpuStamp st;

  if (!gst_is_cuda_memory (mem) || !stamp_copy (mem, &st, FALSE)) {
    GST_ELEMENT_ERROR (b, STREAM, FAILED,
        ("cannot read the stamp from CUDA memory"), (NULL));
    return GST_FLOW_ERROR;
  }
  if (st.magic != STAMP_MAGIC) {
    self->bad++;
    return GST_FLOW_OK;
  }
  if (self->last != G_MAXUINT64 && st.counter > self->last + 1)
    self->gaps += st.counter - self->last - 1;
  self->last = st.counter;
  if (self->frames == self->warmup) {
    self->t0 = now;
    self->cpu0 = cpu_ns ();
  }
  /* registered by doradmasrc with its first meta, after start () */
  if (!self->meta_api)
    self->meta_api = g_type_from_name ("GstDoradmaFrameMetaAPI");
  if (self->frames >= self->warmup) {
    const GstDoradmaFrameMeta *m = self->meta_api ?
        (const GstDoradmaFrameMeta *)
        gst_buffer_get_meta (buf, self->meta_api) : NULL;
    guint64 after = mono_ns ();
    d = now - st.stamp_ns;
    g_array_append_val (self->lat, d);
    d = after - now;
    g_array_append_val (self->st[D2H], d);
    if (m && m->publish_time && m->receive_time && m->delivery_time
        && m->publish_time >= st.stamp_ns && m->receive_time >= m->publish_time
        && m->delivery_time >= m->receive_time && now >= m->delivery_time) {
      self->with_meta++;
      d = m->publish_time - st.stamp_ns;
      g_array_append_val (self->st[PROD], d);
      d = m->receive_time - m->publish_time;
      g_array_append_val (self->st[WAKE], d);
      d = m->delivery_time - m->receive_time;
      g_array_append_val (self->st[SRC], d);
      d = now - m->delivery_time;
      g_array_append_val (self->st[HAND], d);
    }
  }
  self->frames++;
  return GST_FLOW_OK;
}

static void
gpu_stamp_sink_class_init (GpuStampSinkClass * k)
{
  GObjectClass *o = G_OBJECT_CLASS (k);
  GstElementClass *e = GST_ELEMENT_CLASS (k);
  GstBaseSinkClass *b = GST_BASE_SINK_CLASS (k);

  o->set_property = sink_set_property;
  o->get_property = sink_get_property;
  g_object_class_install_property (o, PROP_WARMUP,
      g_param_spec_uint ("warmup", "warmup", "frames left out of the figures",
          0, G_MAXUINT, 30, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_pad_template (e, gst_pad_template_new ("sink",
          GST_PAD_SINK, GST_PAD_ALWAYS, gst_caps_from_string (CAPS_STR)));
  gst_element_class_set_static_metadata (e, "GPU stamp sink", "Sink/Video",
      "Reads the stamp of CUDA frames (benchmark)", "doradma");
  b->start = sink_start;
  b->stop = sink_stop;
  b->render = sink_render;
}

static void
gpu_stamp_sink_init (GpuStampSink * self)
{
  self->warmup = 30;
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static gboolean
plugin_init (GstPlugin * p)
{
  return gst_element_register (p, "gpustampsrc", GST_RANK_NONE,
      gpu_stamp_src_get_type ()) &&
      gst_element_register (p, "gpustampsink", GST_RANK_NONE,
      gpu_stamp_sink_get_type ());
}

#define PACKAGE "doradma-bench"
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpustamp,
    "GPU transport benchmark elements (test only)", plugin_init, "0.1",
    "LGPL", "doradma", "https://github.com/doradma/doradma")
