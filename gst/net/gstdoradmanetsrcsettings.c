/* doradma network plugin — doradmanetsrc's settings (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmanetsrcsettings.h"
#include "gstdoradmanetsecurity.h"

#define DEFAULT_ADDRESS "0.0.0.0"
#define DEFAULT_PORT 13337
#define DEFAULT_CHANNEL NULL
#define DEFAULT_SLOTS 4
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_PERMISSIONS 0
#define DEFAULT_MAX_FRAME_BYTES DORADMA_NET_MAX_FRAME_DEFAULT
#define DEFAULT_ON_PEER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_WAIT_FOR_READERS 0
#define DEFAULT_PEER_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_MAX_PENDING 128
#define DEFAULT_MAX_PENDING_BYTES (64 * 1024 * 1024)

enum
{
  PROP_0,
  PROP_ADDRESS,
  PROP_PORT,
  PROP_UCX_PORT,
  PROP_TRANSPORTS,
  PROP_DATA_PORTS,
  PROP_CHANNEL,
  PROP_SLOTS,
  PROP_MODE,
  PROP_PERMISSIONS,
  PROP_MAX_FRAME_BYTES,
  PROP_ON_PEER_LOST,
  PROP_WAIT_FOR_READERS,
  PROP_PEER_TIMEOUT,
  PROP_MAX_PENDING,
  PROP_MAX_PENDING_BYTES,
  PROP_KEY_FILE,
  PROP_ENCRYPT,
  PROP_ALLOWED_PEERS,
  PROP_STATS,
  NUM_PROPERTIES
};

static GParamSpec *properties[NUM_PROPERTIES];

static void
gst_doradma_net_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_free (self->address);
      self->address = g_value_dup_string (value);
      break;
    case PROP_PORT:
      self->port = g_value_get_uint (value);
      break;
    case PROP_UCX_PORT:
      self->ucx_port = g_value_get_uint (value);
      break;
    case PROP_TRANSPORTS:
      g_free (self->transports);
      self->transports = g_value_dup_string (value);
      break;
    case PROP_DATA_PORTS:
      g_free (self->data_ports);
      self->data_ports = g_value_dup_string (value);
      break;
    case PROP_CHANNEL:
      g_free (self->channel);
      self->channel = g_value_dup_string (value);
      break;
    case PROP_SLOTS:
      self->slots = g_value_get_uint (value);
      break;
    case PROP_MODE:
      self->mode = g_value_get_enum (value);
      break;
    case PROP_PERMISSIONS:
      self->permissions = g_value_get_uint (value);
      break;
    case PROP_MAX_FRAME_BYTES:
      self->max_frame_bytes = g_value_get_uint64 (value);
      break;
    case PROP_ON_PEER_LOST:
      self->on_peer_lost = g_value_get_enum (value);
      break;
    case PROP_WAIT_FOR_READERS:
      self->wait_for_readers_prop = g_value_get_uint (value);
      break;
    case PROP_PEER_TIMEOUT:
      self->peer_timeout_prop = g_value_get_uint64 (value);
      break;
    case PROP_MAX_PENDING:
      self->max_pending_prop = g_value_get_uint (value);
      break;
    case PROP_MAX_PENDING_BYTES:
      self->max_pending_bytes_prop = g_value_get_uint64 (value);
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
gst_doradma_net_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstDoradmaNetSrc *self = GST_DORADMA_NET_SRC (object);

  if (prop_id == PROP_STATS) {
    g_value_take_boxed (value, gst_doradma_net_src_get_stats (self));
    return;
  }
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ADDRESS:
      g_value_set_string (value, self->address);
      break;
    case PROP_PORT:
      g_value_set_uint (value, self->port);
      break;
    case PROP_UCX_PORT:
      g_value_set_uint (value, self->ucx_port);
      break;
    case PROP_TRANSPORTS:
      g_value_set_string (value, self->transports);
      break;
    case PROP_DATA_PORTS:
      g_value_set_string (value, self->data_ports);
      break;
    case PROP_CHANNEL:
      g_value_set_string (value, self->channel);
      break;
    case PROP_SLOTS:
      g_value_set_uint (value, self->slots);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_PERMISSIONS:
      g_value_set_uint (value, self->permissions);
      break;
    case PROP_MAX_FRAME_BYTES:
      g_value_set_uint64 (value, self->max_frame_bytes);
      break;
    case PROP_ON_PEER_LOST:
      g_value_set_enum (value, self->on_peer_lost);
      break;
    case PROP_WAIT_FOR_READERS:
      g_value_set_uint (value, self->wait_for_readers_prop);
      break;
    case PROP_PEER_TIMEOUT:
      g_value_set_uint64 (value, self->peer_timeout_prop);
      break;
    case PROP_MAX_PENDING:
      g_value_set_uint (value, self->max_pending_prop);
      break;
    case PROP_MAX_PENDING_BYTES:
      g_value_set_uint64 (value, self->max_pending_bytes_prop);
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
gst_doradma_net_src_settings_install (GObjectClass * gobject_class)
{
  gobject_class->set_property = gst_doradma_net_src_set_property;
  gobject_class->get_property = gst_doradma_net_src_get_property;

  /**
   * GstDoradmaNetSrc:address:
   *
   * Local address to listen on, IPv4 or IPv6 (0.0.0.0 or ::: every
   * address of that family). UCX then uses the interface that holds it
   * and no other (docs/network.md, "Transports"; UCX 1.13.1 connects no
   * sender over IPv6: "IPv6" there).
   */
  properties[PROP_ADDRESS] = g_param_spec_string ("address", "Address",
      "Local IPv4 or IPv6 address to listen on (0.0.0.0 or :: for every "
      "interface); UCX uses only its interface",
      DEFAULT_ADDRESS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:port:
   *
   * TCP port to listen on for a doradmanetsink. With key-file it is the
   * door (docs/network.md, "The door"): our own socket, where a sender
   * proves the key before UCX hears it and is told the port of UCX's
   * listener (ucx-port, on the same address).
   */
  properties[PROP_PORT] = g_param_spec_uint ("port", "Port",
      "Port to listen on for a doradmanetsink (with key-file: the door, "
      "where it proves the key)", 1, 65535, DEFAULT_PORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:ucx-port:
   *
   * With key-file: the TCP port UCX's connection manager listens on
   * behind the door, on the same address; the door tells it to each
   * sender that proved the key. 0 (the default): an ephemeral port. Set
   * it, and data-ports, where a firewall must name every port the
   * senders reach. It must differ from port and lie outside data-ports
   * (each refused at start, the error naming both). Without key-file UCX
   * listens on port and this is not used (a warning says so).
   */
  properties[PROP_UCX_PORT] = g_param_spec_uint ("ucx-port", "UCX port",
      "With key-file: the port UCX listens on behind the door (0: "
      "ephemeral; not port, not in data-ports); unused without key-file",
      0, 65535, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:transports:
   *
   * UCX transports, as UCX_TLS takes them ("tcp", "rc", "all"...). Empty
   * (the default): UCX chooses, honouring UCX_TLS.
   */
  properties[PROP_TRANSPORTS] = g_param_spec_string ("transports",
      "Transports", "UCX transports as UCX_TLS takes them (e.g. tcp, rc); "
      "empty: UCX_TLS or UCX's own choice", NULL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:data-ports:
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
   * GstDoradmaNetSrc:channel:
   *
   * The ring on this host the frames are written into (as doradmasink's
   * channel); local doradmasrc elements read it zero-copy. Empty: no ring,
   * frames only go downstream.
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Ring on this host to write the frames into (empty: none, downstream "
      "only)", DEFAULT_CHANNEL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:slots:
   *
   * Frame slots of the ring; the sender gets slots - 1 credits.
   */
  properties[PROP_SLOTS] = g_param_spec_uint ("slots", "Slots",
      "Frame slots in the ring (the sender gets slots - 1 credits)", 2,
      DORADMA_MAX_SLOTS, DEFAULT_SLOTS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:mode:
   *
   * The ring's mode: `latest` drops a frame when every slot is busy
   * (dropped-ring-full); `lossless` waits for the ring's `next`-mode
   * readers, and so holds back a lossless sender through its credits.
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "Ring mode: latest drops when the ring is full; lossless waits for "
      "next-mode readers (and so holds back the sender)",
      GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:permissions:
   *
   * File mode of the ring's objects, as doradmasink's permissions (0 =
   * 0600; o+w is refused).
   */
  properties[PROP_PERMISSIONS] = g_param_spec_uint ("permissions",
      "Permissions", "File mode of the ring's shared-memory objects (0 = "
      "0600; o+w is refused)", 0, 0777, DEFAULT_PERMISSIONS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-frame-bytes:
   *
   * The largest frame accepted from the sender; a larger one is a
   * malformed header (the sender is disconnected).
   */
  properties[PROP_MAX_FRAME_BYTES] = g_param_spec_uint64 ("max-frame-bytes",
      "Max frame bytes", "Largest frame accepted from the sender", 4096,
      G_MAXUINT32, DEFAULT_MAX_FRAME_BYTES,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:on-peer-lost:
   *
   * When the sender goes away (killed, link cut) or sends a malformed
   * header: `wait` for the next sender, `eos` (the ring gets EOS too) or
   * `error`. Each loss posts a "doradmanetsrc-peer-lost" element message.
   */
  properties[PROP_ON_PEER_LOST] = g_param_spec_enum ("on-peer-lost",
      "On peer lost", "What to do when the sender goes away: wait (for the "
      "next one), eos or error", GST_TYPE_DORADMA_WRITER_LOST,
      DEFAULT_ON_PEER_LOST, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:wait-for-readers:
   *
   * Holds the first frame until this many readers joined the ring (the
   * sender waits meanwhile in lossless mode, drops in latest mode).
   */
  properties[PROP_WAIT_FOR_READERS] = g_param_spec_uint ("wait-for-readers",
      "Wait for readers", "Hold the first frame until this many readers "
      "joined the ring", 0, 64, DEFAULT_WAIT_FOR_READERS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:peer-timeout:
   *
   * Nanoseconds without a frame from the connected sender after which it
   * counts as lost (a link cut: TCP alone may take minutes), so that it
   * can connect again. A sender idle for longer (paused) is disconnected
   * too and reconnects with its next frame. 0 never.
   */
  properties[PROP_PEER_TIMEOUT] = g_param_spec_uint64 ("peer-timeout",
      "Peer timeout", "Nanoseconds without a frame from the sender before "
      "it counts as lost (0 = never)", 0, G_MAXUINT64, DEFAULT_PEER_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-pending:
   *
   * Frames received and not yet written into the ring that are held at
   * most (at least slots, so that a lossless sender's credits fit). Beyond
   * it, the oldest latest-mode frames are dropped (dropped-pending); a
   * lossless sender never gets there unless it ignores its credits, and is
   * then disconnected (credit-violations).
   */
  properties[PROP_MAX_PENDING] = g_param_spec_uint ("max-pending",
      "Max pending", "Frames received but not yet written held at most "
      "(beyond: the oldest latest-mode ones are dropped)", 2, 4096,
      DEFAULT_MAX_PENDING, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:max-pending-bytes:
   *
   * Bytes of those frames held at most (their headers and eager data,
   * copied out of UCX; a rendezvous frame's data stays with the sender
   * until it is written), as max-pending.
   */
  properties[PROP_MAX_PENDING_BYTES] = g_param_spec_uint64
      ("max-pending-bytes", "Max pending bytes", "Bytes of frames received "
      "but not yet written held at most", 65536, G_MAXUINT32,
      DEFAULT_MAX_PENDING_BYTES, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaNetSrc:key-file:
   *
   * A file holding the key shared with the sender (16 to 4096 bytes, not
   * readable by group or others). With it, a sender must prove it has the
   * key (HMAC-SHA-256 over fresh nonces of both sides, and this receiver
   * proves it in turn) before any caps, frame, credit or EOS is accepted
   * either way; one that does not is disconnected and counted
   * (auth-failures, unauthenticated). Without it the stream is
   * unauthenticated (warned at start). The key itself is never a property.
   * With it, `port` is a door (docs/network.md, "The door"): UCX's
   * listening sockets drop every host (a kernel socket filter) until one
   * proves the key there; that address is then let through for 10 s
   * (door-refused counts the conversations that failed).
   */
  /**
   * GstDoradmaNetSrc:encrypt:
   *
   * Confidentiality: every frame's payload AES-256-GCM encrypted and,
   * with its header, authenticated; EOS and credits authenticated
   * (docs/network.md, "Encryption"). Needs key-file: the keys are derived
   * from it and both handshake nonces, fresh on every connection. The
   * sender must have the same setting: a mismatch is refused at the
   * handshake, naming encrypt. A frame that fails authentication is never
   * published: counted (decrypt-failures at the receiver) and the
   * connection dropped.
   */
  /**
   * GstDoradmaNetSrc:allowed-peers:
   *
   * The senders' addresses allowed to connect: a comma-separated list of
   * IP addresses and CIDR prefixes ("10.0.0.2, 192.168.1.0/24, fd00::/8").
   * Every packet from any other address, to the port or to UCX's data
   * ports, is dropped by the kernel before UCX reads it (a socket filter
   * attached at start; the sender gets no answer); a request that got
   * through anyway is refused before the accept, counted (auth-failures)
   * and named once in a warning. Empty (default): any address (with
   * key-file, any that has the key). Not a defence against a host that
   * can use an allowed address (docs/threat-model.md).
   */
  gst_doradma_net_security_param_specs (properties, PROP_KEY_FILE,
      PROP_ENCRYPT, PROP_ALLOWED_PEERS, FALSE);
  /**
   * GstDoradmaNetSrc:stats:
   *
   * "doradmanetsrc-stats": frames and bytes written, dropped-ring-full
   * (latest: no free slot), sender-drops (gaps in the sender's sequence:
   * frames it dropped), malformed (headers refused), connects, peer-lost,
   * refused (second senders), abandoned (frames cut by a lost connection),
   * dropped-pending (latest frames dropped beyond max-pending or
   * max-pending-bytes), credit-violations (lossless senders that sent
   * beyond their credits: disconnected), pending-peak-bytes (the most
   * bytes held at once), unknown-messages (active messages of ids the wire
   * does not use: their sender is disconnected), auth-failures (senders
   * that failed the key handshake, or refused by allowed-peers),
   * unauthenticated (frames or EOS before
   * it), stuck-connections-reset (connections to `address`:`port` that
   * UCX's connection manager, stuck on a malformed request, no longer
   * reads: closed by their peer, or held open with bytes unread; reset so
   * that UCX closes them: docs/network.md, "Not defended"),
   * memory-path ("host") and ucx-memory-types.
   */
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "Counters: frames, bytes, dropped-ring-full, sender-drops, malformed, "
      "connects, peer-lost, refused, abandoned, dropped-pending, "
      "credit-violations, pending-peak-bytes, unknown-messages, "
      "auth-failures, unauthenticated, decrypt-failures, "
      "stuck-connections-reset, memory-path, ucx-memory-types",
      GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, NUM_PROPERTIES, properties);
}

void
gst_doradma_net_src_settings_init (GstDoradmaNetSrc * self)
{
  self->address = g_strdup (DEFAULT_ADDRESS);
  self->port = DEFAULT_PORT;
  self->channel = g_strdup (DEFAULT_CHANNEL);
  self->slots = DEFAULT_SLOTS;
  self->mode = DEFAULT_MODE;
  self->permissions = DEFAULT_PERMISSIONS;
  self->max_frame_bytes = DEFAULT_MAX_FRAME_BYTES;
  self->on_peer_lost = DEFAULT_ON_PEER_LOST;
  self->peer_timeout_prop = DEFAULT_PEER_TIMEOUT;
  self->max_pending_prop = DEFAULT_MAX_PENDING;
  self->max_pending_bytes_prop = DEFAULT_MAX_PENDING_BYTES;
}

void
gst_doradma_net_src_settings_clear (GstDoradmaNetSrc * self)
{
  g_free (self->address);
  g_free (self->transports);
  g_free (self->data_ports);
  g_free (self->channel);
  g_free (self->key_file);
  g_free (self->allowed_peers);
}
