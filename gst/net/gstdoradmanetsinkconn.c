/* doradma network plugin — doradmanetsink's receiver connection (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <netinet/in.h>
#include <poll.h>
#include <string.h>

#include "gstdoradmanetsinkconn.h"
#include "gstdoradmanetauth.h"
#include "gstdoradmanetallow.h"
#include "gstdoradmanetgate.h"

/* A connection that brings no hello from the receiver in this time is
 * abandoned and tried again. */
#define HELLO_TIMEOUT_US (2 * G_USEC_PER_SEC)

static void
on_ep_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  GstDoradmaNetSink *self = arg;

  GST_DEBUG_OBJECT (self, "endpoint error: %s", ucs_status_string (status));
  if (ep == self->ep) {
    self->ep_failed = TRUE;
    /* the receiver's listener said no: it serves another sender */
    if (status == UCS_ERR_REJECTED)
      self->rejected = TRUE;
  }
}

static void auth_failed (GstDoradmaNetSink * self, const gchar * why);

static ucs_status_t
on_credit (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;
  struct doradma_net_credit c;
  struct doradma_net_seal seal;
  struct doradma_diag diag = { 0 };

  if (self->encrypt && self->proven) {
    /* encrypt: the credit's seal, then the credit (forged, altered,
     * replayed or reordered credits end the connection) */
    if (header_length != sizeof (c) + sizeof (seal)) {
      auth_failed (self, "a credit message without its seal (encrypt)");
      return UCS_OK;
    }
    memcpy (&seal, (const guint8 *) header + sizeof (c), sizeof (seal));
    if (!gst_doradma_net_crypt_open_message (&self->to_sender,
            GST_DORADMA_NET_CRYPT_CREDIT, &self->credit_counter, header,
            sizeof (c), &seal)) {
      auth_failed (self, "a credit message failed authentication (encrypt): "
          "forged, altered or replayed on the path");
      return UCS_OK;
    }
    header_length = sizeof (c);
  }
  if (doradma_net_credit_decode (header, header_length, &c, &diag) < 0) {
    COUNT (self, C_BAD_CREDITS, 1);
    GST_ELEMENT_WARNING (self, STREAM, DECODE,
        ("Malformed credit message from the receiver"), ("%s", diag.msg));
    self->ep_failed = self->ep != NULL;
    return UCS_OK;
  }
  if (self->key && !self->proven) {
    /* a receiver without the key (or one skipping the handshake) */
    COUNT (self, C_AUTH_FAILURES, 1);
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("The receiver did not authenticate: does it have the key-file?"),
        ("credits before the receiver proved the key"));
    self->ep_failed = self->ep != NULL;
    return UCS_OK;
  }
  self->last_heard = g_get_monotonic_time ();
  self->sent_since_heard = FALSE;
  if (c.hello) {
    gst_doradma_net_sink_count_lost (self, TRUE, c.handled_seq);
    /* what was sent before this connection is accounted for */
    self->confirmed_seq = self->last_sent_seq;
    self->connected = TRUE;
    self->credits = c.credits;
  } else {
    /* a number this sender did not send is another sender's */
    if (c.handled_seq > self->confirmed_seq
        && c.handled_seq <= self->last_sent_seq)
      self->confirmed_seq = c.handled_seq;
    self->credits = MIN (self->credits + c.credits, 64);
  }
  return UCS_OK;
}

void
gst_doradma_net_sink_count_lost (GstDoradmaNetSink * self, gboolean hello,
    guint64 handled_seq)
{
  guint64 from = self->lost_from;

  if (self->lost_to == 0)
    return;
  /* the same receiver, which handled some of them after our last credit
   * (a new one says 0, or another sender's numbers: not ours) */
  if (hello && handled_seq > from && handled_seq <= self->lost_to)
    from = handled_seq;
  if (self->lost_to > from) {
    GST_DEBUG_OBJECT (self, "frames %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT
        " were in flight at a lost connection: lost", from + 1, self->lost_to);
    COUNT (self, C_LOST_IN_FLIGHT, self->lost_to - from);
  }
  self->lost_from = self->lost_to = 0;
}

static void
auth_failed (GstDoradmaNetSink * self, const gchar * why)
{
  COUNT (self, C_AUTH_FAILURES, 1);
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
      ("Authentication with the receiver failed; disconnecting"), ("%s", why));
  self->ep_failed = self->ep != NULL;
}

/* encrypt differs between the two ends: said once per connection; the
 * receiver, which reads our answer, closes the connection */
static void
encrypt_mismatch (GstDoradmaNetSink * self)
{
  COUNT (self, C_AUTH_FAILURES, 1);
  self->told_mismatch = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
      ("encrypt=%s on this doradmanetsink but encrypt=%s on the receiver "
          "(doradmanetsrc): set encrypt the same on both",
          self->encrypt ? "true" : "false", self->encrypt ? "false" : "true"),
      ("refused at the handshake (both sides' encrypt is in its MACs)"));
}

/* encrypt: this connection's keys, from the key and both nonces */
static gboolean
derive_keys (GstDoradmaNetSink * self)
{
  guint8 to_r[GST_DORADMA_NET_CRYPT_KEY_BYTES];
  guint8 to_s[GST_DORADMA_NET_CRYPT_KEY_BYTES];
  gsize len;
  const void *psk = g_bytes_get_data (self->key, &len);
  gboolean ok;

  ok = gst_doradma_net_crypt_derive (psk, len, self->nonce_r, self->nonce_s,
      to_r, to_s)
      && gst_doradma_net_crypt_init (&self->to_receiver, to_r)
      && gst_doradma_net_crypt_init (&self->to_sender, to_s);
  gnutls_memset (to_r, 0, sizeof (to_r));
  gnutls_memset (to_s, 0, sizeof (to_s));
  self->eos_counter = self->credit_counter = 0;
  return ok;
}

/* The handshake (gstdoradmanetwire.h): the receiver's CHALLENGE, answered
 * with this side's nonce and proof, then its PROOF. Both sides' flags
 * (encrypt) are in both MACs. */
static ucs_status_t
on_auth (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;
  struct doradma_diag diag = { 0 };
  struct doradma_net_auth a;
  guint8 mac[DORADMA_NET_AUTH_BYTES];
  guint32 mine = self->encrypt ? DORADMA_NET_AUTH_FLAG_ENCRYPT : 0;

  if (self->ep == NULL || self->ep_failed)
    return UCS_OK;
  if (doradma_net_auth_decode (header, header_length, &a, &diag) < 0) {
    auth_failed (self, diag.msg);
  } else if (self->key == NULL) {
    auth_failed (self, "the receiver requires a key: set key-file");
  } else if (a.kind == DORADMA_NET_AUTH_CHALLENGE && !self->answered) {
    memcpy (self->nonce_r, a.nonce, sizeof (self->nonce_r));
    if (!gst_doradma_net_auth_nonce (self->nonce_s)) {
      auth_failed (self, "no random bytes for a nonce");
      return UCS_OK;
    }
    self->answered = TRUE;
    self->peer_flags = a.flags;
    /* answered even when encrypt differs: the receiver then names it too */
    gst_doradma_net_auth_mac (self->key, GST_DORADMA_NET_AUTH_SENDER,
        self->nonce_r, self->nonce_s, a.flags, mine, mac);
    doradma_net_auth_encode (&a, DORADMA_NET_AUTH_RESPONSE, mine, self->nonce_s,
        mac);
    gst_doradma_net_ucx_send_copy (self->ep, DORADMA_NET_AM_AUTH, &a,
        sizeof (a));
    if ((self->peer_flags ^ mine) & DORADMA_NET_AUTH_FLAG_ENCRYPT)
      encrypt_mismatch (self);
  } else if (a.kind == DORADMA_NET_AUTH_PROOF && self->answered
      && !self->proven) {
    if (!gst_doradma_net_auth_check (self->key,
            GST_DORADMA_NET_AUTH_RECEIVER, self->nonce_s,
            self->nonce_r, mine, self->peer_flags, a.mac))
      auth_failed (self, "the receiver does not have the key (wrong "
          "key-file or a replayed proof)");
    else if (self->told_mismatch)
      auth_failed (self, "the receiver accepted a different encrypt");
    else if (self->encrypt && !derive_keys (self))
      auth_failed (self, "GnuTLS could not derive this connection's keys");
    else
      self->proven = TRUE;
  } else {
    auth_failed (self, "an authentication message out of turn");
  }
  return UCS_OK;
}

/* Any active message id but the credit's: counted, dropped, and the
 * receiver disconnected (gst_doradma_net_ucx_set_unknown_am_handler). */
static ucs_status_t
on_unknown (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  GstDoradmaNetSink *self = arg;

  COUNT (self, C_UNKNOWN_MESSAGES, 1);
  self->ep_failed = self->ep != NULL;
  return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) ?
      UCS_ERR_INVALID_PARAM : UCS_OK;
}

static void
post_message (GstDoradmaNetSink * self, const gchar * name,
    const gchar * reason)
{
  gchar *host;
  guint port;

  GST_OBJECT_LOCK (self);
  host = g_strdup (self->host);
  port = self->port;
  GST_OBJECT_UNLOCK (self);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "host", G_TYPE_STRING, host, "port",
              G_TYPE_UINT, port, "reason", G_TYPE_STRING, reason, NULL)));
  g_free (host);
}

/* The frames sent on a lost connection and not confirmed: counted at the
 * next hello, which says what the receiver handled after all, or at EOS. */
void
gst_doradma_net_sink_note_unconfirmed (GstDoradmaNetSink * self)
{
  if (self->connected && self->last_sent_seq > self->confirmed_seq) {
    if (self->lost_to == 0)
      self->lost_from = self->confirmed_seq;
    self->lost_to = self->last_sent_seq;
  }
}

void
gst_doradma_net_sink_drop_connection (GstDoradmaNetSink * self, gboolean force)
{
  /* a flush waits at most what makes a silent peer lost */
  gint64 grace = (gint64) ((self->peer_timeout ? self->peer_timeout :
          DEFAULT_PEER_TIMEOUT) / 1000);

  gst_doradma_net_sink_note_unconfirmed (self);
  if (!gst_doradma_net_ucx_close_ep (&self->ucx, self->ep, force, grace))
    GST_WARNING_OBJECT (self, "the receiver took nothing for %" G_GINT64_FORMAT
        " ms: connection closed without its last frames", grace / 1000);
  self->ep = NULL;
  self->ep_failed = FALSE;
  self->connected = FALSE;
  self->answered = self->proven = self->rejected = FALSE;
  self->told_mismatch = FALSE;
  gst_doradma_net_crypt_clear (&self->to_receiver);
  gst_doradma_net_crypt_clear (&self->to_sender);
  self->credits = 0;
}

/* host:port resolved now into *ss, if allowed-peers allows its address
 * (else counted, named once); FALSE and the reason in the debug log
 * otherwise. */
static gboolean
resolve_allowed (GstDoradmaNetSink * self, const gchar * host, guint port,
    struct sockaddr_storage *ss, socklen_t * len)
{
  GError *err = NULL;
  gchar *text = NULL;

  if (!gst_doradma_net_ucx_resolve (host, port, ss, len, &err)) {
    GST_DEBUG_OBJECT (self, "%s", err->message);
    g_clear_error (&err);
    return FALSE;
  }
  if (!gst_doradma_net_allow_check (self->allow, (struct sockaddr *) ss, &text)) {
    COUNT (self, C_AUTH_FAILURES, 1);
    if (g_strcmp0 (text, self->told_not_allowed) != 0) {
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
          ("Not connecting to %s (host %s): not in allowed-peers", text,
              host), ("tried again every retry-interval, without a "
              "warning while host resolves to the same address"));
      g_free (self->told_not_allowed);
      self->told_not_allowed = text;
    } else {
      GST_DEBUG_OBJECT (self, "not connecting to %s: not in allowed-peers",
          text);
      g_free (text);
    }
    return FALSE;
  }
  g_free (text);
  return TRUE;
}

/* A UCX connection to `ss`, port `port` (host names it in errors); NULL
 * and the reason in the debug log when UCX refuses at once. */
static ucp_ep_h
connect_ucx (GstDoradmaNetSink * self, const gchar * host, guint port,
    struct sockaddr_storage *ss, socklen_t len)
{
  GError *err = NULL;
  ucp_ep_h ep;

  gst_doradma_net_sockaddr_set_port (ss, port);
  ep = gst_doradma_net_ucx_connect (&self->ucx, host, port, ss, len,
      on_ep_error, self, &err);
  if (ep == NULL) {
    GST_DEBUG_OBJECT (self, "%s", err->message);
    g_clear_error (&err);
  }
  return ep;
}

/* key-file: starts the conversation at the door of `ss` */
static void
door_start (GstDoradmaNetSink * self, const struct sockaddr_storage *ss,
    socklen_t len)
{
  GError *err = NULL;
  int fd = gst_doradma_net_door_dial (ss, len, &err);

  if (fd < 0) {
    GST_DEBUG_OBJECT (self, "%s", err->message);
    g_clear_error (&err);
    return;
  }
  if (!gst_doradma_net_door_talk_init (&self->door, fd, TRUE, self->key, 0)) {
    gst_doradma_net_door_talk_clear (&self->door);
    return;
  }
  self->door_addr = *ss;
  self->door_addr_len = len;
}

/* key-file: moves the conversation at the door on; when the receiver has
 * proved the key, opens this sender's UCX listeners to it and connects UCX
 * to the port it told (self->ep). */
static void
door_step (GstDoradmaNetSink * self, const gchar * host)
{
  const gchar *why = NULL;
  GstDoradmaNetDoorResult r;
  GPtrArray *allow;
  GError *err = NULL;
  guint port;

  /* carried to its end here (a few records, 2 s at most), not a step a
   * frame: at 1 frame/s or less it would never end in time. The lock is
   * let go while the socket is awaited (nothing of UCX waits on it: there
   * is no endpoint yet); an unlock leaves it for the next call. */
  while ((r = gst_doradma_net_door_talk_step (&self->door, &why))
      == GST_DORADMA_NET_DOOR_WAITING) {
    struct pollfd p = { self->door.fd,
      gst_doradma_net_door_talk_events (&self->door), 0
    };

    if (self->unlocked)
      return;
    g_mutex_unlock (&self->ucx.lock);
    poll (&p, 1, 50);
    g_mutex_lock (&self->ucx.lock);
  }
  port = self->door.port;
  gst_doradma_net_door_talk_clear (&self->door);
  if (r == GST_DORADMA_NET_DOOR_FAILED) {
    COUNT (self, C_AUTH_FAILURES, 1);
    /* said once per reason and streak: the sender keeps trying every
     * retry-interval */
    if (self->told_door != why) {
      self->told_door = why;
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
          ("At the receiver's door (%s port %u): %s; retrying", host,
              self->port, why), (NULL));
    } else {
      GST_DEBUG_OBJECT (self, "at the door: %s", why);
    }
    return;
  }
  allow = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (allow, gst_doradma_net_door_peer_mask (&self->door_addr));
  if (!gst_doradma_net_ucx_regate (&self->ucx, allow, &err)) {
    static const gchar gate_failed[] = "this sender's gate could not be "
        "opened to the receiver";

    COUNT (self, C_AUTH_FAILURES, 1);
    if (self->told_door != gate_failed) {
      self->told_door = gate_failed;
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
          ("After the receiver's door: %s; retrying", gate_failed),
          ("%s", err->message));
    }
    g_clear_error (&err);
  } else {
    self->ep = connect_ucx (self, host, port, &self->door_addr,
        self->door_addr_len);
    self->attempt_start = g_get_monotonic_time ();
  }
  g_ptr_array_unref (allow);
}

/* TRUE when connected; else starts or follows a connection attempt.
 * *ret is set (not OK) when the peer-lost policy ends the stream. */
gboolean
gst_doradma_net_sink_ensure_connected (GstDoradmaNetSink * self,
    GstFlowReturn * ret)
{
  gint64 now = g_get_monotonic_time ();
  gchar *host;
  guint port;

  *ret = GST_FLOW_OK;
  if (self->ep && self->ep_failed) {
    gboolean lost = self->was_connected;

    if (self->rejected) {
      /* said once per streak of refusals (review N-13) */
      COUNT (self, C_REFUSED, 1);
      if (!self->told_refused) {
        self->told_refused = TRUE;
        post_message (self, "doradmanetsink-refused",
            "the receiver refused the connection: it serves another sender "
            "or this sender's address is not in its allowed-peers");
        GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
            ("The receiver refused the connection: it serves another "
                "sender (one at a time), or this sender's address is not "
                "in its allowed-peers; retrying"), (NULL));
      }
    }
    /* without a key, failed before the hello: nothing listens, or a
     * keyed receiver's door closed on our UCX (said once per streak) */
    if (!self->key && !self->rejected && !self->was_connected
        && !self->told_closed) {
      self->told_closed = TRUE;
      /* UCX says "not connected" for both */
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
          ("No connection to the receiver: nothing listens at its port, or "
              "it may require a key-file (a keyed receiver's port is its "
              "door, which takes no UCX connection); retrying"), (NULL));
    }
    /* the receiver closed after our answer: it refused our key */
    if (self->key && self->answered && !self->proven && !self->told_mismatch)
      auth_failed (self, "the receiver closed the connection after our "
          "answer to its challenge: not the same key-file?");

    gst_doradma_net_sink_drop_connection (self, TRUE);
    self->next_attempt = now + self->retry_interval / 1000;
    if (lost) {
      GstDoradmaWriterLost policy;

      self->was_connected = FALSE;
      COUNT (self, C_PEER_LOST, 1);
      post_message (self, "doradmanetsink-peer-lost",
          "the receiver went away or the link broke");
      GST_OBJECT_LOCK (self);
      policy = self->on_peer_lost;
      GST_OBJECT_UNLOCK (self);
      if (policy == GST_DORADMA_WRITER_LOST_ERROR) {
        GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
            ("The receiver went away (on-peer-lost=error)"), (NULL));
        *ret = GST_FLOW_ERROR;
        return FALSE;
      }
      if (policy == GST_DORADMA_WRITER_LOST_EOS) {
        *ret = GST_FLOW_EOS;
        return FALSE;
      }
    }
  }
  /* frames went out and nothing came back for peer-timeout: a link cut
   * with data in flight, which TCP itself reports after many minutes */
  if (self->connected && self->sent_since_heard && self->peer_timeout
      && now - self->last_heard > (gint64) (self->peer_timeout / 1000)) {
    GST_DEBUG_OBJECT (self, "nothing from the receiver for %" GST_TIME_FORMAT,
        GST_TIME_ARGS (self->peer_timeout));
    self->ep_failed = TRUE;
    return gst_doradma_net_sink_ensure_connected (self, ret);
  }
  if (self->connected) {
    if (!self->was_connected) {
      self->was_connected = TRUE;
      self->told_refused = self->told_no_answer = self->told_closed = FALSE;
      self->told_door = NULL;
      COUNT (self, C_CONNECTS, 1);
      post_message (self, "doradmanetsink-connected", "hello received");
    }
    return TRUE;
  }
  if (self->ep == NULL) {
    struct sockaddr_storage ss;
    socklen_t len;

    if (self->door.fd < 0 && now < self->next_attempt)
      return FALSE;
    GST_OBJECT_LOCK (self);
    host = g_strdup (self->host);
    port = self->port;
    GST_OBJECT_UNLOCK (self);
    if (self->door.fd >= 0) {
      door_step (self, host);
    } else if (resolve_allowed (self, host, port, &ss, &len)) {
      if (self->key) {
        door_start (self, &ss, len);
        if (self->door.fd >= 0)
          door_step (self, host);
      } else {
        self->ep = connect_ucx (self, host, port, &ss, len);
      }
      self->attempt_start = now;
      self->next_attempt = now + self->retry_interval / 1000;
    } else {
      self->next_attempt = now + self->retry_interval / 1000;
    }
    g_free (host);
    self->sent_since_heard = FALSE;
    return FALSE;
  }
  if (now - self->attempt_start > HELLO_TIMEOUT_US) {
    GST_DEBUG_OBJECT (self, "no hello from the receiver; retrying");
    /* a receiver whose allowed-peers leaves this host out answers
     * nothing at all: the kernel drops our packets (gstdoradmanetgate.h) */
    if (!self->told_no_answer) {
      self->told_no_answer = TRUE;
      GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
          ("No answer from the receiver in %d s: it is not running, the "
              "network drops the packets, or its allowed-peers does not "
              "list this sender's address; retrying",
              (int) (HELLO_TIMEOUT_US / G_USEC_PER_SEC)), (NULL));
    }
    gst_doradma_net_sink_drop_connection (self, TRUE);
  }
  return FALSE;
}

/* Lossless: waits until connected with a credit. Returns OK, FLUSHING
 * (unlock) or an error after `timeout`. */
GstFlowReturn
gst_doradma_net_sink_wait_for_credit (GstDoradmaNetSink * self)
{
  gint64 deadline = 0;
  GstFlowReturn ret;

  if (self->timeout)
    deadline = g_get_monotonic_time () + self->timeout / 1000;
  for (;;) {
    if (gst_doradma_net_sink_ensure_connected (self, &ret) && self->credits > 0)
      return GST_FLOW_OK;
    if (ret != GST_FLOW_OK)
      return ret;
    if (self->unlocked)
      return GST_FLOW_FLUSHING;
    gst_doradma_net_ucx_wait_progress (&self->ucx, 50);
    if (deadline && g_get_monotonic_time () > deadline) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
          ("No credit from the receiver in %" GST_TIME_FORMAT,
              GST_TIME_ARGS (self->timeout)),
          ("%s", self->connected ? "connected; the receiver's ring is full" :
              "not connected"));
      return GST_FLOW_ERROR;
    }
  }
}

gboolean
gst_doradma_net_sink_set_handlers (GstDoradmaNetSink * self, GError ** err)
{
  return gst_doradma_net_ucx_set_unknown_am_handler (&self->ucx, on_unknown,
      self, err)
      && gst_doradma_net_ucx_set_am_handler (&self->ucx,
      DORADMA_NET_AM_CREDIT, on_credit, self, err)
      && gst_doradma_net_ucx_set_am_handler (&self->ucx,
      DORADMA_NET_AM_AUTH, on_auth, self, err);
}
