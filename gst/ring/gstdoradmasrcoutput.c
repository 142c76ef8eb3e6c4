/* doradma GStreamer plugin — doradmasrc's output (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmasrcoutput.h"
#include "gstdoradmaclock.h"
#include <string.h>
#include "gstdoradmasrcframe.h"
#include "gstdoradmashellpool.h"
#include <gst/doradma/gstdoradmaframemeta.h>

/* doradmasrc's: GST_DEBUG=doradmasrc:5 shows the whole consumer side */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

/* ---------------------------------------------------------------------- */
/* Caps */

/* ANY does not count: an appsink without caps gets the zero-copy
 * system-memory path. */
gboolean
gst_doradma_src_output_peer_wants_cuda (GstPad * pad)
{
  GstCaps *peer = gst_pad_peer_query_caps (pad, NULL);
  gboolean want = FALSE;
  guint i;

  if (peer == NULL || gst_caps_is_any (peer)) {
    gst_clear_caps (&peer);
    return FALSE;
  }
  for (i = 0; i < gst_caps_get_size (peer) && !want; i++) {
    GstCapsFeatures *f = gst_caps_get_features (peer, i);

    want = f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_DORADMA_CUDA_FEATURE);
  }
  gst_caps_unref (peer);
  return want;
}

GstCaps *
gst_doradma_src_output_choose_caps (GstPad * pad, GstCaps * caps,
    gchar ** no_cuda)
{
  if (gst_doradma_src_output_peer_wants_cuda (pad)) {
    if (gst_doradma_cuda_memory_available (no_cuda)) {
      GstCaps *out = gst_caps_copy (caps);

      gst_caps_set_features (out, 0,
          gst_caps_features_new (GST_DORADMA_CUDA_FEATURE, NULL));
      if (gst_pad_peer_query_accept_caps (pad, out))
        return out;
      gst_caps_unref (out);
    } else {
      GST_WARNING_OBJECT (pad, "downstream asks for %s: %s; offering "
          "system memory", GST_DORADMA_CUDA_FEATURE, *no_cuda);
    }
  }
  if (gst_pad_peer_query_accept_caps (pad, caps))
    return gst_caps_ref (caps);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Buffers */

void
gst_doradma_src_output_init (GstDoradmaSrcOutput * o, GstElement * element)
{
  memset (o, 0, sizeof (*o));
  o->element = element;
  gst_doradma_cuda_output_init (&o->cuda, element);
}

void
gst_doradma_src_output_caps_changed (GstDoradmaSrcOutput * o)
{
  gst_doradma_pool_clear (&o->copy_pool);
  gst_doradma_cuda_output_caps_changed (&o->cuda);
}

void
gst_doradma_src_output_reset (GstDoradmaSrcOutput * o)
{
  gst_doradma_pool_clear (&o->copy_pool);
  gst_doradma_pool_clear (&o->shell_pool);
  gst_doradma_cuda_output_reset (&o->cuda);
  g_atomic_int_set (&o->copies, 0);
  o->over_leases_warned = FALSE;
  o->layout_warned = FALSE;
}

void
gst_doradma_src_output_finalize (GstDoradmaSrcOutput * o)
{
  gst_clear_caps (&o->caps);
  gst_clear_caps (&o->out_caps);
  gst_doradma_pool_clear (&o->shell_pool);
  gst_doradma_cuda_output_finalize (&o->cuda);
}

/* The default-layout pool of the current caps. */
static GstBufferPool *
copy_pool (GstDoradmaSrcOutput * o)
{
  if (o->copy_pool == NULL)
    o->copy_pool = gst_doradma_pool_activate (gst_video_buffer_pool_new (),
        o->caps, o->info.size);
  return o->copy_pool;
}

/* Does downstream read the frame's layout as it is? */
static gboolean
layout_readable (GstDoradmaSrcOutput * o, const GstDoradmaConsumerFrame * fr)
{
  return o->downstream_meta
      || gst_doradma_frame_is_default_layout (&o->info, &fr->f.info);
}

/* `in` copied into the default layout of the current caps. */
static GstBuffer *
copy_to_default_layout (GstDoradmaSrcOutput * o, GstBuffer * in)
{
  GstBuffer *out = gst_doradma_frame_copy_to_default_layout (copy_pool (o),
      &o->info, in);

  if (out)
    g_atomic_int_inc (&o->copies);
  else
    GST_ELEMENT_ERROR (o->element, RESOURCE, NO_SPACE_LEFT,
        ("Could not copy a frame into a local buffer"),
        ("caps %" GST_PTR_FORMAT, o->caps));
  return out;
}

/* copy mode: the bytes are in the writer's layout, with meta when
 * downstream reads it (or the layout is the default one). */
static GstBuffer *
copied_to_buffer (GstDoradmaSrcOutput * o, GstDoradmaConsumerFrame * fr)
{
  GstBuffer *copied = g_steal_pointer (&fr->copy), *out;

  g_atomic_int_inc (&o->copies);        /* the copy under the seqlock */
  gst_doradma_frame_add_metas (copied, &o->info, &fr->f.info);
  if (layout_readable (o, fr))
    return copied;
  out = copy_to_default_layout (o, copied);
  gst_buffer_unref (copied);
  return out;
}

/* GPU paths: CUDA memory out, copy-to, or an ipc slot downloaded. */
static GstBuffer *
gpu_to_buffer (GstDoradmaSrcOutput * o, GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr)
{
  gchar *err = NULL;
  GstBuffer *buf;

#ifdef HAVE_GST_CUDA
  if (o->cuda_out)
    buf = gst_doradma_cuda_output_cuda_memory (&o->cuda, c, fr, o->out_caps,
        &o->info, &err);
  else
#endif
  if (o->copy_to != GST_DORADMA_COPY_TO_NONE)
    buf = gst_doradma_cuda_output_copy_to_slab (&o->cuda, c, fr, o->copy_to,
        o->copy_budget, &o->info, layout_readable (o, fr), &err);
  else if ((buf = gst_doradma_cuda_output_download (&o->cuda, c, fr,
              copy_pool (o), &o->info, &err)))
    g_atomic_int_inc (&o->copies);
  if (buf == NULL)
    GST_ELEMENT_ERROR (o->element, RESOURCE, FAILED,
        ("Could not copy a frame on the GPU"), ("%s",
            err ? err : "unknown error"));
  g_free (err);
  return buf;
}

/* The zero-copy path: the lease in a buffer, copied into the default
 * layout when over quota or when downstream cannot read the layout. */
/* The frame meta with when the frame was received and delivered (now). */
/* The frame's meta on `buf` (added, or a recycled buffer's updated); its
 * delivery time is the caller's, once the buffer is built. */
static GstDoradmaFrameMeta *
set_frame_meta (GstBuffer * buf, const GstDoradmaConsumerFrame * fr)
{
  GstDoradmaFrameMeta *m = gst_buffer_add_doradma_frame_meta (buf,
      fr->f.info.seq, fr->f.skipped, fr->f.info.publish_time,
      fr->f.info.caps_epoch);

  m->receive_time = fr->received;
  return m;
}

/* The buffer is a recycled shell (gstdoradmashellpool.h) holding the
 * consumer's recycled lease memory; its metas, kept POOLED, are updated in
 * place: nothing is allocated once the shells exist. */
static GstBuffer *
lease_to_buffer (GstDoradmaSrcOutput * o, GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr, GstDoradmaFrameMeta ** meta)
{
  GstBuffer *leased = NULL, *out;
  guint outstanding;
  gboolean over_quota;

  if (o->shell_pool == NULL)
    o->shell_pool = gst_doradma_shell_pool_new ();
  if (o->shell_pool == NULL || gst_buffer_pool_acquire_buffer (o->shell_pool,
          &leased, NULL) != GST_FLOW_OK)
    leased = gst_buffer_new ();
  gst_buffer_append_memory (leased, gst_doradma_consumer_lease_memory (c, fr));
  gst_doradma_frame_add_metas (leased, &o->info, &fr->f.info);
  /* here so that it is kept POOLED too */
  *meta = set_frame_meta (leased, fr);
  gst_doradma_shell_pool_keep_metas (leased);
  /* read once: the buffers out change under us (other threads free them) */
  outstanding = gst_doradma_consumer_outstanding (c);
  over_quota = outstanding > o->max_leases;
  if (!over_quota && layout_readable (o, fr))
    return leased;
  /* a downstream queue holding many buffers must not pin the ring; the
   * developer is told once, not left with silent copies */
  if (over_quota && !o->over_leases_warned) {
    o->over_leases_warned = TRUE;
    GST_ELEMENT_WARNING (o->element, RESOURCE, BUSY,
        ("max-leases (%u) reached: copying frames instead of lending ring "
            "slots; downstream holds too many buffers (appsink: keep "
            "max-buffers at max-leases - 2 or less, drop=true)",
            o->max_leases), ("%u buffers outstanding; counted in stats "
            "\"copies\"", outstanding));
  } else if (!over_quota && !o->layout_warned) {
    /* a padded producer (a decoder) and a downstream without GstVideoMeta
     * (appsink, many apps): every frame is copied; say so once (R4-P3) */
    o->layout_warned = TRUE;
    GST_ELEMENT_WARNING (o->element, STREAM, FORMAT,
        ("Copying every frame: the producer's layout is not the default one "
            "of the caps and downstream does not accept GstVideoMeta"),
        ("strides/offsets of the writer (a decoder's padding, a crop) need "
            "GstVideoMeta in the ALLOCATION answer to be lent zero-copy; "
            "appsink does not offer it; counted in stats \"copies\""));
  }
  *meta = NULL;
  out = copy_to_default_layout (o, leased);
  gst_buffer_unref (leased);
  return out;
}

GstBuffer *
gst_doradma_src_output_frame (GstDoradmaSrcOutput * o, GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * fr)
{
  GstDoradmaFrameMeta *meta = NULL;
  GstBuffer *buf;

  if (fr->copy)
    buf = copied_to_buffer (o, fr);
  else if (o->cuda_out || o->copy_to != GST_DORADMA_COPY_TO_NONE
      || fr->f.data == NULL)
    buf = gpu_to_buffer (o, c, fr);
  else
    buf = lease_to_buffer (o, c, fr, &meta);
  if (buf == NULL)
    return NULL;
  /* once per frame: the lease path gave its shell the meta already */
  if (meta == NULL)
    meta = set_frame_meta (buf, fr);
  meta->delivery_time = gst_doradma_monotonic_now ();
  return buf;
}
