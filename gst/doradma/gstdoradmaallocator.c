/* doradma GStreamer plugin — DoradmaSlabAllocator, the CUDA slab GstAllocator.
 *
 * The slabs, their size classes, free lists and byte budget live in cuda/'s
 * GStreamer-free slab pool (cuda/slab.c); this file wraps them as GstMemory
 * and reports errors as GError. NIC registration and the RDMA constructor
 * are gstdoradmaallocatorrdma.c (the probe of what the machine offers,
 * gstdoradmagpudirect.c).
 *
 * Recycling. The unixfd allocator's model (dispose resurrects the GstMemory
 * onto a free list) does not fit here. A resurrected memory would keep its reference
 * on the allocator, so an allocator could never finalize while anything is
 * cached. Here a GstMemory is a small wrapper created per allocation; its
 * mem_free returns the *slab*: to the pool's free list, or (RDMA mode) to
 * this allocator's own per-class list, where the slab keeps its memory
 * region. The pool cannot tell us when it evicts a cached slab, so a
 * registered slab never goes back to the pool with its MR alive: the MR
 * would pin freed pages and a new slab at the same address would find a
 * stale MR. Every memory holds a reference on its allocator, so finalize
 * runs after the last slab came back (also when the application dropped its
 * reference, or gst_deinit unregistered the allocator, long before) and
 * frees everything: cached slabs, MRs, the pool, the protection domain.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gstdoradmaallocatorprivate.h"

/* also gstdoradmaallocatorrdma.c's */
#define GST_CAT_DEFAULT gst_doradma_allocator_debug

struct _GstDoradmaSlabAllocatorClass
{
  GstAllocatorClass parent_class;
};

G_DEFINE_TYPE (GstDoradmaSlabAllocator, gst_doradma_slab_allocator,
    GST_TYPE_ALLOCATOR);

/* Spelt out, not G_DEFINE_QUARK: the indenter puts spaces around its '-'
 * and the stringised domain (ABI: bindings match errors by it) had them. */
GQuark
gst_doradma_slab_error_quark (void)
{
  static gsize q;

  if (g_once_init_enter (&q))
    g_once_init_leave (&q,
        g_quark_from_static_string ("gst-doradma-slab-error-quark"));
  return (GQuark) q;
}

/* *INDENT-OFF* */
static const GEnumValue slab_kind_values[] = {
  {GST_DORADMA_SLAB_KIND_MANAGED, "CUDA managed memory (UMA)", "managed"},
  {GST_DORADMA_SLAB_KIND_PINNED, "Pinned, mapped host memory", "pinned"},
  {GST_DORADMA_SLAB_KIND_DEVICE, "Device memory (cuMemCreate)", "device"},
  {0, NULL, NULL}
};
/* *INDENT-ON* */

GType
gst_doradma_slab_kind_get_type (void)
{
  static gsize id = 0;

  if (g_once_init_enter (&id)) {
    GType t = g_enum_register_static ("GstDoradmaSlabKind", slab_kind_values);

    g_once_init_leave (&id, t);
  }
  return (GType) id;
}

/* ------------------------------------------------------------------------ */
/* Errors */

/* Maps a cuda/ (-errno, diag) pair onto a GError. */
static void
set_cuda_error (GError ** error, int ret, const struct doradma_diag *diag,
    const char *what)
{
  gint code;
  const char *prefix = "";

  switch (ret) {
    case -ENOSYS:
    case -ENOENT:
    case -ENODEV:
      code = GST_DORADMA_SLAB_ERROR_NO_CUDA;
      prefix = "CUDA unavailable: ";
      break;
    case -ENOTSUP:
      code = GST_DORADMA_SLAB_ERROR_UNSUPPORTED;
      break;
    case -ENOMEM:
      code = GST_DORADMA_SLAB_ERROR_NO_MEMORY;
      break;
    case -EINVAL:
      code = diag->field && !strcmp (diag->field, GST_DORADMA_SLAB_BUDGET_ENV)
          ? GST_DORADMA_SLAB_ERROR_BUDGET : GST_DORADMA_SLAB_ERROR_FAILED;
      break;
    default:
      code = GST_DORADMA_SLAB_ERROR_FAILED;
      break;
  }
  g_set_error (error, GST_DORADMA_SLAB_ERROR, code, "%s%s: %s (%s)", prefix,
      what, diag->msg[0] ? diag->msg : "failed", g_strerror (-ret));
}

/* ------------------------------------------------------------------------ */
/* Pool setup */

static gsize
round_up (gsize v, gsize g)
{
  return (v + g - 1) & ~(g - 1);
}

static int
class_for (gsize size)
{
  int i;

  for (i = 0; i < N_CLASSES; i++)
    if (doradma_cuda_slab_class_size (i) >= size)
      return i;
  return -1;
}

/* The size class the pool will give a request of `size` bytes (it rounds
 * the class to its granularity and keys free lists by the result), or -1
 * for an unpooled slab. Mirrors doradma_cuda_slab_alloc. */
static int
expected_class (GstDoradmaSlabAllocator * self, gsize size)
{
  int c = class_for (size);
  gsize cap;

  if (c < 0)
    return -1;
  cap = round_up (doradma_cuda_slab_class_size (c), self->gran);
  c = class_for (cap);
  return (c >= 0 && doradma_cuda_slab_class_size (c) == cap) ? c : -1;
}

/* Resolves the budget (argument, else variable, else default): a malformed
 * variable is an error even where CUDA is absent. */
gboolean
gst_doradma_slab_resolve_budget (guint64 arg, guint64 * out, GError ** error)
{
  struct doradma_diag diag = { 0 };
  uint64_t b = 0;
  int ret;

  if (arg != 0) {
    *out = arg;
    return TRUE;
  }
  ret = doradma_cuda_slab_budget_from_env (&b, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "slab allocator budget");
    return FALSE;
  }
  *out = b ? b : DORADMA_CUDA_SLAB_DEFAULT_BUDGET;
  return TRUE;
}

/* Opens device 0 and creates the pool. Lock held (or object private). */
gboolean
gst_doradma_slab_allocator_ensure_pool (GstDoradmaSlabAllocator * self,
    GError ** error)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_slab *probe = NULL;
  guint64 budget;
  int ret;

  if (self->pool != NULL)
    return TRUE;
  if (!gst_doradma_slab_resolve_budget (self->budget_arg, &budget, error))
    return FALSE;
  if (self->dev == NULL) {
    ret = doradma_cuda_device_open (0, &self->dev, &diag);
    if (ret < 0) {
      set_cuda_error (error, ret, &diag, "slab allocator: CUDA device 0");
      return FALSE;
    }
  }
  self->concurrent_managed =
      doradma_cuda_device_get_info (self->dev)->concurrent_managed_access;
  ret = doradma_cuda_slab_pool_new (self->dev,
      (enum doradma_cuda_slab_kind) self->kind, budget, &self->pool, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "slab allocator: pool");
    return FALSE;
  }
  /* Learn the pool's granularity from the capacity it gives the smallest
   * class: above 64 KiB that is the granularity (VMM: 2 MiB on H200),
   * otherwise the page size rounds nothing. The slab stays cached. */
  self->gran = (gsize) sysconf (_SC_PAGESIZE);
  if (doradma_cuda_slab_alloc (self->pool, DORADMA_CUDA_SLAB_MIN_CLASS,
          &probe, NULL) == 0) {
    gsize cap = doradma_cuda_slab_get_info (probe)->capacity;

    if (cap > DORADMA_CUDA_SLAB_MIN_CLASS)
      self->gran = cap;
    doradma_cuda_slab_free (probe);
  }
  GST_INFO_OBJECT (self, "%s slab pool on %s, budget %" G_GUINT64_FORMAT
      " bytes, granularity %" G_GSIZE_FORMAT ", concurrentManagedAccess %d",
      doradma_cuda_slab_kind_name ((enum doradma_cuda_slab_kind) self->kind),
      doradma_cuda_device_get_info (self->dev)->name, budget, self->gran,
      self->concurrent_managed);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Managed memory and streams (Jetson rules) */

#ifdef DORADMA_HAVE_CUDA
static gboolean
attach_locked_entry (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e,
    gpointer stream, GError ** error)
{
  struct doradma_diag diag = { 0 };
  int ret;

  if (e->info->kind != DORADMA_CUDA_SLAB_MANAGED)
    return TRUE;
  /* Length 0 = the whole allocation; SINGLE needs a real stream. HOST on
   * the NULL stream, then wait, so the CPU may touch it on return. */
  ret = doradma_cuda_stream_attach_managed (self->dev, stream,
      e->info->device, 0, stream ? DORADMA_CUDA_ATTACH_SINGLE :
      DORADMA_CUDA_ATTACH_HOST, &diag);
  if (ret == 0 && stream == NULL)
    ret = doradma_cuda_stream_synchronize (self->dev, NULL, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "attach");
    return FALSE;
  }
  e->stream = stream;
  return TRUE;
}

/* Before the CPU touches a managed slab attached to a stream on a device
 * without concurrent managed access: the stream's work must be done. */
static void
sync_for_cpu (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e)
{
  if (e->stream == NULL || self->concurrent_managed)
    return;
  doradma_cuda_stream_synchronize (self->dev, e->stream, NULL);
}
#else
static gboolean
attach_locked_entry (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e,
    gpointer stream, GError ** error)
{
  return TRUE;
}

static void
sync_for_cpu (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e)
{
}
#endif

/* ------------------------------------------------------------------------ */
/* Slabs in and out */

static void
entry_release (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e)
{
  gst_doradma_slab_entry_dereg (self, e);
  doradma_cuda_slab_free (e->slab);
  g_free (e);
}

/* Frees every cached registered slab (to the pool's free list, which evicts
 * them as needed). Returns how many. */
static guint
drain_cache (GstDoradmaSlabAllocator * self)
{
  GstDoradmaSlabEntry *all = NULL, *e;
  guint n = 0;
  int c;

  g_mutex_lock (&self->lock);
  for (c = 0; c < N_CLASSES; c++) {
    while ((e = self->cache[c]) != NULL) {
      self->cache[c] = e->next;
      e->next = all;
      all = e;
    }
  }
  g_mutex_unlock (&self->lock);
  while ((e = all) != NULL) {
    all = e->next;
    entry_release (self, e);
    n++;
  }
  return n;
}

static GstDoradmaSlabEntry *
entry_new (GstDoradmaSlabAllocator * self, gsize size, GError ** error)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_slab *slab = NULL;
  GstDoradmaSlabEntry *e;
  GString *why;
  int ret, c;

  if (self->rdma != GST_DORADMA_RDMA_NONE
      && (c = expected_class (self, size)) >= 0) {
    g_mutex_lock (&self->lock);
    e = self->cache[c];
    if (e != NULL) {
      self->cache[c] = e->next;
      e->next = NULL;
      self->mr_hits++;
    }
    g_mutex_unlock (&self->lock);
    if (e != NULL)
      return e;
  }

  ret = doradma_cuda_slab_alloc (self->pool, size, &slab, &diag);
  /* Registered slabs cached here count as in use for the pool: give them
   * back so it can evict them, and try once more. */
  if (ret == -ENOMEM && self->rdma != GST_DORADMA_RDMA_NONE && diag.field
      && !strcmp (diag.field, GST_DORADMA_SLAB_BUDGET_ENV)
      && drain_cache (self) > 0)
    ret = doradma_cuda_slab_alloc (self->pool, size, &slab, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "slab allocation");
    return NULL;
  }
  e = g_new0 (GstDoradmaSlabEntry, 1);
  e->slab = slab;
  e->info = doradma_cuda_slab_get_info (slab);
  if (self->rdma != GST_DORADMA_RDMA_NONE) {
    why = g_string_new (NULL);
    if (!gst_doradma_slab_entry_register (self, e, why)) {
      g_set_error (error, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_FAILED, "NIC registration of a %s slab of "
          "%" G_GSIZE_FORMAT " bytes failed (%s): %s",
          doradma_cuda_slab_kind_name (e->info->kind), e->info->capacity,
          gst_doradma_rdma_mode_name (self->rdma), why->str);
      g_string_free (why, TRUE);
      entry_release (self, e);
      return NULL;
    }
    g_string_free (why, TRUE);
  }
  return e;
}

static void
entry_return (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e)
{
  /* A managed slab goes back attached to the host (as the pool made it). */
  if (e->stream != NULL)
    attach_locked_entry (self, e, NULL, NULL);
  if (self->rdma != GST_DORADMA_RDMA_NONE && e->info->size_class >= 0) {
    g_mutex_lock (&self->lock);
    e->next = self->cache[e->info->size_class];
    self->cache[e->info->size_class] = e;
    g_mutex_unlock (&self->lock);
    return;
  }
  entry_release (self, e);
}

/* ------------------------------------------------------------------------ */
/* GstAllocator / GstMemory vfuncs */

static GstMemory *
wrap_entry (GstDoradmaSlabAllocator * self, GstDoradmaSlabEntry * e,
    GstMemory * parent, GstMemoryFlags flags, gsize maxsize, gsize align,
    gsize offset, gsize size)
{
  GstDoradmaSlabMemory *m = g_new0 (GstDoradmaSlabMemory, 1);

  if (e->info->kind == DORADMA_CUDA_SLAB_DEVICE)
    flags |= GST_MEMORY_FLAG_NOT_MAPPABLE;
  gst_memory_init (GST_MEMORY_CAST (m), flags, GST_ALLOCATOR_CAST (self),
      parent, maxsize, align, offset, size);
  m->e = e;
  return GST_MEMORY_CAST (m);
}

GstMemory *
gst_doradma_slab_allocator_alloc_full (GstDoradmaSlabAllocator * self,
    gsize size, GstAllocationParams * params, GError ** error)
{
  GstAllocationParams dflt;
  GstDoradmaSlabEntry *e;
  gsize total;
  gboolean ok;

  if (params == NULL) {
    gst_allocation_params_init (&dflt);
    params = &dflt;
  }
  if (size == 0) {
    g_set_error (error, GST_DORADMA_SLAB_ERROR, GST_DORADMA_SLAB_ERROR_FAILED,
        "slab allocation of 0 bytes");
    return NULL;
  }
  /* Slabs are page aligned; larger alignments are not offered. */
  if (params->align >= (gsize) sysconf (_SC_PAGESIZE))
    GST_WARNING_OBJECT (self, "alignment %" G_GSIZE_FORMAT " not honoured "
        "beyond the page size", params->align + 1);
  total = size + params->prefix + params->padding;
  g_mutex_lock (&self->lock);
  ok = gst_doradma_slab_allocator_ensure_pool (self, error);
  g_mutex_unlock (&self->lock);
  if (!ok)
    return NULL;
  e = entry_new (self, total, error);
  if (e == NULL)
    return NULL;
  GST_LOG_OBJECT (self, "slab %p: %" G_GSIZE_FORMAT " bytes, capacity %"
      G_GSIZE_FORMAT ", class %d", e->slab, size, e->info->capacity,
      e->info->size_class);
  return wrap_entry (self, e, NULL, params->flags, e->info->capacity,
      params->align, params->prefix, size);
}

static GstMemory *
slab_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  GstDoradmaSlabAllocator *self = (GstDoradmaSlabAllocator *) allocator;
  GError *err = NULL;
  GstMemory *mem =
      gst_doradma_slab_allocator_alloc_full (self, size, params, &err);

  if (mem == NULL) {
    GST_ERROR_OBJECT (self, "%s", err->message);
    g_error_free (err);
  }
  return mem;
}

static void
slab_free (GstAllocator * allocator, GstMemory * mem)
{
  GstDoradmaSlabAllocator *self = (GstDoradmaSlabAllocator *) allocator;
  GstDoradmaSlabMemory *m = (GstDoradmaSlabMemory *) mem;

  /* Sub-memories share the root's slab; the root holds it. */
  if (mem->parent == NULL)
    entry_return (self, m->e);
  g_free (m);
}

static gpointer
slab_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  GstDoradmaSlabMemory *m = (GstDoradmaSlabMemory *) mem;

  if (m->e->info->host == NULL)
    return NULL;
  sync_for_cpu ((GstDoradmaSlabAllocator *) mem->allocator, m->e);
  return m->e->info->host;
}

static void
slab_unmap (GstMemory * mem)
{
}

static GstMemory *
slab_share (GstMemory * mem, gssize offset, gssize size)
{
  GstDoradmaSlabMemory *m = (GstDoradmaSlabMemory *) mem;
  GstMemory *parent = mem->parent ? mem->parent : mem;

  if (size == -1)
    size = mem->size - offset;
  return wrap_entry ((GstDoradmaSlabAllocator *) mem->allocator, m->e, parent,
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      mem->maxsize, mem->align, mem->offset + offset, size);
}

static gboolean
slab_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  GstDoradmaSlabMemory *a = (GstDoradmaSlabMemory *) mem1;
  GstDoradmaSlabMemory *b = (GstDoradmaSlabMemory *) mem2;

  if (a->e != b->e || mem1->offset + mem1->size != mem2->offset)
    return FALSE;
  if (offset)
    *offset = mem1->offset - (mem1->parent ? mem1->parent->offset : 0);
  return TRUE;
}

static void
gst_doradma_slab_allocator_finalize (GObject * object)
{
  GstDoradmaSlabAllocator *self = (GstDoradmaSlabAllocator *) object;

  drain_cache (self);
  if (self->pool)
    doradma_cuda_slab_pool_destroy (self->pool);
#ifdef HAVE_IBVERBS
  if (self->pd_ctx)
    gst_doradma_verbs_close_pd (self->pd, self->pd_ctx);
#endif
  if (self->dev)
    doradma_cuda_device_unref (self->dev);
  g_free (self->fallback);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_doradma_slab_allocator_parent_class)->finalize (object);
}

static void
gst_doradma_slab_allocator_class_init (GstDoradmaSlabAllocatorClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *alloc_class = GST_ALLOCATOR_CLASS (klass);

  gst_doradma_lib_debug_init ();
  gobject_class->finalize = gst_doradma_slab_allocator_finalize;
  alloc_class->alloc = GST_DEBUG_FUNCPTR (slab_alloc);
  alloc_class->free = GST_DEBUG_FUNCPTR (slab_free);
}

static void
gst_doradma_slab_allocator_init (GstDoradmaSlabAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  g_mutex_init (&self->lock);
  self->gran = (gsize) sysconf (_SC_PAGESIZE);
  alloc->mem_type = GST_DORADMA_SLAB_MEMORY_TYPE;
  alloc->mem_map = slab_map;
  alloc->mem_unmap = slab_unmap;
  alloc->mem_share = slab_share;
  alloc->mem_is_span = slab_is_span;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* ------------------------------------------------------------------------ */
/* Constructors */

GstDoradmaSlabAllocator *
gst_doradma_slab_allocator_new_lazy (GstDoradmaSlabKind kind, guint64 budget)
{
  GstDoradmaSlabAllocator *self;

  self = g_object_new (GST_TYPE_DORADMA_SLAB_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->kind = kind;
  self->budget_arg = budget;
  return self;
}

GstAllocator *
gst_doradma_slab_allocator_new (GstDoradmaSlabKind kind, guint64 budget,
    GError ** error)
{
  GstDoradmaSlabAllocator *self;
  guint64 b;

  g_return_val_if_fail (kind <= GST_DORADMA_SLAB_KIND_DEVICE, NULL);
  if (!gst_doradma_slab_resolve_budget (budget, &b, error))
    return NULL;
  self = gst_doradma_slab_allocator_new_lazy (kind, b);
  if (!gst_doradma_slab_allocator_ensure_pool (self, error)) {
    gst_object_unref (self);
    return NULL;
  }
  return GST_ALLOCATOR_CAST (self);
}

void
gst_doradma_slab_allocator_register_all (void)
{
  static const struct
  {
    const char *name;
    GstDoradmaSlabKind kind;
  } regs[] = {
    {GST_DORADMA_SLAB_ALLOCATOR_MANAGED, GST_DORADMA_SLAB_KIND_MANAGED},
    {GST_DORADMA_SLAB_ALLOCATOR_PINNED, GST_DORADMA_SLAB_KIND_PINNED},
    {GST_DORADMA_SLAB_ALLOCATOR_DEVICE, GST_DORADMA_SLAB_KIND_DEVICE},
  };
  guint i;

  gst_doradma_lib_debug_init ();
  for (i = 0; i < G_N_ELEMENTS (regs); i++) {
    GstAllocator *a = gst_allocator_find (regs[i].name);

    /* The plugin may be loaded again (registry rescans): keep the first. */
    if (a != NULL) {
      gst_object_unref (a);
      continue;
    }
    gst_allocator_register (regs[i].name,
        GST_ALLOCATOR_CAST (gst_doradma_slab_allocator_new_lazy (regs[i].kind,
                0)));
  }
}

GstMemory *
gst_doradma_slab_allocator_alloc (GstAllocator * allocator, gsize size,
    GError ** error)
{
  g_return_val_if_fail (GST_IS_DORADMA_SLAB_ALLOCATOR (allocator), NULL);
  return gst_doradma_slab_allocator_alloc_full ((GstDoradmaSlabAllocator *)
      allocator, size, NULL, error);
}

/* ------------------------------------------------------------------------ */
/* Stats */

GstStructure *
gst_doradma_slab_allocator_get_stats (GstAllocator * allocator)
{
  GstDoradmaSlabAllocator *self = (GstDoradmaSlabAllocator *) allocator;
  struct doradma_cuda_slab_stats st = { 0 };

  g_return_val_if_fail (GST_IS_DORADMA_SLAB_ALLOCATOR (allocator), NULL);
  g_mutex_lock (&self->lock);
  if (self->pool)
    doradma_cuda_slab_pool_get_stats (self->pool, &st);
  g_mutex_unlock (&self->lock);
  return gst_structure_new ("doradma-slab-stats",
      "kind", G_TYPE_STRING,
      doradma_cuda_slab_kind_name ((enum doradma_cuda_slab_kind) self->kind),
      "budget", G_TYPE_UINT64, (guint64) st.budget,
      "bytes-in-use", G_TYPE_UINT64, (guint64) st.bytes_in_use,
      "bytes-cached", G_TYPE_UINT64, (guint64) st.bytes_cached,
      "allocs", G_TYPE_UINT64, (guint64) st.allocs,
      "hits", G_TYPE_UINT64, (guint64) st.hits,
      "misses", G_TYPE_UINT64, (guint64) st.misses,
      "unpooled", G_TYPE_UINT64, (guint64) st.unpooled,
      "evictions", G_TYPE_UINT64, (guint64) st.evictions,
      "refusals", G_TYPE_UINT64, (guint64) st.refusals,
      "live-slabs", G_TYPE_UINT64, (guint64) doradma_cuda_slab_live_count (),
      "rdma-mode", G_TYPE_STRING, gst_doradma_rdma_mode_name (self->rdma),
      "rdma-fallback", G_TYPE_STRING, self->fallback ? self->fallback : "",
      "mr-registrations", G_TYPE_UINT64,
      __atomic_load_n (&self->mr_regs, __ATOMIC_RELAXED),
      "mr-hits", G_TYPE_UINT64, __atomic_load_n (&self->mr_hits,
          __ATOMIC_RELAXED), "mr-deregistrations", G_TYPE_UINT64,
      __atomic_load_n (&self->mr_deregs, __ATOMIC_RELAXED), NULL);
}

GstMemory *
gst_doradma_slab_alloc (GstAllocator * allocator, gsize size, GError ** error)
{
  return gst_doradma_slab_allocator_alloc (allocator, size, error);
}

GstStructure *
gst_doradma_slab_get_stats (GstAllocator * allocator)
{
  return gst_doradma_slab_allocator_get_stats (allocator);
}

/* ------------------------------------------------------------------------ */
/* Memory accessors */

gboolean
gst_is_doradma_slab_memory (GstMemory * mem)
{
  return mem != NULL && mem->allocator != NULL
      && GST_IS_DORADMA_SLAB_ALLOCATOR (mem->allocator);
}

GstDoradmaSlabKind
gst_doradma_slab_memory_get_kind (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), 0);
  return (GstDoradmaSlabKind) ((GstDoradmaSlabMemory *) mem)->e->info->kind;
}

gpointer
gst_doradma_slab_memory_get_host_pointer (GstMemory * mem)
{
  const struct doradma_cuda_slab_info *i;

  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), NULL);
  i = ((GstDoradmaSlabMemory *) mem)->e->info;
  return i->host ? (guint8 *) i->host + mem->offset : NULL;
}

guint64
gst_doradma_slab_memory_get_device_pointer (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), 0);
  return ((GstDoradmaSlabMemory *) mem)->e->info->device + mem->offset;
}

gint
gst_doradma_slab_memory_export_dmabuf (GstMemory * mem, guint64 * size,
    GError ** error)
{
  struct doradma_diag diag = { 0 };
  uint64_t sz = 0;
  int fd = -1, ret;

  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), -1);
  ret =
      doradma_cuda_slab_export_dmabuf (((GstDoradmaSlabMemory *) mem)->e->slab,
      &fd, &sz, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "dma-buf export");
    return -1;
  }
  if (size)
    *size = sz;
  return fd;
}

/* The memory functions that report through a GError (the ones bindings
 * call with an application's object) name a wrong memory there instead of
 * a g_return_if_fail warning and a bare FALSE. */
static gboolean
check_slab_memory (GstMemory * mem, const gchar * what, GError ** error)
{
  const gchar *type = "NULL";

  if (gst_is_doradma_slab_memory (mem))
    return TRUE;
  if (mem && mem->allocator && mem->allocator->mem_type)
    type = mem->allocator->mem_type;
  g_set_error (error, GST_DORADMA_SLAB_ERROR,
      GST_DORADMA_SLAB_ERROR_UNSUPPORTED, "%s: not doradma slab memory "
      "(memory type %s)", what, type);
  return FALSE;
}

gboolean
gst_doradma_slab_memory_upload (GstMemory * mem, gsize offset,
    gconstpointer src, gsize size, GError ** error)
{
  GstDoradmaSlabAllocator *self;
  GstDoradmaSlabEntry *e;

  if (!check_slab_memory (mem, "slab_memory_upload", error))
    return FALSE;
  self = (GstDoradmaSlabAllocator *) mem->allocator;
  e = ((GstDoradmaSlabMemory *) mem)->e;
  if (offset > mem->size || size > mem->size - offset) {
    g_set_error (error, GST_DORADMA_SLAB_ERROR, GST_DORADMA_SLAB_ERROR_FAILED,
        "upload of %" G_GSIZE_FORMAT " bytes at %" G_GSIZE_FORMAT " exceeds "
        "the memory's %" G_GSIZE_FORMAT " bytes", size, offset, mem->size);
    return FALSE;
  }
  if (e->info->host != NULL) {
    sync_for_cpu (self, e);
    memcpy ((guint8 *) e->info->host + mem->offset + offset, src, size);
    return TRUE;
  }
#ifdef DORADMA_HAVE_CUDA
  {
    struct doradma_diag diag = { 0 };
    int ret = doradma_cuda_copy_htod (self->dev,
        e->info->device + mem->offset + offset, src, size, &diag);

    /* the message names cuMemcpyHtoD and the byte count */
    if (ret < 0) {
      set_cuda_error (error, ret, &diag, "upload");
      return FALSE;
    }
    return TRUE;
  }
#else
  g_set_error (error, GST_DORADMA_SLAB_ERROR, GST_DORADMA_SLAB_ERROR_NO_CUDA,
      "built without CUDA support");
  return FALSE;
#endif
}

gboolean
gst_doradma_slab_memory_attach_stream (GstMemory * mem, gpointer stream,
    GError ** error)
{
  if (!check_slab_memory (mem, "slab_memory_attach_stream", error))
    return FALSE;
  return attach_locked_entry ((GstDoradmaSlabAllocator *) mem->allocator,
      ((GstDoradmaSlabMemory *) mem)->e, stream, error);
}
