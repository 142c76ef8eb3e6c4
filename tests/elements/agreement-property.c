/* Writer/reader agreement as a property: from a logged seed, generated
 * producer configurations go through appsrc ! doradmasink and doradmasrc !
 * appsink, and every frame is either delivered byte-exact (its visible
 * bytes, cropped where a crop was asked) with its caps and carried flags,
 * or the configuration is refused at negotiation, naming not-negotiated.
 * A frame published and then refused by the reader fails the test.
 *
 *   DORADMA_AGREEMENT_SEED=<n>     replay a seed (printed at the start and
 *                                  in every failure)
 *   DORADMA_AGREEMENT_CONFIGS=<n>  configurations (default 200)
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>

#include <gst/app/gstappsrc.h>

#include "frames.h"
#include "gstdoradmaframemeta.h"

/* planar, semi-planar, packed, 10-bit, GRAY */
static const gchar *formats[] = {
  "I420", "YV12", "Y42B", "Y444", "Y41B", "NV12", "NV21", "NV16", "NV24",
  "YUY2", "UYVY", "YVYU", "RGB", "BGR", "RGBA", "BGRx", "ARGB", "GRAY8",
  "GRAY16_LE", "P010_10LE", "I420_10LE", "I422_10LE", "Y210", "v210",
};

/* the flags a record carries that doradmasrc does not also set itself */
#define CHECKED_FLAGS (GST_BUFFER_FLAG_RESYNC | GST_BUFFER_FLAG_CORRUPTED | \
    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_HEADER | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_NON_DROPPABLE)
#define CHECKED_VIDEO_FLAGS (GST_VIDEO_BUFFER_FLAG_INTERLACED | \
    GST_VIDEO_BUFFER_FLAG_TFF | GST_VIDEO_BUFFER_FLAG_RFF | \
    GST_VIDEO_BUFFER_FLAG_ONEFIELD)

typedef enum
{
  CROP_NONE,
  CROP_INSIDE,                  /* a crop meta inside a frame of the caps */
  CROP_IS_CAPS,                 /* a larger frame cropped to the caps (videocrop) */
} CropKind;

typedef struct
{
  guint seed, index;
  gchar *caps_str;
  GstVideoInfo info;            /* of the caps */
  GstVideoInfo frame;           /* of the buffer: larger with CROP_IS_CAPS */
  gboolean meta;                /* a GstVideoMeta with the layout below */
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  gsize size;
  CropKind crop;
  guint crop_x, crop_y, crop_w, crop_h;
  guint n_frames;
  gboolean refused;             /* expected refused at negotiation */
  gchar *what;                  /* the configuration in words */
} Config;

#define CFAIL(c, ...) fail ("seed %u configuration %u (%s): %s", (c)->seed, \
    (c)->index, (c)->what, g_strdup_printf (__VA_ARGS__))

/* The alignment of a crop origin: a whole pixel of every plane. */
static guint
origin_align (const GstVideoFormatInfo * finfo, gboolean vertical)
{
  guint c, a = 1;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    a = MAX (a, 1u << (vertical ? GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c) :
            GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c)));
  /* packed 4:2:2 has its macro-pixel in the pixel stride */
  if (!vertical && GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0) > 0
      && GST_VIDEO_FORMAT_INFO_N_PLANES (finfo) == 1
      && GST_VIDEO_FORMAT_INFO_IS_YUV (finfo))
    a = MAX (a, 2);
  return a;
}

static guint
rnd (GRand * r, guint lo, guint hi)
{
  return (guint) g_rand_int_range (r, lo, hi + 1);
}

/* The rows of plane p in a tight layout of `info`. */
static guint
plane_rows (const GstVideoInfo * info, guint p)
{
  gsize end = p + 1 < GST_VIDEO_INFO_N_PLANES (info) ?
      GST_VIDEO_INFO_PLANE_OFFSET (info, p + 1) : GST_VIDEO_INFO_SIZE (info);

  return (end - GST_VIDEO_INFO_PLANE_OFFSET (info, p)) /
      GST_VIDEO_INFO_PLANE_STRIDE (info, p);
}

static void
config_generate (Config * c, GRand * r, guint seed, guint index)
{
  const gchar *fmt = formats[rnd (r, 0, G_N_ELEMENTS (formats) - 1)];
  const gchar *modes[] = { "progressive", "interleaved", "mixed" };
  const gchar *mode = modes[rnd (r, 0, 2)];
  GstVideoFormat vf = gst_video_format_from_string (fmt);
  const GstVideoFormatInfo *finfo = gst_video_format_get_info (vf);
  gboolean v210 = vf == GST_VIDEO_FORMAT_v210;
  guint w = rnd (r, 1, 97), h = rnd (r, 1, 61), p, fw, fh, ax, ay;
  GstCaps *caps;
  gsize at = 0;

  memset (c, 0, sizeof (*c));
  c->seed = seed;
  c->index = index;
  c->n_frames = rnd (r, 1, 3);
  /* refused at negotiation: field (alternate) caps, or caps too long */
  if (rnd (r, 0, 19) == 0) {
    c->refused = TRUE;
    if (rnd (r, 0, 1)) {
      c->caps_str = g_strdup_printf ("video/x-raw(format:Interlaced),"
          "format=%s,width=%u,height=%u,interlace-mode=alternate,"
          "framerate=30/1", fmt, w, h * 2);
    } else {
      gchar *pad = g_strnfill (1000, 'x');

      c->caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%u,"
          "height=%u,framerate=30/1,note=%s", fmt, w, h, pad);
      g_free (pad);
    }
    c->what = g_strdup_printf ("refused: %.120s...", c->caps_str);
    return;
  }
  c->caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%u,height=%u,"
      "framerate=%u/1,interlace-mode=%s", fmt, w, h, rnd (r, 1, 60), mode);
  caps = gst_caps_from_string (c->caps_str);
  fail_unless (gst_video_info_from_caps (&c->info, caps), "%s", c->caps_str);
  gst_caps_unref (caps);

  /* the crop: none, inside the frame, or the caps themselves */
  ax = origin_align (finfo, FALSE);
  ay = origin_align (finfo, TRUE);
  c->crop = v210 ? CROP_NONE : (CropKind) rnd (r, 0, 2);
  fw = w;
  fh = h;
  if (c->crop == CROP_INSIDE) {
    c->crop_x = rnd (r, 0, w - 1);
    c->crop_y = rnd (r, 0, h - 1);
    c->crop_w = rnd (r, 1, w - c->crop_x);
    c->crop_h = rnd (r, 1, h - c->crop_y);
  } else if (c->crop == CROP_IS_CAPS) {
    c->crop_x = rnd (r, 0, 8) * ax;
    c->crop_y = rnd (r, 0, 8) * ay;
    c->crop_w = w;
    c->crop_h = h;
    fw = c->crop_x + w + rnd (r, 0, 9);
    fh = c->crop_y + h + rnd (r, 0, 9);
  }
  c->frame = c->info;
  gst_video_info_set_interlaced_format (&c->frame, vf,
      GST_VIDEO_INFO_INTERLACE_MODE (&c->info), fw, fh);

  /* the layout: the caps' default, or padded strides and plane offsets
   * through a GstVideoMeta */
  c->meta = c->crop == CROP_IS_CAPS || rnd (r, 0, 4) > 0;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&c->frame); p++) {
    gint pad = c->meta ? (gint) rnd (r, 0, 4) * 8 : 0;

    at += c->meta ? rnd (r, 0, 3) * 64 : 0;
    c->offset[p] = c->meta ? at : GST_VIDEO_INFO_PLANE_OFFSET (&c->frame, p);
    c->stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&c->frame, p) + pad;
    at = c->offset[p] + (gsize) c->stride[p] * plane_rows (&c->frame, p);
  }
  c->size = c->meta ? at : GST_VIDEO_INFO_SIZE (&c->frame);
  c->what = g_strdup_printf ("%s, %s, frame %ux%u, crop %s %ux%u at (%u,%u), "
      "%u frames", c->caps_str, c->meta ? "video meta" : "default layout",
      fw, fh, c->crop == CROP_NONE ? "none" : c->crop == CROP_INSIDE ?
      "inside" : "is the caps", c->crop_w, c->crop_h, c->crop_x, c->crop_y,
      c->n_frames);
}

static void
config_clear (Config * c)
{
  g_free (c->caps_str);
  g_free (c->what);
}

/* A frame of `c`: random rows, 0xEE padding, the metas and flags. */
static GstBuffer *
config_frame (const Config * c, GRand * r)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, c->size, NULL);
  GstMapInfo map;
  guint p, row, i;
  guint flags[] = { GST_BUFFER_FLAG_RESYNC, GST_BUFFER_FLAG_CORRUPTED,
    GST_BUFFER_FLAG_MARKER, GST_BUFFER_FLAG_HEADER, GST_BUFFER_FLAG_DROPPABLE,
    GST_BUFFER_FLAG_DELTA_UNIT, GST_BUFFER_FLAG_NON_DROPPABLE
  };

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, 0xee, map.size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&c->frame); p++)
    for (row = 0; row < plane_rows (&c->frame, p); row++) {
      guint8 *d = map.data + c->offset[p] + (gsize) row * c->stride[p];
      gint b;

      for (b = 0; b < GST_VIDEO_INFO_PLANE_STRIDE (&c->frame, p); b++)
        d[b] = (guint8) g_rand_int (r);
    }
  gst_buffer_unmap (buf, &map);
  if (c->meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&c->frame), GST_VIDEO_INFO_WIDTH (&c->frame),
        GST_VIDEO_INFO_HEIGHT (&c->frame), GST_VIDEO_INFO_N_PLANES (&c->frame),
        (gsize *) c->offset, (gint *) c->stride);
  if (c->crop != CROP_NONE) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = c->crop_x;
    crop->y = c->crop_y;
    crop->width = c->crop_w;
    crop->height = c->crop_h;
  }
  for (i = 0; i < G_N_ELEMENTS (flags); i++)
    if (rnd (r, 0, 3) == 0)
      GST_BUFFER_FLAG_SET (buf, flags[i]);
  if (GST_VIDEO_INFO_INTERLACE_MODE (&c->info) ==
      GST_VIDEO_INTERLACE_MODE_MIXED) {
    if (rnd (r, 0, 1))
      GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_INTERLACED);
    if (rnd (r, 0, 1))
      GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_TFF);
    if (rnd (r, 0, 3) == 0)
      GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_RFF);
    if (rnd (r, 0, 3) == 0)
      GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_ONEFIELD);
  } else if (GST_VIDEO_INFO_INTERLACE_MODE (&c->info) ==
      GST_VIDEO_INTERLACE_MODE_INTERLEAVED && rnd (r, 0, 1)) {
    GST_BUFFER_FLAG_SET (buf, GST_VIDEO_BUFFER_FLAG_TFF);
  }
  return buf;
}

/* `sent` written into a buffer of the sink's own pool (a ring slot), with
 * a random VIDEO_ALIGNMENT: the frame reaches the ring in place, in that
 * padded layout, as from an upstream element that writes into the pool.
 * *pool keeps the pool until the frames were read. */
static GstBuffer *
into_sink_pool (const Config * c, GRand * r, GstElement * in, GstCaps * caps,
    GstBuffer * sent, GstBufferPool ** pool)
{
  GstPad *pad = gst_element_get_static_pad (in, "src");
  GstVideoAlignment align;
  GstVideoFrame src, dst;
  GstStructure *config;
  GstBuffer *out = NULL;
  GstQuery *q;
  guint p, row;

  if (*pool == NULL) {
    q = gst_query_new_allocation (caps, TRUE);
    if (!gst_pad_peer_query (pad, q)
        || gst_query_get_n_allocation_pools (q) == 0)
      CFAIL (c, "the sink offered no pool");
    gst_query_parse_nth_allocation_pool (q, 0, pool, NULL, NULL, NULL);
    gst_query_unref (q);
    gst_video_alignment_reset (&align);
    align.padding_right = rnd (r, 0, 24);
    align.padding_bottom = rnd (r, 0, 6);
    for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
      align.stride_align[p] = (1u << rnd (r, 0, 5)) - 1;
    config = gst_buffer_pool_get_config (*pool);
    gst_buffer_pool_config_set_params (config, caps, c->info.size, 0, 0);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment (config, &align);
    /* the pool may adjust the config (a larger size): take what it says */
    if (!gst_buffer_pool_set_config (*pool, config))
      fail_unless (gst_buffer_pool_set_config (*pool,
              gst_buffer_pool_get_config (*pool)));
    fail_unless (gst_buffer_pool_set_active (*pool, TRUE));
  }
  gst_object_unref (pad);
  if (gst_buffer_pool_acquire_buffer (*pool, &out, NULL) != GST_FLOW_OK)
    CFAIL (c, "no buffer from the sink's pool");
  fail_unless (gst_video_frame_map (&src, &c->info, sent, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&dst, &c->info, out, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&src); p++) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gsize from, len;

    gst_video_format_info_component (c->info.finfo, p, comps);
    t_row_span (c->info.finfo, p, 0, GST_VIDEO_INFO_WIDTH (&c->info), &from,
        &len);
    for (row = 0; row < (guint) GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT
        (c->info.finfo, comps[0], GST_VIDEO_INFO_HEIGHT (&c->info)); row++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&dst, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&dst, p),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&src, p) +
          (gsize) row * GST_VIDEO_FRAME_PLANE_STRIDE (&src, p), len);
  }
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  gst_buffer_copy_into (out, sent, GST_BUFFER_COPY_FLAGS |
      GST_BUFFER_COPY_TIMESTAMPS, 0, -1);
  if (c->crop == CROP_INSIDE) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (out);

    crop->x = c->crop_x;
    crop->y = c->crop_y;
    crop->width = c->crop_w;
    crop->height = c->crop_h;
  }
  return out;
}

/* A refused configuration in a producer of its own: not-negotiated, and
 * nothing published. */
static void
check_refused (const Config * c, GRand * r)
{
  gchar *ch = t_channel ("agree-ref");
  gchar *desc = g_strdup_printf ("appsrc name=in format=time ! "
      "doradmasink name=sink channel=%s sync=false", ch);
  GstElement *p = gst_parse_launch (desc, NULL), *in, *sink;
  GstCaps *caps = gst_caps_from_string (c->caps_str);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 1024, NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;

  in = gst_bin_get_by_name (GST_BIN (p), "in");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (in, "caps", caps, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_app_src_push_buffer (GST_APP_SRC (in), buf);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 5 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  if (msg == NULL || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR)
    CFAIL (c, "not refused");
  gst_message_parse_error (msg, &err, &dbg);
  if (dbg == NULL || strstr (dbg, "not-negotiated") == NULL)
    CFAIL (c, "refused with %s (%s), not at negotiation", err->message, dbg);
  if (t_stat (sink, "frames") != 0)
    CFAIL (c, "refused, but frames were published");
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_caps_unref (caps);
  gst_object_unref (in);
  gst_object_unref (sink);
  gst_object_unref (p);
  t_shm_clean (ch);
  g_free (desc);
  g_free (ch);
}

/* appsink answers the ALLOCATION query with the video and crop metas, as a
 * meta-aware sink (fakevideosink, glimagesink) does: doradmasrc then pushes
 * its leases zero-copy with the writer's layout. */
static GstPadProbeReturn
accept_metas (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_add_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (q, GST_VIDEO_CROP_META_API_TYPE, NULL);
  return GST_PAD_PROBE_HANDLED;
}

static TApp *
consumer_new (const gchar * channel, gboolean metas)
{
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "timeout=10000000000", channel);
  TApp *a = t_app_new (desc);

  if (metas) {
    GstPad *pad = gst_element_get_static_pad (GST_ELEMENT (a->sink), "sink");

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
        accept_metas, NULL, NULL);
    gst_object_unref (pad);
  }
  g_free (desc);
  return a;
}

/* The consumer's next frame is `sent` of `caps`: visible bytes, caps and
 * carried flags. */
static void
check_delivered (const Config * c, TApp * cons, const gchar * which,
    GstBuffer * sent, GstCaps * caps, guint f)
{
  GstSample *s = gst_app_sink_try_pull_sample (cons->sink, 10 * GST_SECOND);
  guint flags_sent = GST_BUFFER_FLAGS (sent), flags_got;
  GBytes *want, *have;
  GstBuffer *got;

  if (s == NULL)
    CFAIL (c, "%s: frame %u published but not delivered", which, f);
  got = gst_sample_get_buffer (s);
  if (!gst_caps_is_equal (gst_sample_get_caps (s), caps))
    CFAIL (c, "%s: frame %u: caps %" GST_PTR_FORMAT, which, f,
        gst_sample_get_caps (s));
  want = t_visible (sent, caps);
  have = t_visible (got, gst_sample_get_caps (s));
  if (!g_bytes_equal (want, have)) {
    GstVideoCropMeta *cm = gst_buffer_get_video_crop_meta (got);
    GstVideoMeta *vm = gst_buffer_get_video_meta (got);
    const guint8 *a = g_bytes_get_data (want, NULL);
    const guint8 *b = g_bytes_get_data (have, NULL);
    gsize k = 0;

    while (k < g_bytes_get_size (want) && k < g_bytes_get_size (have)
        && a[k] == b[k])
      k++;
    GstDoradmaFrameMeta *fm = gst_buffer_get_doradma_frame_meta (got);
    CFAIL (c,
        "%s: frame %u (seq %" G_GUINT64_FORMAT
        " %02x%02x vs %02x%02x, mem %s): the visible bytes differ from byte %zu (%zu vs "
        "%zu bytes; delivered crop %d %ux%u at (%u,%u), video meta %ux%u "
        "stride %d)", which, f, fm ? fm->seq : 0, a[0], a[1], b[0], b[1],
        gst_buffer_peek_memory (got, 0)->allocator->mem_type, k,
        g_bytes_get_size (want), g_bytes_get_size (have), cm != NULL,
        cm ? cm->width : 0, cm ? cm->height : 0, cm ? cm->x : 0, cm ? cm->y : 0,
        vm ? vm->width : 0, vm ? vm->height : 0, vm ? vm->stride[0] : 0);
  }
  flags_got = GST_BUFFER_FLAGS (got);
  if ((flags_sent & CHECKED_FLAGS) != (flags_got & CHECKED_FLAGS)
      || (flags_sent & CHECKED_VIDEO_FLAGS) !=
      (flags_got & CHECKED_VIDEO_FLAGS))
    CFAIL (c, "%s: frame %u: flags 0x%x, sent 0x%x", which, f, flags_got,
        flags_sent);
  g_bytes_unref (want);
  g_bytes_unref (have);
  gst_sample_unref (s);
}

/* Nothing published was refused by the reader; returns the local copies
 * the consumer made. */
static guint64
check_nothing_refused (TApp * cons, guint64 delivered)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (cons->pipe), "src");
  guint64 copies = t_stat (src, "copies");

  fail_unless_equals_uint64 (t_stat (src, "skipped"), 0);
  fail_unless_equals_uint64 (t_stat (src, "frames"), delivered);
  gst_object_unref (src);
  return copies;
}

/* Waits (10 s at most) until the sink has published `n` frames in all. */
static void
wait_published (Config * c, GstElement * sink, guint64 n)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (t_stat (sink, "frames") < n) {
    if (g_get_monotonic_time () > deadline)
      CFAIL (c, "the sink did not publish frame %" G_GUINT64_FORMAT, n);
    g_usleep (1000);
  }
}

static guint
env_uint (const gchar * name, guint fallback)
{
  const gchar *v = g_getenv (name);

  return v && *v ? (guint) strtoul (v, NULL, 10) : fallback;
}

GST_START_TEST (test_whatever_the_sink_publishes_the_src_delivers_exactly)
{
  guint seed = env_uint ("DORADMA_AGREEMENT_SEED", g_random_int ());
  guint n = env_uint ("DORADMA_AGREEMENT_CONFIGS", 200), i, f, delivered = 0;
  guint64 copies_plain, copies_metas;
  GRand *r = g_rand_new_with_seed (seed);
  gchar *ch = t_channel ("agree");
  gchar *prod_desc = g_strdup_printf ("appsrc name=in format=time ! "
      "doradmasink name=sink channel=%s sync=false mode=lossless "
      "wait-for-readers=2 timeout=10000000000", ch);
  GstElement *prod = gst_parse_launch (prod_desc, NULL), *in, *sink;
  /* one consumer copies into the default layout (appsink takes no meta),
   * the other takes the leases as they are, with their metas */
  TApp *plain = consumer_new (ch, FALSE), *metas = consumer_new (ch, TRUE);

  g_print ("writer/reader agreement: seed %u, %u configurations "
      "(DORADMA_AGREEMENT_SEED=%u replays it)\n", seed, n, seed);
  fail_unless (prod != NULL);
  in = gst_bin_get_by_name (GST_BIN (prod), "in");
  sink = gst_bin_get_by_name (GST_BIN (prod), "sink");
  fail_if (gst_element_set_state (prod, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < n; i++) {
    GstBufferPool *pool = NULL;
    GstBuffer *sent[3];
    gboolean in_place;
    GstCaps *caps;
    Config c;

    config_generate (&c, r, seed, i);
    if (c.refused) {
      check_refused (&c, r);
      config_clear (&c);
      continue;
    }
    /* a caps change mid-stream for every configuration */
    caps = gst_caps_from_string (c.caps_str);
    g_object_set (in, "caps", caps, NULL);
    /* from the 2nd frame on (the caps have reached the sink), half the
     * configurations write into the sink's pool */
    in_place = c.crop != CROP_IS_CAPS && rnd (r, 0, 1);
    for (f = 0; f < c.n_frames; f++) {
      GstBuffer *push;

      sent[f] = config_frame (&c, r);
      GST_BUFFER_PTS (sent[f]) = (GstClockTime) (i * 4 + f) * GST_MSECOND;
      push = in_place && f > 0 ? into_sink_pool (&c, r, in, caps, sent[f],
          &pool) : gst_buffer_ref (sent[f]);
      if (gst_app_src_push_buffer (GST_APP_SRC (in), push) != GST_FLOW_OK)
        CFAIL (&c, "the producer refused frame %u", f);
      /* the caps reach the sink (a new segment, frame 0 in it) before we
       * ask for its pool */
      if (in_place && f == 0)
        wait_published (&c, sink, delivered + 1);
    }
    /* Nothing is read before every frame is published: the readers may
     * still be draining the previous configuration's segment while the
     * caps (frame 0) and the pool's padded slots (frames 1, 2) replace it
     * twice; the lossless sink's second replace waits for them. */
    for (f = 0; f < c.n_frames; f++) {
      check_delivered (&c, plain, "default-layout consumer", sent[f], caps, f);
      check_delivered (&c, metas, "meta-aware consumer", sent[f], caps, f);
      gst_buffer_unref (sent[f]);
      delivered++;
    }
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_clear_object (&pool);
    }
    gst_caps_unref (caps);
    config_clear (&c);
  }
  /* nothing published was refused by a reader */
  copies_plain = check_nothing_refused (plain, delivered);
  copies_metas = check_nothing_refused (metas, delivered);
  g_print ("writer/reader agreement: seed %u: %u frames delivered exactly "
      "to both consumers (local copies: %" G_GUINT64_FORMAT " default-layout, %"
      G_GUINT64_FORMAT " meta-aware)\n", seed, delivered, copies_plain,
      copies_metas);
  /* the meta-aware consumer took the writer's layouts as they are */
  fail_unless_equals_uint64 (copies_metas, 0);
  gst_element_set_state (prod, GST_STATE_NULL);
  gst_object_unref (in);
  gst_object_unref (sink);
  gst_object_unref (prod);
  t_app_free (plain);
  t_app_free (metas);
  fail_unless (t_shm_clean (ch), "leftovers of %s", ch);
  g_rand_free (r);
  g_free (prod_desc);
  g_free (ch);
}

GST_END_TEST;

static Suite *
agreement_property_suite (void)
{
  Suite *s = suite_create ("agreement-property");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc,
      test_whatever_the_sink_publishes_the_src_delivers_exactly);
  return s;
}

GST_CHECK_MAIN (agreement_property);
