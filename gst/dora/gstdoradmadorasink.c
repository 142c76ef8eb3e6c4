/* doradma GStreamer plugin — doradmasink's dora write path (`dora-pool=`).
 *
 * Creates a dora-rs memory pool with the header and compact JSON of dora's
 * Rust writer (lib/dora-pool.c) when caps arrive, and writes every frame
 * into its one buffer with the generation protocol: odd, the payload rows
 * tightly packed (dora tensors have no stride), even. A dora pool is one
 * buffer written in place, so upstream cannot render into it: each frame is
 * copied once, from the upstream buffer into the pool.
 *
 *   RGB, BGR          uint8 [H, W, 3]
 *   RGBA, BGRA,
 *   RGBx, BGRx        uint8 [H, W, 4]
 *   GRAY8             uint8 [H, W]
 *   GRAY16_LE         uint16 [H, W]
 *   anything else     refused (planar YUV has no dora tensor form)
 *
 * The element's `transport` picks the pool's transport: shmem (auto, unless
 * $DORA_MEMORY_POOL_TRANSPORT says unified) or unified (same bytes; the JSON
 * tells CUDA readers to register it). ipc is refused, as dora's Rust writer
 * refuses it.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gst/video/video.h>
#include <gst/base/gstbasesink.h>
#include <doradma/dora-pool.h>

#include "gstdoradmadora.h"

GST_DEBUG_CATEGORY_STATIC (dora_sink_debug);
#define GST_CAT_DEFAULT dora_sink_debug

#define TRANSPORT_ENV "DORA_MEMORY_POOL_TRANSPORT"

typedef struct
{
  GstDoradmaDoraState head;

  /* streaming thread */
  struct doradma_pool_writer *w;
  GstVideoInfo info;
  /* the pool's tensor: what a renegotiation must change to need a new one */
  const gchar *dtype;
  guint64 shape[3];
  enum doradma_pool_transport transport;
  gsize row_bytes;
  guint64 n_frames;
  gboolean refused;             /* set_caps posted its error once */
  gboolean dir_warned;          /* DORADMA_SHM_DIR said once (F3) */
} DoraSink;

static void
dora_sink_clear (GstDoradmaDoraState * head)
{
  doradma_pool_writer_close (((DoraSink *) head)->w);
}

static DoraSink *
dora_sink_get (gpointer sink)
{
  return gst_doradma_dora_state (sink);
}

static void
gst_doradma_dora_sink_install_properties (GObjectClass * klass)
{
  GST_DEBUG_CATEGORY_INIT (dora_sink_debug, "doradmadorasink", 0,
      "doradmasink writing a dora memory pool");

  /**
   * GstDoradmaSink:dora-pool:
   *
   * Write frames into a dora-rs memory pool of this name
   * (`dora_pool_<dataflow>_<node>_<pool>`, at most 253 bytes) instead of a
   * doradma channel: the header and JSON of dora's Rust writer, mode 0600,
   * the payload tightly packed. Mutually exclusive with `channel`.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, GST_DORADMA_DORA_PROP_BASE,
      g_param_spec_string ("dora-pool", "dora pool",
          "Name of a dora-rs memory pool to write instead of a channel "
          "(dora_pool_<dataflow>_<node>_<pool>)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
}

/* The pool transport from the element's `transport` (by its nick, so this
 * file does not depend on the element's enum). FALSE with *err set. */
static gboolean
resolve_transport (GstBaseSink * sink, enum doradma_pool_transport *out,
    gchar ** err)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (sink),
      "transport");
  const gchar *nick = "auto", *env;
  GEnumValue *ev;
  gint v;

  if (ps != NULL && G_IS_PARAM_SPEC_ENUM (ps)) {
    g_object_get (sink, "transport", &v, NULL);
    ev = g_enum_get_value (G_PARAM_SPEC_ENUM (ps)->enum_class, v);
    if (ev)
      nick = ev->value_nick;
  }
  /* spec §7: the variable overrides auto only; set-but-empty is unset */
  if (strcmp (nick, "auto") == 0) {
    env = g_getenv (TRANSPORT_ENV);
    nick = (env && env[0]) ? env : "shmem";
    if (strcmp (nick, "shmem") != 0 && strcmp (nick, "unified") != 0) {
      *err = g_strdup_printf ("%s=\"%s\": expected shmem or unified",
          TRANSPORT_ENV, nick);
      return FALSE;
    }
  }
  if (strcmp (nick, "shmem") == 0)
    *out = DORADMA_POOL_SHMEM;
  else if (strcmp (nick, "unified") == 0)
    *out = DORADMA_POOL_UNIFIED;
  else {
    *err = g_strdup_printf ("transport \"%s\" cannot write a dora pool: dora's "
        "writers create shmem or unified pools (ipc pools come only from "
        "dora's Python binding)", nick);
    return FALSE;
  }
  return TRUE;
}

/* Ring properties a pool has no use for (one buffer, mode 0600 as dora's
 * crate makes it, no readers to wait for): set, they get a warning (F8). */
static const gchar *const ring_only[] = { "permissions", "slots", "mode",
  "timeout", "spin-time", "wait-for-readers", "on-reader-stall", NULL
};

gboolean
gst_doradma_dora_sink_start (GstBaseSink * sink)
{
  DoraSink *s = dora_sink_get (sink);
  enum doradma_pool_transport t;
  gchar *name = gst_doradma_dora_pool_name (sink), *err = NULL;
  gboolean ok = gst_doradma_dora_check_settings (GST_ELEMENT (sink));

  if (ok)
    gst_doradma_dora_warn_ignored (GST_ELEMENT (sink), name, ring_only,
        "these properties configure a doradma ring; a dora pool is one "
        "buffer of mode 0600 (as dora's writers make it) that no reader "
        "holds back");
  /* an unusable transport is a settings error: say so before caps */
  if (ok && !(ok = resolve_transport (sink, &t, &err))) {
    GST_ELEMENT_ERROR (sink, RESOURCE, SETTINGS,
        ("Cannot write dora pool %s: %s", name, err), (NULL));
    g_free (err);
  }
  s->n_frames = 0;
  s->refused = FALSE;
  g_free (name);
  return ok;
}

gboolean
gst_doradma_dora_sink_stop (GstBaseSink * sink)
{
  DoraSink *s = dora_sink_get (sink);

  GST_INFO_OBJECT (sink, "dora pool: %" G_GUINT64_FORMAT " frames written",
      s->n_frames);
  g_clear_pointer (&s->w, doradma_pool_writer_close);
  return TRUE;
}

/* The dora tensor of a video format: channels (0 = [H, W]) and dtype. */
static gboolean
tensor_form (GstVideoFormat fmt, guint * channels, const gchar ** dtype)
{
  *dtype = "uint8";
  switch (fmt) {
    case GST_VIDEO_FORMAT_RGB:
    case GST_VIDEO_FORMAT_BGR:
      *channels = 3;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
    case GST_VIDEO_FORMAT_BGRA:
    case GST_VIDEO_FORMAT_RGBx:
    case GST_VIDEO_FORMAT_BGRx:
      *channels = 4;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY8:
      *channels = 0;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY16_LE:
      *channels = 0;
      *dtype = "uint16";
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_doradma_dora_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  DoraSink *s = dora_sink_get (sink);
  struct doradma_pool_writer_config cfg = { 0 };
  struct doradma_diag diag = { 0 };
  GstVideoInfo info;
  const gchar *dtype;
  gchar *name = NULL, *err = NULL;
  const gchar *dir;
  guint64 shape[3];
  guint channels;
  int ret;

  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (sink, CORE, NEGOTIATION, (NULL),
        ("invalid video caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (!tensor_form (GST_VIDEO_INFO_FORMAT (&info), &channels, &dtype)) {
    const gchar *f = gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info));

    /* the sticky caps come back with every later event: one error */
    if (s->refused)
      return FALSE;
    s->refused = TRUE;
    GST_ELEMENT_ERROR (sink, CORE, NEGOTIATION,
        ("Video format %s has no dora tensor form", f),
        ("%s%s: a dora pool holds one tensor; insert videoconvert ! "
            "video/x-raw,format=RGB (or BGR, RGBA, BGRA, RGBx, BGRx, GRAY8, "
            "GRAY16_LE) before doradmasink", f,
            GST_VIDEO_INFO_N_PLANES (&info) > 1 ? " is planar YUV" : ""));
    return FALSE;
  }
  name = gst_doradma_dora_pool_name (sink);
  shape[0] = GST_VIDEO_INFO_HEIGHT (&info);
  shape[1] = GST_VIDEO_INFO_WIDTH (&info);
  shape[2] = channels;
  cfg.name = name;
  cfg.dtype = dtype;
  cfg.shape = shape;
  cfg.n_dims = channels ? 3 : 2;
  if (!resolve_transport (sink, &cfg.transport, &err)) {
    GST_ELEMENT_ERROR (sink, RESOURCE, SETTINGS,
        ("Cannot write dora pool %s: %s", name, err), (NULL));
    g_free (err);
    g_free (name);
    return FALSE;
  }
  /* the same tensor again (a renegotiation of framerate, colorimetry,
   * PAR, ...): keep the pool. A dora reader never re-opens a pool by
   * itself (no daemon here sends FreeMemoryPool): a new one strands it. */
  if (s->w && g_strcmp0 (dtype, s->dtype) == 0 &&
      memcmp (shape, s->shape, sizeof shape) == 0 &&
      cfg.transport == s->transport) {
    GST_DEBUG_OBJECT (sink, "dora pool %s: same tensor, kept", name);
    s->info = info;
    g_free (name);
    return TRUE;
  }
  /* new geometry: a new pool under the same name (dora readers re-open) */
  g_clear_pointer (&s->w, doradma_pool_writer_close);
  ret = doradma_pool_writer_create (&cfg, &s->w, &diag);
  if (ret < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (sink, RESOURCE, OPEN_WRITE,
        ("Could not create dora pool %s: %s", name, diag.msg),
        ("%s (field %s)", g_strerror (-ret), diag.field ? diag.field : "-"),
        ("dora-pool", G_TYPE_STRING, name, NULL));
    g_free (name);
    return FALSE;
  }
  s->info = info;
  s->dtype = dtype;
  memcpy (s->shape, shape, sizeof shape);
  s->transport = cfg.transport;
  s->row_bytes = (gsize) GST_VIDEO_INFO_WIDTH (&info) *
      GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
  s->refused = FALSE;
  if (!s->dir_warned && gst_doradma_dora_dir_moved (&dir)) {
    GST_ELEMENT_WARNING_WITH_DETAILS (sink, RESOURCE, SETTINGS,
        ("Dora pool %s is in %s, not in /dev/shm: DORADMA_SHM_DIR is set, "
            "and dora nodes look for pools in /dev/shm only; unset it for "
            "dora nodes to find this pool", name, dir),
        ("only doradma readers with the same DORADMA_SHM_DIR see it"),
        ("dora-pool", G_TYPE_STRING, name, "dir", G_TYPE_STRING, dir, NULL));
    s->dir_warned = TRUE;
  }
  GST_INFO_OBJECT (sink, "dora pool %s: %s", name,
      doradma_pool_writer_json (s->w));
  g_free (name);
  return TRUE;
}

gboolean
gst_doradma_dora_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  /* frames are copied into the pool: any memory upstream, any stride */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return TRUE;
}

GstFlowReturn
gst_doradma_dora_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  DoraSink *s = dora_sink_get (sink);
  GstVideoFrame f;
  guint8 *dst;
  const guint8 *src;
  guint64 baseline;
  gint stride;
  guint y, h;

  if (s->w == NULL) {
    GST_ELEMENT_ERROR (sink, CORE, NEGOTIATION, (NULL),
        ("a buffer arrived before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (!gst_video_frame_map (&f, &s->info, buf, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (sink, STREAM, FORMAT, ("Could not map a video frame"),
        ("buffer %" GST_PTR_FORMAT " does not match the caps", buf));
    return GST_FLOW_ERROR;
  }
  dst = doradma_pool_writer_payload (s->w);
  src = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  h = GST_VIDEO_FRAME_HEIGHT (&f);

  baseline = doradma_pool_writer_begin (s->w);
  if ((gsize) stride == s->row_bytes) {
    memcpy (dst, src, s->row_bytes * h);
  } else {
    for (y = 0; y < h; y++)
      memcpy (dst + y * s->row_bytes, src + (gsize) y * stride, s->row_bytes);
  }
  doradma_pool_writer_end (s->w, baseline, true);
  gst_video_frame_unmap (&f);
  s->n_frames++;
  GST_LOG_OBJECT (sink, "frame %" G_GUINT64_FORMAT " published (generation %"
      G_GUINT64_FORMAT ")", s->n_frames, baseline + 2);
  return GST_FLOW_OK;
}

/* ---------------------------------------------------------------------- */
/* The path's registration */

static const GstDoradmaDoraPath path = {
  .starts_after = GST_STATE_NULL,
  .state_size = sizeof (DoraSink),
  .state_clear = dora_sink_clear,
  .n_props = 1,                 /* dora-pool */
};

void
gst_doradma_dora_sink_class_init (GObjectClass * klass)
{
  gst_doradma_dora_register_path (klass, &path);
  gst_doradma_dora_sink_install_properties (klass);
}
