/* doradma GStreamer plugin — private to the consumer's files: its state.
 *
 * gstdoradmaconsumer.c reads frames from the current reader and keeps the
 * counters; gstdoradmaconsumeropen.c waits for the channel and joins it.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_CONSUMER_PRIVATE_H__
#define __GST_DORADMA_CONSUMER_PRIVATE_H__

#include "gstdoradmaconsumer.h"

G_BEGIN_DECLS
#define N_LATENCY_SAMPLES 512
    struct _GstDoradmaConsumer
{
  GstElement *owner;            /* errors and messages go there; not a ref */
  GstDoradmaConsumerSettings s;
  GstDoradmaWantCudaFunc want_cuda;
  gpointer want_cuda_data;
  int cancel_fd;
  gint unlocked;
  gint copy_forced;             /* atomic: `copy` unset, and this segment's
                                 * control object is writable by others */

  /* the reader pointer, the counters of closed readers, the announced
   * latency and the CUDA path change under `lock`; the streaming thread
   * reads the pointer without it (it is the only writer) */
  GMutex lock;
  GstDoradmaReaderHandle *rh;
  guint64 acc_torn, acc_skipped, acc_retries, dropped, delivered;
  guint64 acc_spins, acc_sleeps;
  guint64 lat[N_LATENCY_SAMPLES];       /* ns publish → delivery */
  guint n_lat;
  guint64 latency;
  gboolean have_latency;
  GstDoradmaCudaPath path;

  /* streaming thread only */
  guint64 lost_ino, lost_dev;   /* a dead writer's segment, not to reopen */
  GstClockTime joined;          /* CLOCK_MONOTONIC of the last (re)open */
  gboolean discont;
  gboolean new_segment;
  GstDoradmaConsumerFrame pending;      /* set aside by _skip_to_newest */
  gboolean have_pending;
  GstBufferPool *raw_pool;      /* copy mode: slot-sized buffers */
  gsize raw_size;
  GstDoradmaLeaseShells *shells;        /* free lease memories */
};

/* Waits for the channel and joins it, without touching c->rh (streaming
 * thread). `token`: adopt the entry a superseded segment's writer carried
 * over (0: none). Errors are posted on the owner. */
GstFlowReturn gst_doradma_consumer_open_reader (GstDoradmaConsumer * c,
    guint64 token, GstDoradmaReaderHandle ** out);

G_END_DECLS
#endif /* __GST_DORADMA_CONSUMER_PRIVATE_H__ */
