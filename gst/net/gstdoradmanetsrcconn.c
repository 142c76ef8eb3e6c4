/* doradma network plugin — doradmanetsrc's sender connection (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmanetsrcconn.h"
#include "gstdoradmanetsrcpending.h"
#include "gstdoradmanetauth.h"
#include "gstdoradmanetallow.h"

/* Refused senders named in a warning at most (a sweep of addresses must
 * not grow the table without bound); the others in the debug log. */
#define MAX_REFUSED_NAMED 64

/* ---------------------------------------------------------------------- */
/* Credits back to the sender */

static void
credit_sent (void *request, ucs_status_t status, void *user_data)
{
  g_free (user_data);
  /* freed here, not at the send: a freed request gets no callback */
  ucp_request_free (request);
}

void
gst_doradma_net_src_send_credit (GstDoradmaNetSrc * self, gboolean hello,
    guint credits)
{
  struct doradma_net_credit *c;
  ucp_request_param_t param = { 0 };
  gsize len = sizeof (*c);
  void *req;

  if (self->ep == NULL || self->ep_failed)
    return;
  if (!hello)
    self->credit_balance += credits;
  /* encrypt: the credit, then its seal */
  c = g_malloc (sizeof (*c) + sizeof (struct doradma_net_seal));
  doradma_net_credit_encode (c, hello, credits, self->last_sender_seq);
  if (self->encrypt) {
    struct doradma_net_seal seal;

    if (!gst_doradma_net_crypt_seal_message (&self->to_sender,
            GST_DORADMA_NET_CRYPT_CREDIT, &self->credit_counter, c,
            sizeof (*c), &seal)) {
      g_free (c);
      self->ep_failed = TRUE;
      return;
    }
    memcpy ((guint8 *) c + sizeof (*c), &seal, sizeof (seal));
    len += sizeof (seal);
  }
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = credit_sent;
  param.user_data = c;
  req = ucp_am_send_nbx (self->ep, DORADMA_NET_AM_CREDIT, c, len, NULL, 0,
      &param);
  if (req == NULL || UCS_PTR_IS_ERR (req))
    g_free (c);
  /* else credit_sent frees c and req */
}

/* ---------------------------------------------------------------------- */
/* UCX callbacks (streaming thread, inside the worker's progress) */

static void
on_ep_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  GstDoradmaNetSrc *self = arg;

  GST_DEBUG_OBJECT (self, "endpoint error: %s", ucs_status_string (status));
  if (ep == self->ep)
    self->ep_failed = TRUE;
}

/* Credits to the sender and the connected message: at once without a
 * key, after the handshake with one. */
static void
sender_admitted (GstDoradmaNetSrc * self)
{
  COUNT (self, C_CONNECTS, 1);
  gst_doradma_net_src_send_credit (self, TRUE, self->slots_now);
  gst_doradma_net_src_post_message (self, "doradmanetsrc-connected",
      "a sender connected");
}

/* allowed-peers: FALSE (the request rejected, counted, the address named
 * once) for a sender whose address is not on the list. UCX has read only
 * its own connection request: none of the peer's messages is read. */
static gboolean
peer_allowed (GstDoradmaNetSrc * self, ucp_conn_request_h request)
{
  struct sockaddr_storage ss;
  gchar *text = NULL;

  if (self->allow == NULL)
    return TRUE;
  if (gst_doradma_net_ucx_request_address (request, &ss)) {
    if (gst_doradma_net_allow_check (self->allow, (struct sockaddr *) &ss,
            &text)) {
      g_free (text);
      return TRUE;
    }
  } else {
    text = g_strdup ("(an address UCX does not give)");
  }
  COUNT (self, C_AUTH_FAILURES, 1);
  ucp_listener_reject (self->listener, request);
  if (g_hash_table_size (self->refused_peers) < MAX_REFUSED_NAMED
      && !g_hash_table_contains (self->refused_peers, text)) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("Refused a connection from %s: not in allowed-peers", text),
        ("further connections from it are refused without a warning"));
    g_hash_table_add (self->refused_peers, text);
  } else {
    GST_DEBUG_OBJECT (self, "refused a connection from %s: not in "
        "allowed-peers", text);
    g_free (text);
  }
  return FALSE;
}

static void
on_connection (ucp_conn_request_h request, void *arg)
{
  GstDoradmaNetSrc *self = arg;
  GError *err = NULL;

  if (!peer_allowed (self, request))
    return;
  if (self->ep != NULL) {
    /* one sender at a time; a dead one is let go first (create) */
    COUNT (self, C_REFUSED, 1);
    ucp_listener_reject (self->listener, request);
    return;
  }
  self->ep = gst_doradma_net_ucx_accept (&self->ucx, request, on_ep_error,
      self, &err);
  if (self->ep == NULL) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ, ("%s", err->message),
        (NULL));
    g_clear_error (&err);
    return;
  }
  self->ep_failed = FALSE;
  self->discont = TRUE;
  self->last_heard = g_get_monotonic_time ();
  self->credit_balance = self->slots_now;
  self->authed = FALSE;
  gst_doradma_net_crypt_clear (&self->to_receiver);
  gst_doradma_net_crypt_clear (&self->to_sender);
  self->crypt_seq = self->eos_counter = self->credit_counter = 0;
  if (self->key) {
    struct doradma_net_auth a;

    /* no caps, frame, credit or EOS either way before the key is proven */
    if (!gst_doradma_net_auth_nonce (self->nonce)) {
      self->bad_peer = g_strdup ("no random bytes for a challenge");
      return;
    }
    doradma_net_auth_encode (&a, DORADMA_NET_AUTH_CHALLENGE,
        self->encrypt ? DORADMA_NET_AUTH_FLAG_ENCRYPT : 0, self->nonce, NULL);
    gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a,
        sizeof (a));
    return;
  }
  sender_admitted (self);
}

static ucs_status_t
on_eos (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;
  struct doradma_net_seal seal;

  if (self->ep == NULL || !gst_doradma_net_src_authenticated (self, "an EOS"))
    return UCS_OK;
  if (self->encrypt) {
    /* encrypt: an EOS is its seal; a forged or replayed one ends nothing */
    if (header_length == sizeof (seal))
      memcpy (&seal, header, sizeof (seal));
    if (header_length != sizeof (seal)
        || !gst_doradma_net_crypt_open_message (&self->to_receiver,
            GST_DORADMA_NET_CRYPT_EOS, &self->eos_counter, NULL, 0, &seal)) {
      COUNT (self, C_DECRYPT_FAILURES, 1);
      if (self->bad_peer == NULL) {
        self->bad_peer_forged = TRUE;
        self->bad_peer = g_strdup ("an EOS that failed authentication "
            "(encrypt; field net.eos)");
      }
      return UCS_OK;
    }
  }
  self->peer_eos = TRUE;
  return UCS_OK;
}

/* encrypt: this connection's keys, from the key and both nonces */
static gboolean
derive_keys (GstDoradmaNetSrc * self, const guint8 * nonce_s)
{
  guint8 to_r[GST_DORADMA_NET_CRYPT_KEY_BYTES];
  guint8 to_s[GST_DORADMA_NET_CRYPT_KEY_BYTES];
  gsize len;
  const void *psk = g_bytes_get_data (self->key, &len);
  gboolean ok;

  ok = gst_doradma_net_crypt_derive (psk, len, self->nonce, nonce_s, to_r, to_s)
      && gst_doradma_net_crypt_init (&self->to_receiver, to_r)
      && gst_doradma_net_crypt_init (&self->to_sender, to_s);
  gnutls_memset (to_r, 0, sizeof (to_r));
  gnutls_memset (to_s, 0, sizeof (to_s));
  return ok;
}

/* The handshake (gstdoradmanetwire.h): the sender's RESPONSE. */
static ucs_status_t
on_auth (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;
  struct doradma_diag diag = { 0 };
  struct doradma_net_auth a;
  const gchar *why = NULL;
  guint8 mac[DORADMA_NET_AUTH_BYTES];
  guint32 mine = self->encrypt ? DORADMA_NET_AUTH_FLAG_ENCRYPT : 0;

  if (self->ep == NULL || self->bad_peer)
    return UCS_OK;
  if (doradma_net_auth_decode (header, header_length, &a, &diag) < 0)
    why = diag.msg;
  else if (self->key == NULL)
    why = "an authentication message, but this receiver has no key-file";
  else if (self->authed || a.kind != DORADMA_NET_AUTH_RESPONSE)
    why = "an authentication message out of turn";
  else if (!gst_doradma_net_auth_check (self->key,
          GST_DORADMA_NET_AUTH_SENDER, self->nonce,
          a.nonce, mine, a.flags, a.mac))
    why = "the sender does not have the key (wrong key-file or replayed "
        "answer)";
  else if ((a.flags ^ mine) & DORADMA_NET_AUTH_FLAG_ENCRYPT) {
    /* authenticated flags: the sender's real setting */
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("encrypt=%s on this doradmanetsrc but encrypt=%s on the sender "
            "(doradmanetsink): set encrypt the same on both",
            self->encrypt ? "true" : "false",
            self->encrypt ? "false" : "true"),
        ("refused at the handshake (both sides' encrypt is in its MACs)"));
    why = "encrypt differs between the sender and this receiver";
  } else if (self->encrypt && !derive_keys (self, a.nonce))
    why = "GnuTLS could not derive this connection's keys";
  if (why) {
    COUNT (self, C_AUTH_FAILURES, 1);
    self->bad_peer = g_strdup_printf ("%s (field net.auth)", why);
    return UCS_OK;
  }
  self->authed = TRUE;
  /* the receiver's proof, over the sender's nonce first */
  gst_doradma_net_auth_mac (self->key, GST_DORADMA_NET_AUTH_RECEIVER, a.nonce,
      self->nonce, a.flags, mine, mac);
  doradma_net_auth_encode (&a, DORADMA_NET_AUTH_PROOF, 0, NULL, mac);
  gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a, sizeof (a));
  sender_admitted (self);
  return UCS_OK;
}

/* Any active message id but the wire's: counted, dropped, and its sender
 * disconnected (gst_doradma_net_ucx_set_unknown_am_handler). */
static ucs_status_t
on_unknown (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSrc *self = arg;

  COUNT (self, C_UNKNOWN_MESSAGES, 1);
  if (self->ep != NULL && self->bad_peer == NULL)
    self->bad_peer = g_strdup ("an active message of an id the wire does "
        "not use (field net.am-id)");
  return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ?
      UCS_ERR_INVALID_PARAM : UCS_OK;
}

void
gst_doradma_net_src_drop_sender (GstDoradmaNetSrc * self)
{
  gst_doradma_net_src_pending_abandon_all (self);
  gst_doradma_net_ucx_close_ep (&self->ucx, self->ep, TRUE, 0);
  self->ep = NULL;
  self->ep_failed = FALSE;
}

gboolean
gst_doradma_net_src_listen (GstDoradmaNetSrc * self, const gchar * address,
    guint port, GError ** err)
{
  if (!gst_doradma_net_ucx_set_unknown_am_handler (&self->ucx, on_unknown,
          self, err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_FRAME, gst_doradma_net_src_on_frame, self, err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_EOS, on_eos, self, err)
      || !gst_doradma_net_ucx_set_am_handler (&self->ucx,
          DORADMA_NET_AM_AUTH, on_auth, self, err))
    return FALSE;
  self->listener = gst_doradma_net_ucx_listen (&self->ucx, address, port,
      on_connection, self, err);
  return self->listener != NULL;
}

/* ---------------------------------------------------------------------- */
/* The door (its own thread) */

static gboolean
door_regate (GPtrArray * allow, gpointer arg)
{
  GstDoradmaNetSrc *self = arg;
  GError *err = NULL;

  if (gst_doradma_net_ucx_regate (&self->ucx, allow, &err))
    return TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("%s", err->message),
      ("senders who proved the key cannot connect"));
  g_clear_error (&err);
  return FALSE;
}

static void
door_refused (const struct sockaddr_storage *peer, const gchar * why,
    gpointer arg)
{
  GstDoradmaNetSrc *self = arg;
  GSocketAddress *sa = g_socket_address_new_from_native ((gpointer) peer,
      sizeof (*peer));
  gchar *text = sa && G_IS_INET_SOCKET_ADDRESS (sa) ?
      g_inet_address_to_string (g_inet_socket_address_get_address
      (G_INET_SOCKET_ADDRESS (sa))) : g_strdup ("(unknown address)");

  COUNT (self, C_DOOR_REFUSED, 1);
  /* named once: a host that knocks without end must not flood the bus */
  if (g_atomic_int_compare_and_exchange (&self->told_door, 0, 1))
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
        ("A connection at the door from %s was closed: %s", text, why),
        ("UCX heard nothing from it; later ones are counted "
            "(stats: door-refused) and logged at DEBUG"));
  else
    GST_DEBUG_OBJECT (self, "door: closed a connection from %s: %s", text, why);
  g_free (text);
  g_clear_object (&sa);
}

gboolean
gst_doradma_net_src_open_door (GstDoradmaNetSrc * self, const gchar * address,
    guint port, GError ** err)
{
  guint ucx_port = gst_doradma_net_ucx_listener_port (&self->ucx);
  struct sockaddr_storage ss;
  socklen_t len;
  gchar *text;

  if (ucx_port == 0) {
    g_set_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "UCX did not say which port its listener took");
    return FALSE;
  }
  if (!gst_doradma_net_ucx_resolve (address, port, &ss, &len, err))
    return FALSE;
  text = g_strdup_printf ("%s port %u", address && address[0] ? address :
      "*", port);
  self->door = gst_doradma_net_door_open (text, &ss, len, self->key,
      self->allow, ucx_port, door_regate, door_refused, self, err);
  g_free (text);
  return self->door != NULL;
}
