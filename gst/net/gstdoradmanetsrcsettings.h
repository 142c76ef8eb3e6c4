/* doradma network plugin — private: doradmanetsrc's settings.
 *
 * One responsibility: its properties, stats but its value (the element's
 * gst_doradma_net_src_get_stats): their specs and documentation, defaults
 * and values, under the element's object lock. start() copies what the
 * streaming thread uses.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SRC_SETTINGS_H__
#define __GST_DORADMA_NET_SRC_SETTINGS_H__

#include "gstdoradmanetsrcprivate.h"

G_BEGIN_DECLS
/* From class_init: set/get_property and the properties. */
void gst_doradma_net_src_settings_install (GObjectClass * gobject_class);

/* From init: the defaults. */
void gst_doradma_net_src_settings_init (GstDoradmaNetSrc * self);

/* From finalize: frees the values. */
void gst_doradma_net_src_settings_clear (GstDoradmaNetSrc * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SRC_SETTINGS_H__ */
