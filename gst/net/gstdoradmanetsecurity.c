/* doradma network plugin — the security settings of both elements (see
 * the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetsecurity.h"
#include "gstdoradmanetallow.h"
#include "gstdoradmanetauth.h"

/* The blurbs are literals, one per side: G_PARAM_STATIC_STRINGS keeps
 * them unowned. */
void
gst_doradma_net_security_param_specs (GParamSpec ** properties,
    guint key_file, guint encrypt, guint allowed_peers, gboolean sender)
{
  properties[key_file] = g_param_spec_string ("key-file", "Key file",
      sender ? "File with the key shared with the receiver, proved at its "
      "door before UCX connects (none: unauthenticated)" : "File with the "
      "key shared with the sender; port is then a door where the sender "
      "proves it before UCX hears it (none: unauthenticated)", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[encrypt] = g_param_spec_boolean ("encrypt", "Encrypt",
      sender ? "Encrypt and authenticate every frame (AES-256-GCM; needs "
      "key-file; the receiver must set it too)" : "Encrypt and "
      "authenticate every frame (AES-256-GCM; needs key-file; the sender "
      "must set it too)", FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[allowed_peers] = g_param_spec_string ("allowed-peers",
      "Allowed peers", sender ? "Comma-separated IP addresses and CIDR "
      "prefixes of the receivers this sender may connect to; the kernel "
      "drops other hosts' packets to UCX's sockets (empty: any)" :
      "Comma-separated IP addresses and CIDR prefixes of the senders "
      "allowed to connect; the kernel drops other hosts' packets to UCX's "
      "sockets, unanswered (empty: any)", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
}

gboolean
gst_doradma_net_security_start (GstElement * element, gboolean sender,
    gboolean encrypt, const gchar * key_file, const gchar * allowed_peers,
    GPtrArray ** allow, GBytes ** key)
{
  gboolean has_key_file = key_file && key_file[0];
  GError *err = NULL;

  *allow = NULL;
  *key = NULL;
  if (encrypt && !has_key_file) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("encrypt=true needs key-file: the keys are derived from it"),
        ("set key-file (the same key as the %s's) or encrypt=false",
            sender ? "receiver" : "sender"));
    return FALSE;
  }
  *allow = gst_doradma_net_allow_parse (allowed_peers, "allowed-peers", &err);
  if (err == NULL && has_key_file) {
    *key = gst_doradma_net_auth_load_key (key_file, &err);
    /* a key-file set but no key is never "unauthenticated" */
    if (*key == NULL && err == NULL)
      g_set_error (&err, G_FILE_ERROR, G_FILE_ERROR_FAILED,
          "key-file %s: no key loaded", key_file);
  }
  if (err) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    g_clear_pointer (allow, g_ptr_array_unref);
    return FALSE;
  }
  return TRUE;
}
