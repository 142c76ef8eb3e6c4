/* doradma GStreamer plugin — private: GPUDirect RDMA prerequisites and the
 * libibverbs side.
 *
 * The probe says, item by item with a reason, what this machine offers for
 * GPUDirect RDMA (always built). The verbs calls below it exist only when
 * the `ibverbs` option found libibverbs (HAVE_IBVERBS). The slab allocator
 * (gstdoradmaallocator.c) owns the CUDA side and the policy.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_GPUDIRECT_H__
#define __GST_DORADMA_GPUDIRECT_H__

#include <glib.h>

G_BEGIN_DECLS
/* One prerequisite of GPUDirect RDMA (or of the pinned-MR fallback). */
    typedef enum
{
  GST_DORADMA_PROBE_LIBIBVERBS,
  GST_DORADMA_PROBE_DEVICE,
  GST_DORADMA_PROBE_PORT,
  GST_DORADMA_PROBE_DMABUF_MR,
  GST_DORADMA_PROBE_CUDA,
  GST_DORADMA_PROBE_CUDA_DMABUF,
  GST_DORADMA_PROBE_PEERMEM,
  GST_DORADMA_PROBE_N
} GstDoradmaProbeItem;

typedef struct
{
  gboolean ok[GST_DORADMA_PROBE_N];
  gchar detail[GST_DORADMA_PROBE_N][224];
} GstDoradmaGpudirectProbe;

/* Fills every prerequisite with its state and reason (CUDA device
 * `ordinal`). */
void gst_doradma_gpudirect_run_probe (gint ordinal,
    GstDoradmaGpudirectProbe * p);
/* The item's name in reports ("libibverbs", "ibverbs-device", ...). */
const gchar *gst_doradma_gpudirect_item_name (GstDoradmaProbeItem item);
/* GPUDirect RDMA proper is possible (dma-buf MR or nvidia-peermem). */
gboolean gst_doradma_gpudirect_usable (const GstDoradmaGpudirectProbe * p);
/* "name (detail); ..." of what is missing for GPUDirect, or (pinned) for
 * registering pinned host slabs; "" when nothing is. g_free it. */
gchar *gst_doradma_gpudirect_missing (const GstDoradmaGpudirectProbe * p,
    gboolean pinned);

typedef struct _GstDoradmaMr GstDoradmaMr;

#ifdef HAVE_IBVERBS
typedef struct
{
  gboolean device;              /* ibv_get_device_list found >= 1 device */
  gboolean active_port;         /* some port is IBV_PORT_ACTIVE */
  gchar device_name[64];        /* first device with an active port */
  guint8 port;
  gchar device_detail[192];
  gchar port_detail[192];
} GstDoradmaVerbsProbe;

/* Fills *probe. Never fails: what is absent is recorded with a reason. */
void gst_doradma_verbs_probe (GstDoradmaVerbsProbe * probe);

/* Opens the first device with an active port and allocates a protection
 * domain. Returns the `struct ibv_pd *` (its context in *ctx), or NULL with
 * the reason in `why` (a GString the caller owns). */
gpointer gst_doradma_verbs_open_pd (gpointer * ctx, GString * why);
void gst_doradma_verbs_close_pd (gpointer pd, gpointer ctx);

/* A registered memory region. */

/* ibv_reg_dmabuf_mr (pd, 0, len, iova, fd, LOCAL_WRITE|REMOTE_WRITE|
 * REMOTE_READ). The MR holds its own reference on the dma-buf: the caller
 * may close fd afterwards. NULL with the reason (errno text) in `why`. */
GstDoradmaMr *gst_doradma_mr_reg_dmabuf (gpointer pd, gint fd, guint64 len,
    guint64 iova, GString * why);

/* ibv_reg_mr (pd, addr, len, same access): pinned host memory, or a device
 * pointer when nvidia-peermem is loaded (the legacy path). */
GstDoradmaMr *gst_doradma_mr_reg (gpointer pd, gpointer addr, guint64 len,
    GString * why);

void gst_doradma_mr_dereg (GstDoradmaMr * mr);

guint32 gst_doradma_mr_lkey (const GstDoradmaMr * mr);
guint32 gst_doradma_mr_rkey (const GstDoradmaMr * mr);
/* The address peers use for the MR's first byte (iova for dma-buf MRs, the
 * virtual address for plain ones). */
guint64 gst_doradma_mr_iova (const GstDoradmaMr * mr);
#endif /* HAVE_IBVERBS */

G_END_DECLS
#endif /* __GST_DORADMA_GPUDIRECT_H__ */
