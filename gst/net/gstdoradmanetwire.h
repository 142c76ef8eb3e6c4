/* doradma GStreamer plugin — private: the versioned wire header of
 * doradmanetsink / doradmanetsrc (docs/network.md, "Wire format").
 *
 * One responsibility: the bytes that precede a frame on the network and
 * the credit message going back, encoded and decoded. Decoding distrusts
 * every byte (the peer may be hostile): the header is copied once, the
 * frame record is checked by libdoradma's slot record rules
 * (doradma_frame_record_validate) and the caps by the ring's caps rule
 * (doradma_caps_validate), sizes are bounded. No GStreamer, no UCX: the
 * fuzz target links this file alone with libdoradma.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_WIRE_H__
#define __GST_DORADMA_NET_WIRE_H__

#include <stddef.h>
#include <stdint.h>

#include <doradma/doradma.h>

#ifdef __cplusplus
extern "C"
{
#endif

#define DORADMA_NET_VERSION 1u
/* UCX active message ids */
#define DORADMA_NET_AM_FRAME 1u /* sender → receiver: header + payload */
#define DORADMA_NET_AM_CREDIT 2u        /* receiver → sender: credit message */
#define DORADMA_NET_AM_EOS 3u   /* sender → receiver: end of stream, no data */
#define DORADMA_NET_AM_AUTH 4u  /* either way: the key handshake (key-file) */

/* wire_flags of a frame */
#define DORADMA_NET_FLAG_LOSSLESS (1u << 0)     /* the sender waits for credits */
/* encrypt=true: the payload is AES-256-GCM ciphertext, and struct
 * doradma_net_frame_tags follows the header (header_bytes 0x520) */
#define DORADMA_NET_FLAG_ENCRYPTED (1u << 1)
#define DORADMA_NET_FLAGS_KNOWN \
  (DORADMA_NET_FLAG_LOSSLESS | DORADMA_NET_FLAG_ENCRYPTED)
#define DORADMA_NET_TAG_BYTES 16u

/* Little-endian, fixed size; the decoder refuses any other size. */
  struct doradma_net_frame_header
  {
    uint8_t magic[8];           /* 0x000 "DRNETFR\0" */
    uint16_t version;           /* 0x008 DORADMA_NET_VERSION */
    uint16_t header_bytes;      /* 0x00a sizeof (this struct) */
    uint32_t wire_flags;        /* 0x00c DORADMA_NET_FLAG_* */
    uint64_t sender_seq;        /* 0x010 sender's frame counter, 1.. (gaps = sender drops) */
    uint64_t send_time;         /* 0x018 sender's CLOCK_REALTIME ns (for messages only) */
    uint32_t caps_len;          /* 0x020 strlen (caps) */
    uint32_t reserved0;         /* 0x024 zero */
    uint64_t reserved[3];       /* 0x028 zero */
    struct doradma_shm_slot record;     /* 0x040 the frame record, as in a slot */
    char caps[DORADMA_CAPS_MAX];        /* 0x140 video/x-raw, no features, NUL-padded */
  };                            /* 0x500 bytes */

/* After the header of an encrypted frame (gstdoradmanetcrypt.h). */
  struct doradma_net_frame_tags
  {
    uint8_t header[DORADMA_NET_TAG_BYTES];      /* 0x500 GCM tag of the header's 0x500 bytes */
    uint8_t payload[DORADMA_NET_TAG_BYTES];     /* 0x510 GCM tag of the payload */
  };                            /* 0x20 bytes: header_bytes 0x520 */

/* After a credit message, and as the whole EOS message, when encrypted:
 * the message's own counter and its GCM tag (gstdoradmanetcrypt.h). */
  struct doradma_net_seal
  {
    uint64_t counter;           /* 0x00 1.., increasing within a connection */
    uint8_t tag[DORADMA_NET_TAG_BYTES]; /* 0x08 */
  };                            /* 0x18 bytes */

  struct doradma_net_credit
  {
    uint8_t magic[8];           /* 0x00 "DRNETCR\0" */
    uint16_t version;           /* 0x08 DORADMA_NET_VERSION */
    uint16_t hello;             /* 0x0a 1 on the first message of a connection */
    uint32_t credits;           /* 0x0c frames the sender may add (1..64) */
    uint64_t handled_seq;       /* 0x10 last sender_seq handled (published or dropped) */
  };                            /* 0x18 bytes */

/* The pre-shared-key handshake (docs/network.md, "Authentication"):
 * receiver → sender CHALLENGE (nonce_r, flags_r), sender → receiver
 * RESPONSE (nonce_s, flags_s, HMAC-SHA-256 (key, "doradma-net-v1 sender"
 * nonce_r nonce_s flags_r flags_s)), receiver → sender PROOF (HMAC-SHA-256
 * (key, "doradma-net-v1 receiver" nonce_s nonce_r flags_s flags_r)), then
 * the credit hello. */
#define DORADMA_NET_AUTH_CHALLENGE 1u
#define DORADMA_NET_AUTH_RESPONSE 2u
#define DORADMA_NET_AUTH_PROOF 3u
/* The door (a keyed receiver's `port`, plain TCP, before any UCX:
 * gstdoradmanetdoor.h): DOOR_CHALLENGE each way (the sender's first), then
 * DOOR_RESPONSE and DOOR_PROOF, MACs with the labels "doradma-net-v1 door
 * sender" / "... door receiver". Their flags are 0, but DOOR_PROOF's: the
 * port of the receiver's UCX listener (1..65535), which its MAC covers. */
#define DORADMA_NET_AUTH_DOOR_CHALLENGE 4u
#define DORADMA_NET_AUTH_DOOR_RESPONSE 5u
#define DORADMA_NET_AUTH_DOOR_PROOF 6u
#define DORADMA_NET_AUTH_BYTES 32u
/* flags of CHALLENGE and RESPONSE: what this side's settings are; both
 * sides' flags are in both MACs, so that no one on the path changes them */
#define DORADMA_NET_AUTH_FLAG_ENCRYPT (1u << 0)
#define DORADMA_NET_AUTH_FLAGS_KNOWN DORADMA_NET_AUTH_FLAG_ENCRYPT

#define DORADMA_NET_AUTH_MAGIC "DRNETAU"        /* with its NUL: 8 bytes */
  struct doradma_net_auth
  {
    uint8_t magic[8];           /* 0x00 DORADMA_NET_AUTH_MAGIC */
    uint16_t version;           /* 0x08 DORADMA_NET_VERSION */
    uint16_t kind;              /* 0x0a DORADMA_NET_AUTH_* */
    uint32_t flags;             /* 0x0c DORADMA_NET_AUTH_FLAG_* (DOOR_PROOF: a port), in the MACs */
    uint8_t nonce[DORADMA_NET_AUTH_BYTES];      /* 0x10 the sender's own (CHALLENGE, RESPONSE) */
    uint8_t mac[DORADMA_NET_AUTH_BYTES];        /* 0x30 RESPONSE, PROOF */
  };                            /* 0x50 bytes */

/* The largest payload a receiver accepts unless told otherwise (8K RGBA
 * with room). */
#define DORADMA_NET_MAX_FRAME_DEFAULT (256ull << 20)

/* A decoded, validated frame header. */
  struct doradma_net_frame
  {
    struct doradma_frame_info info;     /* checked by the slot record rules */
    uint64_t sender_seq;
    uint64_t send_time;
    uint32_t wire_flags;
    char caps[DORADMA_CAPS_MAX];
    struct doradma_net_frame_tags tags; /* DORADMA_NET_FLAG_ENCRYPTED */
  };

/* Fills `h` for a frame of `info` (payload_bytes bytes follow) and caps. */
  void doradma_net_frame_encode (struct doradma_net_frame_header *h,
      const struct doradma_frame_info *info, const char *caps,
      uint64_t sender_seq, uint64_t send_time, uint32_t wire_flags);

/* Decodes `len` bytes of header (0x500, or 0x520 with the tags of an
 * encrypted frame) received with `payload_len` bytes of
 * payload; the payload may be at most `max_frame` bytes. Returns 0 and
 * *out, -EBADMSG (diag.field names the field: "net.*", "slot.*", "caps*")
 * or -EPROTONOSUPPORT ("net.version"). */
  int doradma_net_frame_decode (const void *buf, size_t len,
      uint64_t payload_len, uint64_t max_frame, struct doradma_net_frame *out,
      struct doradma_diag *diag);

  void doradma_net_credit_encode (struct doradma_net_credit *c, int hello,
      uint32_t credits, uint64_t handled_seq);
/* Returns 0 and *out, or -EBADMSG / -EPROTONOSUPPORT with diag. */
  int doradma_net_credit_decode (const void *buf, size_t len,
      struct doradma_net_credit *out, struct doradma_diag *diag);

  void doradma_net_auth_encode (struct doradma_net_auth *a, uint16_t kind,
      uint32_t flags, const uint8_t * nonce, const uint8_t * mac);
/* Returns 0 and *out, or -EBADMSG / -EPROTONOSUPPORT with diag. */
  int doradma_net_auth_decode (const void *buf, size_t len,
      struct doradma_net_auth *out, struct doradma_diag *diag);

#ifdef __cplusplus
}
#endif
#endif                          /* __GST_DORADMA_NET_WIRE_H__ */
