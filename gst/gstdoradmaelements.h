/* doradma GStreamer plugin — the elements' registration and the shared
 * debug category.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ELEMENTS_H__
#define __GST_DORADMA_ELEMENTS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (doradmasink);
GST_ELEMENT_REGISTER_DECLARE (doradmasrc);

GST_DEBUG_CATEGORY_EXTERN (gst_doradma_debug);

/* Once per process: the shared debug category, and every property enum
 * (gstdoradmaenums.h) marked as plugin API (nowhere else). */
void gst_doradma_element_init (GstPlugin * plugin);

G_END_DECLS
#endif /* __GST_DORADMA_ELEMENTS_H__ */
