/* doradma network plugin — registration only: doradmanetsink and
 * doradmanetsrc, the elements that link UCX (gst/net/meson.build says why
 * they are a plugin of their own).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetelements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (doradmanetsink, plugin);
  ret |= GST_ELEMENT_REGISTER (doradmanetsrc, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, doradmanet,
    "Raw video frames between hosts over UCX, into a doradma ring",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
