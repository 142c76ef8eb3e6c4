/* encrypt's cryptography (gst/net/gstdoradmanetcrypt.c), without a
 * network: AES-256-GCM against the known answers of the GCM specification
 * (McGrew & Viega, "The Galois/Counter Mode of Operation", test cases
 * 13-16, the 256-bit ones; written in here from the specification, as
 * nettle's testsuite/gcm-test.c carries them), the per-connection keys,
 * and every way a frame or a control message can be altered on the path:
 * a changed payload byte, header (aad) byte or tag byte, a frame's payload
 * under another frame's number (swapped or replayed), the other
 * direction's key, another connection's keys, a replayed or reordered
 * control message. And the wire: an encrypted header is 0x520 bytes with
 * its tags; a truncated tag is refused. net-crypt (netns.sh) runs the
 * elements between namespaces. */
#include <errno.h>
#include <string.h>

#include "gstdoradmanetcrypt.h"

static guint8 *
hex (const gchar * text, gsize * len)
{
  gsize n = strlen (text) / 2, i;
  guint8 *out = g_malloc0 (n + 1);

  for (i = 0; i < n; i++)
    out[i] = (g_ascii_xdigit_value (text[2 * i]) << 4) |
        g_ascii_xdigit_value (text[2 * i + 1]);
  if (len)
    *len = n;
  return out;
}

typedef struct
{
  const gchar *name, *key, *aad, *pt, *ct, *iv_domain, *iv_counter, *tag;
} Vector;

/* the IV of each, split as our nonce is: domain (4 bytes), counter (8) */
static const Vector vectors[] = {
  {"13", "0000000000000000000000000000000000000000000000000000000000000000",
        "", "", "", "00000000", "0000000000000000",
      "530f8afbc74536b9a963b4f1c4cb738b"},
  {"14", "0000000000000000000000000000000000000000000000000000000000000000",
        "", "00000000000000000000000000000000",
        "cea7403d4d606b6e074ec5d3baf39d18", "00000000", "0000000000000000",
      "d0d1c8a799996bf0265b98b5d48ab919"},
  {"15", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        "",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
      "cafebabe", "facedbaddecaf888", "b094dac5d93471bdec1a502270e3cc6c"},
  {"16", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
        "feedfacedeadbeeffeedfacedeadbeefabaddad2",
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
      "cafebabe", "facedbaddecaf888", "76fc6ece0f4e1768cddf8853bb2d551b"},
};

static void
test_known_answers (void)
{
  guint v;

  for (v = 0; v < G_N_ELEMENTS (vectors); v++) {
    const Vector *t = &vectors[v];
    gsize aad_len, pt_len, ct_len;
    guint8 *key = hex (t->key, NULL), *aad = hex (t->aad, &aad_len);
    guint8 *pt = hex (t->pt, &pt_len), *ct = hex (t->ct, &ct_len);
    guint8 *want_tag = hex (t->tag, NULL);
    guint32 domain = (guint32) g_ascii_strtoull (t->iv_domain, NULL, 16);
    guint64 counter = g_ascii_strtoull (t->iv_counter, NULL, 16);
    guint8 *out = g_malloc0 (pt_len + DORADMA_NET_TAG_BYTES);
    guint8 tag[DORADMA_NET_TAG_BYTES];
    GstDoradmaNetCrypt c = { 0 };

    g_test_message ("GCM test case %s", t->name);
    g_assert_cmpuint (pt_len, ==, ct_len);
    g_assert_true (gst_doradma_net_crypt_init (&c, key));
    g_assert_true (gst_doradma_net_crypt_seal (&c, domain, counter, aad,
            aad_len, pt, pt_len, pt_len ? out : NULL, tag));
    g_assert_cmpmem (out, pt_len, ct, ct_len);
    g_assert_cmpmem (tag, sizeof (tag), want_tag, DORADMA_NET_TAG_BYTES);
    /* in place, back to the plaintext */
    g_assert_true (gst_doradma_net_crypt_open (&c, domain, counter, aad,
            aad_len, ct, ct_len, want_tag));
    g_assert_cmpmem (ct, ct_len, pt, pt_len);
    gst_doradma_net_crypt_clear (&c);
    gst_doradma_net_crypt_clear (&c);   /* idempotent */
    g_free (key);
    g_free (aad);
    g_free (pt);
    g_free (ct);
    g_free (want_tag);
    g_free (out);
  }
}

static GBytes *
psk (guint8 fill)
{
  guint8 k[32];

  memset (k, fill, sizeof (k));
  return g_bytes_new (k, sizeof (k));
}

static void
keys_of (GBytes * key, guint8 nr, guint8 ns, guint8 * to_r, guint8 * to_s)
{
  guint8 nonce_r[DORADMA_NET_AUTH_BYTES], nonce_s[DORADMA_NET_AUTH_BYTES];
  gsize len;
  const void *k = g_bytes_get_data (key, &len);

  memset (nonce_r, nr, sizeof (nonce_r));
  memset (nonce_s, ns, sizeof (nonce_s));
  g_assert_true (gst_doradma_net_crypt_derive (k, len, nonce_r, nonce_s,
          to_r, to_s));
}

static void
test_keys (void)
{
  guint8 a_r[32], a_s[32], b_r[32], b_s[32];
  GBytes *k1 = psk (1), *k2 = psk (2);

  keys_of (k1, 1, 2, a_r, a_s);
  keys_of (k1, 1, 2, b_r, b_s);
  /* both ends derive the same */
  g_assert_cmpmem (a_r, 32, b_r, 32);
  g_assert_cmpmem (a_s, 32, b_s, 32);
  /* one key per direction */
  g_assert_true (memcmp (a_r, a_s, 32) != 0);
  /* another connection (either nonce), another key */
  keys_of (k1, 3, 2, b_r, b_s);
  g_assert_true (memcmp (a_r, b_r, 32) != 0 && memcmp (a_s, b_s, 32) != 0);
  keys_of (k1, 1, 3, b_r, b_s);
  g_assert_true (memcmp (a_r, b_r, 32) != 0 && memcmp (a_s, b_s, 32) != 0);
  /* the nonces' order matters (salt nonce_r || nonce_s) */
  keys_of (k1, 2, 1, b_r, b_s);
  g_assert_true (memcmp (a_r, b_r, 32) != 0);
  /* another pre-shared key */
  keys_of (k2, 1, 2, b_r, b_s);
  g_assert_true (memcmp (a_r, b_r, 32) != 0);
  g_bytes_unref (k1);
  g_bytes_unref (k2);
}

/* A frame as doradmanetsink seals it: the header's tag, then the payload
 * bound to it. */
typedef struct
{
  guint8 header[0x500];
  struct doradma_net_frame_tags tags;
  guint8 payload[4096 + DORADMA_NET_TAG_BYTES];
  guint64 seq;
} Frame;

static void
seal (GstDoradmaNetCrypt * c, Frame * f, guint64 seq, guint8 fill)
{
  guint8 plain[4096];

  memset (f->header, 0, sizeof (f->header));
  memcpy (f->header + 0x10, &seq, 8);
  memset (plain, fill, sizeof (plain));
  plain[0] = (guint8) seq;
  f->seq = seq;
  g_assert_true (gst_doradma_net_crypt_seal (c, GST_DORADMA_NET_CRYPT_HEADER,
          seq, f->header, sizeof (f->header), NULL, 0, NULL, f->tags.header));
  g_assert_true (gst_doradma_net_crypt_seal (c, GST_DORADMA_NET_CRYPT_PAYLOAD,
          seq, f->tags.header, DORADMA_NET_TAG_BYTES, plain, sizeof (plain),
          f->payload, f->tags.payload));
  /* the ciphertext is not the plaintext */
  g_assert_true (memcmp (f->payload, plain, sizeof (plain)) != 0);
}

/* What doradmanetsrc checks, for frame `f` arriving as number `seq`. */
static gboolean
open_frame (GstDoradmaNetCrypt * c, Frame * f, guint64 seq)
{
  Frame copy = *f;

  return gst_doradma_net_crypt_open (c, GST_DORADMA_NET_CRYPT_HEADER, seq,
      copy.header, sizeof (copy.header), NULL, 0, copy.tags.header)
      && gst_doradma_net_crypt_open (c, GST_DORADMA_NET_CRYPT_PAYLOAD, seq,
      copy.tags.header, DORADMA_NET_TAG_BYTES, copy.payload, 4096,
      copy.tags.payload);
}

static void
test_frames (void)
{
  guint8 to_r[32], to_s[32], other_r[32], other_s[32];
  GstDoradmaNetCrypt tx = { 0 }, rx = { 0 }, back = { 0 }, other = { 0 };
  GBytes *k = psk (7);
  Frame f1, f2, bad;
  guint8 plain[4096];

  keys_of (k, 1, 2, to_r, to_s);
  keys_of (k, 5, 6, other_r, other_s);
  g_assert_true (gst_doradma_net_crypt_init (&tx, to_r));
  g_assert_true (gst_doradma_net_crypt_init (&rx, to_r));
  g_assert_true (gst_doradma_net_crypt_init (&back, to_s));
  g_assert_true (gst_doradma_net_crypt_init (&other, other_r));
  seal (&tx, &f1, 1, 0xa1);
  seal (&tx, &f2, 2, 0xb2);

  /* the honest frames, decrypted in place to their bytes */
  g_assert_true (open_frame (&rx, &f1, 1));
  g_assert_true (open_frame (&rx, &f2, 2));
  bad = f1;
  g_assert_true (gst_doradma_net_crypt_open (&rx,
          GST_DORADMA_NET_CRYPT_PAYLOAD, 1, bad.tags.header,
          DORADMA_NET_TAG_BYTES, bad.payload, 4096, bad.tags.payload));
  memset (plain, 0xa1, sizeof (plain));
  plain[0] = 1;
  g_assert_cmpmem (bad.payload, 4096, plain, 4096);

  /* a payload byte changed */
  bad = f1;
  bad.payload[1000] ^= 0x01;
  g_assert_false (open_frame (&rx, &bad, 1));
  /* a header byte changed (caps, sizes, flags: any of its 0x500) */
  bad = f1;
  bad.header[0x140] ^= 0x80;
  g_assert_false (open_frame (&rx, &bad, 1));
  /* a tag byte changed, of either tag */
  bad = f1;
  bad.tags.header[15] ^= 0x01;
  g_assert_false (open_frame (&rx, &bad, 1));
  bad = f1;
  bad.tags.payload[0] ^= 0x01;
  g_assert_false (open_frame (&rx, &bad, 1));
  /* swapped: frame 2's payload and payload tag under frame 1's header */
  bad = f1;
  memcpy (bad.payload, f2.payload, sizeof (bad.payload));
  memcpy (bad.tags.payload, f2.tags.payload, DORADMA_NET_TAG_BYTES);
  g_assert_false (open_frame (&rx, &bad, 1));
  /* replayed or reordered: frame 1 as number 2 or 3 (the receiver also
   * refuses any number not above the last, before any of this) */
  g_assert_false (open_frame (&rx, &f1, 2));
  g_assert_false (open_frame (&rx, &f1, 3));
  /* the other direction's key, another connection's */
  g_assert_false (open_frame (&back, &f1, 1));
  g_assert_false (open_frame (&other, &f1, 1));

  gst_doradma_net_crypt_clear (&tx);
  gst_doradma_net_crypt_clear (&rx);
  gst_doradma_net_crypt_clear (&back);
  gst_doradma_net_crypt_clear (&other);
  /* no key: nothing sealed or opened */
  g_assert_false (open_frame (&rx, &f1, 1));
  g_bytes_unref (k);
}

static void
test_messages (void)
{
  guint8 to_r[32], to_s[32];
  GstDoradmaNetCrypt tx = { 0 }, rx = { 0 }, eos = { 0 };
  struct doradma_net_credit c1, c2, forged;
  struct doradma_net_seal s1, s2, s;
  guint64 sent = 0, last = 0;
  GBytes *k = psk (9);

  keys_of (k, 1, 2, to_r, to_s);
  g_assert_true (gst_doradma_net_crypt_init (&tx, to_s));
  g_assert_true (gst_doradma_net_crypt_init (&rx, to_s));
  g_assert_true (gst_doradma_net_crypt_init (&eos, to_r));
  doradma_net_credit_encode (&c1, 1, 3, 0);
  doradma_net_credit_encode (&c2, 0, 1, 7);
  g_assert_true (gst_doradma_net_crypt_seal_message (&tx,
          GST_DORADMA_NET_CRYPT_CREDIT, &sent, &c1, sizeof (c1), &s1));
  g_assert_true (gst_doradma_net_crypt_seal_message (&tx,
          GST_DORADMA_NET_CRYPT_CREDIT, &sent, &c2, sizeof (c2), &s2));
  g_assert_cmpuint (s1.counter, ==, 1);
  g_assert_cmpuint (s2.counter, ==, 2);

  /* reordered: the second first, then the first is refused */
  forged = c2;
  forged.credits = 64;          /* altered */
  g_assert_false (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_CREDIT, &last, &forged, sizeof (forged), &s2));
  g_assert_cmpuint (last, ==, 0);
  /* the other domain (an EOS seal is not a credit's) */
  g_assert_false (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_EOS, &last, &c1, sizeof (c1), &s1));
  /* a changed counter */
  s = s1;
  s.counter = 5;
  g_assert_false (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_CREDIT, &last, &c1, sizeof (c1), &s));
  g_assert_true (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_CREDIT, &last, &c1, sizeof (c1), &s1));
  g_assert_cmpuint (last, ==, 1);
  /* replayed */
  g_assert_false (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_CREDIT, &last, &c1, sizeof (c1), &s1));
  g_assert_true (gst_doradma_net_crypt_open_message (&rx,
          GST_DORADMA_NET_CRYPT_CREDIT, &last, &c2, sizeof (c2), &s2));
  g_assert_cmpuint (last, ==, 2);

  /* an EOS: no body; a forged one (zero tag) and a replayed one fail */
  sent = last = 0;
  g_assert_true (gst_doradma_net_crypt_seal_message (&eos,
          GST_DORADMA_NET_CRYPT_EOS, &sent, NULL, 0, &s1));
  memset (&s, 0, sizeof (s));
  s.counter = 1;
  g_assert_false (gst_doradma_net_crypt_open_message (&eos,
          GST_DORADMA_NET_CRYPT_EOS, &last, NULL, 0, &s));
  g_assert_true (gst_doradma_net_crypt_open_message (&eos,
          GST_DORADMA_NET_CRYPT_EOS, &last, NULL, 0, &s1));
  g_assert_false (gst_doradma_net_crypt_open_message (&eos,
          GST_DORADMA_NET_CRYPT_EOS, &last, NULL, 0, &s1));
  gst_doradma_net_crypt_clear (&tx);
  gst_doradma_net_crypt_clear (&rx);
  gst_doradma_net_crypt_clear (&eos);
  g_bytes_unref (k);
}

/* The wire: an encrypted header carries its tags (0x520 bytes); the
 * decoder refuses them cut short or on a frame without the flag. */
static void
test_wire (void)
{
  const char *caps = "video/x-raw, format=(string)GRAY8, width=(int)64, "
      "height=(int)48, framerate=(fraction)30/1";
  guint8 buf[0x520];
  struct doradma_net_frame_header *h = (struct doradma_net_frame_header *) buf;
  struct doradma_frame_info fi;
  struct doradma_net_frame out;
  struct doradma_diag diag = { 0 };

  memset (&fi, 0, sizeof (fi));
  fi.seq = 1;
  fi.n_planes = 1;
  fi.width = 64;
  fi.height = 48;
  fi.planes[0] = (struct doradma_shm_plane) {
    0, 64, 48, 64, 0
  };
  fi.payload_bytes = 64 * 48;
  memset (buf, 0, sizeof (buf));
  doradma_net_frame_encode (h, &fi, caps, 1, 0, DORADMA_NET_FLAG_ENCRYPTED);
  h->header_bytes = sizeof (buf);
  memset (buf + 0x500, 0x5a, 0x20);
  g_assert_cmpint (doradma_net_frame_decode (buf, sizeof (buf), 64 * 48,
          1 << 20, &out, &diag), ==, 0);
  g_assert_cmpuint (out.tags.header[0], ==, 0x5a);
  g_assert_cmpuint (out.tags.payload[15], ==, 0x5a);
  /* a truncated tag */
  g_assert_cmpint (doradma_net_frame_decode (buf, 0x510, 64 * 48, 1 << 20,
          &out, &diag), ==, -EBADMSG);
  g_assert_cmpstr (diag.field, ==, "net.header_bytes");
  /* tags without the flag, the flag without tags */
  h->wire_flags = 0;
  g_assert_cmpint (doradma_net_frame_decode (buf, sizeof (buf), 64 * 48,
          1 << 20, &out, &diag), ==, -EBADMSG);
  h->wire_flags = DORADMA_NET_FLAG_ENCRYPTED;
  h->header_bytes = 0x500;
  g_assert_cmpint (doradma_net_frame_decode (buf, 0x500, 64 * 48, 1 << 20,
          &out, &diag), ==, -EBADMSG);
  /* the clear frame as before */
  h->wire_flags = 0;
  g_assert_cmpint (doradma_net_frame_decode (buf, 0x500, 64 * 48, 1 << 20,
          &out, &diag), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net/crypt/known-answers", test_known_answers);
  g_test_add_func ("/net/crypt/keys", test_keys);
  g_test_add_func ("/net/crypt/frames", test_frames);
  g_test_add_func ("/net/crypt/messages", test_messages);
  g_test_add_func ("/net/crypt/wire", test_wire);
  return g_test_run ();
}
