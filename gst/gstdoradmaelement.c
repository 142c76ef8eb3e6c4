/* doradma GStreamer plugin — the debug categories of the shared code and
 * the enum types marked as plugin API, once per process.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaelements.h"
#include "gstdoradmaenums.h"
#include "gstdoradmapool.h"
#include "gstdoradmaproducer.h"
#include "gstdoradmasinkcudapool.h"

GST_DEBUG_CATEGORY (gst_doradma_debug);

void
gst_doradma_element_init (GstPlugin * plugin)
{
  static gsize res = FALSE;

  if (g_once_init_enter (&res)) {
    GST_DEBUG_CATEGORY_INIT (gst_doradma_debug, "doradma", 0,
        "doradma shared-memory video ring");
    /* The helpers' categories too (the elements register theirs at class
     * init): listed by --gst-debug-help before any frame. */
    gst_doradma_producer_debug_init ();
    gst_doradma_pool_debug_init ();
    gst_doradma_sink_cuda_pool_debug_init ();
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_TRANSPORT, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_READ_MODE, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_STALL_POLICY, 0);
    gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_WRITER_LOST, 0);
    g_once_init_leave (&res, TRUE);
  }
}
