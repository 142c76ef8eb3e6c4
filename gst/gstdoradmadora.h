/* doradma GStreamer plugin — dora-rs memory pools (`dora-pool=`), the
 * second format beside the ring: doradmasrc reads a dora pool, doradmasink
 * writes one. The elements keep their ring code; one call at the end of
 * their class_init wraps their vfuncs so that each goes to the dora path
 * first when `dora-pool` is set. The state lives on the element as qdata,
 * so the elements' instance structs and functions do not change.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DORA_H__
#define __GST_DORADMA_DORA_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  GST_DORADMA_CHANNEL_ORDER_RGB,
  GST_DORADMA_CHANNEL_ORDER_BGR,
} GstDoradmaChannelOrder;

GType gst_doradma_channel_order_get_type (void);
#define GST_TYPE_DORADMA_CHANNEL_ORDER (gst_doradma_channel_order_get_type ())

/* Hooks the dora path into doradmasrc's class: installs the properties
 * dora-pool, poll-interval, channel-order and caps (ids from
 * GST_DORADMA_DORA_PROP_BASE up), and wraps set/get_property and the base
 * class vfuncs (start, stop, get_caps, negotiate, unlock, unlock_stop,
 * create) so that they run the dora path when `dora-pool` is set and the
 * element's own otherwise. Call at the END of class_init. */
void gst_doradma_dora_src_class_hook (GObjectClass * klass);

/* The same for doradmasink: the property dora-pool; set/get_property,
 * start, stop, set_caps, propose_allocation and render. */
void gst_doradma_dora_sink_class_hook (GObjectClass * klass);

/* Before a dora pool is touched: `channel` unset (one element, one
 * format) and `name` valid. FALSE after posting an error that says which. */
gboolean gst_doradma_dora_check_settings (GstElement * element,
    const gchar * name);

/* Far above any element's own property ids. */
#define GST_DORADMA_DORA_PROP_BASE 0x1000

G_END_DECLS
#endif
