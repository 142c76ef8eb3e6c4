/* doradma network plugin — private: doradmanetsrc's instance struct.
 *
 * What the files of doradmanetsrc share: the struct, its counters and the
 * functions of gstdoradmanetsrc.c the others call. The element's files:
 * gstdoradmanetsrc.c (the element: start/stop, the create loop, the
 * latency query, stats), gstdoradmanetsrcsettings.c (its properties),
 * gstdoradmanetsrcconn.c (the sender's connection: accept, key handshake,
 * credits, EOS), gstdoradmanetsrcpending.c (frames announced by the sender
 * and not yet taken, within max-pending and max-pending-bytes) and
 * gstdoradmanetsrcframe.c (a pending frame checked against its caps,
 * received into a ring slot and pushed). Each seam has its own header,
 * which includes this one; this one includes none of them.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_SRC_PRIVATE_H__
#define __GST_DORADMA_NET_SRC_PRIVATE_H__

#include <gst/base/gstpushsrc.h>
#include <gst/video/video.h>

#include "gstdoradmaenums.h"
#include "gstdoradmaproducer.h"
#include "gstdoradmawire.h"
#include "gstdoradmanetwire.h"
#include "gstdoradmanetucx.h"
#include "gstdoradmanetdoor.h"
#include "gstdoradmanetcrypt.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_doradma_net_src_debug);
#define GST_CAT_DEFAULT gst_doradma_net_src_debug

#define GST_TYPE_DORADMA_NET_SRC (gst_doradma_net_src_get_type ())
G_DECLARE_FINAL_TYPE (GstDoradmaNetSrc, gst_doradma_net_src, GST,
    DORADMA_NET_SRC, GstPushSrc);

/* The stats' counters (gstdoradmanetsrc.c names them). */
typedef enum
{
  C_FRAMES, C_BYTES, C_DROPPED_RING_FULL, C_SENDER_DROPS, C_MALFORMED,
  C_CONNECTS, C_PEER_LOST, C_REFUSED, C_ABANDONED, C_DROPPED_PENDING,
  C_CREDIT_VIOLATIONS, C_PENDING_PEAK_BYTES, C_UNKNOWN_MESSAGES,
  C_AUTH_FAILURES, C_UNAUTHENTICATED, C_DECRYPT_FAILURES, C_STUCK_RESET,
  C_DOOR_REFUSED, C_N
} Counter;

struct _GstDoradmaNetSrc
{
  GstPushSrc parent;

  /* properties (object lock) */
  gchar *address;
  guint port;
  guint ucx_port;               /* with key-file: UCX's listener; 0: ephemeral */
  gchar *transports;
  gchar *data_ports;            /* "FIRST-LAST" or NULL: ephemeral */
  gchar *channel;
  guint slots;
  GstDoradmaMode mode;
  guint permissions;
  guint64 max_frame_bytes;
  GstDoradmaWriterLost on_peer_lost;
  guint wait_for_readers_prop;
  guint wait_for_readers;       /* streaming thread's copy */
  guint64 peer_timeout, peer_timeout_prop;
  guint max_pending_prop, max_pending;  /* frames held before the ring */
  guint64 max_pending_bytes_prop, max_pending_bytes;
  gchar *key_file;
  gboolean encrypt_prop;
  gchar *allowed_peers;

  guint64 counters[C_N];        /* atomic */

  /* streaming thread (and start/stop) */
  GstDoradmaNetUcx ucx;
  gboolean ucx_open;
  ucp_listener_h listener;
  GstDoradmaNetDoor *door;      /* key-file: where senders prove it */
  gint told_door;               /* a door refusal was warned of (atomic) */
  ucp_ep_h ep;
  gboolean ep_failed;           /* error callback */
  gchar *bad_peer;              /* a malformed header's diagnostic */
  gboolean bad_peer_forged;     /* it failed authentication (encrypt) */
  GQueue pending;               /* PendingFrame */
  guint64 pending_bytes;        /* sum of their `held` */
  gint64 credit_balance;        /* credits granted - frames received */
  GBytes *key;                  /* key-file's; NULL: unauthenticated */
  GPtrArray *allow;             /* allowed-peers' masks; NULL: anyone */
  GHashTable *refused_peers;    /* addresses refused and said so */
  gboolean authed;              /* the sender proved the key */
  guint8 nonce[DORADMA_NET_AUTH_BYTES]; /* this connection's challenge */
  /* encrypt (gstdoradmanetcrypt.h): this connection's keys and counters */
  gboolean encrypt;             /* start's copy of the property */
  GstDoradmaNetCrypt to_receiver, to_sender;
  guint64 crypt_seq;            /* the last frame authenticated */
  guint64 eos_counter;          /* the last EOS seal taken */
  guint64 credit_counter;       /* the credit seals sent */
  guint64 last_sender_seq;
  gboolean discont;
  GstDoradmaProducer *producer; /* NULL without a channel */
  gchar *caps_str;
  GstVideoInfo vinfo;
  GstDoradmaPlaneNeeds needs;   /* of vinfo */
  guint64 frame_duration;       /* of the caps, 0 unknown (atomic) */
  guint slots_now;              /* credits granted per connection */
  gboolean peer_eos;            /* the sender ended the stream */
  gboolean readers_joined;      /* wait-for-readers done */
  gint64 last_heard;            /* monotonic us: the sender's last frame */
  gboolean link_lost;           /* a receive closed the connection */
};

#define COUNT(self, c, n) \
  __atomic_fetch_add (&(self)->counters[c], (n), __ATOMIC_RELAXED)

/* A message that needs an authenticated sender: FALSE (counted, the
 * sender disconnected) when it has not proven the key. */
gboolean gst_doradma_net_src_authenticated (GstDoradmaNetSrc * self,
    const gchar * what);

/* An element message `name` with a "reason" field. */
void gst_doradma_net_src_post_message (GstDoradmaNetSrc * self,
    const gchar * name, const gchar * reason);

/* The "doradmanetsrc-stats" structure (the stats property, and the
 * element message at EOS). */
GstStructure *gst_doradma_net_src_get_stats (GstDoradmaNetSrc * self);

G_END_DECLS
#endif /* __GST_DORADMA_NET_SRC_PRIVATE_H__ */
