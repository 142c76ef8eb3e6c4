/* doradma GStreamer plugin — the GStreamer side of CUDA (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "gstdoradmacuda.h"
#include "gstdoradmaelements.h"
#include "gstdoradmawire.h"
#include <gst/doradma/gstdoradmaallocator.h>
#include <gst/doradma/gstdoradmamemory.h>
#ifdef HAVE_GST_CUDA
/* gst_cuda_load_library: 1.22's gstcudamemory.h includes it, 1.24+ not */
#include <gst/cuda/gstcudaloader.h>
#endif
/* the public, GStreamer- and cuda.h-free API only (streams, copies and
 * context sync included); never the private driver table cuda-api.h */
#include "doradma-cuda.h"

#define GST_CAT_DEFAULT gst_doradma_debug

static const gchar *const path_names[] = {
  "none", "unified", "unified-integrated", "ipc"
};

const gchar *
gst_doradma_cuda_path_name (GstDoradmaCudaPath path)
{
  return (guint) path < G_N_ELEMENTS (path_names) ? path_names[path] : "?";
}

static gchar *
reason_from (int ret, const struct doradma_diag *d, const gchar * what)
{
  switch (-ret) {
    case ENOSYS:
      return g_strdup_printf ("%s: not built with CUDA support (rebuild with "
          "-Dcuda=enabled)", what);
    case ENOENT:
      return g_strdup_printf ("%s: no CUDA driver (libcuda.so.1): %s", what,
          d->msg);
    case ENODEV:
      return g_strdup_printf ("%s: no CUDA device: %s", what, d->msg);
    default:
      return g_strdup_printf ("%s: %s (%s)", what, d->msg[0] ? d->msg :
          "CUDA error", g_strerror (-ret));
  }
}

static void
set_reason (gchar ** reason, gchar * msg)
{
  if (reason)
    *reason = msg;
  else
    g_free (msg);
}

/* ---------------------------------------------------------------------- */
/* Device 0, once per process */

static GMutex dev_lock;
static struct doradma_cuda_device *the_dev;
static int dev_ret = 1;
static struct doradma_diag dev_diag;

struct doradma_cuda_device *
gst_doradma_cuda_device (gchar ** reason)
{
  struct doradma_cuda_device *dev = NULL;

  g_mutex_lock (&dev_lock);
  if (dev_ret > 0) {
    dev_ret = doradma_cuda_device_open (0, &the_dev, &dev_diag);
    if (dev_ret == 0) {
      const struct doradma_cuda_device_info *i =
          doradma_cuda_device_get_info (the_dev);
      GST_INFO ("CUDA device 0: %s, cc %d.%d, %s GPU, driver %d", i->name,
          i->cc_major, i->cc_minor, i->integrated ? "integrated" : "discrete",
          doradma_cuda_driver_version ());
    } else {
      GST_INFO ("no CUDA: %s", dev_diag.msg);
    }
  }
  if (dev_ret == 0)
    dev = doradma_cuda_device_ref (the_dev);
  else
    set_reason (reason, reason_from (dev_ret, &dev_diag, "CUDA device 0"));
  g_mutex_unlock (&dev_lock);
  return dev;
}

gboolean
gst_doradma_cuda_available (gchar ** reason)
{
  struct doradma_cuda_device *dev = gst_doradma_cuda_device (reason);

  if (dev == NULL)
    return FALSE;
  doradma_cuda_device_unref (dev);
  return TRUE;
}

gboolean
gst_doradma_cuda_memory_available (gchar ** reason)
{
#ifdef HAVE_GST_CUDA
  if (!gst_doradma_cuda_available (reason))
    return FALSE;
  if (!gst_cuda_load_library ()) {
    set_reason (reason, g_strdup ("gstreamer-cuda could not load the CUDA "
            "driver library"));
    return FALSE;
  }
  return TRUE;
#else
  set_reason (reason, g_strdup ("memory:CUDAMemory needs gstreamer-cuda: "
          "not built with it (-Dgst-cuda=enabled)"));
  return FALSE;
#endif
}

static gint n_registrations;

guint64
gst_doradma_cuda_registrations (void)
{
  return (guint64) g_atomic_int_get (&n_registrations);
}

#ifdef HAVE_GST_CUDA
gboolean
gst_doradma_cuda_memory_sync (GstMemory * mem, gchar ** err)
{
  GstCudaMemory *cmem = GST_CUDA_MEMORY_CAST (mem);
  struct doradma_diag d = { 0 };

#ifdef HAVE_GST_CUDA_ALLOC_WRAPPED
  if (gst_cuda_memory_get_stream (cmem)) {
    gst_cuda_memory_sync (cmem);
    return TRUE;
  }
#endif
  if (doradma_cuda_context_synchronize (gst_cuda_context_get_handle
          (cmem->context), &d) < 0) {
    set_reason (err, g_strdup_printf ("upstream's CUDA context: %s", d.msg));
    return FALSE;
  }
  return TRUE;
}
#endif

guint64
gst_doradma_cuda_mem_free (void)
{
  struct doradma_cuda_device *dev = gst_doradma_cuda_device (NULL);
  uint64_t free_b = 0, total = 0;

  if (dev == NULL)
    return 0;
  doradma_cuda_device_mem_info (dev, &free_b, &total, NULL);
  doradma_cuda_device_unref (dev);
  return free_b;
}

/* ---------------------------------------------------------------------- */
/* Reader */

struct _GstDoradmaCudaReader
{
  struct doradma_cuda_device *dev;
  struct doradma_cuda_hostreg *reg;
  struct doradma_cuda_ipc_import *imp;
  GstDoradmaCudaPath path;
  guint64 base;                 /* device address of the mapping / slots */
  guint64 slot_stride;
};

GstDoradmaCudaReader *
gst_doradma_cuda_reader_new (struct doradma_reader *r, gchar ** reason)
{
  struct doradma_segment_info si;
  struct doradma_diag d = { 0 };
  GstDoradmaCudaReader *cr;
  int ret;

  cr = g_new0 (GstDoradmaCudaReader, 1);
  if ((cr->dev = gst_doradma_cuda_device (reason)) == NULL) {
    g_free (cr);
    return NULL;
  }
  doradma_reader_segment_info (r, &si);
  cr->slot_stride = si.slot_stride;
  if (si.ipc) {
    ret = doradma_cuda_ipc_import_open (cr->dev, si.ipc_handle, &cr->imp, &d);
    if (ret < 0)
      goto failed;
    cr->base = doradma_cuda_ipc_import_get_device_pointer (cr->imp);
    cr->path = GST_DORADMA_CUDA_PATH_IPC;
  } else {
    ret = doradma_cuda_hostreg_acquire (cr->dev, doradma_reader_fd (r),
        (void *) si.map_base, si.map_size, PROT_READ, &cr->reg, &d);
    if (ret < 0)
      goto failed;
    if (doradma_cuda_hostreg_refcount (cr->reg) == 1)
      g_atomic_int_inc (&n_registrations);
    cr->base = doradma_cuda_hostreg_get_device_pointer (cr->reg);
    cr->path = doradma_cuda_hostreg_is_integrated (cr->reg) ?
        GST_DORADMA_CUDA_PATH_UNIFIED_INTEGRATED :
        GST_DORADMA_CUDA_PATH_UNIFIED;
  }
  GST_INFO ("segment ino %" G_GUINT64_FORMAT ": CUDA path %s, device base "
      "0x%" G_GINT64_MODIFIER "x (host mapping %p, %" G_GUINT64_FORMAT
      " bytes)", si.ino, gst_doradma_cuda_path_name (cr->path), cr->base,
      si.map_base, si.map_size);
  return cr;

failed:
  set_reason (reason, reason_from (ret, &d, si.ipc ?
          "opening the segment's CUDA IPC handle" :
          "registering the segment with CUDA"));
  doradma_cuda_device_unref (cr->dev);
  g_free (cr);
  return NULL;
}

void
gst_doradma_cuda_reader_free (GstDoradmaCudaReader * cr)
{
  struct doradma_diag d = { 0 };

  if (cr == NULL)
    return;
  if (cr->reg && doradma_cuda_hostreg_release (cr->reg, &d) < 0)
    GST_WARNING ("unregistering: %s", d.msg);
  if (cr->imp && doradma_cuda_ipc_import_close (cr->imp, &d) < 0)
    GST_WARNING ("closing the IPC mapping: %s", d.msg);
  doradma_cuda_device_unref (cr->dev);
  g_free (cr);
}

GstDoradmaCudaPath
gst_doradma_cuda_reader_path (const GstDoradmaCudaReader * cr)
{
  return cr ? cr->path : GST_DORADMA_CUDA_PATH_NONE;
}

guint64
gst_doradma_cuda_reader_frame_pointer (const GstDoradmaCudaReader * cr,
    const struct doradma_frame *frame)
{
  if (cr == NULL)
    return 0;
  if (cr->path == GST_DORADMA_CUDA_PATH_IPC)
    return cr->base + (guint64) frame->slot * cr->slot_stride;
  /* never assume alias == host pointer */
  return cr->base + frame->data_offset;
}

struct doradma_cuda_device *
gst_doradma_cuda_reader_device (const GstDoradmaCudaReader * cr)
{
  return cr ? cr->dev : NULL;
}

void
gst_doradma_cuda_reader_sync (const GstDoradmaCudaReader * cr)
{
#ifdef DORADMA_HAVE_CUDA
  struct doradma_diag d = { 0 };

  if (cr && doradma_cuda_device_synchronize (cr->dev, &d) < 0)
    GST_WARNING ("%s", d.msg);
#endif
}

/* ---------------------------------------------------------------------- */
/* Writer slots */

struct _GstDoradmaCudaSlots
{
  struct doradma_cuda_device *dev;
  struct doradma_cuda_ipc_export *exp;
};

GstDoradmaCudaSlots *
gst_doradma_cuda_slots_new (gsize size, guint8 handle[DORADMA_IPC_HANDLE_LEN],
    gchar ** reason)
{
  struct doradma_diag d = { 0 };
  GstDoradmaCudaSlots *s = g_new0 (GstDoradmaCudaSlots, 1);
  int ret;

  if ((s->dev = gst_doradma_cuda_device (reason)) == NULL) {
    g_free (s);
    return NULL;
  }
  ret = doradma_cuda_ipc_export_new (s->dev, size, handle, &s->exp, &d);
  if (ret < 0) {
    set_reason (reason, reason_from (ret, &d, "allocating the device slot "
            "area (transport=ipc needs a discrete GPU)"));
    doradma_cuda_device_unref (s->dev);
    g_free (s);
    return NULL;
  }
  return s;
}

guint64
gst_doradma_cuda_slots_pointer (const GstDoradmaCudaSlots * s)
{
  return doradma_cuda_ipc_export_get_device_pointer (s->exp);
}

gsize
gst_doradma_cuda_slots_size (const GstDoradmaCudaSlots * s)
{
  return doradma_cuda_ipc_export_get_size (s->exp);
}

void
gst_doradma_cuda_slots_free (GstDoradmaCudaSlots * s)
{
  struct doradma_diag d = { 0 };

  if (s == NULL)
    return;
  if (doradma_cuda_ipc_export_free (s->exp, &d) < 0)
    GST_WARNING ("freeing the device slot area: %s", d.msg);
  doradma_cuda_device_unref (s->dev);
  g_free (s);
}

/* ---------------------------------------------------------------------- */
/* Copier */

struct _GstDoradmaCudaCopier
{
  struct doradma_cuda_device *dev;
  gpointer stream;              /* CUstream */
  guint64 copies;
};

GstDoradmaCudaCopier *
gst_doradma_cuda_copier_new (gchar ** reason)
{
#ifdef DORADMA_HAVE_CUDA
  struct doradma_diag d = { 0 };
  GstDoradmaCudaCopier *c = g_new0 (GstDoradmaCudaCopier, 1);

  if ((c->dev = gst_doradma_cuda_device (reason)) == NULL) {
    g_free (c);
    return NULL;
  }
  if (doradma_cuda_stream_create (c->dev, TRUE, &c->stream, &d) < 0) {
    set_reason (reason, g_strdup (d.msg));
    doradma_cuda_device_unref (c->dev);
    g_free (c);
    return NULL;
  }
  return c;
#else
  set_reason (reason, g_strdup ("CUDA copies: not built with CUDA support"));
  return NULL;
#endif
}

void
gst_doradma_cuda_copier_free (GstDoradmaCudaCopier * c)
{
  if (c == NULL)
    return;
#ifdef DORADMA_HAVE_CUDA
  if (c->stream) {
    doradma_cuda_stream_synchronize (c->dev, c->stream, NULL);
    doradma_cuda_stream_destroy (c->dev, c->stream, NULL);
  }
#endif
  doradma_cuda_device_unref (c->dev);
  g_free (c);
}

gpointer
gst_doradma_cuda_copier_stream (GstDoradmaCudaCopier * c)
{
  return c->stream;
}

struct doradma_cuda_device *
gst_doradma_cuda_copier_device (GstDoradmaCudaCopier * c)
{
  return c->dev;
}

guint64
gst_doradma_cuda_copier_copies (GstDoradmaCudaCopier * c)
{
  return c ? c->copies : 0;
}

#ifdef DORADMA_HAVE_CUDA
/* One linear copy of `n` bytes between any two kinds (host↔device). */
static int
copy_linear (GstDoradmaCudaCopier * c, guint64 dst, GstDoradmaCudaMemKind dk,
    guint64 src, GstDoradmaCudaMemKind sk, gsize n, struct doradma_diag *d)
{
  if (dk == GST_DORADMA_CUDA_MEM_DEVICE && sk == GST_DORADMA_CUDA_MEM_DEVICE)
    return doradma_cuda_copy_dtod_async (c->dev, dst, src, n, c->stream, d);
  if (dk == GST_DORADMA_CUDA_MEM_DEVICE)
    return doradma_cuda_copy_htod_async (c->dev, dst,
        (const void *) (guintptr) src, n, c->stream, d);
  if (sk == GST_DORADMA_CUDA_MEM_DEVICE)
    return doradma_cuda_copy_dtoh_async (c->dev, (void *) (guintptr) dst,
        src, n, c->stream, d);
  memcpy ((void *) (guintptr) dst, (const void *) (guintptr) src, n);
  return 0;
}
#endif

gboolean
gst_doradma_cuda_copier_copy (GstDoradmaCudaCopier * c, guint n_planes,
    const GstDoradmaCudaFrame * dst, const GstDoradmaCudaFrame * src,
    const guint32 * rows, const guint32 * row_bytes, gchar ** err)
{
#ifdef DORADMA_HAVE_CUDA
  struct doradma_diag d = { 0 };
  int ret = 0;
  guint p;

  for (p = 0; p < n_planes && ret == 0; p++) {
    guint64 dp = dst->ptr + dst->offset[p], sp = src->ptr + src->offset[p];
    gsize ds = dst->stride[p], ss = src->stride[p];

    if (rows[p] == 0)
      continue;
    if (ds == ss) {
      /* contiguous: one copy, the last row only as wide as needed */
      ret = copy_linear (c, dp, dst->kind, sp, src->kind,
          ds * (rows[p] - 1) + row_bytes[p], &d);
    } else {
      if (doradma_cuda_have_copy_2d ()) {
        struct doradma_cuda_copy2d c2 = {
          .dst = dp,.dst_device = dst->kind == GST_DORADMA_CUDA_MEM_DEVICE,
          .dst_pitch = ds,
          .src = sp,.src_device = src->kind == GST_DORADMA_CUDA_MEM_DEVICE,
          .src_pitch = ss,
          .width = row_bytes[p],.height = rows[p],
        };

        ret = doradma_cuda_copy_2d_async (c->dev, &c2, c->stream, &d);
        continue;
      }
      for (guint32 r = 0; r < rows[p] && ret == 0; r++)
        ret = copy_linear (c, dp + r * ds, dst->kind, sp + r * ss, src->kind,
            row_bytes[p], &d);
    }
  }
  if (ret < 0) {
    set_reason (err, g_strdup (d.msg));
    return FALSE;
  }
  c->copies++;
  return TRUE;
#else
  set_reason (err, g_strdup ("not built with CUDA support"));
  return FALSE;
#endif
}

gboolean
gst_doradma_cuda_copier_sync (GstDoradmaCudaCopier * c, gchar ** err)
{
#ifdef DORADMA_HAVE_CUDA
  struct doradma_diag d = { 0 };

  if (doradma_cuda_stream_synchronize (c->dev, c->stream, &d) < 0) {
    set_reason (err, g_strdup (d.msg));
    return FALSE;
  }
  return TRUE;
#else
  set_reason (err, g_strdup ("not built with CUDA support"));
  return FALSE;
#endif
}

/* ---------------------------------------------------------------------- */
/* gstreamer-cuda */

#ifdef HAVE_GST_CUDA
GstCudaContext *
gst_doradma_cuda_context (gchar ** reason)
{
  static GstCudaContext *ctx;
  static GMutex lock;
  GstCudaContext *ret = NULL;

  if (!gst_doradma_cuda_memory_available (reason))
    return NULL;
  g_mutex_lock (&lock);
  if (ctx == NULL) {
    struct doradma_cuda_device *dev = gst_doradma_cuda_device (reason);

    if (dev) {
      /* the primary context our registrations and IPC maps live in; the
       * device reference is kept for the process's lifetime */
      ctx = gst_cuda_context_new_wrapped ((CUcontext)
          doradma_cuda_device_get_context (dev),
          (CUdevice) doradma_cuda_device_get_handle (dev));
      if (ctx) {
        gst_cuda_memory_init_once ();
        GST_OBJECT_FLAG_SET (ctx, GST_OBJECT_FLAG_MAY_BE_LEAKED);
      } else {
        doradma_cuda_device_unref (dev);
        set_reason (reason, g_strdup ("gst_cuda_context_new_wrapped failed"));
      }
    }
  }
  if (ctx)
    ret = gst_object_ref (ctx);
  g_mutex_unlock (&lock);
  return ret;
}
#endif

#ifdef HAVE_GST_CUDA
/* The CUDA context of an element, kept in *slot under its object lock: the
 * one an application or a neighbour gave (set_context), else device 0's
 * primary context (where our registrations and IPC maps live). */
GstCudaContext *
gst_doradma_cuda_element_context (GstElement * element, GstCudaContext ** slot,
    gchar ** reason)
{
  GstCudaContext *ctx = NULL;

  GST_OBJECT_LOCK (element);
  if (*slot)
    ctx = gst_object_ref (*slot);
  GST_OBJECT_UNLOCK (element);
  if (ctx)
    return ctx;
  if ((ctx = gst_doradma_cuda_context (reason)) == NULL)
    return NULL;
  GST_OBJECT_LOCK (element);
  if (*slot == NULL)
    *slot = gst_object_ref (ctx);
  GST_OBJECT_UNLOCK (element);
  return ctx;
}

gboolean
gst_doradma_cuda_element_query (GstElement * element, GstCudaContext ** slot,
    GstQuery * query)
{
  const gchar *type = NULL;
  GstCudaContext *ctx;
  gboolean ret;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  /* share our context with a CUDA neighbour (cudaupload, cudadownload...),
   * only where CUDA works */
  gst_query_parse_context_type (query, &type);
  if (g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0
      || !gst_doradma_cuda_available (NULL))
    return FALSE;
  ctx = gst_doradma_cuda_element_context (element, slot, NULL);
  if (ctx == NULL)
    return FALSE;
  ret = gst_cuda_handle_context_query (element, query, ctx);
  gst_object_unref (ctx);
  return ret;
}

gboolean
gst_doradma_cuda_context_is_primary (GstCudaContext * ctx)
{
  struct doradma_cuda_device *dev = gst_doradma_cuda_device (NULL);
  gboolean ret;

  if (dev == NULL)
    return FALSE;
  ret = gst_cuda_context_get_handle (ctx) ==
      doradma_cuda_device_get_context (dev);
  doradma_cuda_device_unref (dev);
  return ret;
}

void
gst_doradma_cuda_element_set_context (GstElement * element,
    GstCudaContext ** slot, GstContext * context)
{
  GstCudaContext *ctx = NULL;

  /* an application's (or a neighbour's) context wins over our own, as long
   * as it is on device 0, where our registrations are */
  if (gst_cuda_handle_set_context (element, context, 0, &ctx) && ctx) {
    GST_OBJECT_LOCK (element);
    gst_object_replace ((GstObject **) slot, (GstObject *) ctx);
    GST_OBJECT_UNLOCK (element);
    gst_object_unref (ctx);
  }
}
#endif

/* ---------------------------------------------------------------------- */
/* Writer side: a frame into a device slot (transport=ipc) */

gboolean
gst_doradma_cuda_source_open (const GstVideoInfo * info, GstBuffer * buf,
    GstDoradmaCudaSource * src, gboolean * is_device, gchar ** err)
{
  GstMemory *mem = gst_buffer_n_memory (buf) == 1 ?
      gst_buffer_peek_memory (buf, 0) : NULL;
  GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  const GstVideoInfo *layout = info;
  guint p;

  memset (src, 0, sizeof (*src));
  *is_device = FALSE;
  if (mem == NULL)
    return TRUE;
#ifdef HAVE_GST_CUDA
  if (gst_is_cuda_memory (mem)) {
    /* upstream may have queued its write and returned; our copy runs on a
     * stream of ours */
    if (!gst_doradma_cuda_memory_sync (mem, err))
      return FALSE;
    if (!gst_memory_map (mem, &src->map, GST_MAP_READ | GST_MAP_CUDA)) {
      set_reason (err, g_strdup ("could not map the upstream CUDA memory"));
      return FALSE;
    }
    src->mapped = mem;
    src->frame.ptr = (guint64) (guintptr) src->map.data;
    layout = &((GstCudaMemory *) mem)->info;
  } else
#endif
    if (gst_is_doradma_memory (mem)
      && gst_doradma_memory_get_host_pointer (mem) == NULL)
    /* a slot of a writer whose slots live in GPU memory (transport ipc) */
    src->frame.ptr = gst_doradma_memory_get_device_pointer (mem);
  else if (gst_is_doradma_slab_memory (mem)
      && gst_doradma_slab_memory_get_kind (mem) == GST_DORADMA_SLAB_KIND_DEVICE)
    src->frame.ptr = gst_doradma_slab_memory_get_device_pointer (mem);
  else
    return TRUE;                /* host memory: map it */
  if (src->frame.ptr == 0) {
    set_reason (err, g_strdup ("device memory without a device pointer"));
    return FALSE;
  }
  src->frame.kind = GST_DORADMA_CUDA_MEM_DEVICE;
  src->size = src->mapped ? src->map.size : gst_memory_get_sizes (mem, NULL,
      NULL);
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    src->frame.offset[p] = meta ? meta->offset[p] : layout->offset[p];
    src->frame.stride[p] = meta ? meta->stride[p] : layout->stride[p];
  }
  *is_device = TRUE;
  return TRUE;
}

void
gst_doradma_cuda_source_close (GstDoradmaCudaSource * src)
{
  if (src->mapped)
    gst_memory_unmap (src->mapped, &src->map);
  src->mapped = NULL;
}

gboolean
gst_doradma_cuda_copy_frame (GstDoradmaCudaCopier * copier,
    const GstVideoInfo * info, const GstDoradmaCudaFrame * src,
    guint64 dst_ptr, GstDoradmaCudaMemKind dst_kind, gchar ** err)
{
  GstDoradmaCudaFrame dst = { 0 };
  guint32 rows[GST_VIDEO_MAX_PLANES], rb[GST_VIDEO_MAX_PLANES];
  guint p;

  dst.ptr = dst_ptr;
  dst.kind = dst_kind;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    /* the destination in the caps' default layout */
    dst.offset[p] = info->offset[p];
    dst.stride[p] = info->stride[p];
    gst_doradma_plane_needs (info, p, &rows[p], &rb[p]);
  }
  /* synchronised BEFORE the caller publishes or sends: GPU work is not
   * ordered by the ring's CPU fences */
  return gst_doradma_cuda_copier_copy (copier, GST_VIDEO_INFO_N_PLANES (info),
      &dst, src, rows, rb, err) && gst_doradma_cuda_copier_sync (copier, err);
}

void
gst_doradma_cuda_frame_of_video_frame (GstDoradmaCudaFrame * f,
    GstDoradmaCudaMemKind kind, const GstVideoFrame * vf)
{
  guint p;

  memset (f, 0, sizeof (*f));
  f->kind = kind;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (vf); p++) {
    f->offset[p] = (gsize) vf->data[p];
    f->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
  }
}

gboolean
gst_doradma_cuda_upload_frame (GstDoradmaCudaCopier * copier,
    const GstVideoInfo * info, GstBuffer * buf, guint64 dst_ptr,
    gboolean * from_device, gchar ** err)
{
  GstDoradmaCudaSource src;
  GstVideoFrame vf;
  gboolean ok;

  if (!gst_doradma_cuda_source_open (info, buf, &src, from_device, err))
    return FALSE;
  if (*from_device) {
    ok = gst_doradma_cuda_copy_frame (copier, info, &src.frame, dst_ptr,
        GST_DORADMA_CUDA_MEM_DEVICE, err);
    gst_doradma_cuda_source_close (&src);
    return ok;
  }
  if (!gst_video_frame_map (&vf, info, buf, GST_MAP_READ)) {
    set_reason (err, g_strdup ("the buffer does not match the caps"));
    return FALSE;
  }
  gst_doradma_cuda_frame_of_video_frame (&src.frame,
      GST_DORADMA_CUDA_MEM_HOST, &vf);
  ok = gst_doradma_cuda_copy_frame (copier, info, &src.frame, dst_ptr,
      GST_DORADMA_CUDA_MEM_DEVICE, err);
  gst_video_frame_unmap (&vf);
  return ok;
}
