/* doradma network plugin — the allow-list of peer addresses (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <netinet/in.h>

#include <gio/gio.h>

#include "gstdoradmanetallow.h"

/* A prefix length above 128 is refused here: GLib (2.74) passes it to its
 * "length" property unchecked, which warns (fatal with G_DEBUG) instead
 * of failing; the rest of the check is GLib's. */
static gboolean
length_fits (const gchar * entry, GError ** e)
{
  const gchar *slash = strchr (entry, '/');

  if (slash == NULL || g_ascii_string_to_unsigned (slash + 1, 10, 0, 128,
          NULL, NULL))
    return TRUE;
  g_set_error (e, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
      "the prefix length is not a number from 0 to 128");
  return FALSE;
}

GPtrArray *
gst_doradma_net_allow_parse (const gchar * list, const gchar * what,
    GError ** error)
{
  GPtrArray *masks;
  gchar **entries;
  guint i;

  if (list == NULL)
    return NULL;
  masks = g_ptr_array_new_with_free_func (g_object_unref);
  entries = g_strsplit (list, ",", -1);
  for (i = 0; entries[i]; i++) {
    gchar *entry = g_strstrip (entries[i]);
    GInetAddressMask *mask;
    GError *e = NULL;

    if (entry[0] == '\0')
      continue;
    mask = length_fits (entry, &e) ?
        g_inet_address_mask_new_from_string (entry, &e) : NULL;
    if (mask == NULL) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "%s: \"%s\" is not an IP address or an address/prefix-length "
          "(%s)", what, entry, e->message);
      g_clear_error (&e);
      g_strfreev (entries);
      g_ptr_array_unref (masks);
      return NULL;
    }
    g_ptr_array_add (masks, mask);
  }
  g_strfreev (entries);
  if (masks->len == 0) {
    g_ptr_array_unref (masks);
    return NULL;
  }
  return masks;
}

/* The GInetAddress of `sa`, an IPv4-mapped IPv6 one as IPv4 (a listener
 * on "::" sees IPv4 peers so) */
static GInetAddress *
address_of (const struct sockaddr *sa)
{
  if (sa->sa_family == AF_INET)
    return g_inet_address_new_from_bytes ((const guint8 *)
        &((const struct sockaddr_in *) sa)->sin_addr, G_SOCKET_FAMILY_IPV4);
  if (sa->sa_family == AF_INET6) {
    const struct in6_addr *a6 = &((const struct sockaddr_in6 *) sa)->sin6_addr;

    if (IN6_IS_ADDR_V4MAPPED (a6))
      return g_inet_address_new_from_bytes (a6->s6_addr + 12,
          G_SOCKET_FAMILY_IPV4);
    return g_inet_address_new_from_bytes (a6->s6_addr, G_SOCKET_FAMILY_IPV6);
  }
  return NULL;
}

gboolean
gst_doradma_net_allow_check (GPtrArray * allow, const struct sockaddr *sa,
    gchar ** text)
{
  GInetAddress *addr = address_of (sa);
  gboolean ok = allow == NULL;
  guint i;

  for (i = 0; addr && allow && !ok && i < allow->len; i++)
    ok = g_inet_address_mask_matches (g_ptr_array_index (allow, i), addr);
  if (text)
    *text = addr ? g_inet_address_to_string (addr) :
        g_strdup_printf ("(address family %d)", sa->sa_family);
  if (addr)
    g_object_unref (addr);
  return ok;
}
