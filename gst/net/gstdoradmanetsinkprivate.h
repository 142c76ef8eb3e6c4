/* doradma network plugin — private: doradmanetsink's instance struct.
 *
 * What the files of doradmanetsink share: the struct, its counters and the
 * functions of gstdoradmanetsink.c the others call. The element's files:
 * gstdoradmanetsink.c (the element: caps, start/stop, unlock, events, the
 * CUDA context, stats), gstdoradmanetsinksettings.c (its properties),
 * gstdoradmanetsinkconn.c (the receiver's connection: connect and
 * reconnect, key handshake, credits, peer loss) and gstdoradmanetsinksend.c
 * (a frame, and the EOS, sent over UCX). Each seam has its own header,
 * which includes this one; this one includes none of them.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SINK_PRIVATE_H__
#define __GST_DORADMA_NET_SINK_PRIVATE_H__

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "gstdoradmaenums.h"
#include "gstdoradmawire.h"
#include "gstdoradmanetwire.h"
#include "gstdoradmanetucx.h"
#include "gstdoradmanetdoor.h"
#include "gstdoradmanetgpu.h"
#include "gstdoradmanetcrypt.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_doradma_net_sink_debug);
#define GST_CAT_DEFAULT gst_doradma_net_sink_debug

#define GST_TYPE_DORADMA_NET_SINK (gst_doradma_net_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstDoradmaNetSink, gst_doradma_net_sink, GST,
    DORADMA_NET_SINK, GstBaseSink);

/* peer-timeout's default; also what bounds a flush when it is 0 */
#define DEFAULT_PEER_TIMEOUT (5 * GST_SECOND)

/* The stats' counters (gstdoradmanetsink.c names them). */
typedef enum
{
  C_FRAMES, C_BYTES, C_DROPPED_BUSY, C_DROPPED_DISCONNECTED, C_CONNECTS,
  C_PEER_LOST, C_SEND_ERRORS, C_BAD_CREDITS, C_STAGED_FRAMES,
  C_DEVICE_FRAMES, C_STAGING_BUFFERS, C_UNKNOWN_MESSAGES,
  C_AUTH_FAILURES, C_REFUSED, C_LOST_IN_FLIGHT, C_N
} Counter;

struct _GstDoradmaNetSink
{
  GstBaseSink parent;

  /* properties (object lock) */
  gchar *host;
  guint port;
  gchar *transports;
  gchar *data_ports;            /* "FIRST-LAST" or NULL: ephemeral */
  GstDoradmaMode mode;
  guint max_in_flight;
  guint64 timeout;
  guint64 retry_interval;
  GstDoradmaWriterLost on_peer_lost;
  guint64 peer_timeout;
  gchar *key_file;
  gboolean encrypt_prop;
  gchar *allowed_peers;

  guint64 counters[C_N];        /* atomic */
  gint gpu_path;                /* GstDoradmaNetGpuPath of the last frame
                                 * sent (atomic) */

  /* under ucx.lock (the streaming thread and the UCX progress thread) */
  GstDoradmaNetUcx ucx;
  gboolean unlocked;            /* unlock: waits end with FLUSHING */
  gboolean eos_sent;
  gboolean eos_failed;          /* the EOS send ended in an error */
  gboolean ucx_open;
  ucp_ep_h ep;
  gboolean ep_failed;           /* set by the error callback */
  gboolean connected;           /* the receiver's hello arrived */
  GBytes *key;                  /* key-file's; NULL: unauthenticated */
  GPtrArray *allow;             /* allowed-peers' masks; NULL: anyone */
  gchar *told_not_allowed;      /* the address last refused, said so */
  gboolean answered;            /* this connection's challenge answered */
  gboolean proven;              /* the receiver proved the key */
  guint8 nonce_r[DORADMA_NET_AUTH_BYTES], nonce_s[DORADMA_NET_AUTH_BYTES];
  /* encrypt (gstdoradmanetcrypt.h): this connection's keys and counters */
  gboolean encrypt;             /* start's copy of the property */
  guint32 peer_flags;           /* the receiver's challenge flags */
  gboolean told_mismatch;       /* this connection's encrypt mismatch said */
  GstDoradmaNetCrypt to_receiver, to_sender;
  guint64 eos_counter;          /* the EOS seals sent */
  guint64 credit_counter;       /* the last credit seal taken */
  struct doradma_net_seal eos_seal;     /* the EOS being sent */
  gboolean was_connected;       /* for the peer-lost message */
  gboolean rejected;            /* this attempt was refused by the receiver */
  gboolean told_refused;        /* the refused message of this streak */
  gboolean told_no_answer;      /* the no-answer warning of this streak */
  gint64 attempt_start, next_attempt;   /* monotonic us */
  /* key-file: the conversation at the receiver's door (fd -1: none),
   * before UCX connects to the port it tells (gstdoradmanetdoor.h) */
  GstDoradmaNetDoorTalk door;
  struct sockaddr_storage door_addr;    /* the receiver's, resolved */
  socklen_t door_addr_len;
  const gchar *told_door;       /* the door's failure last said (static) */
  gboolean told_closed;         /* a close before the hello, said */
  guint credits;
  guint in_flight;
  gint64 last_heard;            /* monotonic us of the last message */
  gboolean sent_since_heard;    /* frames sent after it */
  guint64 sender_seq;
  /* frames in flight at a lost connection (gstdoradmanetsinkconn.c) */
  guint64 last_sent_seq;        /* the last frame handed to UCX */
  guint64 confirmed_seq;        /* handled, said the connection's receiver */
  guint64 lost_from, lost_to;   /* a lost connection's unconfirmed frames */
  GstVideoInfo vinfo;
  gchar *caps_str;
  GstDoradmaNetGpu gpu;         /* device frames: staged or sent as such */
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda_ctx;     /* under the object lock */
#endif
};

#define COUNT(self, c, n) \
  __atomic_fetch_add (&(self)->counters[c], (n), __ATOMIC_RELAXED)

/* The "doradmanetsink-stats" structure (the stats property, and the
 * element message at EOS). */
GstStructure *gst_doradma_net_sink_get_stats (GstDoradmaNetSink * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SINK_PRIVATE_H__ */
