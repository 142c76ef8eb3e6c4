/* gpustages — gpustamp.c's stamp source and sink, with the latency split
 * into stages (docs/bench/gpu-paced-20261204.md; test only, never
 * installed; a copy so that gpustamp.c, which the committed figures used,
 * stays as it was).
 *
 * gpustagesrc: as gpustampsrc, and it times its own host->device stamp
 *   copy (h2d: the synchronous cuMemcpy2D that follows the stamp, the first
 *   CUDA call of the frame after the producer's clock_nanosleep).
 * gpustagesink: as gpustampsink, and on doradmasrc's buffers it reads
 *   GstDoradmaFrameMeta (publish_time, receive_time, delivery_time, all
 *   CLOCK_MONOTONIC like the stamp) and splits every sample:
 *     prod   stamp -> publish   producer: h2d copy, basesrc push,
 *                               doradmasink render (its CUDA sync, 1.22's
 *                               device copy into the slot), publish
 *     wake   publish -> receive the ring's hand-off: futex wake-up and the
 *                               consumer thread's scheduling (or the poll,
 *                               with doradmasrc spin-time)
 *     src    receive -> delivery doradmasrc's work on the frame: lease,
 *                               1.26 wrap / 1.22 device copy + stream sync
 *     hand   delivery -> render GStreamer's hand-off to the sink's render
 *     total  stamp -> render    (= gpustampsink's lat)
 *     d2h    render -> after the sink's 24-byte device->host read (not in
 *                               total; the first CUDA call of the consumer
 *                               after its sleep on 1.26)
 *   One line "gpustagesink: ... STAGE_p50_us=... STAGE_p99_us=..." at stop.
 *   Frames without the meta (cudaipcsrc) give total and d2h only.
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

#define STAMP_MAGIC 0x4750555354414d50ull       /* "GPUSTAMP" */
#define CAPS_STR "video/x-raw(memory:CUDAMemory), format=(string)NV12, " \
  "width=(int)[1,16384], height=(int)[1,16384], framerate=(fraction)[0/1,1000/1]"

typedef struct
{
  guint64 magic;
  guint64 counter;
  guint64 stamp_ns;
} GpuStage;

/* GstDoradmaFrameMeta's layout (gst/doradma/gstdoradmaframemeta.h),
 * looked up by API name so that this plugin does not link doradma. */
typedef struct
{
  GstMeta meta;
  guint64 seq, skipped, publish_time;
  guint32 caps_epoch;
  guint64 receive_time, delivery_time;
} StageFrameMeta;

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
stamp_copy (GstMemory * mem, GpuStage * st, gboolean to_device)
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
} GpuStageSrc;
typedef GstBaseSrcClass GpuStageSrcClass;

enum
{ PROP_0, PROP_NUM_FRAMES, PROP_PERIOD_US, PROP_WARMUP };

GType gpu_stage_src_get_type (void);
G_DEFINE_TYPE (GpuStageSrc, gpu_stage_src, GST_TYPE_BASE_SRC);

static void
src_set_property (GObject * o, guint id, const GValue * v, GParamSpec * ps)
{
  GpuStageSrc *self = (GpuStageSrc *) o;
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
  GpuStageSrc *self = (GpuStageSrc *) o;
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
  GpuStageSrc *self = (GpuStageSrc *) e;
  gst_cuda_handle_set_context (e, c, -1, &self->ctx);
  GST_ELEMENT_CLASS (gpu_stage_src_parent_class)->set_context (e, c);
}

static gboolean
src_query (GstBaseSrc * b, GstQuery * q)
{
  GpuStageSrc *self = (GpuStageSrc *) b;
  if (GST_QUERY_TYPE (q) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (b), q, self->ctx))
    return TRUE;
  return GST_BASE_SRC_CLASS (gpu_stage_src_parent_class)->query (b, q);
}

static gboolean
src_start (GstBaseSrc * b)
{
  GpuStageSrc *self = (GpuStageSrc *) b;
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
  GpuStageSrc *self = (GpuStageSrc *) b;
  if (self->counter > self->warmup + 1) {
    GString *pct = g_string_new (NULL);
    add_pct (pct, "h2d", self->h2d);
    g_print ("gpustagesrc: frames=%" G_GUINT64_FORMAT
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
  GpuStageSrc *self = (GpuStageSrc *) b;
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
  GpuStageSrc *self = (GpuStageSrc *) b;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GpuStage st;

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
gpu_stage_src_class_init (GpuStageSrcClass * k)
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
  gst_element_class_set_static_metadata (e, "GPU stage source", "Source/Video",
      "CUDA frames carrying only a stamp (benchmark)", "doradma");
  e->set_context = src_set_context;
  b->start = src_start;
  b->stop = src_stop;
  b->query = src_query;
  b->decide_allocation = src_decide_allocation;
  b->fill = src_fill;
}

static void
gpu_stage_src_init (GpuStageSrc * self)
{
  self->num_frames = 300;
  self->warmup = 30;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
}

/* -------------------------------------------------------------- sink ---- */

typedef struct
{
  GstBaseSink parent;
  guint warmup;
  guint64 frames, gaps, bad, last, t0, cpu0, with_meta;
  GArray *lat;
  GArray *st[6];                /* stage_names[] */
  GType meta_api;
} GpuStageSink;

static const char *stage_names[6] = { "prod", "wake", "src", "hand", "d2h",
  "total"
};
typedef GstBaseSinkClass GpuStageSinkClass;

GType gpu_stage_sink_get_type (void);
G_DEFINE_TYPE (GpuStageSink, gpu_stage_sink, GST_TYPE_BASE_SINK);

static void
sink_set_property (GObject * o, guint id, const GValue * v, GParamSpec * ps)
{
  if (id == PROP_WARMUP)
    ((GpuStageSink *) o)->warmup = g_value_get_uint (v);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static void
sink_get_property (GObject * o, guint id, GValue * v, GParamSpec * ps)
{
  if (id == PROP_WARMUP)
    g_value_set_uint (v, ((GpuStageSink *) o)->warmup);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (o, id, ps);
}

static gboolean
sink_start (GstBaseSink * b)
{
  GpuStageSink *self = (GpuStageSink *) b;
  self->frames = self->gaps = self->bad = 0;
  self->last = G_MAXUINT64;
  self->lat = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < 6; i++)
    self->st[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->with_meta = 0;
  self->meta_api = g_type_from_name ("GstDoradmaFrameMetaAPI");
  return TRUE;
}


static gboolean
sink_stop (GstBaseSink * b)
{
  GpuStageSink *self = (GpuStageSink *) b;
  guint n = self->lat->len;
  if (n > 1) {
    guint64 *v = (guint64 *) self->lat->data;
    double secs = (mono_ns () - self->t0) / 1e9;
    GString *pct = g_string_new (NULL);
    double cpu = (cpu_ns () - self->cpu0) / 1e3 / n;
    for (guint i = 0; i < 6; i++)
      add_pct (pct, stage_names[i], self->st[i]);
    qsort (v, n, sizeof *v, cmp_u64);
    g_print ("gpustagesink: frames=%" G_GUINT64_FORMAT " gaps=%"
        G_GUINT64_FORMAT " bad=%" G_GUINT64_FORMAT
        " fps=%.1f lat_p50_us=%.1f lat_p99_us=%.1f"
        " lat_max_us=%.1f cpu_us_per_frame=%.1f with_meta=%" G_GUINT64_FORMAT
        "%s\n", self->frames, self->gaps,
        self->bad, n / secs, v[n / 2] / 1e3, v[(n * 99) / 100] / 1e3,
        v[n - 1] / 1e3, cpu, self->with_meta, pct->str);
    g_string_free (pct, TRUE);
  } else {
    g_print ("gpustagesink: frames=%" G_GUINT64_FORMAT
        " (too few to measure)\n", self->frames);
  }
  g_array_free (self->lat, TRUE);
  self->lat = NULL;
  for (guint i = 0; i < 6; i++)
    g_array_free (self->st[i], TRUE);
  return TRUE;
}

static GstFlowReturn
sink_render (GstBaseSink * b, GstBuffer * buf)
{
  GpuStageSink *self = (GpuStageSink *) b;
  guint64 now = mono_ns (), d;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GpuStage st;

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
  if (self->frames >= self->warmup) {
    const StageFrameMeta *m = self->meta_api ? (const StageFrameMeta *)
        gst_buffer_get_meta (buf, self->meta_api) : NULL;
    guint64 after = mono_ns ();
    d = now - st.stamp_ns;
    g_array_append_val (self->lat, d);
    g_array_append_val (self->st[5], d);
    d = after - now;
    g_array_append_val (self->st[4], d);
    if (m && m->publish_time && m->receive_time && m->delivery_time
        && m->publish_time >= st.stamp_ns && m->receive_time >= m->publish_time
        && m->delivery_time >= m->receive_time && now >= m->delivery_time) {
      self->with_meta++;
      d = m->publish_time - st.stamp_ns;
      g_array_append_val (self->st[0], d);
      d = m->receive_time - m->publish_time;
      g_array_append_val (self->st[1], d);
      d = m->delivery_time - m->receive_time;
      g_array_append_val (self->st[2], d);
      d = now - m->delivery_time;
      g_array_append_val (self->st[3], d);
    }
  }
  self->frames++;
  return GST_FLOW_OK;
}

static void
gpu_stage_sink_class_init (GpuStageSinkClass * k)
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
  gst_element_class_set_static_metadata (e, "GPU stage sink", "Sink/Video",
      "Reads the stamp of CUDA frames (benchmark)", "doradma");
  b->start = sink_start;
  b->stop = sink_stop;
  b->render = sink_render;
}

static void
gpu_stage_sink_init (GpuStageSink * self)
{
  self->warmup = 30;
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
}

static gboolean
plugin_init (GstPlugin * p)
{
  return gst_element_register (p, "gpustagesrc", GST_RANK_NONE,
      gpu_stage_src_get_type ()) &&
      gst_element_register (p, "gpustagesink", GST_RANK_NONE,
      gpu_stage_sink_get_type ());
}

#define PACKAGE "doradma-bench"
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, gpustages,
    "GPU transport benchmark elements (test only)", plugin_init, "0.1",
    "LGPL", "doradma", "https://github.com/doradma/doradma")
