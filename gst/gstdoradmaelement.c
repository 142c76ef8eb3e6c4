/* doradma GStreamer plugin — the debug category of the shared code and
 * the enum types marked as plugin API, once per process. The families'
 * helpers register their own categories in their elements' registration
 * (gst/ring/gstdoradmasink.c, gst/net/gstdoradmanetsrc.c), so this shared
 * file depends on no family.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaelements.h"
#include "gstdoradmaenums.h"

GST_DEBUG_CATEGORY (gst_doradma_debug);

void
gst_doradma_element_init (GstPlugin * plugin)
{
  static gsize res = FALSE;

  if (g_once_init_enter (&res)) {
    GST_DEBUG_CATEGORY_INIT (gst_doradma_debug, "doradma", 0,
        "doradma shared-memory video ring");
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_TRANSPORT, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_READ_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_STALL_POLICY, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_WRITER_LOST, 0);
    g_once_init_leave (&res, TRUE);
  }
}
