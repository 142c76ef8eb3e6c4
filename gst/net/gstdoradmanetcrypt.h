/* doradma network plugin — private: the confidentiality of
 * doradmanetsink / doradmanetsrc with encrypt=true (docs/network.md,
 * "Encryption").
 *
 * One responsibility: the per-connection keys and AES-256-GCM (GnuTLS).
 * Keys: HKDF-SHA-256 (RFC 5869) over the pre-shared key, salted with both
 * handshake nonces (nonce_r then nonce_s), one key per direction: fresh
 * nonces on every connection give fresh keys. The 96-bit GCM nonce of a
 * message is a domain (what the message is: 4 bytes, big-endian) and a
 * counter (8 bytes, big-endian) that the caller never repeats under one
 * key and domain: a frame's sender_seq, an EOS's or a credit's own
 * counter. No UCX, no GStreamer: the unit test links this file alone.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_CRYPT_H__
#define __GST_DORADMA_NET_CRYPT_H__

#include <glib.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>

#include "gstdoradmanetwire.h"

G_BEGIN_DECLS
#define GST_DORADMA_NET_CRYPT_KEY_BYTES 32
/* nonce domains */
#define GST_DORADMA_NET_CRYPT_PAYLOAD 1u        /* sender → receiver */
#define GST_DORADMA_NET_CRYPT_HEADER 2u /* sender → receiver */
#define GST_DORADMA_NET_CRYPT_EOS 3u    /* sender → receiver */
#define GST_DORADMA_NET_CRYPT_CREDIT 4u /* receiver → sender */
/* One direction's key. */
    typedef struct
{
  gnutls_aead_cipher_hd_t handle;       /* NULL: none */
} GstDoradmaNetCrypt;

/* The two keys of a connection (GST_DORADMA_NET_CRYPT_KEY_BYTES each):
 * HKDF-SHA-256, salt nonce_r || nonce_s, input psk, info
 * "doradma-net-v1 sender to receiver" / "... receiver to sender". */
gboolean gst_doradma_net_crypt_derive (const void *psk, gsize psk_len,
    const guint8 * nonce_r, const guint8 * nonce_s, guint8 * to_receiver,
    guint8 * to_sender);

/* A key of GST_DORADMA_NET_CRYPT_KEY_BYTES; FALSE if GnuTLS refuses. */
gboolean gst_doradma_net_crypt_init (GstDoradmaNetCrypt * c,
    const guint8 * key);
/* Forgets the key (idempotent). */
void gst_doradma_net_crypt_clear (GstDoradmaNetCrypt * c);

/* Encrypts `len` bytes of `in` into `out` (which has room for len +
 * DORADMA_NET_TAG_BYTES; may be NULL when len is 0), `aad` authenticated
 * with them; the tag into `tag`. */
gboolean gst_doradma_net_crypt_seal (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 counter, const void *aad, gsize aad_len, const void *in,
    gsize len, void *out, guint8 * tag);

/* Decrypts `len` bytes of `data` in place; FALSE (data then garbage) when
 * the tag, the aad or the data is not what was sealed. */
gboolean gst_doradma_net_crypt_open (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 counter, const void *aad, gsize aad_len, void *data, gsize len,
    const guint8 * tag);

/* A control message `body` (clear, authenticated) sealed with counter
 * ++*counter into `s`. */
gboolean gst_doradma_net_crypt_seal_message (GstDoradmaNetCrypt * c,
    guint32 domain, guint64 * counter, const void *body, gsize len,
    struct doradma_net_seal *s);
/* `s` authenticates `body` and its counter is above *last (then
 * *last = it): FALSE for a forged, altered, replayed or reordered one. */
gboolean gst_doradma_net_crypt_open_message (GstDoradmaNetCrypt * c,
    guint32 domain, guint64 * last, const void *body, gsize len,
    const struct doradma_net_seal *s);

G_END_DECLS
#endif /* __GST_DORADMA_NET_CRYPT_H__ */
