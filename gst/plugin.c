/* doradma GStreamer plugin — registration only.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/doradma/gstdoradmaallocator.h>
#include "gstdoradmaelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (doradmasink, plugin);
  ret |= GST_ELEMENT_REGISTER (doradmasrc, plugin);
  /* DoradmaSlabManaged/Pinned/Device; CUDA loads on the first allocation. */
  gst_doradma_slab_allocator_register_all ();
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, doradma,
    "Zero-copy raw video between processes through a shared-memory ring",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
