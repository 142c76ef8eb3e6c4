/* doradma GStreamer plugin — the slab allocator's NIC side: registration
 * of slabs with a NIC (GPUDirect RDMA over dma-buf or nvidia-peermem, or
 * pinned host memory) and the RDMA constructor's fallback chain GPUDirect
 * -> pinned -> managed, and the public report of the GPUDirect probe
 * (gst_doradma_gpudirect_probe*). The probe itself is
 * gstdoradmagpudirect.c (which includes no allocator header: the
 * allocator depends on it, not the reverse); the allocator itself
 * gstdoradmaallocator.c.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>

#include "gstdoradmaallocatorprivate.h"

#define GST_CAT_DEFAULT gst_doradma_allocator_debug

/* ------------------------------------------------------------------------ */
/* NIC registration */

static const gchar *const rdma_mode_names[] = {
  "none", "gpudirect-dmabuf", "gpudirect-peermem", "pinned-mr"
};

const gchar *
gst_doradma_rdma_mode_name (GstDoradmaRdmaMode mode)
{
  return rdma_mode_names[mode];
}

void
gst_doradma_slab_entry_dereg (GstDoradmaSlabAllocator * self,
    GstDoradmaSlabEntry * e)
{
#ifdef HAVE_IBVERBS
  if (e->mr) {
    gst_doradma_mr_dereg (e->mr);
    e->mr = NULL;
    __atomic_add_fetch (&self->mr_deregs, 1, __ATOMIC_RELAXED);
  }
#endif
}

gboolean
gst_doradma_slab_entry_register (GstDoradmaSlabAllocator * self,
    GstDoradmaSlabEntry * e, GString * why)
{
#ifdef HAVE_IBVERBS
  const struct doradma_cuda_slab_info *i = e->info;
  struct doradma_diag diag = { 0 };
  uint64_t sz = 0;
  int fd = -1, ret;

  switch (self->rdma) {
    case GST_DORADMA_RDMA_NONE:
      return TRUE;
    case GST_DORADMA_RDMA_GPUDIRECT_DMABUF:
      ret = doradma_cuda_slab_export_dmabuf (e->slab, &fd, &sz, &diag);
      if (ret < 0) {
        g_string_append_printf (why, "dma-buf export: %s", diag.msg);
        return FALSE;
      }
      /* iova = the device pointer: peers address slabs by CUdeviceptr. */
      e->mr = gst_doradma_mr_reg_dmabuf (self->pd, fd, sz, i->device, why);
      close (fd);               /* the MR holds its own dma-buf reference */
      break;
    case GST_DORADMA_RDMA_GPUDIRECT_PEERMEM:
      e->mr = gst_doradma_mr_reg (self->pd, (gpointer) (guintptr) i->device,
          i->capacity, why);
      break;
    case GST_DORADMA_RDMA_PINNED_MR:
      e->mr = gst_doradma_mr_reg (self->pd, i->host, i->capacity, why);
      break;
  }
  if (e->mr == NULL)
    return FALSE;
  __atomic_add_fetch (&self->mr_regs, 1, __ATOMIC_RELAXED);
  return TRUE;
#else
  return self->rdma == GST_DORADMA_RDMA_NONE;
#endif
}

/* ------------------------------------------------------------------------ */
/* RDMA constructor: GPUDirect -> pinned -> managed */

#ifdef HAVE_IBVERBS
/* Creates an allocator of `kind` registering with `mode`; NULL with the
 * reason appended to `why`. */
static GstDoradmaSlabAllocator *
try_rdma_step (GstDoradmaSlabKind kind, GstDoradmaRdmaMode mode, gpointer pd,
    guint64 budget, GString * why)
{
  GstDoradmaSlabAllocator *self =
      gst_doradma_slab_allocator_new_lazy (kind, budget);
  GError *err = NULL;
  GstMemory *mem;

  if (!gst_doradma_slab_allocator_ensure_pool (self, &err)) {
    g_string_append (why, err->message);
    goto fail;
  }
  self->rdma = mode;
  self->pd = pd;
  if (pd == NULL) {
    self->pd = gst_doradma_verbs_open_pd (&self->pd_ctx, why);
    if (self->pd == NULL)
      goto fail;
  }
  /* One registration now, so a refusal shows here and not per frame; the
   * slab stays cached with its MR. */
  mem =
      gst_doradma_slab_allocator_alloc_full (self, DORADMA_CUDA_SLAB_MIN_CLASS,
      NULL, &err);
  if (mem == NULL) {
    g_string_append (why, err->message);
    goto fail;
  }
  gst_memory_unref (mem);
  return self;

fail:
  g_clear_error (&err);
  gst_object_unref (self);
  return NULL;
}
#endif

GstAllocator *
gst_doradma_slab_allocator_new_rdma (gpointer pd, guint64 budget,
    gboolean allow_fallback, GError ** error)
{
  GstDoradmaSlabAllocator *self = NULL;
  GString *steps = g_string_new (NULL);
  gchar *m;
  guint64 b;
  GstDoradmaGpudirectProbe p;

  gst_doradma_lib_debug_init ();
  if (!gst_doradma_slab_resolve_budget (budget, &b, error))
    goto out;
  gst_doradma_gpudirect_run_probe (0, &p);

  /* 1. GPUDirect RDMA: device slabs, NIC reads/writes GPU memory. */
  if (gst_doradma_gpudirect_usable (&p)) {
#ifdef HAVE_IBVERBS
    GString *why = g_string_new (NULL);
    GstDoradmaRdmaMode mode = (p.ok[GST_DORADMA_PROBE_DMABUF_MR]
        && p.ok[GST_DORADMA_PROBE_CUDA_DMABUF]) ?
        GST_DORADMA_RDMA_GPUDIRECT_DMABUF : GST_DORADMA_RDMA_GPUDIRECT_PEERMEM;

    self = try_rdma_step (GST_DORADMA_SLAB_KIND_DEVICE, mode, pd, b, why);
    g_string_append_printf (steps, "%s: %s\n",
        gst_doradma_rdma_mode_name (mode), self ? "ok" : why->str);
    g_string_free (why, TRUE);
#endif
  } else {
    m = gst_doradma_gpudirect_missing (&p, FALSE);
    g_string_append_printf (steps, "gpudirect: unavailable, missing %s\n", m);
    g_free (m);
  }
  if (self == NULL)
    GST_WARNING ("%s", steps->str);
  if (self == NULL && !allow_fallback) {
    g_set_error (error, GST_DORADMA_SLAB_ERROR,
        GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE, "GPUDirect RDMA "
        "unavailable and fallback not allowed: %s", steps->str);
    goto out;
  }

  /* 2. Pinned host slabs registered with ibv_reg_mr: NIC <-> host DRAM,
   * the GPU reads them through the mapped alias. */
  if (self == NULL) {
    m = gst_doradma_gpudirect_missing (&p, TRUE);
    if (m[0] != '\0') {
      g_string_append_printf (steps, "pinned-mr: unavailable, missing %s\n", m);
    } else {
#ifdef HAVE_IBVERBS
      GString *why = g_string_new (NULL);

      self =
          try_rdma_step (GST_DORADMA_SLAB_KIND_PINNED,
          GST_DORADMA_RDMA_PINNED_MR, pd, b, why);
      g_string_append_printf (steps, "pinned-mr: %s\n", self ? "ok" : why->str);
      g_string_free (why, TRUE);
#endif
    }
    g_free (m);
    if (self == NULL)
      GST_WARNING ("%s", steps->str);
  }

  /* 3. Managed slabs, not registered: the application receives into its
   * own host buffers and copies (managed memory is no RDMA target). */
  if (self == NULL) {
    GError *err = NULL;

    self = (GstDoradmaSlabAllocator *)
        gst_doradma_slab_allocator_new (GST_DORADMA_SLAB_KIND_MANAGED, b, &err);
    g_string_append_printf (steps, "managed: %s\n", self ? "ok, slabs are "
        "not registered with a NIC (no lkey/rkey)" : err->message);
    if (self == NULL) {
      g_set_error (error, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE, "no RDMA-capable slab "
          "allocator: every step of the fallback chain failed:\n%s",
          steps->str);
      g_error_free (err);
      goto out;
    }
  }
  if (steps->len && steps->str[steps->len - 1] == '\n')
    g_string_truncate (steps, steps->len - 1);
  self->fallback = g_strdup (steps->str);
  GST_INFO_OBJECT (self, "RDMA mode %s; chain:\n%s",
      gst_doradma_rdma_mode_name (self->rdma), self->fallback);

out:
  g_string_free (steps, TRUE);
  return GST_ALLOCATOR_CAST (self);
}

/* ------------------------------------------------------------------------ */
/* Memory accessor */

gboolean
gst_doradma_slab_memory_get_rdma_keys (GstMemory * mem, guint32 * lkey,
    guint32 * rkey, guint64 * addr)
{
  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), FALSE);
#ifdef HAVE_IBVERBS
  {
    GstDoradmaMr *mr = ((GstDoradmaSlabMemory *) mem)->e->mr;

    if (mr == NULL)
      return FALSE;
    if (lkey)
      *lkey = gst_doradma_mr_lkey (mr);
    if (rkey)
      *rkey = gst_doradma_mr_rkey (mr);
    if (addr)
      *addr = gst_doradma_mr_iova (mr) + mem->offset;
    return TRUE;
  }
#else
  return FALSE;
#endif
}

/* ------------------------------------------------------------------------ */
/* the probe, as the public API reports it */

static GstStructure *
probe_structure (const GstDoradmaGpudirectProbe * p, gboolean ok)
{
  GstStructure *s = gst_structure_new_empty ("doradma-gpudirect-probe");
  int i;

  for (i = 0; i < GST_DORADMA_PROBE_N; i++) {
    const gchar *name = gst_doradma_gpudirect_item_name (i);
    gchar *k = g_strconcat (name, "-detail", NULL);

    gst_structure_set (s, name, G_TYPE_BOOLEAN, p->ok[i],
        k, G_TYPE_STRING, p->detail[i], NULL);
    g_free (k);
  }
  gst_structure_set (s, "usable", G_TYPE_BOOLEAN, ok, NULL);
  return s;
}

GstStructure *
gst_doradma_gpudirect_probe_report (gint cuda_device)
{
  GstDoradmaGpudirectProbe p;

  gst_doradma_gpudirect_run_probe (cuda_device, &p);
  return probe_structure (&p, gst_doradma_gpudirect_usable (&p));
}

gboolean
gst_doradma_gpudirect_probe (gint cuda_device, GstStructure ** report,
    GError ** error)
{
  GstDoradmaGpudirectProbe p;
  gboolean ok;

  gst_doradma_gpudirect_run_probe (cuda_device, &p);
  ok = gst_doradma_gpudirect_usable (&p);
  if (report)
    *report = probe_structure (&p, ok);
  if (!ok) {
    gchar *m = gst_doradma_gpudirect_missing (&p, FALSE);

    g_set_error (error, GST_DORADMA_SLAB_ERROR,
        GST_DORADMA_SLAB_ERROR_RDMA_UNAVAILABLE,
        "GPUDirect RDMA unavailable; missing: %s. It needs libibverbs, "
        "ibverbs-device, active-port and cuda, plus either dmabuf-mr with "
        "cuda-dma-buf, or nvidia-peermem for the legacy path", m);
    g_free (m);
  }
  return ok;
}
