/* doradma application SDK — GstDoradmaFrameMeta.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaframemeta.h"

GType
gst_doradma_frame_meta_api_get_type (void)
{
  static GType type = 0;
  /* no tags: nothing in it depends on the memory or the video layout, so
   * elements that transform buffers keep it */
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register ("GstDoradmaFrameMetaAPI", tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
frame_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstDoradmaFrameMeta *m = (GstDoradmaFrameMeta *) meta;

  m->seq = m->skipped = m->publish_time = 0;
  m->caps_epoch = 0;
  m->receive_time = m->delivery_time = 0;
  return TRUE;
}

static gboolean
frame_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstDoradmaFrameMeta *m = (GstDoradmaFrameMeta *) meta;
  GstDoradmaFrameMeta *d = gst_buffer_add_doradma_frame_meta (dest, m->seq,
      m->skipped, m->publish_time, m->caps_epoch);

  if (d == NULL)
    return FALSE;
  d->receive_time = m->receive_time;
  d->delivery_time = m->delivery_time;
  return TRUE;
}

const GstMetaInfo *
gst_doradma_frame_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_DORADMA_FRAME_META_API_TYPE,
        "GstDoradmaFrameMeta", sizeof (GstDoradmaFrameMeta),
        frame_meta_init, NULL, frame_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstDoradmaFrameMeta *
gst_buffer_add_doradma_frame_meta (GstBuffer * buffer, guint64 seq,
    guint64 skipped, guint64 publish_time, guint32 caps_epoch)
{
  GstDoradmaFrameMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);

  /* one per buffer: a recycled buffer's is updated, not doubled */
  m = gst_buffer_get_doradma_frame_meta (buffer);
  if (m == NULL)
    m = (GstDoradmaFrameMeta *) gst_buffer_add_meta (buffer,
        GST_DORADMA_FRAME_META_INFO, NULL);
  m->seq = seq;
  m->skipped = skipped;
  m->publish_time = publish_time;
  m->caps_epoch = caps_epoch;
  return m;
}

GstDoradmaFrameMeta *
gst_buffer_get_doradma_frame_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstDoradmaFrameMeta *) gst_buffer_get_meta (buffer,
      GST_DORADMA_FRAME_META_API_TYPE);
}
