/* doradma GStreamer plugin — doradmasrc's GPU output paths (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstdoradmacudaoutput.h"
#include "gstdoradmawire.h"
#include <gst/doradma/gstdoradmaallocator.h>
#include "gstdoradmasrcframe.h"

/* doradmasrc's: GST_DEBUG=doradmasrc:5 shows the whole consumer side */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

/* ---------------------------------------------------------------------- */
/* State */

void
gst_doradma_cuda_output_init (GstDoradmaCudaOutput * o, GstElement * element)
{
  memset (o, 0, sizeof (*o));
  o->element = element;
}

void
gst_doradma_cuda_output_caps_changed (GstDoradmaCudaOutput * o)
{
#ifdef HAVE_GST_CUDA
  gst_doradma_pool_clear (&o->cuda_pool);
#endif
}

void
gst_doradma_cuda_output_reset (GstDoradmaCudaOutput * o)
{
  gst_doradma_cuda_output_caps_changed (o);
  g_clear_pointer (&o->copier, gst_doradma_cuda_copier_free);
  gst_clear_object (&o->slab_alloc);
  g_atomic_int_set (&o->device_copies, 0);
  g_atomic_int_set (&o->slab_copies, 0);
}

void
gst_doradma_cuda_output_finalize (GstDoradmaCudaOutput * o)
{
  gst_doradma_cuda_output_reset (o);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&o->ctx);
#endif
}

/* ---------------------------------------------------------------------- */
/* Device copies */

/* The leased frame as a copy source: its device pointer when the segment
 * is registered or IPC-mapped, else its host pointer. */
static void
frame_source (GstDoradmaConsumer * c, const struct doradma_frame *frame,
    const GstVideoInfo * info, GstDoradmaCudaFrame * src, guint32 * rows,
    guint32 * row_bytes)
{
  GstDoradmaReaderHandle *rh = gst_doradma_consumer_handle (c);
  guint p;

  memset (src, 0, sizeof (*src));
  src->ptr = gst_doradma_cuda_reader_frame_pointer (rh->cuda, frame);
  src->kind = GST_DORADMA_CUDA_MEM_DEVICE;
  if (src->ptr == 0) {
    src->ptr = (guint64) (guintptr) frame->data;
    src->kind = GST_DORADMA_CUDA_MEM_HOST;
  }
  for (p = 0; p < frame->info.n_planes; p++) {
    src->offset[p] = frame->info.planes[p].offset;
    src->stride[p] = frame->info.planes[p].stride;
    gst_doradma_plane_needs (info, p, &rows[p], &row_bytes[p]);
  }
}

/* Copies into `dst`, waits for the copy, then gives the lease back. */
static gboolean
device_copy_and_release (GstDoradmaCudaOutput * o, GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame, const GstVideoInfo * info,
    const GstDoradmaCudaFrame * dst, gchar ** err)
{
  GstDoradmaCudaFrame src;
  guint32 rows[GST_VIDEO_MAX_PLANES], rb[GST_VIDEO_MAX_PLANES];
  gboolean ok;

  frame_source (c, &frame->f, info, &src, rows, rb);
  if (o->copier == NULL)
    o->copier = gst_doradma_cuda_copier_new (err);
  ok = o->copier != NULL
      && gst_doradma_cuda_copier_copy (o->copier, frame->f.info.n_planes, dst,
      &src, rows, rb, err)
      /* GPU work is not ordered by the lease's CPU fences: the copy must be
       * complete before the writer may reuse the slot */
      && gst_doradma_cuda_copier_sync (o->copier, err);
  gst_doradma_consumer_release (c, frame);
  if (ok)
    g_atomic_int_inc (&o->device_copies);
  return ok;
}

/* The default layout of `info` as a copy destination at `ptr`. */
static void
default_layout (GstDoradmaCudaFrame * dst, guint64 ptr,
    GstDoradmaCudaMemKind kind, const GstVideoInfo * info)
{
  guint p;

  memset (dst, 0, sizeof (*dst));
  dst->ptr = ptr;
  dst->kind = kind;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    dst->offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    dst->stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
  }
}

GstBuffer *
gst_doradma_cuda_output_download (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame,
    GstBufferPool * pool, const GstVideoInfo * info, gchar ** err)
{
  GstDoradmaCudaFrame dst;
  GstVideoFrame vf;
  GstBuffer *out = NULL;
  gboolean ok;

  if (pool == NULL || gst_buffer_pool_acquire_buffer (pool, &out, NULL)
      != GST_FLOW_OK || !gst_video_frame_map (&vf, info, out, GST_MAP_WRITE)) {
    gst_doradma_consumer_release (c, frame);
    gst_clear_buffer (&out);
    *err = g_strdup ("no local buffer to download into");
    return NULL;
  }
  gst_doradma_cuda_frame_of_video_frame (&dst, GST_DORADMA_CUDA_MEM_HOST, &vf);
  ok = device_copy_and_release (o, c, frame, info, &dst, err);
  gst_video_frame_unmap (&vf);
  if (!ok) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_doradma_frame_add_crop_meta (out, &frame->f.info);
  return out;
}

/* ---------------------------------------------------------------------- */
/* copy-to */

/* A host frame into the slab, plane by plane at the default offsets and
 * strides (one upload per plane when the strides agree, else per row). */
static gboolean
upload_default_layout (GstMemory * mem, const struct doradma_frame *frame,
    const GstVideoInfo * info, GError ** e)
{
  guint p, row;

  for (p = 0; p < frame->info.n_planes; p++) {
    const struct doradma_shm_plane *sp = &frame->info.planes[p];
    gsize doff = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    gsize dstride = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    guint32 rows, rb;

    gst_doradma_plane_needs (info, p, &rows, &rb);
    if (rows == 0)
      continue;
    if (sp->stride == dstride) {
      if (!gst_doradma_slab_memory_upload (mem, doff, frame->data + sp->offset,
              (gsize) (rows - 1) * dstride + rb, e))
        return FALSE;
      continue;
    }
    for (row = 0; row < rows; row++)
      if (!gst_doradma_slab_memory_upload (mem, doff + row * dstride,
              frame->data + sp->offset + (gsize) row * sp->stride, rb, e))
        return FALSE;
  }
  return TRUE;
}

static const gchar *
copy_to_name (GstDoradmaCopyTo to)
{
  return to == GST_DORADMA_COPY_TO_UMA ? "uma" :
      to == GST_DORADMA_COPY_TO_PINNED ? "pinned" : "device";
}

GstBuffer *
gst_doradma_cuda_output_copy_to_slab (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame,
    GstDoradmaCopyTo to, guint64 budget, const GstVideoInfo * info,
    gboolean meta, gchar ** err)
{
  static const GstDoradmaSlabKind kinds[] = {
    GST_DORADMA_SLAB_KIND_MANAGED, GST_DORADMA_SLAB_KIND_MANAGED,
    GST_DORADMA_SLAB_KIND_PINNED, GST_DORADMA_SLAB_KIND_DEVICE
  };
  const struct doradma_frame *f = &frame->f;
  gsize size = meta ? f->info.payload_bytes : info->size;
  GError *e = NULL;
  GstMemory *mem = NULL;
  GstBuffer *buf;
  gboolean ok;

  if (o->slab_alloc == NULL
      && (o->slab_alloc = gst_doradma_slab_allocator_new (kinds[to], budget,
              &e)) == NULL)
    goto failed;
  if ((mem = gst_doradma_slab_allocator_alloc (o->slab_alloc, size,
              &e)) == NULL)
    goto failed;
  if (f->data && meta) {
    /* memcpy (managed, pinned) or a synchronous cuMemcpyHtoD (device) */
    if (!gst_doradma_slab_memory_upload (mem, 0, f->data, size, &e))
      goto failed;
    gst_doradma_consumer_release (c, frame);
  } else if (f->data) {
    if (!upload_default_layout (mem, f, info, &e))
      goto failed;
    gst_doradma_consumer_release (c, frame);
  } else {
    GstDoradmaCudaFrame dst;
    guint p;

    default_layout (&dst, gst_doradma_slab_memory_get_device_pointer (mem),
        GST_DORADMA_CUDA_MEM_DEVICE, info);
    for (p = 0; meta && p < f->info.n_planes; p++) {
      dst.offset[p] = f->info.planes[p].offset;
      dst.stride[p] = f->info.planes[p].stride;
    }
    ok = device_copy_and_release (o, c, frame, info, &dst, err);
    if (!ok) {
      gst_memory_unref (mem);
      return NULL;
    }
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  if (meta)
    gst_doradma_frame_add_metas (buf, info, &f->info);
  else
    gst_doradma_frame_add_crop_meta (buf, &f->info);
  g_atomic_int_inc (&o->slab_copies);
  return buf;

failed:
  gst_doradma_consumer_release (c, frame);
  if (mem)
    gst_memory_unref (mem);
  *err = g_strdup_printf ("copy-to %s: %s", copy_to_name (to),
      e ? e->message : "failed");
  g_clear_error (&e);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* memory:CUDAMemory */

#ifdef HAVE_GST_CUDA
#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED
/* >= 1.24: wrap the slot itself; the lease goes back in the notify, once
 * the GPU is done with it. (Not compiled on the 1.22 dev machines.) */
typedef struct
{
  GstDoradmaReaderHandle *rh;
  guint32 slot;
} WrapLease;

static void
wrap_lease_free (WrapLease * l)
{
  g_atomic_int_add (&l->rh->outstanding, -1);
  gst_doradma_reader_handle_unref (l->rh);
  g_free (l);
}

static void
wrap_lease_notify (gpointer data)
{
  WrapLease *l = data;

  gst_doradma_cuda_reader_sync (l->rh->cuda);
  doradma_reader_release (l->rh->r, l->slot);
  wrap_lease_free (l);
}

/* The wrapped buffer, owning the lease; NULL with the lease still held by
 * `frame` (the caller falls back to a copy). */
static GstBuffer *
wrap_frame (GstCudaContext * ctx, GstDoradmaConsumer * c,
    GstDoradmaConsumerFrame * frame, const GstVideoInfo * info)
{
  GstDoradmaReaderHandle *rh = gst_doradma_consumer_handle (c);
  const struct doradma_frame *f = &frame->f;
  GstVideoInfo winfo = *info;
  WrapLease *l = g_new0 (WrapLease, 1);
  GstMemory *mem;
  GstBuffer *buf;
  guint p;

  for (p = 0; p < f->info.n_planes; p++) {
    winfo.offset[p] = f->info.planes[p].offset;
    winfo.stride[p] = f->info.planes[p].stride;
  }
  winfo.size = f->info.payload_bytes;
  l->rh = gst_doradma_reader_handle_ref (rh);
  l->slot = f->slot;
  g_atomic_int_inc (&rh->outstanding);
  mem = gst_cuda_allocator_alloc_wrapped (NULL, ctx, NULL, &winfo,
      gst_doradma_cuda_reader_frame_pointer (rh->cuda, f), l,
      wrap_lease_notify);
  if (mem == NULL) {
    /* the lease stays with `frame`: the copy path releases it, once */
    wrap_lease_free (l);
    return NULL;
  }
  frame->leased = FALSE;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_doradma_frame_add_metas (buf, info, &f->info);
  return buf;
}
#endif

static GstBufferPool *
ensure_cuda_pool (GstDoradmaCudaOutput * o, GstCudaContext * ctx,
    GstCaps * caps, const GstVideoInfo * info)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (o->cuda_pool)
    return o->cuda_pool;
  pool = gst_cuda_buffer_pool_new (ctx);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info->size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return o->cuda_pool = pool;
}

/* 1.22: copy on the device into a GstCudaMemory from a GstCudaBufferPool,
 * wait, release the lease. */
GstBuffer *
gst_doradma_cuda_output_cuda_memory (GstDoradmaCudaOutput * o,
    GstDoradmaConsumer * c, GstDoradmaConsumerFrame * frame, GstCaps * caps,
    const GstVideoInfo * info, gchar ** err)
{
  GstDoradmaCudaFrame dst;
  GstCudaContext *ctx;
  GstBufferPool *pool;
  GstBuffer *out = NULL;
  GstVideoFrame vf;
  gboolean ok;

  ctx = gst_doradma_cuda_element_context (o->element, &o->ctx, err);
  if (ctx == NULL)
    goto fail;
#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED
  if (gst_doradma_consumer_handle (c)->cuda
      && (out = wrap_frame (ctx, c, frame, info))) {
    gst_object_unref (ctx);
    return out;
  }
#endif
  pool = ensure_cuda_pool (o, ctx, caps, info);
  gst_object_unref (ctx);
  if (pool == NULL) {
    *err = g_strdup ("the CUDA buffer pool refused its configuration");
    goto fail;
  }
  if (gst_buffer_pool_acquire_buffer (pool, &out, NULL) != GST_FLOW_OK) {
    *err = g_strdup ("no buffer from the CUDA buffer pool");
    goto fail;
  }
  /* the planes where the buffer's video meta says, as CUDA elements read
   * them (gst_video_frame_map with GST_MAP_CUDA); on the H200 with 1.22
   * this equals the memory's own pitched layout (tests/cuda-elements/
   * pitch.sh passes with either) */
  if (!gst_is_cuda_memory (gst_buffer_peek_memory (out, 0))
      || !gst_video_frame_map (&vf, info, out, GST_MAP_WRITE | GST_MAP_CUDA)) {
    *err = g_strdup ("could not map the CUDA memory for writing");
    goto fail;
  }
  gst_doradma_cuda_frame_of_video_frame (&dst, GST_DORADMA_CUDA_MEM_DEVICE,
      &vf);
  ok = device_copy_and_release (o, c, frame, info, &dst, err);
  gst_video_frame_unmap (&vf);
  if (!ok) {
    gst_buffer_unref (out);
    return NULL;
  }
  gst_doradma_frame_add_crop_meta (out, &frame->f.info);
  return out;

fail:
  gst_doradma_consumer_release (c, frame);
  gst_clear_buffer (&out);
  return NULL;
}
#endif
