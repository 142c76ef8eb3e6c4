/* doradma network plugin — the pre-shared key of doradmanetsink and
 * doradmanetsrc (`key-file`) and the HMAC-SHA-256 of their mutual
 * challenge-response (gstdoradmanetwire.h, struct doradma_net_auth;
 * docs/network.md, "Authentication"). GnuTLS does the cryptography.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_AUTH_H__
#define __GST_DORADMA_NET_AUTH_H__

#include <gst/gst.h>

#include "gstdoradmanetwire.h"

G_BEGIN_DECLS
/* The key in file `path`: its bytes as they are, at least 16 and at most
 * 4096; the file must not be readable by group or others (as ssh's keys).
 * NULL with an error naming the file otherwise. */
    GBytes * gst_doradma_net_auth_load_key (const gchar * path,
    GError ** error);

/* DORADMA_NET_AUTH_BYTES fresh random bytes. FALSE if GnuTLS has none. */
gboolean gst_doradma_net_auth_nonce (guint8 * nonce);

/* Whose MAC: the label it starts with ("doradma-net-v1 sender",
 * "... receiver", "... door sender", "... door receiver"), so that no MAC
 * of one message verifies as another's. */
typedef enum
{
  GST_DORADMA_NET_AUTH_SENDER,
  GST_DORADMA_NET_AUTH_RECEIVER,
  GST_DORADMA_NET_AUTH_DOOR_SENDER,
  GST_DORADMA_NET_AUTH_DOOR_RECEIVER,
} GstDoradmaNetAuthRole;

/* HMAC-SHA-256 (key, `role`'s label with its NUL, `first`, `second`,
 * first_flags and second_flags as 32-bit little-endian) into `mac`
 * (DORADMA_NET_AUTH_BYTES). The flags are the auth messages' (encrypt; a
 * door proof's port): the nonce's owner's first. */
void gst_doradma_net_auth_mac (GBytes * key, GstDoradmaNetAuthRole role,
    const guint8 * first, const guint8 * second, guint32 first_flags,
    guint32 second_flags, guint8 * mac);

/* `mac` is the one the key gives (constant time). */
gboolean gst_doradma_net_auth_check (GBytes * key, GstDoradmaNetAuthRole role,
    const guint8 * first, const guint8 * second, guint32 first_flags,
    guint32 second_flags, const guint8 * mac);

G_END_DECLS
#endif /* __GST_DORADMA_NET_AUTH_H__ */
