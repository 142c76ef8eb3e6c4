/* doradma GStreamer plugin — dora-rs memory pools (`dora-pool=`), the
 * second format beside the ring: doradmasrc reads a dora pool, doradmasink
 * writes one. The elements keep their ring code; each vfunc dispatches here
 * first when `dora-pool` is set. The state lives on the element as qdata,
 * so the elements' instance structs do not change.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DORA_H__
#define __GST_DORADMA_DORA_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gst/base/gstbasesrc.h>

G_BEGIN_DECLS

typedef enum
{
  GST_DORADMA_CHANNEL_ORDER_RGB,
  GST_DORADMA_CHANNEL_ORDER_BGR,
} GstDoradmaChannelOrder;

GType gst_doradma_channel_order_get_type (void);
#define GST_TYPE_DORADMA_CHANNEL_ORDER (gst_doradma_channel_order_get_type ())

/* doradmasrc: installs dora-pool, poll-interval, channel-order and caps
 * with ids first_id, first_id + 1, ... (after the element's own). */
void gst_doradma_dora_src_install_properties (GObjectClass * klass,
    guint first_id);
/* TRUE when prop_id is one of ours (handled). */
gboolean gst_doradma_dora_src_set_property (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_doradma_dora_src_get_property (GObject * object, guint prop_id,
    GValue * value);
/* TRUE when `dora-pool` is set: the vfuncs below replace the ring's. */
gboolean gst_doradma_dora_src_enabled (GstBaseSrc * src);
/* `channel` is the element's channel property (an error when both set). */
gboolean gst_doradma_dora_src_start (GstBaseSrc * src, const gchar * channel);
gboolean gst_doradma_dora_src_stop (GstBaseSrc * src);
GstFlowReturn gst_doradma_dora_src_create (GstBaseSrc * src,
    GstBuffer ** outbuf);
GstCaps *gst_doradma_dora_src_get_caps (GstBaseSrc * src, GstCaps * filter);
gboolean gst_doradma_dora_src_negotiate (GstBaseSrc * src);
gboolean gst_doradma_dora_src_unlock (GstBaseSrc * src, gboolean unlocked);

/* doradmasink: installs dora-pool with id first_id. */
void gst_doradma_dora_sink_install_properties (GObjectClass * klass,
    guint first_id);
gboolean gst_doradma_dora_sink_set_property (GObject * object, guint prop_id,
    const GValue * value);
gboolean gst_doradma_dora_sink_get_property (GObject * object, guint prop_id,
    GValue * value);
gboolean gst_doradma_dora_sink_enabled (GstBaseSink * sink);
gboolean gst_doradma_dora_sink_start (GstBaseSink * sink,
    const gchar * channel);
gboolean gst_doradma_dora_sink_stop (GstBaseSink * sink);
gboolean gst_doradma_dora_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
gboolean gst_doradma_dora_sink_propose_allocation (GstBaseSink * sink,
    GstQuery * query);
GstFlowReturn gst_doradma_dora_sink_render (GstBaseSink * sink,
    GstBuffer * buf);

G_END_DECLS
#endif
