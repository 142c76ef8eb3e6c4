/* doradma GStreamer plugin — the settings both elements resolve or check.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <doradma/doradma.h>

#include "gstdoradmasettings.h"

const gchar *
gst_doradma_transport_name (GstDoradmaTransport t)
{
  switch (t) {
    case GST_DORADMA_TRANSPORT_SHMEM:
      return "shmem";
    case GST_DORADMA_TRANSPORT_UNIFIED:
      return "unified";
    case GST_DORADMA_TRANSPORT_IPC:
      return "ipc";
    default:
      return "auto";
  }
}

gboolean
gst_doradma_transport_from_env (GstDoradmaTransport * from_env,
    gchar ** bad_value)
{
  const gchar *env = g_getenv ("DORADMA_TRANSPORT");

  *from_env = GST_DORADMA_TRANSPORT_AUTO;
  if (env == NULL || env[0] == '\0' || g_str_equal (env, "auto"))
    return TRUE;
  if (g_str_equal (env, "shmem"))
    *from_env = GST_DORADMA_TRANSPORT_SHMEM;
  else if (g_str_equal (env, "unified"))
    *from_env = GST_DORADMA_TRANSPORT_UNIFIED;
  else if (g_str_equal (env, "ipc"))
    *from_env = GST_DORADMA_TRANSPORT_IPC;
  else {
    *bad_value = g_strdup (env);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_doradma_transport_from_env_or_error (GstElement * element,
    GstDoradmaTransport * from_env)
{
  gchar *bad = NULL;

  if (gst_doradma_transport_from_env (from_env, &bad))
    return TRUE;
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
      ("Invalid value \"%s\" in the DORADMA_TRANSPORT environment variable",
          bad), ("DORADMA_TRANSPORT must be empty, auto, shmem, unified "
          "or ipc"));
  g_free (bad);
  return FALSE;
}

gboolean
gst_doradma_transport_resolve_or_error (GstElement * element,
    GstDoradmaTransport requested, GstDoradmaTransport * resolved)
{
  GstDoradmaTransport from_env;

  *resolved = requested;
  /* the variable overrides `auto` only: an explicit property wins */
  if (requested != GST_DORADMA_TRANSPORT_AUTO)
    return TRUE;
  if (!gst_doradma_transport_from_env_or_error (element, &from_env))
    return FALSE;
  *resolved = from_env == GST_DORADMA_TRANSPORT_AUTO ?
      GST_DORADMA_TRANSPORT_SHMEM : from_env;
  return TRUE;
}

gboolean
gst_doradma_channel_check_or_error (GstElement * element, const gchar * channel)
{
  struct doradma_diag diag = { 0 };
  int r;

  if (channel == NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("No channel name set"),
        ("set the `channel` property"));
    return FALSE;
  }
  if ((r = doradma_name_validate (channel, &diag)) < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, SETTINGS,
        ("Invalid channel name \"%s\"", channel),
        ("%s: %s", diag.msg, g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, NULL));
    return FALSE;
  }
  return TRUE;
}
