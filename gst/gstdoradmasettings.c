/* doradma GStreamer plugin — the settings both elements resolve or check.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <unistd.h>

#include <doradma/doradma.h>
#include <doradma/inspect.h>

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

gboolean
gst_doradma_channel_free_or_error (GstElement * element, const gchar * channel)
{
  struct doradma_inspect *in = g_new0 (struct doradma_inspect, 1);
  gboolean ok = TRUE;
  int r;

  /* read-only: opened O_NONBLOCK|O_NOFOLLOW, copied with pread, never
   * mapped or locked (doradma/inspect.h) */
  r = doradma_inspect_channel (NULL, channel, in);
  if (r == -ENOENT) {
    /* nothing there: the usual case */
  } else if (r < 0 || in->object.rc < 0) {
    const struct doradma_diag *d = &in->object.diag;

    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, OPEN_WRITE,
        ("Could not create channel \"%s\"", channel),
        ("%s", d->msg[0] ? d->msg : g_strerror (-r)),
        ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING,
            d->field ? d->field : "", NULL));
    ok = FALSE;
  } else if (in->uid != (guint32) geteuid ()) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, NOT_AUTHORIZED,
        ("Not allowed to create channel \"%s\"", channel),
        ("%s belongs to uid %u: only its owner may replace it",
            in->data_path, in->uid),
        ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING, "owner",
            NULL));
    ok = FALSE;
  } else if (in->writer_alive == 1) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, BUSY,
        ("Channel \"%s\" is in use by another live writer", channel),
        ("%s: its writer, process %u, holds the writer lock",
            in->data_path, in->segment.rc == 0 ? in->writer_pid :
            in->rcb_read ? in->rcb.writer_pid : 0),
        ("channel", G_TYPE_STRING, channel, NULL));
    ok = FALSE;
  }
  doradma_inspect_clear (in);
  g_free (in);
  return ok;
}
