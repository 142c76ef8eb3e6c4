/* doradma GStreamer plugin — the network wire header (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gstdoradmanetwire.h"

/* The structs are the wire: fixed offsets, and the hosts we build for
 * (x86-64, aarch64) are little-endian. */
_Static_assert (sizeof (struct doradma_net_frame_header) == 0x500,
    "wire frame header size");
_Static_assert (offsetof (struct doradma_net_frame_header, record) == 0x40,
    "wire frame record offset");
_Static_assert (offsetof (struct doradma_net_frame_header, caps) == 0x140,
    "wire caps offset");
_Static_assert (sizeof (struct doradma_net_credit) == 0x18, "wire credit size");
_Static_assert (sizeof (struct doradma_net_auth) == 0x50, "wire auth size");
_Static_assert (sizeof (struct doradma_net_frame_tags) == 0x20,
    "wire frame tags size");
_Static_assert (sizeof (struct doradma_net_seal) == 0x18, "wire seal size");
_Static_assert (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
    "the wire header is little-endian");

static const uint8_t frame_magic[8] = "DRNETFR";
static const uint8_t credit_magic[8] = "DRNETCR";
static const uint8_t auth_magic[8] = DORADMA_NET_AUTH_MAGIC;

#define MAX_CREDITS 64u

static int wire_error (struct doradma_diag *diag, int err, const char *field,
    const char *fmt, ...) __attribute__((format (printf, 4, 5)));

static int
wire_error (struct doradma_diag *diag, int err, const char *field,
    const char *fmt, ...)
{
  va_list ap;

  if (diag) {
    diag->field = field;
    va_start (ap, fmt);
    vsnprintf (diag->msg, sizeof (diag->msg), fmt, ap);
    va_end (ap);
  }
  return err;
}

void
doradma_net_frame_encode (struct doradma_net_frame_header *h,
    const struct doradma_frame_info *info, const char *caps,
    uint64_t sender_seq, uint64_t send_time, uint32_t wire_flags)
{
  size_t n = strnlen (caps, DORADMA_CAPS_MAX - 1);

  memset (h, 0, sizeof (*h));
  memcpy (h->magic, frame_magic, sizeof (h->magic));
  h->version = DORADMA_NET_VERSION;
  h->header_bytes = sizeof (*h);
  h->wire_flags = wire_flags;
  h->sender_seq = sender_seq;
  h->send_time = send_time;
  h->caps_len = (uint32_t) n;
  doradma_frame_record_encode (info, &h->record);
  memcpy (h->caps, caps, n);
}

int
doradma_net_frame_decode (const void *buf, size_t len, uint64_t payload_len,
    uint64_t max_frame, struct doradma_net_frame *out,
    struct doradma_diag *diag)
{
  struct doradma_net_frame_header h;
  struct doradma_frame_info info;
  size_t want;
  int ret;

  if (len != sizeof (h)
      && len != sizeof (h) + sizeof (struct doradma_net_frame_tags))
    return wire_error (diag, -EBADMSG, "net.header_bytes",
        "net.header_bytes: received %zu bytes of header, version %u has %zu "
        "(%zu encrypted)", len, DORADMA_NET_VERSION, sizeof (h),
        sizeof (h) + sizeof (struct doradma_net_frame_tags));
  /* One copy; only the copy from here on. */
  memcpy (&h, buf, sizeof (h));
  if (memcmp (h.magic, frame_magic, sizeof (h.magic)) != 0)
    return wire_error (diag, -EBADMSG, "net.magic",
        "net.magic: not a doradma network frame header");
  if (h.version != DORADMA_NET_VERSION)
    return wire_error (diag, -EPROTONOSUPPORT, "net.version",
        "net.version: %u, this receiver knows %u", h.version,
        DORADMA_NET_VERSION);
  want = sizeof (h) + ((h.wire_flags & DORADMA_NET_FLAG_ENCRYPTED) ?
      sizeof (struct doradma_net_frame_tags) : 0);
  if (h.header_bytes != want || len != want)
    return wire_error (diag, -EBADMSG, "net.header_bytes",
        "net.header_bytes: %u in %zu bytes, expected %zu (wire_flags 0x%x)",
        h.header_bytes, len, want, h.wire_flags);
  if (h.wire_flags & ~DORADMA_NET_FLAGS_KNOWN)
    return wire_error (diag, -EBADMSG, "net.wire_flags",
        "net.wire_flags: unknown bits 0x%x",
        h.wire_flags & ~DORADMA_NET_FLAGS_KNOWN);
  if (h.sender_seq == 0)
    return wire_error (diag, -EBADMSG, "net.sender_seq", "net.sender_seq: 0");
  if (h.caps_len >= DORADMA_CAPS_MAX)
    return wire_error (diag, -EBADMSG, "net.caps_len",
        "net.caps_len: %u, the limit is %u", h.caps_len, DORADMA_CAPS_MAX - 1);
  if (h.caps[h.caps_len] != '\0' || strlen (h.caps) != h.caps_len)
    return wire_error (diag, -EBADMSG, "net.caps_len",
        "net.caps_len: %u does not end the caps string", h.caps_len);
  ret = doradma_caps_validate (h.caps, sizeof (h.caps), diag);
  if (ret < 0)
    return ret;
  /* The same rules as a slot of a ring of max_frame-byte slots. */
  ret = doradma_frame_record_validate (&h.record, max_frame, &info, diag);
  if (ret < 0)
    return ret;
  if (payload_len != info.payload_bytes)
    return wire_error (diag, -EBADMSG, "net.payload",
        "net.payload: %" PRIu64 " bytes received, the record says %" PRIu64,
        payload_len, info.payload_bytes);

  if (out) {
    out->info = info;
    out->sender_seq = h.sender_seq;
    out->send_time = h.send_time;
    out->wire_flags = h.wire_flags;
    memcpy (out->caps, h.caps, sizeof (out->caps));
    if (len > sizeof (h))
      memcpy (&out->tags, (const uint8_t *) buf + sizeof (h),
          sizeof (out->tags));
    else
      memset (&out->tags, 0, sizeof (out->tags));
  }
  return 0;
}

void
doradma_net_credit_encode (struct doradma_net_credit *c, int hello,
    uint32_t credits, uint64_t handled_seq)
{
  memset (c, 0, sizeof (*c));
  memcpy (c->magic, credit_magic, sizeof (c->magic));
  c->version = DORADMA_NET_VERSION;
  c->hello = hello ? 1 : 0;
  c->credits = credits;
  c->handled_seq = handled_seq;
}

int
doradma_net_credit_decode (const void *buf, size_t len,
    struct doradma_net_credit *out, struct doradma_diag *diag)
{
  struct doradma_net_credit c;

  if (len != sizeof (c))
    return wire_error (diag, -EBADMSG, "net.credit.size",
        "net.credit.size: %zu bytes, expected %zu", len, sizeof (c));
  memcpy (&c, buf, sizeof (c));
  if (memcmp (c.magic, credit_magic, sizeof (c.magic)) != 0)
    return wire_error (diag, -EBADMSG, "net.credit.magic",
        "net.credit.magic: not a doradma credit message");
  if (c.version != DORADMA_NET_VERSION)
    return wire_error (diag, -EPROTONOSUPPORT, "net.version",
        "net.version: %u, this sender knows %u", c.version,
        DORADMA_NET_VERSION);
  if (c.hello > 1)
    return wire_error (diag, -EBADMSG, "net.credit.hello",
        "net.credit.hello: %u, expected 0 or 1", c.hello);
  if (c.credits > MAX_CREDITS)
    return wire_error (diag, -EBADMSG, "net.credit.credits",
        "net.credit.credits: %u, the limit is %u", c.credits, MAX_CREDITS);
  if (out)
    *out = c;
  return 0;
}

void
doradma_net_auth_encode (struct doradma_net_auth *a, uint16_t kind,
    uint32_t flags, const uint8_t * nonce, const uint8_t * mac)
{
  memset (a, 0, sizeof (*a));
  memcpy (a->magic, auth_magic, sizeof (a->magic));
  a->version = DORADMA_NET_VERSION;
  a->kind = kind;
  a->flags = flags;
  if (nonce)
    memcpy (a->nonce, nonce, sizeof (a->nonce));
  if (mac)
    memcpy (a->mac, mac, sizeof (a->mac));
}

int
doradma_net_auth_decode (const void *buf, size_t len,
    struct doradma_net_auth *out, struct doradma_diag *diag)
{
  struct doradma_net_auth a;

  if (len != sizeof (a))
    return wire_error (diag, -EBADMSG, "net.auth.size",
        "net.auth.size: %zu bytes, expected %zu", len, sizeof (a));
  memcpy (&a, buf, sizeof (a));
  if (memcmp (a.magic, auth_magic, sizeof (a.magic)) != 0)
    return wire_error (diag, -EBADMSG, "net.auth.magic",
        "net.auth.magic: not a doradma authentication message");
  if (a.version != DORADMA_NET_VERSION)
    return wire_error (diag, -EPROTONOSUPPORT, "net.version",
        "net.version: %u, this side knows %u", a.version, DORADMA_NET_VERSION);
  if (a.kind < DORADMA_NET_AUTH_CHALLENGE
      || a.kind > DORADMA_NET_AUTH_DOOR_PROOF)
    return wire_error (diag, -EBADMSG, "net.auth.kind",
        "net.auth.kind: %u, expected 1..6", a.kind);
  if (a.kind == DORADMA_NET_AUTH_DOOR_PROOF) {
    if (a.flags == 0 || a.flags > 65535)
      return wire_error (diag, -EBADMSG, "net.auth.flags",
          "net.auth.flags: port %u of a door proof, expected 1..65535",
          a.flags);
  } else if (a.kind >= DORADMA_NET_AUTH_DOOR_CHALLENGE && a.flags != 0) {
    return wire_error (diag, -EBADMSG, "net.auth.flags",
        "net.auth.flags: 0x%x in a door message, expected 0", a.flags);
  } else if (a.flags & ~DORADMA_NET_AUTH_FLAGS_KNOWN)
    return wire_error (diag, -EBADMSG, "net.auth.flags",
        "net.auth.flags: unknown bits 0x%x",
        a.flags & ~DORADMA_NET_AUTH_FLAGS_KNOWN);
  if (out)
    *out = a;
  return 0;
}
