/* doradma network plugin — doradmanetsink's settings (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetsinksettings.h"
#include "gstdoradmanetsecurity.h"

#define DEFAULT_HOST "127.0.0.1"
#define DEFAULT_PORT 13337
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_MAX_IN_FLIGHT 2
#define DEFAULT_TIMEOUT 0
#define DEFAULT_RETRY_INTERVAL (200 * GST_MSECOND)
#define DEFAULT_ON_PEER_LOST GST_DORADMA_WRITER_LOST_WAIT

enum
{
  PROP_0,
  PROP_HOST,
  PROP_PORT,
  PROP_TRANSPORTS,
  PROP_DATA_PORTS,
  PROP_MODE,
  PROP_MAX_IN_FLIGHT,
  PROP_TIMEOUT,
  PROP_RETRY_INTERVAL,
  PROP_ON_PEER_LOST,
  PROP_PEER_TIMEOUT,
  PROP_KEY_FILE,
  PROP_ENCRYPT,
  PROP_ALLOWED_PEERS,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

static void
gst_doradma_net_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      g_free (self->host);
      self->host = g_value_dup_string (value);
      break;
    case PROP_PORT:
      self->port = g_value_get_uint (value);
      break;
    case PROP_TRANSPORTS:
      g_free (self->transports);
      self->transports = g_value_dup_string (value);
      break;
    case PROP_DATA_PORTS:
      g_free (self->data_ports);
      self->data_ports = g_value_dup_string (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_MAX_IN_FLIGHT:
      self->max_in_flight = g_value_get_uint (value);
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_RETRY_INTERVAL:
      self->retry_interval = g_value_get_uint64 (value);
      break;
    case PROP_ON_PEER_LOST:
      self->on_peer_lost = g_value_get_enum (value);
      break;
    case PROP_PEER_TIMEOUT:
      self->peer_timeout = g_value_get_uint64 (value);
      break;
    case PROP_KEY_FILE:
      g_free (self->key_file);
      self->key_file = g_value_dup_string (value);
      break;
    case PROP_ENCRYPT:
      self->encrypt_prop = g_value_get_boolean (value);
      break;
    case PROP_ALLOWED_PEERS:
      g_free (self->allowed_peers);
      self->allowed_peers = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_doradma_net_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSink *self = GST_DORADMA_NET_SINK (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_net_sink_get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_HOST:
      g_value_set_string (value, self->host);
      break;
    case PROP_PORT:
      g_value_set_uint (value, self->port);
      break;
    case PROP_TRANSPORTS:
      g_value_set_string (value, self->transports);
      break;
    case PROP_DATA_PORTS:
      g_value_set_string (value, self->data_ports);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_MAX_IN_FLIGHT:
      g_value_set_uint (value, self->max_in_flight);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_RETRY_INTERVAL:
      g_value_set_uint64 (value, self->retry_interval);
      break;
    case PROP_ON_PEER_LOST:
      g_value_set_enum (value, self->on_peer_lost);
      break;
    case PROP_PEER_TIMEOUT:
      g_value_set_uint64 (value, self->peer_timeout);
      break;
    case PROP_KEY_FILE:
      g_value_set_string (value, self->key_file);
      break;
    case PROP_ENCRYPT:
      g_value_set_boolean (value, self->encrypt_prop);
      break;
    case PROP_ALLOWED_PEERS:
      g_value_set_string (value, self->allowed_peers);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_doradma_net_sink_settings_install (GObjectClass * gobject_class)
{
  gobject_class->set_property = gst_doradma_net_sink_set_property;
  gobject_class->get_property = gst_doradma_net_sink_get_property;

  /**
   * GstDoradmaNetSink:host:
   *
   * Address or name of the host where doradmanetsrc listens.
   */
  properties[PROP_HOST] = g_param_spec_string ("host", "Host",
      "Address or name of the receiving doradmanetsrc's host", DEFAULT_HOST,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:port:
   *
   * TCP port doradmanetsrc listens on (UCX connects through it; with RDMA
   * transports the data then moves over the NIC).
   */
  properties[PROP_PORT] = g_param_spec_uint ("port", "Port",
      "Port the receiving doradmanetsrc listens on", 1, 65535, DEFAULT_PORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:transports:
   *
   * UCX transports, as UCX_TLS takes them ("tcp", "rc,cuda_copy",
   * "all"...). Empty (the default): UCX chooses, honouring UCX_TLS.
   */
  properties[PROP_TRANSPORTS] = g_param_spec_string ("transports",
      "Transports", "UCX transports as UCX_TLS takes them (e.g. tcp, rc); "
      "empty: UCX_TLS or UCX's own choice", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:data-ports:
   *
   * The TCP ports UCX's tcp transport listens on for the data,
   * "FIRST-LAST" (UCX's TCP_PORT_RANGE, set in its configuration object):
   * what a firewall must let through besides `port`. Empty (the
   * default): UCX_TCP_PORT_RANGE, else an ephemeral port.
   */
  properties[PROP_DATA_PORTS] = g_param_spec_string ("data-ports",
      "Data ports", "TCP ports UCX listens on for the data, FIRST-LAST "
      "(empty: UCX_TCP_PORT_RANGE, else ephemeral)", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:mode:
   *
   * `latest`: never wait; a frame the wire cannot take now, or sent while
   * disconnected, is dropped and counted. `lossless`: wait for the
   * receiver's credits (one per frame it wrote into its ring) and for the
   * connection.
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "latest: drop what the wire cannot take (counted); lossless: wait for "
      "the receiver's credits", GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:max-in-flight:
   *
   * Latest mode: frames being sent at once; beyond, frames are dropped
   * (dropped-busy).
   */
  properties[PROP_MAX_IN_FLIGHT] = g_param_spec_uint ("max-in-flight",
      "Max in flight", "Latest mode: frames being sent at once before "
      "dropping", 1, 64, DEFAULT_MAX_IN_FLIGHT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:timeout:
   *
   * Lossless mode: nanoseconds to wait for a connection and a credit before
   * failing with an error. 0 waits forever.
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Lossless: nanoseconds to wait for the receiver's credit before an "
      "error (0 = forever)", 0, G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:retry-interval:
   *
   * Nanoseconds between connection attempts while the receiver is away.
   */
  properties[PROP_RETRY_INTERVAL] = g_param_spec_uint64 ("retry-interval",
      "Retry interval", "Nanoseconds between connection attempts",
      GST_MSECOND, 60 * GST_SECOND, DEFAULT_RETRY_INTERVAL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:on-peer-lost:
   *
   * When the receiver goes away (killed, link cut: found by UCX's error
   * handling and keepalive): `wait` reconnects every retry-interval,
   * `eos` ends the stream, `error` posts an error. Each loss posts a
   * "doradmanetsink-peer-lost" element message.
   */
  properties[PROP_ON_PEER_LOST] = g_param_spec_enum ("on-peer-lost",
      "On peer lost", "What to do when the receiver goes away: wait "
      "(reconnect), eos or error", GST_TYPE_DORADMA_WRITER_LOST,
      DEFAULT_ON_PEER_LOST, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:peer-timeout:
   *
   * Nanoseconds without any message from the receiver, while frames were
   * sent, after which it counts as lost (a link cut with data in flight,
   * which TCP itself reports only after minutes). The receiver answers
   * every frame it handles; in lossless mode a receiver whose own ring
   * stalls longer than this (a slow local reader) is taken for lost and
   * reconnected to: raise it there. 0 never.
   */
  properties[PROP_PEER_TIMEOUT] = g_param_spec_uint64 ("peer-timeout",
      "Peer timeout", "Nanoseconds without a message from the receiver, "
      "frames sent, before it counts as lost (0 = never)", 0, G_MAXUINT64,
      DEFAULT_PEER_TIMEOUT, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSink:stats:
   *
   * "doradmanetsink-stats": frames and bytes sent, dropped-busy (latest:
   * the wire was busy), dropped-disconnected (latest: no receiver),
   * connects, peer-lost, send-errors, bad-credits (malformed messages
   * from the receiver), unknown-messages (active messages of ids the wire
   * does not use: the receiver is disconnected), auth-failures (key
   * handshakes that failed, and attempts kept off by allowed-peers),
   * refused (connections the receiver refused: it serves another sender,
   * or this sender's address is not in its allowed-peers; the first of a
   * streak also posts a "doradmanetsink-refused" element message and a
   * warning), lost-in-flight (frames sent on a connection that was then
   * lost and that the receiver did not handle: counted when the next
   * receiver's hello says what it handled, or at EOS, also for a
   * connection that failed after the last frame; the numbers above the
   * last confirmed up to the last sent, so a number dropped-busy or not
   * sent in that range is counted too), staged-frames
   * (device frames copied once into pinned memory and sent from there),
   * device-frames (sent from device memory by a UCX with CUDA),
   * staging-buffers (pinned buffers allocated: the rest were reused),
   * gpu-path (the path of the last frame sent:
   * "host" from the mapped host buffer, "staged-pinned", "device"; "none"
   * before the first) and ucx-memory-types (what this UCX can send from:
   * "cuda" there means device frames go as such).
   */
  /**
   * GstDoradmaNetSink:key-file:
   *
   * A file holding the key shared with the receiver (16 to 4096 bytes,
   * not readable by group or others). With it, the receiver must prove it
   * has the key (HMAC-SHA-256 over fresh nonces of both sides) before its
   * credits are taken and any caps or frame is sent; one that does not is
   * disconnected (auth-failures). Both sides prove it first at the
   * receiver's door (`port`), before UCX connects to the port the door
   * tells; this sender's own UCX listeners drop every host until then,
   * and then all but the receiver (docs/network.md, "The door"). Without
   * it the stream is unauthenticated (warned at start).
   */
  /**
   * GstDoradmaNetSink:encrypt:
   *
   * Confidentiality: every frame's payload AES-256-GCM encrypted and,
   * with its header, authenticated; EOS and credits authenticated
   * (docs/network.md, "Encryption"). Needs key-file: the keys are derived
   * from it and both handshake nonces, fresh on every connection. The
   * receiver must have the same setting: a mismatch is refused at the
   * handshake, naming encrypt. A frame that fails authentication is never
   * published: counted (decrypt-failures at the receiver) and the
   * connection dropped.
   */
  /**
   * GstDoradmaNetSink:allowed-peers:
   *
   * The receivers' addresses this sender may connect to: a
   * comma-separated list of IP addresses and CIDR prefixes ("10.0.0.2,
   * 192.168.1.0/24, fd00::/8"). When host resolves to another address no
   * connection is made (counted in auth-failures, the address named once
   * in a warning; tried again every retry-interval). Packets from any other
   * address to this sender's UCX data ports are dropped by the kernel
   * before UCX reads them (a socket filter attached at start). Empty
   * (default): any.
   */
  gst_doradma_net_security_param_specs (properties, PROP_KEY_FILE,
      PROP_ENCRYPT, PROP_ALLOWED_PEERS, TRUE);
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, bytes, dropped-busy, dropped-disconnected, "
      "connects, peer-lost, send-errors, bad-credits, unknown-messages, "
      "auth-failures, refused, lost-in-flight, staged-frames, "
      "device-frames, staging-buffers; gpu-path (host, staged-pinned, "
      "device: the last frame's), ucx-memory-types", GST_TYPE_STRUCTURE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES, properties);
}

void
gst_doradma_net_sink_settings_init (GstDoradmaNetSink * self)
{
  self->host = g_strdup (DEFAULT_HOST);
  self->port = DEFAULT_PORT;
  self->mode = DEFAULT_MODE;
  self->max_in_flight = DEFAULT_MAX_IN_FLIGHT;
  self->timeout = DEFAULT_TIMEOUT;
  self->retry_interval = DEFAULT_RETRY_INTERVAL;
  self->on_peer_lost = DEFAULT_ON_PEER_LOST;
  self->peer_timeout = DEFAULT_PEER_TIMEOUT;
}

void
gst_doradma_net_sink_settings_clear (GstDoradmaNetSink * self)
{
  g_free (self->host);
  g_free (self->transports);
  g_free (self->data_ports);
  g_free (self->key_file);
  g_free (self->allowed_peers);
}
