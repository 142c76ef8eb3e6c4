/* doradma network plugin — AES-256-GCM of encrypt=true (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmanetcrypt.h"

#define NONCE_BYTES 12

gboolean
gst_doradma_net_crypt_derive (const void *psk, gsize psk_len,
    const guint8 * nonce_r, const guint8 * nonce_s, guint8 * to_receiver,
    guint8 * to_sender)
{
  static const char s_info[] = "doradma-net-v1 sender to receiver";
  static const char r_info[] = "doradma-net-v1 receiver to sender";
  guint8 salt[2 * DORADMA_NET_AUTH_BYTES], prk[32];
  gnutls_datum_t ikm = { (unsigned char *) psk, (unsigned int) psk_len };
  gnutls_datum_t s = { salt, sizeof (salt) };
  gnutls_datum_t p = { prk, sizeof (prk) };
  gnutls_datum_t si = { (unsigned char *) s_info, sizeof (s_info) - 1 };
  gnutls_datum_t ri = { (unsigned char *) r_info, sizeof (r_info) - 1 };
  gboolean ok;

  memcpy (salt, nonce_r, DORADMA_NET_AUTH_BYTES);
  memcpy (salt + DORADMA_NET_AUTH_BYTES, nonce_s, DORADMA_NET_AUTH_BYTES);
  ok = gnutls_hkdf_extract (GNUTLS_MAC_SHA256, &ikm, &s, prk) == 0
      && gnutls_hkdf_expand (GNUTLS_MAC_SHA256, &p, &si, to_receiver,
      GST_DORADMA_NET_CRYPT_KEY_BYTES) == 0
      && gnutls_hkdf_expand (GNUTLS_MAC_SHA256, &p, &ri, to_sender,
      GST_DORADMA_NET_CRYPT_KEY_BYTES) == 0;
  gnutls_memset (prk, 0, sizeof (prk));
  return ok;
}

gboolean
gst_doradma_net_crypt_init (GstDoradmaNetCrypt * c, const guint8 * key)
{
  gnutls_datum_t k = { (unsigned char *) key,
    GST_DORADMA_NET_CRYPT_KEY_BYTES
  };

  gst_doradma_net_crypt_clear (c);
  if (gnutls_aead_cipher_init (&c->handle, GNUTLS_CIPHER_AES_256_GCM, &k) != 0) {
    c->handle = NULL;
    return FALSE;
  }
  return TRUE;
}

void
gst_doradma_net_crypt_clear (GstDoradmaNetCrypt * c)
{
  if (c->handle)
    gnutls_aead_cipher_deinit (c->handle);
  c->handle = NULL;
}

static void
make_nonce (guint8 * nonce, guint32 domain, guint64 counter)
{
  guint32 d = GUINT32_TO_BE (domain);
  guint64 n = GUINT64_TO_BE (counter);

  memcpy (nonce, &d, 4);
  memcpy (nonce + 4, &n, 8);
}

gboolean
gst_doradma_net_crypt_seal (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 counter, const void *aad, gsize aad_len, const void *in,
    gsize len, void *out, guint8 * tag)
{
  guint8 nonce[NONCE_BYTES], only_tag[DORADMA_NET_TAG_BYTES];
  guint8 *ctext = len ? out : only_tag;
  size_t ctext_len = len + DORADMA_NET_TAG_BYTES;

  if (c->handle == NULL)
    return FALSE;
  make_nonce (nonce, domain, counter);
  /* one pass from `in` to `out` (the sender's frame is not ours to write);
   * GnuTLS puts the tag after the ciphertext */
  if (gnutls_aead_cipher_encrypt (c->handle, nonce, sizeof (nonce), aad,
          aad_len, DORADMA_NET_TAG_BYTES, len ? in : NULL, len, ctext,
          &ctext_len) != 0 || ctext_len != len + DORADMA_NET_TAG_BYTES)
    return FALSE;
  memcpy (tag, ctext + len, DORADMA_NET_TAG_BYTES);
  return TRUE;
}

gboolean
gst_doradma_net_crypt_open (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 counter, const void *aad, gsize aad_len, void *data, gsize len,
    const guint8 * tag)
{
  guint8 nonce[NONCE_BYTES], t[DORADMA_NET_TAG_BYTES], dummy = 0;
  giovec_t a = { (void *) aad, aad_len };
  giovec_t d = { len ? data : &dummy, len };

  if (c->handle == NULL)
    return FALSE;
  make_nonce (nonce, domain, counter);
  memcpy (t, tag, sizeof (t));
  /* in place: the receiver's ring slot is decrypted where it landed */
  return gnutls_aead_cipher_decryptv2 (c->handle, nonce, sizeof (nonce),
      &a, aad_len ? 1 : 0, &d, 1, t, sizeof (t)) == 0;
}

/* the AAD of a control message: its body, then its counter */
static guint8 *
message_aad (const void *body, gsize len, guint64 counter, gsize * aad_len)
{
  guint8 *aad = g_malloc (len + 8);
  guint64 le = GUINT64_TO_LE (counter);

  if (len)
    memcpy (aad, body, len);
  memcpy (aad + len, &le, 8);
  *aad_len = len + 8;
  return aad;
}

gboolean
gst_doradma_net_crypt_seal_message (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 * counter, const void *body, gsize len, struct doradma_net_seal *s)
{
  gsize aad_len;
  guint8 *aad;
  gboolean ok;

  memset (s, 0, sizeof (*s));
  s->counter = ++*counter;
  aad = message_aad (body, len, s->counter, &aad_len);
  ok = gst_doradma_net_crypt_seal (c, domain, s->counter, aad, aad_len, NULL,
      0, NULL, s->tag);
  g_free (aad);
  return ok;
}

gboolean
gst_doradma_net_crypt_open_message (GstDoradmaNetCrypt * c, guint32 domain,
    guint64 * last, const void *body, gsize len,
    const struct doradma_net_seal *s)
{
  gsize aad_len;
  guint8 *aad;
  gboolean ok;

  if (s->counter <= *last)
    return FALSE;
  aad = message_aad (body, len, s->counter, &aad_len);
  ok = gst_doradma_net_crypt_open (c, domain, s->counter, aad, aad_len, NULL,
      0, s->tag);
  g_free (aad);
  if (ok)
    *last = s->counter;
  return ok;
}
