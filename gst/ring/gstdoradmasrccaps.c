/* doradma GStreamer plugin — doradmasrc's caps (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmasrccaps.h"
#include "gstdoradmaformats.h"

/* the element's own category (gstdoradmasrc.c) */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

void
gst_doradma_src_caps_init (GstDoradmaSrcCaps * c, GstBaseSrc * src,
    GstDoradmaSrcOutput * out)
{
  c->src = src;
  c->out = out;
  c->epoch = 0;
  c->have_epoch = FALSE;
}

void
gst_doradma_src_caps_start (GstDoradmaSrcCaps * c)
{
  c->have_epoch = FALSE;
}

gboolean
gst_doradma_src_caps_downstream_wants_cuda (gpointer src)
{
  return gst_doradma_src_output_peer_wants_cuda (GST_BASE_SRC_PAD (src));
}

/* Pushes the output caps for `caps` (taken) and re-runs the ALLOCATION
 * query with them (whether downstream takes GstVideoMeta decides whether
 * padded frames go out zero-copy). */
static GstFlowReturn
set_output_caps (GstDoradmaSrcCaps * c, GstCaps * caps,
    const GstVideoInfo * info, const gchar * str)
{
  GstBaseSrc *self = c->src;
  gchar *no_cuda = NULL;
  GstCaps *out = gst_doradma_src_output_choose_caps (GST_BASE_SRC_PAD (self),
      caps, &no_cuda);

  if (out == NULL)
    goto refused;
  GST_INFO_OBJECT (self, "caps %" GST_PTR_FORMAT, out);
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&c->out->caps, caps);
  gst_caps_replace (&c->out->out_caps, out);
  c->out->info = *info;
  gst_doradma_plane_needs_all (info, &c->out->needs);
  c->out->cuda_out = !gst_caps_is_equal (out, caps);
  GST_OBJECT_UNLOCK (self);
  gst_doradma_src_output_caps_changed (c->out);
  gst_caps_unref (out);
  gst_caps_unref (caps);
  g_free (no_cuda);
  if (!gst_base_src_negotiate (self)) {
    if (GST_PAD_IS_FLUSHING (GST_BASE_SRC_PAD (self)))
      return GST_FLOW_FLUSHING;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream accepted the writer's caps %s but could not be "
            "configured with them", str), ("set_caps or the ALLOCATION "
            "query failed"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  return GST_FLOW_OK;

  /* ERRORS */
refused:
  {
    GstCaps *peer = gst_pad_peer_query_caps (GST_BASE_SRC_PAD (self), NULL);
    gchar *peer_str = peer ? gst_caps_to_string (peer) : g_strdup ("nothing");

    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the writer's caps %s", str),
        ("writer caps: %s; downstream accepts: %s%s%s", str, peer_str,
            no_cuda ? "; memory:CUDAMemory not offered: " : "",
            no_cuda ? no_cuda : ""));
    g_free (peer_str);
    gst_clear_caps (&peer);
    gst_caps_unref (caps);
    g_free (no_cuda);
    return GST_FLOW_NOT_NEGOTIATED;
  }
}

GstFlowReturn
gst_doradma_src_caps_ensure (GstDoradmaSrcCaps * c,
    GstDoradmaConsumer * consumer, const GstDoradmaConsumerFrame * fr,
    gboolean * changed)
{
  guint32 epoch = fr->f.info.caps_epoch;
  gchar str[DORADMA_CAPS_MAX];
  GstCaps *caps;
  GstCapsFeatures *f;
  GstVideoInfo info;

  *changed = FALSE;
  if (fr->new_segment)
    c->have_epoch = FALSE;      /* epochs are per segment */
  if (c->have_epoch && epoch == c->epoch)
    return GST_FLOW_OK;
  if (!gst_doradma_consumer_caps (consumer, epoch, str, sizeof (str)))
    return GST_DORADMA_SRC_SKIP_FRAME;

  /* the lib checked the string; check what GStreamer makes of it */
  caps = gst_caps_from_string (str);
  if (caps == NULL || gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps)
      || !gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-raw")
      || ((f = gst_caps_get_features (caps, 0))
          && !gst_caps_features_is_equal (f,
              GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
      || !gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (c->src, STREAM, FORMAT,
        ("The writer published caps that are not plain raw video"),
        ("caps epoch %u: \"%s\"", epoch, str));
    gst_clear_caps (&caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  c->epoch = epoch;
  c->have_epoch = TRUE;
  if (c->out->caps && gst_caps_is_equal (caps, c->out->caps)) {
    gst_caps_unref (caps);
    return GST_FLOW_OK;
  }
  *changed = TRUE;
  return set_output_caps (c, caps, &info, str);
}

GstCaps *
gst_doradma_src_caps_query (GstDoradmaSrcCaps * c, GstCaps * filter)
{
  GstCaps *caps;

  GST_OBJECT_LOCK (c->src);
  if (c->out->out_caps)
    caps = gst_caps_ref (c->out->out_caps);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (c->src));
  GST_OBJECT_UNLOCK (c->src);
  return gst_doradma_caps_filter (caps, filter);
}

/* Until a frame told us the caps, nothing to set; then the base class
 * follows with the ALLOCATION query for them. */
gboolean
gst_doradma_src_caps_negotiate (GstDoradmaSrcCaps * c)
{
  GstCaps *caps = NULL;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (c->src);
  if (c->out->out_caps)
    caps = gst_caps_ref (c->out->out_caps);
  GST_OBJECT_UNLOCK (c->src);
  if (caps) {
    ok = gst_base_src_set_caps (c->src, caps);
    gst_caps_unref (caps);
  }
  return ok;
}
