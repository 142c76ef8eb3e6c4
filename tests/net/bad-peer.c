/* A hostile doradmanetsink: connects to a doradmanetsrc, waits for its
 * hello, misbehaves in the way named on the command line, and waits until
 * the receiver drops the connection (or 10 s).
 *   bad-peer HOST PORT MODE
 * MODE, one frame each (docs/network.md, "What a peer can do"):
 *   crop|version|payload|caps  a header the wire decoder refuses
 *   geom-bigstride|geom-negstride|geom-narrow|geom-tiny  a valid record
 *        (planes inside the payload) whose geometry does not cover its
 *        caps, I420 1920x1080 (review N-1)
 *   caps-unfixed|caps-negwidth|caps-encoded  caps the ring's rule lets
 *        through, GStreamer's does not (N-11)
 * Exit 0 when the receiver disconnected us, 1 otherwise, 2 on misuse.
 *   bad-peer HOST PORT flood|flood-lossless N
 * N valid NV12 64x48 frames as fast as the wire takes them, ignoring
 * credits (N-2), eager, without or with the lossless flag. Exit 0 when
 * flood sent all N still connected, or flood-lossless was disconnected;
 * 1 otherwise. Deadline 60 s.
 *   bad-peer HOST PORT unknown-am ID SIZE
 * After the hello, one active message of id ID (not one of the wire's)
 * with a 16-byte header and SIZE bytes of data (N-3); then progresses 2 s.
 * Exit 0 when sent (the caller checks that the receiver lives).
 *   bad-peer HOST PORT server-am ID
 * A fake receiver: listens on HOST:PORT, accepts one doradmanetsink,
 * sends it a hello, then active message ID (16-byte header), progresses 2 s (N-3 on
 * the sender's side). Exit 0 when sent, 1 when nobody connected in 20 s.
 *   bad-peer HOST PORT rejchurn N
 * N connections in a row to a receiver that serves another sender: each
 * waits for its refusal (5 s at most), then is closed at once (review
 * N-4). Exit 0 when all N were refused.
 * Against a receiver with a key-file (docs/network.md, "Authentication";
 * the HMAC computed here with GnuTLS, independently of the plugin), each
 * through the receiver's door first (HOST PORT is the door), with the
 * mode's KEYFILE (eos|frame|credit: with DORADMA_BAD_PEER_DOOR set, with
 * the key in DORADMA_BAD_PEER_DOOR_KEY, none when unset: refused there);
 * refused at the door, auth exits 1, eos|frame|credit 0 (refused),
 * the others 2:
 *   bad-peer HOST PORT auth KEYFILE       the handshake, then one frame:
 *        exit 0 when accepted (still connected 1 s after)
 *   bad-peer HOST PORT auth-replay KEYFILE  the answer to one connection's
 *        challenge replayed on the next: exit 0 when refused
 *   bad-peer HOST PORT eos|frame|credit   no handshake: an EOS, a valid
 *        frame, a credit message: exit 0 when refused (disconnected)
 *   bad-peer HOST PORT server-credit -    a fake receiver that skips the
 *        handshake and gives a keyed sender credits: exit 0 when the
 *        sender sent no frame and went away
 * Against a receiver with encrypt=true (docs/network.md, "Encryption"; the
 * keys and AES-256-GCM computed here with GnuTLS, independently of the
 * plugin), the handshake with the encrypt flag, then:
 *   bad-peer HOST PORT crypt-valid KEYFILE    frames 1 and 2 sealed as the
 *        wire says: exit 0 when still connected 1 s after
 *   bad-peer HOST PORT crypt-CASE KEYFILE     exit 0 when disconnected:
 *        tamper (a payload byte of frame 1 changed), tag (frame 1's tags
 *        cut to 16 bytes), swap (frame 1's header with frame 2's payload
 *        and tag), replay (frame 1 twice), reorder (frame 2, then 1),
 *        eos (an EOS with a forged seal), clear (an unencrypted frame) */
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucp/api/ucp.h>
#include <gnutls/crypto.h>

#include "gstdoradmanetwire.h"

#define I420_1080P "video/x-raw, format=(string)I420, width=(int)1920, " \
  "height=(int)1080, framerate=(fraction)30/1"

static int hello, broken, challenged, frames_got;
static struct doradma_net_auth challenge;

static ucs_status_t
on_credit (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  struct doradma_net_credit c;

  /* encrypted: the credit and its seal (not checked here) */
  if (header_length == sizeof (c) + sizeof (struct doradma_net_seal))
    header_length = sizeof (c);
  if (doradma_net_credit_decode (header, header_length, &c, NULL) == 0
      && c.hello)
    hello = 1;
  return UCS_OK;
}

static ucs_status_t
on_auth (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  if (doradma_net_auth_decode (header, header_length, &challenge, NULL) == 0
      && challenge.kind == DORADMA_NET_AUTH_CHALLENGE)
    challenged = 1;
  return UCS_OK;
}

static ucs_status_t
on_frame_count (void *arg, const void *header, size_t header_length,
    void *data, size_t length, const ucp_am_recv_param_t * param)
{
  frames_got++;
  return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ?
      UCS_ERR_INVALID_PARAM : UCS_OK;
}

static uint8_t psk[4096];
static size_t psk_len;

static void
read_key (const char *key_file)
{
  FILE *f = fopen (key_file, "rb");

  psk_len = f ? fread (psk, 1, sizeof (psk), f) : 0;
  if (f)
    fclose (f);
}

/* HMAC-SHA-256 (key, "doradma-net-v1 sender\0" nonce_r nonce_s flags_r
 * flags_s), the flags 32-bit little-endian */
static void
sender_mac (const char *key_file, const uint8_t * nonce_r,
    const uint8_t * nonce_s, uint32_t flags_r, uint32_t flags_s, uint8_t * mac)
{
  static const char label[] = "doradma-net-v1 sender";
  uint8_t msg[sizeof (label) + 64 + 8];

  read_key (key_file);
  memcpy (msg, label, sizeof (label));
  memcpy (msg + sizeof (label), nonce_r, 32);
  memcpy (msg + sizeof (label) + 32, nonce_s, 32);
  memcpy (msg + sizeof (label) + 64, &flags_r, 4);
  memcpy (msg + sizeof (label) + 68, &flags_s, 4);
  gnutls_hmac_fast (GNUTLS_MAC_SHA256, psk, psk_len, msg, sizeof (msg), mac);
}

/* The door of a keyed receiver (docs/network.md, "The door"), with the
 * key in `key_file` (NULL: a peer without one, whose answer is zeros):
 * our challenge, the receiver's, our answer (HMAC-SHA-256 (key,
 * "doradma-net-v1 door sender\0" nonce_r nonce_s 0 0)), its proof; the
 * port it tells replaces the one in `res`. 0 when through, 1 when the
 * door closed on us, 2 when nothing listens. */
static int
door (const struct addrinfo *res, const char *key_file)
{
  static const char label[] = "doradma-net-v1 door sender";
  uint8_t msg[sizeof (label) + 64 + 8] = { 0 };
  uint8_t nonce_s[32] = { 7, 7, 7 }, mac[32] = { 0 };
  struct doradma_net_auth a, r;
  struct timeval tv = { 10, 0 };
  int fd = socket (res->ai_family, SOCK_STREAM, 0), ok;

  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof (tv));
  if (connect (fd, res->ai_addr, res->ai_addrlen) != 0) {
    fprintf (stderr, "bad-peer: no door\n");
    close (fd);
    return 2;
  }
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_CHALLENGE, 0, nonce_s,
      NULL);
  ok = send (fd, &a, sizeof (a), MSG_NOSIGNAL) == sizeof (a)
      && recv (fd, &r, sizeof (r), MSG_WAITALL) == sizeof (r)
      && r.kind == DORADMA_NET_AUTH_DOOR_CHALLENGE;
  if (ok && key_file) {
    read_key (key_file);
    memcpy (msg, label, sizeof (label));
    memcpy (msg + sizeof (label), r.nonce, 32);
    memcpy (msg + sizeof (label) + 32, nonce_s, 32);
    gnutls_hmac_fast (GNUTLS_MAC_SHA256, psk, psk_len, msg, sizeof (msg), mac);
  }
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_DOOR_RESPONSE, 0, NULL, mac);
  ok = ok && send (fd, &a, sizeof (a), MSG_NOSIGNAL) == sizeof (a)
      && recv (fd, &r, sizeof (r), MSG_WAITALL) == sizeof (r)
      && r.kind == DORADMA_NET_AUTH_DOOR_PROOF;
  close (fd);
  if (!ok) {
    printf ("bad-peer: the door closed on us (%s)\n", key_file ? key_file :
        "no key");
    return 1;
  }
  if (res->ai_family == AF_INET6)
    ((struct sockaddr_in6 *) res->ai_addr)->sin6_port = htons (r.flags);
  else
    ((struct sockaddr_in *) res->ai_addr)->sin_port = htons (r.flags);
  return 0;
}

/* encrypt: the sender-to-receiver key, HKDF-SHA-256 (salt nonce_r
 * nonce_s, the key, info "doradma-net-v1 sender to receiver") */
static gnutls_aead_cipher_hd_t to_receiver;

static int
derive (const uint8_t * nonce_r, const uint8_t * nonce_s)
{
  static const char info[] = "doradma-net-v1 sender to receiver";
  uint8_t salt[64], prk[32], key[32];
  gnutls_datum_t ikm = { psk, (unsigned) psk_len }, s = { salt, 64 };
  gnutls_datum_t p = { prk, 32 }, i = { (void *) info, sizeof (info) - 1 };
  gnutls_datum_t k = { key, 32 };

  memcpy (salt, nonce_r, 32);
  memcpy (salt + 32, nonce_s, 32);
  return gnutls_hkdf_extract (GNUTLS_MAC_SHA256, &ikm, &s, prk) == 0
      && gnutls_hkdf_expand (GNUTLS_MAC_SHA256, &p, &i, key, 32) == 0
      && gnutls_aead_cipher_init (&to_receiver, GNUTLS_CIPHER_AES_256_GCM,
      &k) == 0;
}

/* AES-256-GCM, nonce domain (big-endian 32) counter (big-endian 64) */
static void
gcm (uint32_t domain, uint64_t counter, const void *aad, size_t aad_len,
    const void *pt, size_t len, uint8_t * ct, uint8_t * tag)
{
  static uint8_t buf[65536];
  uint8_t nonce[12];
  size_t n = sizeof (buf);
  int i;

  for (i = 0; i < 4; i++)
    nonce[i] = domain >> (24 - 8 * i);
  for (i = 0; i < 8; i++)
    nonce[4 + i] = counter >> (56 - 8 * i);
  gnutls_aead_cipher_encrypt (to_receiver, nonce, 12, aad, aad_len, 16, pt,
      len, buf, &n);
  if (len)
    memcpy (ct, buf, len);
  memcpy (tag, buf + len, 16);
}

static void
on_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  broken = 1;
}

static int
before (const struct timespec *end)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  return now.tv_sec < end->tv_sec;
}

static void
set_caps (struct doradma_net_frame_header *h, const char *caps)
{
  memset (h->caps, 0, sizeof (h->caps));
  strcpy (h->caps, caps);
  h->caps_len = strlen (caps);
}

/* An I420 1920x1080 frame record with 3 planes of `stride`, `rows` and
 * `row_bytes` each, `plane_bytes` apart, in a `payload`-byte payload. */
static void
i420_record (struct doradma_frame_info *fi, uint32_t stride, uint32_t rows,
    uint32_t row_bytes, uint64_t plane_bytes, uint64_t payload)
{
  uint32_t p;

  fi->width = 1920;
  fi->height = 1080;
  fi->n_planes = 3;
  for (p = 0; p < 3; p++)
    fi->planes[p] = (struct doradma_shm_plane) {
    p * plane_bytes, stride, rows, row_bytes, 0
    };
  fi->payload_bytes = payload;
}

/* The header of frame MODE into `h`, its payload length into `len`;
 * 0, or -1 for an unknown MODE. */
static int
make_frame (const char *what, struct doradma_net_frame_header *h,
    uint64_t * len)
{
  struct doradma_frame_info fi;
  const char *caps = "video/x-raw, format=(string)NV12, width=(int)64, "
      "height=(int)48, framerate=(fraction)30/1";

  memset (&fi, 0, sizeof (fi));
  fi.seq = 1;
  fi.n_planes = 2;
  fi.width = 64;
  fi.height = 48;
  fi.planes[0] = (struct doradma_shm_plane) {
    0, 64, 48, 64, 0
  };
  fi.planes[1] = (struct doradma_shm_plane) {
    64 * 48, 64, 24, 64, 0
  };
  fi.payload_bytes = 64 * 48 * 3 / 2;
  fi.pts = fi.dts = fi.mono_pts = DORADMA_TIME_NONE;
  if (strcmp (what, "geom-bigstride") == 0) {
    i420_record (&fi, 65536, 1, 1, 1024, 4096);
    caps = I420_1080P;
  } else if (strcmp (what, "geom-negstride") == 0) {
    /* valid as a u32 with one row; -4096 as a GstVideoMeta gint */
    i420_record (&fi, 0xFFFFF000u, 1, 1, 1024, 4096);
    caps = I420_1080P;
  } else if (strcmp (what, "geom-narrow") == 0) {
    /* 1920x1080 announced, the planes of a 64x48 I420 frame */
    fi.n_planes = 3;
    fi.width = 1920;
    fi.height = 1080;
    fi.planes[0] = (struct doradma_shm_plane) {
      0, 64, 48, 64, 0
    };
    fi.planes[1] = (struct doradma_shm_plane) {
      3072, 32, 24, 32, 0
    };
    fi.planes[2] = (struct doradma_shm_plane) {
      3840, 32, 24, 32, 0
    };
    fi.payload_bytes = 4608;
    caps = I420_1080P;
  } else if (strcmp (what, "geom-tiny") == 0) {
    i420_record (&fi, 1, 1080, 1, 1080, 4096);
    caps = I420_1080P;
  }
  *len = fi.payload_bytes;
  doradma_net_frame_encode (h, &fi, caps, 1, 0, 0);
  if (strncmp (what, "geom-", 5) == 0) {
    if (strcmp (what + 5, "bigstride") && strcmp (what + 5, "negstride")
        && strcmp (what + 5, "narrow") && strcmp (what + 5, "tiny"))
      return -1;
  } else if (strcmp (what, "valid") == 0) {
  } else if (strcmp (what, "crop") == 0) {
    h->record.crop_width = 100;
    h->record.crop_height = 10;
  } else if (strcmp (what, "version") == 0) {
    h->version = 99;
  } else if (strcmp (what, "payload") == 0) {
    *len -= 100;                /* fewer bytes than the record says */
  } else if (strcmp (what, "caps") == 0) {
    set_caps (h, "video/x-raw(memory:NVMM), format=NV12");
  } else if (strcmp (what, "caps-unfixed") == 0) {
    set_caps (h, "video/x-raw, format=(string)NV12, width=(int){ 64, 32 }, "
        "height=(int)[ 1, 48 ]");
  } else if (strcmp (what, "caps-negwidth") == 0) {
    set_caps (h, "video/x-raw, format=(string)NV12, width=(int)-5, "
        "height=(int)48");
  } else if (strcmp (what, "caps-encoded") == 0) {
    set_caps (h, "video/x-raw, format=(string)ENCODED, width=(int)64, "
        "height=(int)48");
  } else {
    return -1;
  }
  return 0;
}

/* Sends `h` + `len` bytes and progresses until UCX is done with them;
 * FALSE when the connection broke or the deadline passed. */
static int
send_one (ucp_worker_h worker, ucp_ep_h ep, struct doradma_net_frame_header *h,
    const void *payload, uint64_t len, uint32_t flags,
    const struct timespec *end)
{
  ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
    .flags = flags
  };
  void *req = ucp_am_send_nbx (ep, DORADMA_NET_AM_FRAME, h, sizeof (*h),
      payload, len, &rp);
  ucs_status_t st = UCS_OK;

  if (UCS_PTR_IS_ERR (req))
    return 0;
  if (req == NULL)
    return !broken;
  while ((st = ucp_request_check_status (req)) == UCS_INPROGRESS && !broken
      && before (end))
    ucp_worker_progress (worker);
  if (st == UCS_INPROGRESS)
    ucp_request_cancel (worker, req);
  ucp_request_free (req);
  return st == UCS_OK && !broken;
}

static int
flood (ucp_worker_h worker, ucp_ep_h ep, const char *what, long n)
{
  static uint8_t payload[64 * 48 * 3 / 2];
  int lossless = strcmp (what, "flood-lossless") == 0;
  struct doradma_net_frame_header h;
  struct timespec end;
  uint64_t len;
  long i;

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 60;
  make_frame ("valid", &h, &len);
  for (i = 0; i < n && !broken && before (&end); i++) {
    h.sender_seq = i + 1;
    h.record.seq = i + 1;
    h.wire_flags = lossless ? DORADMA_NET_FLAG_LOSSLESS : 0;
    if (!send_one (worker, ep, &h, payload, len, UCP_AM_SEND_FLAG_EAGER, &end))
      break;
  }
  /* the receiver's verdict on the last frames */
  while (lossless && !broken && before (&end))
    ucp_worker_progress (worker);
  printf ("bad-peer: %s: %ld of %ld frames sent, %s\n", what, i, n,
      broken ? "disconnected by the receiver" : "still connected");
  return lossless ? !broken : (broken || i < n);
}

static void
progress_for (ucp_worker_h worker, int seconds)
{
  struct timespec end;

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += seconds;
  while (before (&end))
    ucp_worker_progress (worker);
}

static int
unknown_am (ucp_worker_h worker, ucp_ep_h ep, unsigned id, size_t size)
{
  static uint8_t hdr[16];
  uint8_t *data = calloc (1, size ? size : 1);
  ucp_request_param_t rp = { 0 };
  struct timespec end;
  void *req;

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 5;
  req = ucp_am_send_nbx (ep, id, hdr, sizeof (hdr), data, size, &rp);
  while (req && !UCS_PTR_IS_ERR (req)
      && ucp_request_check_status (req) == UCS_INPROGRESS && !broken
      && before (&end))
    ucp_worker_progress (worker);
  progress_for (worker, 2);
  printf ("bad-peer: active message %u (%zu bytes) sent, %s\n", id, size,
      broken ? "disconnected" : "still connected");
  return 0;
}

static ucp_conn_request_h conn_request;
static ucp_listener_h listener;

static void
on_conn (ucp_conn_request_h request, void *arg)
{
  if (conn_request == NULL)
    conn_request = request;
  else
    ucp_listener_reject (listener, request);
}

/* A fake receiver sending active message `id` to the sink that connects. */
static int
server_am (ucp_worker_h worker, const struct addrinfo *res, unsigned id)
{
  static uint8_t hdr[16];
  static struct doradma_net_credit hello_msg;
  ucp_listener_params_t lp = {.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR
        | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER
  };
  ucp_ep_params_t ep_params = { 0 };
  ucp_request_param_t rp = { 0 };
  struct timespec end;
  ucp_ep_h ep;
  void *req;

  lp.sockaddr.addr = res->ai_addr;
  lp.sockaddr.addrlen = res->ai_addrlen;
  lp.conn_handler.cb = on_conn;
  if (ucp_listener_create (worker, &lp, &listener) != UCS_OK)
    return 2;
  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 20;
  while (conn_request == NULL && before (&end))
    ucp_worker_progress (worker);
  if (conn_request == NULL) {
    fprintf (stderr, "bad-peer: nobody connected\n");
    return 1;
  }
  ep_params.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST |
      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.conn_request = conn_request;
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep_params.err_handler.cb = on_error;
  if (ucp_ep_create (worker, &ep_params, &ep) != UCS_OK)
    return 2;
  /* a hello first, as a receiver: the sender counts as connected */
  doradma_net_credit_encode (&hello_msg, 1, 4, 0);
  req = ucp_am_send_nbx (ep, DORADMA_NET_AM_CREDIT, &hello_msg,
      sizeof (hello_msg), NULL, 0, &rp);
  progress_for (worker, 1);
  if (id == 0) {
    /* server-credit: the hello and credits were forged; any frame? */
    progress_for (worker, 3);
    printf ("bad-peer: forged credits: %d frames received, %s\n", frames_got,
        broken ? "the sender went away" : "still connected");
    return frames_got == 0 && broken ? 0 : 1;
  }
  req = ucp_am_send_nbx (ep, id, hdr, sizeof (hdr), NULL, 0, &rp);
  (void) req;
  progress_for (worker, 2);
  printf ("bad-peer: active message %u sent to the sender\n", id);
  return 0;
}

static ucp_ep_h
connect_to (ucp_worker_h worker, const struct addrinfo *res)
{
  ucp_ep_params_t ep_params = { 0 };
  ucp_ep_h ep;

  ep_params.field_mask = UCP_EP_PARAM_FIELD_FLAGS |
      UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLER |
      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  ep_params.sockaddr.addr = res->ai_addr;
  ep_params.sockaddr.addrlen = res->ai_addrlen;
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep_params.err_handler.cb = on_error;
  if (ucp_ep_create (worker, &ep_params, &ep) != UCS_OK)
    return NULL;
  return ep;
}

static int
rejchurn (ucp_worker_h worker, const struct addrinfo *res, long n)
{
  ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
    .flags = UCP_EP_CLOSE_FLAG_FORCE
  };
  struct timespec end;
  long i, refused = 0;
  ucp_ep_h ep;
  void *req;

  for (i = 0; i < n; i++) {
    if ((ep = connect_to (worker, res)) == NULL)
      return 1;
    broken = hello = 0;
    clock_gettime (CLOCK_MONOTONIC, &end);
    end.tv_sec += 5;
    while (!broken && !hello && before (&end))
      ucp_worker_progress (worker);
    refused += broken;
    req = ucp_ep_close_nbx (ep, &rp);
    if (UCS_PTR_IS_PTR (req)) {
      while (ucp_request_check_status (req) == UCS_INPROGRESS)
        ucp_worker_progress (worker);
      ucp_request_free (req);
    }
  }
  printf ("bad-peer: rejchurn: %ld connections, %ld refused\n", n, refused);
  return refused == n ? 0 : 1;
}

static void
send_wait (ucp_worker_h worker, ucp_ep_h ep, unsigned id, const void *h,
    size_t hlen, const void *data, size_t len)
{
  ucp_request_param_t rp = { 0 };
  struct timespec end;
  void *req = ucp_am_send_nbx (ep, id, h, hlen, data, len, &rp);

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 5;
  while (req && !UCS_PTR_IS_ERR (req)
      && ucp_request_check_status (req) == UCS_INPROGRESS && !broken
      && before (&end))
    ucp_worker_progress (worker);
}

/* Waits for the challenge (or a break), 10 s. */
static int
wait_challenge (ucp_worker_h worker)
{
  struct timespec end;

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 10;
  while (!challenged && !broken && before (&end))
    ucp_worker_progress (worker);
  return challenged;
}

/* auth / auth-replay against a keyed receiver */
static int
authenticate (ucp_worker_h worker, const struct addrinfo *res,
    const char *what, const char *key_file)
{
  static uint8_t payload[64 * 48 * 3 / 2];
  struct doradma_net_frame_header h;
  struct doradma_net_auth a;
  uint8_t nonce_s[32] = { 1, 2, 3 }, mac[32];
  uint64_t len;
  ucp_ep_h ep = connect_to (worker, res);

  if (ep == NULL || !wait_challenge (worker)) {
    fprintf (stderr, "bad-peer: no challenge\n");
    return 1;
  }
  sender_mac (key_file, challenge.nonce, nonce_s, challenge.flags, 0, mac);
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_RESPONSE, 0, nonce_s, mac);
  if (strcmp (what, "auth-replay") == 0) {
    /* a valid answer, recorded; replayed to the next connection */
    ucp_ep_close_nb (ep, UCP_EP_CLOSE_MODE_FORCE);
    progress_for (worker, 1);
    challenged = broken = 0;
    ep = connect_to (worker, res);
    if (ep == NULL || !wait_challenge (worker)) {
      fprintf (stderr, "bad-peer: no second challenge\n");
      return 1;
    }
    send_wait (worker, ep, DORADMA_NET_AM_AUTH, &a, sizeof (a), NULL, 0);
    progress_for (worker, 3);
    printf ("bad-peer: replayed answer %s\n", broken ? "refused" : "accepted");
    return broken ? 0 : 1;
  }
  send_wait (worker, ep, DORADMA_NET_AM_AUTH, &a, sizeof (a), NULL, 0);
  progress_for (worker, 1);
  make_frame ("valid", &h, &len);
  send_wait (worker, ep, DORADMA_NET_AM_FRAME, &h, sizeof (h), payload, len);
  progress_for (worker, 1);
  printf ("bad-peer: authenticated, a frame sent, %s\n", broken ?
      "disconnected" : "still connected");
  return broken ? 1 : 0;
}

/* An encrypted frame: the header (0x500) and its tags, then the payload. */
struct sealed_frame
{
  struct doradma_net_frame_header h;
  struct doradma_net_frame_tags t;
  uint8_t payload[64 * 48 * 3 / 2];
  uint64_t len;
};

static void
seal_frame (struct sealed_frame *f, uint64_t seq)
{
  uint8_t plain[sizeof (f->payload)];

  make_frame ("valid", &f->h, &f->len);
  f->h.sender_seq = seq;
  f->h.wire_flags |= DORADMA_NET_FLAG_ENCRYPTED;
  f->h.header_bytes = sizeof (f->h) + sizeof (f->t);
  memset (plain, (int) seq, sizeof (plain));
  gcm (2, seq, &f->h, sizeof (f->h), NULL, 0, NULL, f->t.header);
  gcm (1, seq, f->t.header, 16, plain, f->len, f->payload, f->t.payload);
}

static void
send_sealed (ucp_worker_h worker, ucp_ep_h ep, struct sealed_frame *f,
    size_t header_len)
{
  send_wait (worker, ep, DORADMA_NET_AM_FRAME, &f->h, header_len, f->payload,
      f->len);
}

/* crypt-* against a receiver with encrypt=true */
static int
encrypted (ucp_worker_h worker, const struct addrinfo *res, const char *what,
    const char *key_file)
{
  static struct sealed_frame f1, f2, x;
  const size_t full = sizeof (f1.h) + sizeof (f1.t);
  struct doradma_net_auth a;
  struct doradma_net_seal eos;
  uint8_t nonce_s[32] = { 4, 5, 6 }, mac[32];
  struct timespec end;
  ucp_ep_h ep = connect_to (worker, res);
  int valid = strcmp (what, "crypt-valid") == 0;

  if (ep == NULL || !wait_challenge (worker)) {
    fprintf (stderr, "bad-peer: no challenge\n");
    return 2;
  }
  if (!(challenge.flags & DORADMA_NET_AUTH_FLAG_ENCRYPT)) {
    fprintf (stderr, "bad-peer: the receiver does not encrypt\n");
    return 2;
  }
  sender_mac (key_file, challenge.nonce, nonce_s, challenge.flags,
      DORADMA_NET_AUTH_FLAG_ENCRYPT, mac);
  if (!derive (challenge.nonce, nonce_s))
    return 2;
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_RESPONSE,
      DORADMA_NET_AUTH_FLAG_ENCRYPT, nonce_s, mac);
  send_wait (worker, ep, DORADMA_NET_AM_AUTH, &a, sizeof (a), NULL, 0);
  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 10;
  while (!hello && !broken && before (&end))
    ucp_worker_progress (worker);
  if (!hello) {
    fprintf (stderr, "bad-peer: no hello after the handshake\n");
    return 2;
  }
  seal_frame (&f1, 1);
  seal_frame (&f2, 2);
  if (valid) {
    send_sealed (worker, ep, &f1, full);
    send_sealed (worker, ep, &f2, full);
  } else if (strcmp (what, "crypt-tamper") == 0) {
    f1.payload[100] ^= 1;
    send_sealed (worker, ep, &f1, full);
  } else if (strcmp (what, "crypt-tag") == 0) {
    f1.h.header_bytes = sizeof (f1.h) + 16;
    send_sealed (worker, ep, &f1, sizeof (f1.h) + 16);
  } else if (strcmp (what, "crypt-swap") == 0) {
    x = f1;
    memcpy (x.payload, f2.payload, sizeof (x.payload));
    memcpy (x.t.payload, f2.t.payload, 16);
    send_sealed (worker, ep, &x, full);
  } else if (strcmp (what, "crypt-replay") == 0) {
    send_sealed (worker, ep, &f1, full);
    send_sealed (worker, ep, &f1, full);
  } else if (strcmp (what, "crypt-reorder") == 0) {
    send_sealed (worker, ep, &f2, full);
    send_sealed (worker, ep, &f1, full);
  } else if (strcmp (what, "crypt-eos") == 0) {
    memset (&eos, 0, sizeof (eos));
    eos.counter = 1;
    send_wait (worker, ep, DORADMA_NET_AM_EOS, &eos, sizeof (eos), NULL, 0);
  } else if (strcmp (what, "crypt-clear") == 0) {
    make_frame ("valid", &x.h, &x.len);
    send_sealed (worker, ep, &x, sizeof (x.h));
  } else {
    return 2;
  }
  progress_for (worker, valid ? 1 : 3);
  printf ("bad-peer: %s: %s\n", what, broken ? "disconnected" :
      "still connected");
  return valid ? broken : !broken;
}

/* eos / frame / credit without the handshake */
static int
unauthenticated (ucp_worker_h worker, ucp_ep_h ep, const char *what)
{
  static uint8_t payload[64 * 48 * 3 / 2];
  struct doradma_net_frame_header h;
  struct doradma_net_credit c;
  uint64_t len;

  if (!wait_challenge (worker)) {
    fprintf (stderr, "bad-peer: no challenge (a receiver without a key?)\n");
    return 1;
  }
  if (strcmp (what, "eos") == 0) {
    send_wait (worker, ep, DORADMA_NET_AM_EOS, NULL, 0, NULL, 0);
  } else if (strcmp (what, "frame") == 0) {
    make_frame ("valid", &h, &len);
    send_wait (worker, ep, DORADMA_NET_AM_FRAME, &h, sizeof (h), payload, len);
  } else {
    doradma_net_credit_encode (&c, 0, 4, 0);
    send_wait (worker, ep, DORADMA_NET_AM_CREDIT, &c, sizeof (c), NULL, 0);
  }
  progress_for (worker, 3);
  printf ("bad-peer: %s without the key: %s\n", what, broken ?
      "disconnected" : "still connected");
  return broken ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static uint8_t payload[64 * 48 * 3 / 2];
  ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
    .features = UCP_FEATURE_AM
  };
  ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
    .thread_mode = UCS_THREAD_MODE_SINGLE
  };
  ucp_am_handler_param_t ap = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
        UCP_AM_HANDLER_PARAM_FIELD_CB,.id = DORADMA_NET_AM_CREDIT,.cb =
        on_credit
  };
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM }, *res;
  struct doradma_net_frame_header h;
  ucp_request_param_t rp = { 0 };
  ucp_ep_params_t ep_params = { 0 };
  struct timespec end;
  ucp_context_h ctx;
  ucp_worker_h worker;
  ucp_ep_h ep;
  uint64_t len;
  const char *what;
  void *req;

  if (argc < 4)
    return 2;
  what = argv[3];
  if (strncmp (what, "flood", 5) == 0 || strcmp (what, "server-am") == 0
      || strncmp (what, "auth", 4) == 0 || strncmp (what, "crypt-", 6) == 0
      || strcmp (what, "server-credit") == 0
      || strcmp (what, "rejchurn") == 0) {
    if (argc != 5)
      return 2;
  } else if (strcmp (what, "eos") == 0 || strcmp (what, "frame") == 0
      || strcmp (what, "credit") == 0) {
  } else if (strcmp (what, "unknown-am") == 0) {
    if (argc != 6)
      return 2;
  } else if (argc != 4 || make_frame (what, &h, &len) != 0
      || len > sizeof (payload)) {
    return 2;
  }
  if (getaddrinfo (argv[1], argv[2], &hints, &res) != 0)
    return 2;
  if (ucp_init (&params, NULL, &ctx) != UCS_OK
      || ucp_worker_create (ctx, &wp, &worker) != UCS_OK
      || ucp_worker_set_am_recv_handler (worker, &ap) != UCS_OK)
    return 2;
  ap.id = DORADMA_NET_AM_AUTH;
  ap.cb = on_auth;
  if (ucp_worker_set_am_recv_handler (worker, &ap) != UCS_OK)
    return 2;
  ap.id = DORADMA_NET_AM_FRAME;
  ap.cb = on_frame_count;
  if (ucp_worker_set_am_recv_handler (worker, &ap) != UCS_OK)
    return 2;
  /* a keyed receiver: through its door first, with the mode's key, or
   * for eos|frame|credit DORADMA_BAD_PEER_DOOR_KEY's (none: refused there,
   * which those modes count as refused) */
  if (strncmp (what, "auth", 4) == 0 || strncmp (what, "crypt-", 6) == 0
      || ((strcmp (what, "eos") == 0 || strcmp (what, "frame") == 0
              || strcmp (what, "credit") == 0)
          && getenv ("DORADMA_BAD_PEER_DOOR"))) {
    const char *door_key = argc == 5 && strcmp (argv[4],
        "-") != 0 ? argv[4] : getenv ("DORADMA_BAD_PEER_DOOR_KEY");
    int d = door (res, door_key);

    if (d != 0)
      return strcmp (what, "auth") == 0 ? 1 : strncmp (what, "auth", 4) == 0
          || strncmp (what, "crypt-", 6) == 0 || d == 2 ? 2 : 0;
  }
  if (strcmp (what, "server-am") == 0)
    return server_am (worker, res, atoi (argv[4]));
  if (strcmp (what, "server-credit") == 0)
    return server_am (worker, res, 0);
  if (strncmp (what, "auth", 4) == 0)
    return authenticate (worker, res, what, argv[4]);
  if (strncmp (what, "crypt-", 6) == 0)
    return encrypted (worker, res, what, argv[4]);
  if (strcmp (what, "rejchurn") == 0)
    return rejchurn (worker, res, atol (argv[4]));
  ep_params.field_mask = UCP_EP_PARAM_FIELD_FLAGS |
      UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLER |
      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  ep_params.sockaddr.addr = res->ai_addr;
  ep_params.sockaddr.addrlen = res->ai_addrlen;
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep_params.err_handler.cb = on_error;
  if (ucp_ep_create (worker, &ep_params, &ep) != UCS_OK)
    return 2;

  if (strcmp (what, "eos") == 0 || strcmp (what, "frame") == 0
      || strcmp (what, "credit") == 0)
    return unauthenticated (worker, ep, what);
  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 10;
  while (!hello && !broken && before (&end))
    ucp_worker_progress (worker);
  if (!hello) {
    fprintf (stderr, "bad-peer: no hello\n");
    return 1;
  }

  if (strncmp (what, "flood", 5) == 0)
    return flood (worker, ep, what, atol (argv[4]));
  if (strcmp (what, "unknown-am") == 0)
    return unknown_am (worker, ep, atoi (argv[4]), atol (argv[5]));
  req = ucp_am_send_nbx (ep, DORADMA_NET_AM_FRAME, &h, sizeof (h), payload,
      len, &rp);
  while (!broken && before (&end))
    ucp_worker_progress (worker);
  if (req && !UCS_PTR_IS_ERR (req)) {
    if (ucp_request_check_status (req) == UCS_INPROGRESS)
      ucp_request_cancel (worker, req);
    ucp_request_free (req);
  }
  printf ("bad-peer: %s header sent, %s\n", what,
      broken ? "disconnected by the receiver" : "still connected");
  return broken ? 0 : 1;
}
