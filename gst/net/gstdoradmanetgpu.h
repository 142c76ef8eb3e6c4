/* doradma GStreamer plugin — private: where doradmanetsink sends a frame
 * from (docs/network.md, "GPU memory").
 *
 * One responsibility: turn an upstream buffer into bytes UCX can send, by
 * one of three paths. `host`: the mapped host buffer itself (system memory,
 * a slot of a local ring, a unified ring's host mapping), no copy.
 * `device`: the device pointer of memory:CUDAMemory or of doradma's device
 * memory (an ipc slot, a device slab), sent as UCS_MEMORY_TYPE_CUDA, where
 * the UCX memory-type probe found CUDA. `staged-pinned`: the same device
 * frame copied once into pinned host memory (the caps' default layout),
 * sent from there, where UCX has no CUDA (Debian's builds); the pinned
 * buffers come from a slab allocator, so they are reused frame after frame.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_NET_GPU_H__
#define __GST_DORADMA_NET_GPU_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstdoradmacuda.h"

G_BEGIN_DECLS typedef enum
{
  GST_DORADMA_NET_GPU_PATH_NONE,        /* no frame sent yet */
  GST_DORADMA_NET_GPU_PATH_HOST,
  GST_DORADMA_NET_GPU_PATH_STAGED_PINNED,
  GST_DORADMA_NET_GPU_PATH_DEVICE,
} GstDoradmaNetGpuPath;

/* "none", "host", "staged-pinned", "device" */
const gchar *gst_doradma_net_gpu_path_name (GstDoradmaNetGpuPath path);

typedef struct
{
  gboolean ucx_cuda;            /* the probe: UCX sends from CUDA memory */
  gboolean ready;               /* _prepare succeeded */
  GstDoradmaCudaCopier *copier; /* staged: device → pinned copies */
  GstAllocator *staging;        /* staged: pinned slabs, reused */
} GstDoradmaNetGpu;

/* Forgets everything (nothing to free). */
void gst_doradma_net_gpu_init (GstDoradmaNetGpu * g, gboolean ucx_cuda);
/* Frees the copier and the staging allocator. */
void gst_doradma_net_gpu_clear (GstDoradmaNetGpu * g);

/* Device frames are coming (memory:CUDAMemory caps, or the first device
 * buffer): checks that CUDA works here and, without a CUDA UCX, sets up
 * the staging. Idempotent. FALSE with *reason naming what is missing. */
gboolean gst_doradma_net_gpu_prepare (GstDoradmaNetGpu * g, gchar ** reason);

/* Pinned staging buffers allocated so far (the rest were reused). */
guint64 gst_doradma_net_gpu_staging_buffers (GstDoradmaNetGpu * g);

/* One frame's bytes for the wire, held until UCX is done with them. */
typedef struct
{
  GstDoradmaNetGpuPath path;
  gconstpointer data;           /* host address, or device address */
  gsize size;
  gsize offset[GST_VIDEO_MAX_PLANES];   /* the layout of data */
  gint stride[GST_VIDEO_MAX_PLANES];
  /* private */
  GstBuffer *buf;
  GstMapInfo map;               /* host path */
  GstDoradmaCudaSource src;     /* device path */
  GstMemory *staging;           /* staged path */
} GstDoradmaNetGpuFrame;

/* Fills `f` for `buf` (caps `info`): takes a reference to buf. FALSE with
 * *err (the buffer cannot be mapped or does not match the caps, CUDA
 * missing or failing); `f` is then empty. */
gboolean gst_doradma_net_gpu_frame_open (GstDoradmaNetGpu * g,
    const GstVideoInfo * info, GstBuffer * buf, GstDoradmaNetGpuFrame * f,
    gchar ** err);
/* Any thread (UCX's completion): unmaps, gives the staging buffer back. */
void gst_doradma_net_gpu_frame_close (GstDoradmaNetGpuFrame * f);

G_END_DECLS
#endif /* __GST_DORADMA_NET_GPU_H__ */
