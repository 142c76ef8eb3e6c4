/* doradma transport benchmark — a test-only GStreamer plugin (never installed).
 *
 * benchstampsrc: a GstBaseSrc producing raw video frames of fixed caps. It
 *   takes its buffers from the downstream pool when one is proposed (so
 *   doradmasink's in-place slot pool is used), else from a pool over the
 *   downstream allocator (shmsink's shm allocator), else from a plain system
 *   memory pool (the fakesink-style floor). Per frame it writes ONLY a header
 *   (magic, frame counter, CLOCK_MONOTONIC stamp) into the first bytes of
 *   plane 0; it never paints the frame. Optional pacing (period-us) with
 *   absolute clock_nanosleep; stops after num-frames or duration-ms.
 * benchstampsink: a GstBaseSink that reads CLOCK_MONOTONIC first thing in
 *   render, maps the buffer, reads the header -> latency sample; counts
 *   delivered frames and counter gaps.
 *
 * Stages (stage-probe=true on the source, stages=true on the sink): the
 * source's src pad gets a buffer probe that writes the push time into the
 * header (in the frame's own memory: the doradma slot, the shm block); the
 * sink reads it and, on doradmasrc's buffers, GstDoradmaFrameMeta's
 * publish, receive and delivery times, and splits each frame's latency:
 *   push    stamp -> gst_pad_push (basesrc after fill)
 *   publish push -> doradma_writer_publish (basesink, doradmasink render)
 *   wake    publish -> doradmasrc's read returns (the ring: futex wake or
 *           the spinning reader's poll; copy=true: the copy too)
 *   deliver receive -> buffer built (doradmasrc: caps, timing, lease)
 *   render  delivery -> this sink's render (the push, basesink)
 * which sum to the frame's latency exactly; the report has each stage's
 * p50 (the p50s need not sum to the latency's p50).
 *
 * Both sample getrusage(RUSAGE_SELF) at their warm-up frame and at their end,
 * and expose a "report" string (JSON) that bench-run prints.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/base/gstbasesrc.h>
#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "gstdoradmaframemeta.h"        /* the struct only: no link to the SDK */

#define STAMP_MAGIC 0x44524d4142454e43ull       /* "DRMABENC" */

typedef struct
{
  guint64 magic;
  guint64 counter;
  guint64 stamp_ns;
  guint64 push_ns;              /* stage-probe: 0 without */
} BenchStamp;

enum
{ ST_PUSH, ST_PUBLISH, ST_WAKE, ST_DELIVER, ST_RENDER, N_STAGES };
static const char *stage_names[N_STAGES] = { "push", "publish", "wake",
  "deliver", "render"
};

static inline guint64
mono_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000ull + (guint64) ts.tv_nsec;
}

static void
cpu_split (guint64 * user, guint64 * sys, glong * minflt, glong * nvcsw,
    glong * nivcsw)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  *user = (guint64) ru.ru_utime.tv_sec * 1000000000ull +
      (guint64) ru.ru_utime.tv_usec * 1000ull;
  *sys = (guint64) ru.ru_stime.tv_sec * 1000000000ull +
      (guint64) ru.ru_stime.tv_usec * 1000ull;
  *minflt = ru.ru_minflt;
  *nvcsw = ru.ru_nvcsw;
  *nivcsw = ru.ru_nivcsw;
}

typedef struct
{
  guint64 t, user, sys;
  glong minflt, nvcsw, nivcsw;
} Sample;

static void
sample_now (Sample * s)
{
  cpu_split (&s->user, &s->sys, &s->minflt, &s->nvcsw, &s->nivcsw);
  s->t = mono_ns ();
}

/* ====================================================================== */
/* benchstampsrc                                                          */
/* ====================================================================== */

#define BENCH_TYPE_STAMP_SRC (bench_stamp_src_get_type ())
G_DECLARE_FINAL_TYPE (BenchStampSrc, bench_stamp_src, BENCH, STAMP_SRC,
    GstBaseSrc);

struct _BenchStampSrc
{
  GstBaseSrc parent;
  /* properties */
  gint width, height;
  guint64 period_us;            /* 0 = unthrottled */
  guint64 duration_ms;          /* 0 = only num-frames */
  guint64 num_frames;           /* 0 = only duration */
  guint warmup;
  guint pool_buffers;           /* for our own pool (no downstream pool) */
  gboolean own_pool;            /* ignore downstream pool and allocator */
  /* state */
  GstVideoInfo info;
  guint64 n;                    /* frames produced */
  guint64 next_tick;
  guint64 deadline;
  Sample s0, s1;
  gboolean have_s0, have_s1;
  gchar *pool_kind;             /* "downstream:<type>", "own:<allocator>" */
  GstAllocator *want_alloc;     /* allocator whose memory counts as no-copy */
  guint64 foreign;              /* frames whose memory is not want_alloc's */
  guint64 not_writable;
  gboolean stage_probe;
  gulong probe;
};

enum
{
  SRC_PROP_0, SRC_PROP_WIDTH, SRC_PROP_HEIGHT, SRC_PROP_PERIOD_US,
  SRC_PROP_DURATION_MS, SRC_PROP_NUM_FRAMES, SRC_PROP_WARMUP,
  SRC_PROP_POOL_BUFFERS, SRC_PROP_OWN_POOL, SRC_PROP_REPORT,
  SRC_PROP_STAGE_PROBE
};

G_DEFINE_TYPE (BenchStampSrc, bench_stamp_src, GST_TYPE_BASE_SRC);

static GstStaticPadTemplate src_tmpl = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("I420")));

static GstCaps *
bench_src_get_caps (GstBaseSrc * bsrc, GstCaps * filter)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (bsrc);
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "I420",
      "width", G_TYPE_INT, self->width,
      "height", G_TYPE_INT, self->height,
      "framerate", GST_TYPE_FRACTION, 0, 1,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

static gboolean
bench_src_set_caps (GstBaseSrc * bsrc, GstCaps * caps)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (bsrc);
  return gst_video_info_from_caps (&self->info, caps);
}

static gboolean
bench_src_decide_allocation (GstBaseSrc * bsrc, GstQuery * query)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (bsrc);
  GstBufferPool *pool = NULL;
  GstAllocator *alloc = NULL;
  GstAllocationParams params;
  guint size = self->info.size, min = 0, max = 0;
  GstCaps *caps;
  GstStructure *config;
  gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

  gst_query_parse_allocation (query, &caps, NULL);
  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0 && !self->own_pool)
    gst_query_parse_nth_allocation_param (query, 0, &alloc, &params);
  if (have_pool && !self->own_pool)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  g_free (self->pool_kind);
  g_clear_object (&self->want_alloc);

  if (pool) {
    /* the downstream pool (doradmasink's slot pool) */
    config = gst_buffer_pool_get_config (pool);
    if (size < self->info.size)
      size = self->info.size;
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (gst_buffer_pool_has_option (pool, GST_BUFFER_POOL_OPTION_VIDEO_META))
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config (pool, config)) {
      config = gst_buffer_pool_get_config (pool);
      if (!gst_buffer_pool_config_validate_params (config, caps, size, min,
              max)) {
        gst_structure_free (config);
        GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, (NULL),
            ("downstream pool rejected its config"));
        gst_object_unref (pool);
        if (alloc)
          gst_object_unref (alloc);
        return FALSE;
      }
      gst_buffer_pool_set_config (pool, config);
    }
    self->pool_kind = g_strdup_printf ("downstream:%s",
        G_OBJECT_TYPE_NAME (pool));
  } else {
    /* our own pool over the downstream allocator (shmsink's), or system
     * memory; bounded so that it fits into shmsink's area */
    pool = gst_buffer_pool_new ();
    config = gst_buffer_pool_get_config (pool);
    size = self->info.size;
    min = max = self->pool_buffers;
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    gst_buffer_pool_config_set_allocator (config, alloc, &params);
    gst_buffer_pool_set_config (pool, config);
    self->pool_kind = g_strdup_printf ("own:%s",
        alloc ? GST_OBJECT_NAME (alloc) : "default");
    if (alloc)
      self->want_alloc = gst_object_ref (alloc);
  }
  if (self->own_pool && gst_query_get_n_allocation_params (query) > 0) {
    /* system memory: what a producer with its own pool hands a sink; count
     * frames not in the sink's proposed allocator's memory (it copies them) */
    GstAllocator *proposed = NULL;
    gst_query_parse_nth_allocation_param (query, 0, &proposed, NULL);
    g_clear_object (&self->want_alloc);
    self->want_alloc = proposed;
    gst_query_set_nth_allocation_param (query, 0, NULL, &params);
  }

  if (have_pool)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  if (alloc)
    gst_object_unref (alloc);
  return TRUE;
}

/* stage-probe: the push time, into the header of the frame's memory */
static GstPadProbeReturn
push_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  guint64 now = mono_ns ();
  GstMemory *mem;
  GstMapInfo map;

  if (buf == NULL || gst_buffer_n_memory (buf) == 0)
    return GST_PAD_PROBE_OK;
  mem = gst_buffer_peek_memory (buf, 0);
  if (gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    if (map.size >= sizeof (BenchStamp))
      memcpy (map.data + G_STRUCT_OFFSET (BenchStamp, push_ns), &now,
          sizeof now);
    gst_memory_unmap (mem, &map);
  }
  return GST_PAD_PROBE_OK;
}

static gboolean
bench_src_start (GstBaseSrc * bsrc)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (bsrc);
  if (self->stage_probe && !self->probe)
    self->probe = gst_pad_add_probe (GST_BASE_SRC_PAD (bsrc),
        GST_PAD_PROBE_TYPE_BUFFER, push_probe, NULL, NULL);
  self->n = 0;
  self->next_tick = 0;
  self->deadline = 0;
  self->have_s0 = self->have_s1 = FALSE;
  self->foreign = self->not_writable = 0;
  return TRUE;
}

static GstFlowReturn
bench_src_fill (GstBaseSrc * bsrc, guint64 offset, guint length,
    GstBuffer * buf)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (bsrc);
  GstMapInfo map;
  GstMemory *mem;
  BenchStamp st;
  guint64 now;

  if (self->n == self->warmup) {
    sample_now (&self->s0);
    self->have_s0 = TRUE;
    if (self->duration_ms)
      self->deadline = self->s0.t + self->duration_ms * 1000000ull;
  }
  if ((self->num_frames && self->n >= self->num_frames) ||
      (self->deadline && mono_ns () >= self->deadline)) {
    sample_now (&self->s1);
    self->have_s1 = TRUE;
    return GST_FLOW_EOS;
  }

  mem = gst_buffer_peek_memory (buf, 0);
  if (self->want_alloc && mem->allocator != self->want_alloc)
    self->foreign++;

  if (self->period_us) {
    struct timespec ts;
    now = mono_ns ();
    if (self->next_tick == 0)
      self->next_tick = now;
    if (self->next_tick > now) {
      ts.tv_sec = self->next_tick / 1000000000ull;
      ts.tv_nsec = self->next_tick % 1000000000ull;
      while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0);
    }
    self->next_tick += self->period_us * 1000ull;
    /* never catch up in a burst after a stall */
    now = mono_ns ();
    if (self->next_tick < now)
      self->next_tick = now;
  }

  /* map only the memory holding plane 0's first bytes; never touch more */
  if (!gst_memory_is_writable (mem))
    self->not_writable++;
  if (!gst_memory_map (mem, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, (NULL), ("cannot map frame"));
    return GST_FLOW_ERROR;
  }
  st.magic = STAMP_MAGIC;
  st.counter = self->n;
  st.push_ns = 0;
  st.stamp_ns = mono_ns ();
  memcpy (map.data, &st, sizeof st);
  gst_memory_unmap (mem, &map);

  GST_BUFFER_PTS (buf) = self->n * GST_MSECOND;
  GST_BUFFER_DTS (buf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (buf) = GST_MSECOND;
  GST_BUFFER_OFFSET (buf) = self->n;
  self->n++;
  return GST_FLOW_OK;
}

static gchar *
sample_json (const char *prefix, const Sample * a, const Sample * b,
    guint64 frames)
{
  return g_strdup_printf ("\"%s_frames\": %" G_GUINT64_FORMAT
      ", \"%s_wall_ns\": %" G_GUINT64_FORMAT
      ", \"%s_user_ns\": %" G_GUINT64_FORMAT
      ", \"%s_sys_ns\": %" G_GUINT64_FORMAT
      ", \"%s_minflt\": %ld, \"%s_nvcsw\": %ld, \"%s_nivcsw\": %ld",
      prefix, frames, prefix, b->t - a->t, prefix, b->user - a->user,
      prefix, b->sys - a->sys, prefix, b->minflt - a->minflt,
      prefix, b->nvcsw - a->nvcsw, prefix, b->nivcsw - a->nivcsw);
}

static gchar *
bench_src_report (BenchStampSrc * self)
{
  gchar *s, *w;
  if (self->have_s0 && !self->have_s1) {
    sample_now (&self->s1);
    self->have_s1 = TRUE;
  }
  if (!self->have_s0)
    return g_strdup_printf ("{\"produced\": %" G_GUINT64_FORMAT "}", self->n);
  w = sample_json ("win", &self->s0, &self->s1, self->n - self->warmup);
  s = g_strdup_printf ("{\"produced\": %" G_GUINT64_FORMAT ", %s, "
      "\"pool\": \"%s\", \"foreign_mem\": %" G_GUINT64_FORMAT
      ", \"not_writable\": %" G_GUINT64_FORMAT "}", self->n, w,
      self->pool_kind ? self->pool_kind : "?", self->foreign,
      self->not_writable);
  g_free (w);
  return s;
}

static void
bench_src_set_property (GObject * obj, guint id, const GValue * v,
    GParamSpec * ps)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (obj);
  switch (id) {
    case SRC_PROP_WIDTH:
      self->width = g_value_get_int (v);
      break;
    case SRC_PROP_HEIGHT:
      self->height = g_value_get_int (v);
      break;
    case SRC_PROP_PERIOD_US:
      self->period_us = g_value_get_uint64 (v);
      break;
    case SRC_PROP_DURATION_MS:
      self->duration_ms = g_value_get_uint64 (v);
      break;
    case SRC_PROP_NUM_FRAMES:
      self->num_frames = g_value_get_uint64 (v);
      break;
    case SRC_PROP_WARMUP:
      self->warmup = g_value_get_uint (v);
      break;
    case SRC_PROP_POOL_BUFFERS:
      self->pool_buffers = g_value_get_uint (v);
      break;
    case SRC_PROP_OWN_POOL:
      self->own_pool = g_value_get_boolean (v);
      break;
    case SRC_PROP_STAGE_PROBE:
      self->stage_probe = g_value_get_boolean (v);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
}

static void
bench_src_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (obj);
  switch (id) {
    case SRC_PROP_WIDTH:
      g_value_set_int (v, self->width);
      break;
    case SRC_PROP_HEIGHT:
      g_value_set_int (v, self->height);
      break;
    case SRC_PROP_PERIOD_US:
      g_value_set_uint64 (v, self->period_us);
      break;
    case SRC_PROP_DURATION_MS:
      g_value_set_uint64 (v, self->duration_ms);
      break;
    case SRC_PROP_NUM_FRAMES:
      g_value_set_uint64 (v, self->num_frames);
      break;
    case SRC_PROP_WARMUP:
      g_value_set_uint (v, self->warmup);
      break;
    case SRC_PROP_POOL_BUFFERS:
      g_value_set_uint (v, self->pool_buffers);
      break;
    case SRC_PROP_OWN_POOL:
      g_value_set_boolean (v, self->own_pool);
      break;
    case SRC_PROP_STAGE_PROBE:
      g_value_set_boolean (v, self->stage_probe);
      break;
    case SRC_PROP_REPORT:
      g_value_take_string (v, bench_src_report (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
  }
}

static void
bench_src_finalize (GObject * obj)
{
  BenchStampSrc *self = BENCH_STAMP_SRC (obj);
  g_free (self->pool_kind);
  g_clear_object (&self->want_alloc);
  G_OBJECT_CLASS (bench_stamp_src_parent_class)->finalize (obj);
}

static void
bench_stamp_src_class_init (BenchStampSrcClass * klass)
{
  GObjectClass *gc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *bc = GST_BASE_SRC_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

  gc->set_property = bench_src_set_property;
  gc->get_property = bench_src_get_property;
  gc->finalize = bench_src_finalize;
  g_object_class_install_property (gc, SRC_PROP_WIDTH,
      g_param_spec_int ("width", "width", "width", 16, 16384, 640, rw));
  g_object_class_install_property (gc, SRC_PROP_HEIGHT,
      g_param_spec_int ("height", "height", "height", 16, 16384, 480, rw));
  g_object_class_install_property (gc, SRC_PROP_PERIOD_US,
      g_param_spec_uint64 ("period-us", "period",
          "frame period, 0 = unthrottled", 0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gc, SRC_PROP_DURATION_MS,
      g_param_spec_uint64 ("duration-ms", "duration",
          "stop this long after the warm-up frames (0 = no limit)", 0,
          G_MAXUINT64, 0, rw));
  g_object_class_install_property (gc, SRC_PROP_NUM_FRAMES,
      g_param_spec_uint64 ("num-frames", "frames", "stop after (0 = no limit)",
          0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gc, SRC_PROP_WARMUP,
      g_param_spec_uint ("warmup", "warmup", "frames before the window", 0,
          G_MAXUINT, 10, rw));
  g_object_class_install_property (gc, SRC_PROP_POOL_BUFFERS,
      g_param_spec_uint ("pool-buffers", "pool buffers",
          "buffers of our own pool (when downstream proposes none)", 2, 64, 4,
          rw));
  g_object_class_install_property (gc, SRC_PROP_OWN_POOL,
      g_param_spec_boolean ("own-pool", "own pool",
          "ignore the downstream pool and allocator: system memory (the sink "
          "must copy)", FALSE, rw));
  g_object_class_install_property (gc, SRC_PROP_STAGE_PROBE,
      g_param_spec_boolean ("stage-probe", "stage probe",
          "write the push time into each frame's header (a src pad probe)",
          FALSE, rw));
  g_object_class_install_property (gc, SRC_PROP_REPORT,
      g_param_spec_string ("report", "report", "JSON report", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template (ec, &src_tmpl);
  gst_element_class_set_static_metadata (ec, "doradma bench stamp source",
      "Source/Video", "Frames stamped with a counter and CLOCK_MONOTONIC",
      "doradma");
  bc->get_caps = bench_src_get_caps;
  bc->set_caps = bench_src_set_caps;
  bc->decide_allocation = bench_src_decide_allocation;
  bc->start = bench_src_start;
  bc->fill = bench_src_fill;
}

static void
bench_stamp_src_init (BenchStampSrc * self)
{
  self->width = 640;
  self->height = 480;
  self->warmup = 10;
  self->pool_buffers = 4;
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_live (GST_BASE_SRC (self), FALSE);
}

/* ====================================================================== */
/* benchstampsink                                                         */
/* ====================================================================== */

#define BENCH_TYPE_STAMP_SINK (bench_stamp_sink_get_type ())
G_DECLARE_FINAL_TYPE (BenchStampSink, bench_stamp_sink, BENCH, STAMP_SINK,
    GstBaseSink);

struct _BenchStampSink
{
  GstBaseSink parent;
  guint warmup;
  guint64 n;                    /* frames received */
  guint64 bad;                  /* no stamp magic */
  guint64 gaps;                 /* counter jumps (frames skipped) */
  guint64 last_counter;
  gboolean have_counter;
  GArray *lat;                  /* guint64 ns, after warm-up */
  Sample s0, s1;
  gboolean have_s0, have_s1;
  guint64 t_last;
  gboolean stages;
  GType frame_meta_api;         /* GstDoradmaFrameMetaAPI, once registered */
  GArray *st[N_STAGES];         /* guint64 ns per stage, after warm-up */
};

enum
{ SINK_PROP_0, SINK_PROP_WARMUP, SINK_PROP_REPORT, SINK_PROP_STAGES };

G_DEFINE_TYPE (BenchStampSink, bench_stamp_sink, GST_TYPE_BASE_SINK);

static GstStaticPadTemplate sink_tmpl = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static gboolean
bench_sink_start (GstBaseSink * bsink)
{
  BenchStampSink *self = BENCH_STAMP_SINK (bsink);
  self->n = self->bad = self->gaps = 0;
  self->have_counter = FALSE;
  self->have_s0 = self->have_s1 = FALSE;
  g_array_set_size (self->lat, 0);
  for (guint i = 0; i < N_STAGES; i++)
    g_array_set_size (self->st[i], 0);
  return TRUE;
}

/* The frame's stages, when the push time and doradmasrc's times are all
 * there (see the top of the file). */
static void
bench_sink_stages (BenchStampSink * self, GstBuffer * buf,
    const BenchStamp * st, guint64 now)
{
  const GstDoradmaFrameMeta *m;
  guint64 t[N_STAGES + 1];

  if (!self->frame_meta_api)
    self->frame_meta_api = g_type_from_name ("GstDoradmaFrameMetaAPI");
  if (!self->frame_meta_api || st->push_ns == 0)
    return;
  m = (const GstDoradmaFrameMeta *) gst_buffer_get_meta (buf,
      self->frame_meta_api);
  if (m == NULL || m->receive_time == 0 || m->delivery_time == 0)
    return;
  t[0] = st->stamp_ns;
  t[1] = st->push_ns;
  t[2] = m->publish_time;
  t[3] = m->receive_time;
  t[4] = m->delivery_time;
  t[5] = now;
  for (guint i = 0; i < N_STAGES; i++) {
    guint64 d = t[i + 1] >= t[i] ? t[i + 1] - t[i] : 0;
    g_array_append_val (self->st[i], d);
  }
}

static void
bench_sink_finish (BenchStampSink * self)
{
  if (self->have_s0 && !self->have_s1) {
    sample_now (&self->s1);
    self->s1.t = self->t_last;  /* wall window ends at the last frame */
    self->have_s1 = TRUE;
  }
}

static gboolean
bench_sink_event (GstBaseSink * bsink, GstEvent * ev)
{
  if (GST_EVENT_TYPE (ev) == GST_EVENT_EOS)
    bench_sink_finish (BENCH_STAMP_SINK (bsink));
  return GST_BASE_SINK_CLASS (bench_stamp_sink_parent_class)->event (bsink, ev);
}

static gboolean
bench_sink_stop (GstBaseSink * bsink)
{
  bench_sink_finish (BENCH_STAMP_SINK (bsink));
  return TRUE;
}

static GstFlowReturn
bench_sink_render (GstBaseSink * bsink, GstBuffer * buf)
{
  BenchStampSink *self = BENCH_STAMP_SINK (bsink);
  guint64 now = mono_ns ();
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstMapInfo map;
  BenchStamp st;

  if (!gst_memory_map (mem, &map, GST_MAP_READ) || map.size < sizeof st) {
    self->bad++;
    return GST_FLOW_OK;
  }
  memcpy (&st, map.data, sizeof st);
  gst_memory_unmap (mem, &map);
  if (st.magic != STAMP_MAGIC) {
    self->bad++;
    return GST_FLOW_OK;
  }
  if (self->have_counter && st.counter > self->last_counter + 1)
    self->gaps += st.counter - self->last_counter - 1;
  self->last_counter = st.counter;
  self->have_counter = TRUE;

  if (self->n == self->warmup) {
    sample_now (&self->s0);
    self->s0.t = now;
    self->have_s0 = TRUE;
  }
  if (self->n >= self->warmup) {
    guint64 l = now >= st.stamp_ns ? now - st.stamp_ns : 0;
    g_array_append_val (self->lat, l);
    if (self->stages)
      bench_sink_stages (self, buf, &st, now);
  }
  self->t_last = now;
  self->n++;
  return GST_FLOW_OK;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static guint64
pct (const guint64 * v, guint n, double p)
{
  guint i;
  if (!n)
    return 0;
  i = (guint) (p * (n - 1) + 0.5);
  return v[i];
}

static gchar *
bench_sink_report (BenchStampSink * self)
{
  guint n = self->lat->len;
  guint64 *v = g_memdup2 (self->lat->data, (gsize) n * sizeof (guint64));
  gchar *w, *s;
  qsort (v, n, sizeof (guint64), cmp_u64);
  bench_sink_finish (self);
  w = self->have_s0 ? sample_json ("win", &self->s0, &self->s1,
      n ? n - 1 : 0) : g_strdup ("\"win_frames\": 0");
  /* window frames: latency samples after the one that opened the window */
  for (guint i = 0; i < N_STAGES && self->st[i]->len > 0; i++) {
    guint sn = self->st[i]->len;
    guint64 *sv = (guint64 *) self->st[i]->data;
    gchar *more;

    qsort (sv, sn, sizeof (guint64), cmp_u64);
    more = g_strdup_printf ("%s, \"st_%s_p50\": %" G_GUINT64_FORMAT, w,
        stage_names[i], pct (sv, sn, 0.5));
    if (i == 0) {
      gchar *n = g_strdup_printf ("%s, \"st_n\": %u", more, sn);
      g_free (more);
      more = n;
    }
    g_free (w);
    w = more;
  }
  s = g_strdup_printf ("{\"received\": %" G_GUINT64_FORMAT ", \"bad\": %"
      G_GUINT64_FORMAT ", \"gaps\": %" G_GUINT64_FORMAT ", %s, "
      "\"lat_n\": %u, \"lat_min\": %" G_GUINT64_FORMAT ", \"lat_p50\": %"
      G_GUINT64_FORMAT ", \"lat_p95\": %" G_GUINT64_FORMAT ", \"lat_p99\": %"
      G_GUINT64_FORMAT ", \"lat_max\": %" G_GUINT64_FORMAT "}", self->n,
      self->bad, self->gaps, w, n, pct (v, n, 0), pct (v, n, 0.5),
      pct (v, n, 0.95), pct (v, n, 0.99), n ? v[n - 1] : 0);
  g_free (v);
  g_free (w);
  return s;
}

static void
bench_sink_set_property (GObject * obj, guint id, const GValue * v,
    GParamSpec * ps)
{
  BenchStampSink *self = BENCH_STAMP_SINK (obj);
  if (id == SINK_PROP_WARMUP)
    self->warmup = g_value_get_uint (v);
  else if (id == SINK_PROP_STAGES)
    self->stages = g_value_get_boolean (v);
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
}

static void
bench_sink_get_property (GObject * obj, guint id, GValue * v, GParamSpec * ps)
{
  BenchStampSink *self = BENCH_STAMP_SINK (obj);
  if (id == SINK_PROP_WARMUP)
    g_value_set_uint (v, self->warmup);
  else if (id == SINK_PROP_STAGES)
    g_value_set_boolean (v, self->stages);
  else if (id == SINK_PROP_REPORT)
    g_value_take_string (v, bench_sink_report (self));
  else
    G_OBJECT_WARN_INVALID_PROPERTY_ID (obj, id, ps);
}

static void
bench_sink_finalize (GObject * obj)
{
  g_array_free (BENCH_STAMP_SINK (obj)->lat, TRUE);
  for (guint i = 0; i < N_STAGES; i++)
    g_array_free (BENCH_STAMP_SINK (obj)->st[i], TRUE);
  G_OBJECT_CLASS (bench_stamp_sink_parent_class)->finalize (obj);
}

static void
bench_stamp_sink_class_init (BenchStampSinkClass * klass)
{
  GObjectClass *gc = G_OBJECT_CLASS (klass);
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *bc = GST_BASE_SINK_CLASS (klass);

  gc->set_property = bench_sink_set_property;
  gc->get_property = bench_sink_get_property;
  gc->finalize = bench_sink_finalize;
  g_object_class_install_property (gc, SINK_PROP_WARMUP,
      g_param_spec_uint ("warmup", "warmup", "frames before the window", 0,
          G_MAXUINT, 10, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gc, SINK_PROP_STAGES,
      g_param_spec_boolean ("stages", "stages", "split each frame's latency "
          "into stages (stage-probe on the source; doradmasrc's frame meta)",
          FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gc, SINK_PROP_REPORT,
      g_param_spec_string ("report", "report", "JSON report", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template (ec, &sink_tmpl);
  gst_element_class_set_static_metadata (ec, "doradma bench stamp sink",
      "Sink/Video", "Reads the stamp of benchstampsrc: latency, gaps",
      "doradma");
  bc->start = bench_sink_start;
  bc->stop = bench_sink_stop;
  bc->event = bench_sink_event;
  bc->render = bench_sink_render;
}

static void
bench_stamp_sink_init (BenchStampSink * self)
{
  self->warmup = 10;
  self->lat = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 4096);
  for (guint i = 0; i < N_STAGES; i++)
    self->st[i] = g_array_sized_new (FALSE, FALSE, sizeof (guint64), 4096);
  gst_base_sink_set_sync (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_qos_enabled (GST_BASE_SINK (self), FALSE);
  gst_base_sink_set_async_enabled (GST_BASE_SINK (self), FALSE);
  /* never keep the last buffer: it would pin a shm block or a ring lease */
  gst_base_sink_set_last_sample_enabled (GST_BASE_SINK (self), FALSE);
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_element_register (plugin, "benchstampsrc", GST_RANK_NONE,
      BENCH_TYPE_STAMP_SRC) &&
      gst_element_register (plugin, "benchstampsink", GST_RANK_NONE,
      BENCH_TYPE_STAMP_SINK);
}

#ifndef PACKAGE
#define PACKAGE "doradma-bench"
#endif
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, doradmabench,
    "doradma transport benchmark elements (test only)", plugin_init, "0.1",
    "LGPL", "doradma", "https://github.com/doradma/doradma")
