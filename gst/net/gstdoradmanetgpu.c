/* doradma GStreamer plugin — where doradmanetsink sends a frame from (see
 * the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/doradma/gstdoradmaallocator.h>

#include "gstdoradmanetgpu.h"

static const gchar *const path_names[] = {
  "none", "host", "staged-pinned", "device"
};

const gchar *
gst_doradma_net_gpu_path_name (GstDoradmaNetGpuPath path)
{
  return (guint) path < G_N_ELEMENTS (path_names) ? path_names[path] : "?";
}

void
gst_doradma_net_gpu_init (GstDoradmaNetGpu * g, gboolean ucx_cuda)
{
  memset (g, 0, sizeof (*g));
  g->ucx_cuda = ucx_cuda;
}

void
gst_doradma_net_gpu_clear (GstDoradmaNetGpu * g)
{
  g_clear_pointer (&g->copier, gst_doradma_cuda_copier_free);
  gst_clear_object (&g->staging);
  g->ready = FALSE;
}

gboolean
gst_doradma_net_gpu_prepare (GstDoradmaNetGpu * g, gchar ** reason)
{
  GError *error = NULL;

  if (g->ready)
    return TRUE;
  if (!gst_doradma_cuda_available (reason))
    return FALSE;
  if (!g->ucx_cuda) {
    /* UCX cannot read device memory: each frame is copied once into
     * pinned memory (the fastest device → host copy) and sent from there */
    if (g->copier == NULL
        && (g->copier = gst_doradma_cuda_copier_new (reason)) == NULL)
      return FALSE;
    if (g->staging == NULL
        && (g->staging = gst_doradma_slab_allocator_new
            (GST_DORADMA_SLAB_KIND_PINNED, 0, &error)) == NULL) {
      *reason = g_strdup_printf ("pinned staging memory: %s", error->message);
      g_error_free (error);
      return FALSE;
    }
  }
  g->ready = TRUE;
  return TRUE;
}

guint64
gst_doradma_net_gpu_staging_buffers (GstDoradmaNetGpu * g)
{
  GstStructure *s;
  guint64 misses = 0, unpooled = 0;

  if (g->staging == NULL)
    return 0;
  s = gst_doradma_slab_allocator_get_stats (g->staging);
  gst_structure_get_uint64 (s, "misses", &misses);
  gst_structure_get_uint64 (s, "unpooled", &unpooled);
  gst_structure_free (s);
  return misses + unpooled;
}

/* The layout of `buf`: its video meta's, else `def` (the caps' default, or
 * the CUDA memory's own). FALSE when the meta does not match the caps. */
static gboolean
buffer_layout (const GstVideoInfo * info, GstBuffer * buf,
    const gsize * def_offset, const gint * def_stride,
    GstDoradmaNetGpuFrame * f)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  guint p;

  if (meta && (meta->n_planes != GST_VIDEO_INFO_N_PLANES (info)
          || meta->width != (guint) GST_VIDEO_INFO_WIDTH (info)
          || meta->height != (guint) GST_VIDEO_INFO_HEIGHT (info)))
    return FALSE;
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    f->offset[p] = meta ? meta->offset[p] : def_offset[p];
    f->stride[p] = meta ? meta->stride[p] : def_stride[p];
  }
  return TRUE;
}

/* Device memory, UCX without CUDA: one copy into a pinned buffer, in the
 * caps' default layout. */
static gboolean
stage (GstDoradmaNetGpu * g, const GstVideoInfo * info,
    GstDoradmaNetGpuFrame * f, gchar ** err)
{
  GError *error = NULL;
  GstMapInfo map;
  gboolean ok;

  f->staging = gst_doradma_slab_allocator_alloc (g->staging, info->size,
      &error);
  if (f->staging == NULL) {
    *err = g_strdup_printf ("no pinned staging buffer of %" G_GSIZE_FORMAT
        " bytes: %s", info->size, error->message);
    g_error_free (error);
    return FALSE;
  }
  /* pinned slabs map to their host pointer (and stay mapped) */
  if (!gst_memory_map (f->staging, &map, GST_MAP_WRITE)) {
    *err = g_strdup ("could not map the pinned staging buffer");
    return FALSE;
  }
  ok = gst_doradma_cuda_copy_frame (g->copier, info, &f->src.frame,
      (guint64) (guintptr) map.data, GST_DORADMA_CUDA_MEM_HOST, err);
  gst_memory_unmap (f->staging, &map);
  f->data = map.data;
  f->size = info->size;
  memcpy (f->offset, info->offset, sizeof (f->offset));
  memcpy (f->stride, info->stride, sizeof (f->stride));
  return ok;
}

gboolean
gst_doradma_net_gpu_frame_open (GstDoradmaNetGpu * g,
    const GstVideoInfo * info, GstBuffer * buf, GstDoradmaNetGpuFrame * f,
    gchar ** err)
{
  gboolean is_device;

  memset (f, 0, sizeof (*f));
  if (!gst_doradma_cuda_source_open (info, buf, &f->src, &is_device, err))
    return FALSE;
  f->buf = gst_buffer_ref (buf);
  if (!is_device) {
    /* the host path: the buffer's own bytes, no copy */
    f->path = GST_DORADMA_NET_GPU_PATH_HOST;
    if (!gst_buffer_map (buf, &f->map, GST_MAP_READ)) {
      *err = g_strdup ("could not map the frame");
      gst_clear_buffer (&f->buf);
      return FALSE;
    }
    f->data = f->map.data;
    f->size = f->map.size;
    if (!buffer_layout (info, buf, info->offset, info->stride, f))
      goto bad_layout;
    return TRUE;
  }

  if (!gst_doradma_net_gpu_prepare (g, err))
    goto failed;
  if (g->ucx_cuda) {
    f->path = GST_DORADMA_NET_GPU_PATH_DEVICE;
    f->data = (gconstpointer) (guintptr) f->src.frame.ptr;
    f->size = f->src.size;
    if (!buffer_layout (info, buf, f->src.frame.offset, f->src.frame.stride, f))
      goto bad_layout;
    return TRUE;
  }
  f->path = GST_DORADMA_NET_GPU_PATH_STAGED_PINNED;
  if (!stage (g, info, f, err))
    goto failed;
  /* the device frame is no longer needed: give it back upstream now */
  gst_doradma_cuda_source_close (&f->src);
  gst_clear_buffer (&f->buf);
  return TRUE;

bad_layout:
  *err = g_strdup ("the buffer's video meta does not match the caps");
failed:
  gst_doradma_net_gpu_frame_close (f);
  return FALSE;
}

void
gst_doradma_net_gpu_frame_close (GstDoradmaNetGpuFrame * f)
{
  if (f->buf && f->path == GST_DORADMA_NET_GPU_PATH_HOST)
    gst_buffer_unmap (f->buf, &f->map);
  gst_doradma_cuda_source_close (&f->src);
  gst_clear_buffer (&f->buf);
  if (f->staging)
    gst_memory_unref (f->staging);
  memset (f, 0, sizeof (*f));
}
