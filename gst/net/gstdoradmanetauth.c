/* doradma network plugin — the pre-shared key and its HMAC
 * (gstdoradmanetauth.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "gstdoradmanetauth.h"

#define MIN_KEY 16
#define MAX_KEY 4096

GBytes *
gst_doradma_net_auth_load_key (const gchar * path, GError ** error)
{
  gchar *data = NULL;
  gsize len = 0;
  GStatBuf st;

  if (g_stat (path, &st) != 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "key-file %s: %s", path, g_strerror (errno));
    return NULL;
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "key-file %s is accessible by group or others (mode %04o): "
        "chmod 600 it", path, (guint) (st.st_mode & 07777));
    return NULL;
  }
  if (!g_file_get_contents (path, &data, &len, error))
    return NULL;
  if (len < MIN_KEY || len > MAX_KEY) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "key-file %s has %" G_GSIZE_FORMAT " bytes: a key has %d to %d "
        "(e.g. head -c 32 /dev/urandom | base64 > FILE)", path, len,
        MIN_KEY, MAX_KEY);
    g_free (data);
    return NULL;
  }
  return g_bytes_new_take (data, len);
}

gboolean
gst_doradma_net_auth_nonce (guint8 * nonce)
{
  return gnutls_rnd (GNUTLS_RND_NONCE, nonce, DORADMA_NET_AUTH_BYTES) == 0;
}

void
gst_doradma_net_auth_mac (GBytes * key, GstDoradmaNetAuthRole role,
    const guint8 * first, const guint8 * second, guint32 first_flags,
    guint32 second_flags, guint8 * mac)
{
  static const char *const labels[] = {
    [GST_DORADMA_NET_AUTH_SENDER] = "doradma-net-v1 sender",
    [GST_DORADMA_NET_AUTH_RECEIVER] = "doradma-net-v1 receiver",
    [GST_DORADMA_NET_AUTH_DOOR_SENDER] = "doradma-net-v1 door sender",
    [GST_DORADMA_NET_AUTH_DOOR_RECEIVER] = "doradma-net-v1 door receiver",
  };
  const char *label = labels[role];
  guint8 msg[sizeof ("doradma-net-v1 door receiver")
      + 2 * DORADMA_NET_AUTH_BYTES + 8];
  gsize n = strlen (label) + 1, key_len;
  const void *k = g_bytes_get_data (key, &key_len);
  guint32 f1 = GUINT32_TO_LE (first_flags), f2 = GUINT32_TO_LE (second_flags);

  /* the label with its NUL: the two labels cannot be confused */
  memcpy (msg, label, n);
  memcpy (msg + n, first, DORADMA_NET_AUTH_BYTES);
  memcpy (msg + n + DORADMA_NET_AUTH_BYTES, second, DORADMA_NET_AUTH_BYTES);
  n += 2 * DORADMA_NET_AUTH_BYTES;
  /* both sides' flags (encrypt): changed on the path, no MAC matches */
  memcpy (msg + n, &f1, 4);
  memcpy (msg + n + 4, &f2, 4);
  n += 8;
  if (gnutls_hmac_fast (GNUTLS_MAC_SHA256, k, key_len, msg, n, mac) != 0)
    memset (mac, 0, DORADMA_NET_AUTH_BYTES);    /* matches no check */
}

gboolean
gst_doradma_net_auth_check (GBytes * key, GstDoradmaNetAuthRole role,
    const guint8 * first, const guint8 * second, guint32 first_flags,
    guint32 second_flags, const guint8 * mac)
{
  guint8 want[DORADMA_NET_AUTH_BYTES];
  guint8 diff = 0;
  guint i;

  gst_doradma_net_auth_mac (key, role, first, second, first_flags,
      second_flags, want);
  for (i = 0; i < DORADMA_NET_AUTH_BYTES; i++)
    diff |= want[i] ^ mac[i];
  /* an all-zero expected MAC is GnuTLS failing: never a match */
  for (i = 0; i < DORADMA_NET_AUTH_BYTES && want[i] == 0; i++);
  return diff == 0 && i < DORADMA_NET_AUTH_BYTES;
}
