/* doradma GStreamer plugin — the consumer: doradmasrc's side of a channel.
 *
 * One GstDoradmaConsumer follows one channel across writer restarts and
 * segment replacements: it waits for the channel (inotify, cancellable),
 * opens it with the owner check the settings ask for, decides the CUDA path
 * of each segment, applies the writer-lost policy, reopens after a
 * supersede (the successor is opened before the old reader is let go, so
 * the entry the writer carried over is adopted), re-announces the
 * producer's latency when it changes, and hands out frames: leased, or
 * copied under the seqlock into buffers of its own (copy mode). It can set
 * a stale frame aside for the newest one, and counts what it delivered.
 * Errors go to the owner element. The lib's errnos stop here: callers see
 * GstFlowReturn.
 *
 * Threads: everything runs in the streaming thread, except
 * gst_doradma_consumer_interrupt, _latency, _slot_count and _get_stats
 * (any thread; the reader pointer and the counters are under `lock`).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_CONSUMER_H__
#define __GST_DORADMA_CONSUMER_H__

#include <gst/gst.h>
#include <doradma/doradma.h>

#include "gstdoradmaenums.h"
#include "gstdoradmacuda.h"
#include "gstdoradmalease.h"

G_BEGIN_DECLS

/* doradmasrc's `transport`: how the reader reaches the GPU. A writer whose
 * slots live in GPU memory is always read through its CUDA IPC handle. */
typedef enum
{
  GST_DORADMA_SRC_TRANSPORT_AUTO,
  GST_DORADMA_SRC_TRANSPORT_SHMEM,
  GST_DORADMA_SRC_TRANSPORT_UNIFIED,
} GstDoradmaSrcTransport;

typedef struct
{
  gchar *channel;
  guint64 timeout;              /* ns to wait for the channel, 0 forever */
  enum doradma_read_mode mode;  /* next: a lossless writer waits for us */
  gboolean copy;                /* copy under the seqlock, no lease */
  gboolean copy_set;            /* copy-mode never or always (not auto) */
  gint64 allowed_uid;           /* owner uid required; -1 any */
  GstDoradmaSrcTransport transport;
  GstDoradmaWriterLost on_writer_lost;
  guint64 spin_time;            /* ns to poll the ring before sleeping */
} GstDoradmaConsumerSettings;

/* Does downstream want memory:CUDAMemory? Asked at every (re)open. */
typedef gboolean (*GstDoradmaWantCudaFunc) (gpointer user_data);

typedef struct _GstDoradmaConsumer GstDoradmaConsumer;

/* A frame as the consumer hands it out. */
typedef struct
{
  struct doradma_frame f;
  GstBuffer *copy;              /* copy mode: the payload (writer's layout) */
  gboolean leased;              /* holds a lease: _release or wrap it */
  gboolean discont;             /* a gap before it: join, reopen, skip */
  gboolean new_segment;         /* first of a (re)opened segment: the caps
                                 * epochs start over */
  gboolean backlog;             /* published before we joined the segment */
  guint64 received;             /* CLOCK_MONOTONIC ns the read returned */
} GstDoradmaConsumerFrame;

typedef struct
{
  guint64 frames, torn, skipped, lease_waits;
  guint64 latency_p50, latency_p99;     /* ns publish → delivery */
  guint64 spins, sleeps;        /* waits ended while polling / asleep */
  GstDoradmaCudaPath path;
} GstDoradmaConsumerStats;

/* Copies `settings`; nothing is opened yet. NULL after posting an error on
 * `owner` (no eventfd). */
GstDoradmaConsumer *gst_doradma_consumer_new (GstElement * owner,
    const GstDoradmaConsumerSettings * settings,
    GstDoradmaWantCudaFunc want_cuda, gpointer user_data);
/* Lets the reader go (buffers still out keep the mapping). */
void gst_doradma_consumer_free (GstDoradmaConsumer * c);

/* The next (or newest) frame: one set aside by _skip_to_newest first.
 * Writer restarts, supersedes and bad records are absorbed. Returns
 * GST_FLOW_OK, GST_FLOW_FLUSHING, GST_FLOW_EOS (end of stream, or the
 * writer died with on-writer-lost=eos) or GST_FLOW_ERROR (posted). */
GstFlowReturn gst_doradma_consumer_next (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame);

/* When a frame newer than `frame` is there now: drops `frame` and keeps the
 * newer one for the next _next (TRUE). FALSE, `frame` untouched, when
 * `frame` is the newest. */
gboolean gst_doradma_consumer_skip_to_newest (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame);

/* Gives back a frame that will not be delivered: releases its lease (or
 * copy) and, in next mode, marks it consumed so a lossless writer goes on.
 * Counted in the stats' skipped. */
void gst_doradma_consumer_drop (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame);
/* A delivered frame: consumed (next mode), counted — its lease lives on
 * in the buffer. */
void gst_doradma_consumer_delivered (GstDoradmaConsumer * c,
    const GstDoradmaConsumerFrame * frame);
/* Releases a leased frame's lease (its data was copied). */
void gst_doradma_consumer_release (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame);

/* The only constructor of leased memories: a read-only GstMemory over the
 * frame's slot that takes over its lease (released when the memory's last
 * reference goes, from any thread) and keeps the mapping alive. The memory
 * is a recycled shell when one is free: a leased memory whose last
 * reference went waits, disowned, for the next lease of this consumer;
 * taking and returning it allocates nothing. */
GstMemory *gst_doradma_consumer_lease_memory (GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame);
/* Leased memories alive now. */
guint gst_doradma_consumer_outstanding (GstDoradmaConsumer * c);
/* The open reader's handle (borrowed; streaming thread). */
GstDoradmaReaderHandle *gst_doradma_consumer_handle (GstDoradmaConsumer * c);

/* Copies the caps string of `epoch`; FALSE with a warning when the epoch is
 * unreadable. */
gboolean gst_doradma_consumer_caps (GstDoradmaConsumer * c, guint32 epoch,
    gchar * buf, gsize len);
/* Any thread. */
void gst_doradma_consumer_interrupt (GstDoradmaConsumer * c, gboolean on);
guint64 gst_doradma_consumer_latency (GstDoradmaConsumer * c);
guint32 gst_doradma_consumer_slot_count (GstDoradmaConsumer * c);
/* Frames are copied under the seqlock: `copy`, or left unset on a channel
 * whose control object others may write. Any thread. */
gboolean gst_doradma_consumer_copying (GstDoradmaConsumer * c);

void gst_doradma_consumer_get_stats (GstDoradmaConsumer * c,
    GstDoradmaConsumerStats * stats);

G_END_DECLS

#endif /* __GST_DORADMA_CONSUMER_H__ */
