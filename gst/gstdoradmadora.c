/* doradma GStreamer plugin — what doradmasrc's and doradmasink's dora paths
 * share: the settings check before a pool is touched.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <doradma/dora-pool.h>

#include "gstdoradmadora.h"

gboolean
gst_doradma_dora_check_settings (GstElement * element, const gchar * name)
{
  struct doradma_diag diag = { 0 };
  gchar *channel = NULL;
  int ret;

  /* one element, one format: a channel is a doradma ring, never a pool */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "channel"))
    g_object_get (element, "channel", &channel, NULL);
  if (channel != NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Both `channel` and `dora-pool` are set"),
        ("%s uses either a doradma channel (\"%s\") or a dora pool (\"%s\"): "
            "unset one of them", GST_OBJECT_NAME (element), channel, name));
    g_free (channel);
    return FALSE;
  }
  if ((ret = doradma_pool_name_validate (name, &diag)) < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, SETTINGS,
        ("Invalid dora pool name \"%s\"", name),
        ("%s: %s", diag.msg, g_strerror (-ret)),
        ("dora-pool", G_TYPE_STRING, name, NULL));
    return FALSE;
  }
  return TRUE;
}
