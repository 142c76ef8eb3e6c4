/* doradma GStreamer plugin — private: the producer side of a channel.
 *
 * GstDoradmaProducer is doradmasink's side of a channel across segment
 * replacements: a snapshot of the settings taken at start, the current
 * segment (a refcounted libdoradma writer with one GstDoradmaMemory per
 * slot, recycled through the memory owner vtable), slot acquisition with
 * the stall policy, publishing, EOS and the counters. The sink and its
 * buffer pool both use it; neither calls the other.
 *
 * One lock (the producer's) guards the settings, the segment pointer, the
 * caps and the latency; a segment's own lock guards only its slot table.
 * Calls into libdoradma, which is thread-safe, wait outside both.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_PRODUCER_H__
#define __GST_DORADMA_PRODUCER_H__

#include <gst/gst.h>
#include <doradma/doradma.h>

#include "gstdoradmaenums.h"

G_BEGIN_DECLS

typedef struct _GstDoradmaProducer GstDoradmaProducer;

/* Resolved once, at start. */
typedef struct
{
  gchar *channel;
  guint slots;
  GstDoradmaTransport transport;        /* shmem, unified or ipc */
  GstDoradmaMode mode;
  guint permissions;
  GstClockTime timeout;         /* lossless wait before on_stall; NONE: forever */
  GstDoradmaStallPolicy on_stall;
  guint64 spin_time;            /* ns the lossless wait for space polls first */
} GstDoradmaProducerSettings;

typedef enum
{
  GST_DORADMA_COUNT_FRAMES,     /* published */
  GST_DORADMA_COUNT_COPIES,     /* copied into a slot */
  GST_DORADMA_COUNT_DROPS,      /* latest mode, no slot free at render */
  GST_DORADMA_COUNT_FALLBACK,   /* system-memory buffers lent upstream */
  GST_DORADMA_COUNT_WAITS,      /* acquisitions that had to wait */
  GST_DORADMA_COUNT_UPLOADS,    /* host to device copies (ipc) */
  GST_DORADMA_COUNT_DEVICE_COPIES,      /* device to device copies (ipc) */
  GST_DORADMA_COUNT_N
} GstDoradmaCounter;

/* `owner` receives the errors and warnings; it is not referenced (call
 * _detach before it goes away). */
GstDoradmaProducer *gst_doradma_producer_new (GstElement * owner);
/* Registers "doradmaproducer" (plugin init). */
void gst_doradma_producer_debug_init (void);
GstDoradmaProducer *gst_doradma_producer_ref (GstDoradmaProducer * p);
void gst_doradma_producer_unref (GstDoradmaProducer * p);
void gst_doradma_producer_detach (GstDoradmaProducer * p);

/* start: takes a copy of `s`, resets the counters. stop: drops the segment
 * (unlinked when its last slot memory comes back); acquisitions return
 * FLUSHING until the next start. */
void gst_doradma_producer_start (GstDoradmaProducer * p,
    const GstDoradmaProducerSettings * s);
void gst_doradma_producer_stop (GstDoradmaProducer * p);
const GstDoradmaProducerSettings *gst_doradma_producer_settings
    (GstDoradmaProducer * p);

/* Caps of the frames from now on (video/x-raw, no features) and the size a
 * frame needs: a new caps epoch in band while frames fit, else the next
 * segment replaces this one. */
void gst_doradma_producer_set_caps (GstDoradmaProducer * p,
    const gchar * caps, gsize frame_size);

/* The pipeline latency, published to readers now and with every new
 * segment. */
void gst_doradma_producer_set_latency (GstDoradmaProducer * p,
    GstClockTime latency);
GstClockTime gst_doradma_producer_get_latency (GstDoradmaProducer * p);

/* EOS on the ring. After it, _new_stream (a flush or a new stream start)
 * makes the next frame open a new segment that readers follow. */
void gst_doradma_producer_eos (GstDoradmaProducer * p);
void gst_doradma_producer_new_stream (GstDoradmaProducer * p);

/* Makes sure a segment exists whose slots hold `size` bytes (creating or
 * replacing it). GST_FLOW_OK, FLUSHING when stopped, ERROR after posting. */
GstFlowReturn gst_doradma_producer_prepare (GstDoradmaProducer * p,
    gsize size);

/* Warns when upstream keeps `upstream_min` buffers and the ring is too
 * small for that. */
void gst_doradma_producer_check_slots (GstDoradmaProducer * p,
    guint upstream_min);

/* A slot of `size` bytes (<= the slot stride), marked WRITING and writable:
 * GST_FLOW_OK with *mem, or GST_FLOW_OK with *mem NULL when no slot is free
 * and this acquisition must not wait (latest mode, or `dontwait`).
 * Lossless waits apply the stall policy after `timeout`. `cancel` (NULL:
 * the producer's unlock flag) ends a wait with GST_FLOW_FLUSHING once set
 * and the producer woken. GST_FLOW_ERROR after posting an error. */
GstFlowReturn gst_doradma_producer_acquire (GstDoradmaProducer * p,
    gsize size, gboolean dontwait, const gint * cancel, GstMemory ** mem);

/* TRUE when `mem` is a slot of the current segment, handed out and not
 * published yet: upstream wrote the frame in place. */
gboolean gst_doradma_producer_is_writing (GstDoradmaProducer * p,
    GstMemory * mem);

/* Publishes slot memory `mem` (WRITING) with `fi`; the memory turns
 * READONLY. GST_FLOW_OK, GST_FLOW_CUSTOM_SUCCESS when the segment was
 * replaced meanwhile (nothing published: copy the frame again), or
 * GST_FLOW_ERROR after posting. */
GstFlowReturn gst_doradma_producer_publish (GstDoradmaProducer * p,
    GstMemory * mem, struct doradma_frame_info *fi);

/* Blocks until `n` readers joined the current segment. FLUSHING when
 * unlocked. */
GstFlowReturn gst_doradma_producer_wait_readers (GstDoradmaProducer * p,
    guint n);

/* The sink's unlock / unlock_stop: ends (and keeps ending) its waits. */
void gst_doradma_producer_unlock (GstDoradmaProducer * p);
void gst_doradma_producer_unlock_stop (GstDoradmaProducer * p);
/* Wakes every wait so they look at their cancel flags (a pool's flush). */
void gst_doradma_producer_wake (GstDoradmaProducer * p);

void gst_doradma_producer_count (GstDoradmaProducer * p, GstDoradmaCounter c);
/* "doradmasink-stats": the counters, readers now and the transport. */
GstStructure *gst_doradma_producer_get_stats (GstDoradmaProducer * p);

G_END_DECLS

#endif /* __GST_DORADMA_PRODUCER_H__ */
