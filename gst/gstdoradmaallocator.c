/* doradma GStreamer plugin — DoradmaSlabAllocator, the CUDA slab GstAllocator.
 *
 * The slabs, their size classes, free lists and byte budget live in cuda/'s
 * GStreamer-free slab pool (cuda/slab.c); this file wraps them as GstMemory,
 * reports errors as GError, and adds NIC registration (GPUDirect RDMA; the
 * probe of what the machine offers is gstdoradmagpudirect.c).
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

#include "gstdoradmaallocator.h"
#include "gstdoradmaelements.h"
/* the public API only (copies, streams and managed attach included); never
 * the private driver table cuda-api.h */
#include "doradma-cuda.h"
#include "gstdoradmagpudirect.h"

GST_DEBUG_CATEGORY_STATIC (doradma_allocator_debug);
#define GST_CAT_DEFAULT doradma_allocator_debug

#define N_CLASSES DORADMA_CUDA_SLAB_N_CLASSES

typedef enum
{
  RDMA_NONE = 0,
  RDMA_GPUDIRECT_DMABUF,
  RDMA_GPUDIRECT_PEERMEM,
  RDMA_PINNED_MR,
} RdmaMode;

static const gchar *const rdma_mode_names[] = {
  "none", "gpudirect-dmabuf", "gpudirect-peermem", "pinned-mr"
};

/* One slab handed out or cached here, with its memory region. */
typedef struct _SlabEntry SlabEntry;
struct _SlabEntry
{
  struct doradma_cuda_slab *slab;
  const struct doradma_cuda_slab_info *info;
  GstDoradmaMr *mr;             /* NULL unless RDMA mode */
  gpointer stream;              /* managed: CUstream it is attached to */
  SlabEntry *next;              /* cache link, under the allocator lock */
};

typedef struct
{
  GstMemory mem;
  SlabEntry *e;                 /* the root's entry; shared by sub-memories */
} GstDoradmaSlabMemory;

struct _GstDoradmaSlabAllocator
{
  GstAllocator parent;

  GstDoradmaSlabKind kind;
  guint64 budget_arg;           /* 0: environment, else default */

  GMutex lock;
  /* Set once (lazily for registered allocators), under lock. */
  struct doradma_cuda_device *dev;
  struct doradma_cuda_slab_pool *pool;
  gboolean concurrent_managed;
  gsize gran;                   /* the pool's rounding, see expected_class */

  RdmaMode rdma;
  gpointer pd, pd_ctx;          /* pd_ctx != NULL: we own the PD */
  gchar *fallback;              /* steps of the RDMA fallback chain */
  /* RDMA mode, under lock: registered slabs by size class. */
  SlabEntry *cache[N_CLASSES];
  guint64 mr_regs, mr_hits, mr_deregs;
};

struct _GstDoradmaSlabAllocatorClass
{
  GstAllocatorClass parent_class;
};

G_DEFINE_TYPE (GstDoradmaSlabAllocator, gst_doradma_slab_allocator,
    GST_TYPE_ALLOCATOR);

G_DEFINE_QUARK (gst - doradma - slab - error - quark, gst_doradma_slab_error);

/* *INDENT-OFF* */
static const GEnumValue slab_kind_values[] = {
  {GST_DORADMA_SLAB_KIND_MANAGED, "CUDA managed memory (UMA)", "managed"},
  {GST_DORADMA_SLAB_KIND_PINNED, "Pinned, mapped host memory", "pinned"},
  {GST_DORADMA_SLAB_KIND_DEVICE, "Device memory (cuMemCreate)", "device"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_slab_kind_get_type, "GstDoradmaSlabKind",
    slab_kind_values)
/* *INDENT-ON* */

static void
debug_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (doradma_allocator_debug, "doradmaallocator", 0,
        "doradma CUDA slab allocator");
    g_once_init_leave (&once, 1);
  }
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
static gboolean
resolve_budget (guint64 arg, guint64 * out, GError ** error)
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
static gboolean
ensure_pool_locked (GstDoradmaSlabAllocator * self, GError ** error)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_slab *probe = NULL;
  guint64 budget;
  int ret;

  if (self->pool != NULL)
    return TRUE;
  if (!resolve_budget (self->budget_arg, &budget, error))
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
/* NIC registration */

static void
entry_dereg (GstDoradmaSlabAllocator * self, SlabEntry * e)
{
#ifdef HAVE_IBVERBS
  if (e->mr) {
    gst_doradma_mr_dereg (e->mr);
    e->mr = NULL;
    __atomic_add_fetch (&self->mr_deregs, 1, __ATOMIC_RELAXED);
  }
#endif
}

/* Registers e's slab once. Returns FALSE with the reason in `why`. */
static gboolean
entry_register (GstDoradmaSlabAllocator * self, SlabEntry * e, GString * why)
{
#ifdef HAVE_IBVERBS
  const struct doradma_cuda_slab_info *i = e->info;
  struct doradma_diag diag = { 0 };
  uint64_t sz = 0;
  int fd = -1, ret;

  switch (self->rdma) {
    case RDMA_NONE:
      return TRUE;
    case RDMA_GPUDIRECT_DMABUF:
      ret = doradma_cuda_slab_export_dmabuf (e->slab, &fd, &sz, &diag);
      if (ret < 0) {
        g_string_append_printf (why, "dma-buf export: %s", diag.msg);
        return FALSE;
      }
      /* iova = the device pointer: peers address slabs by CUdeviceptr. */
      e->mr = gst_doradma_mr_reg_dmabuf (self->pd, fd, sz, i->device, why);
      close (fd);               /* the MR holds its own dma-buf reference */
      break;
    case RDMA_GPUDIRECT_PEERMEM:
      e->mr = gst_doradma_mr_reg (self->pd, (gpointer) (guintptr) i->device,
          i->capacity, why);
      break;
    case RDMA_PINNED_MR:
      e->mr = gst_doradma_mr_reg (self->pd, i->host, i->capacity, why);
      break;
  }
  if (e->mr == NULL)
    return FALSE;
  __atomic_add_fetch (&self->mr_regs, 1, __ATOMIC_RELAXED);
  return TRUE;
#else
  return self->rdma == RDMA_NONE;
#endif
}

/* ------------------------------------------------------------------------ */
/* Managed memory and streams (Jetson rules) */

#ifdef DORADMA_HAVE_CUDA
static gboolean
attach_locked_entry (GstDoradmaSlabAllocator * self, SlabEntry * e,
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
sync_for_cpu (GstDoradmaSlabAllocator * self, SlabEntry * e)
{
  if (e->stream == NULL || self->concurrent_managed)
    return;
  doradma_cuda_stream_synchronize (self->dev, e->stream, NULL);
}
#else
static gboolean
attach_locked_entry (GstDoradmaSlabAllocator * self, SlabEntry * e,
    gpointer stream, GError ** error)
{
  return TRUE;
}

static void
sync_for_cpu (GstDoradmaSlabAllocator * self, SlabEntry * e)
{
}
#endif

/* ------------------------------------------------------------------------ */
/* Slabs in and out */

static void
entry_release (GstDoradmaSlabAllocator * self, SlabEntry * e)
{
  entry_dereg (self, e);
  doradma_cuda_slab_free (e->slab);
  g_free (e);
}

/* Frees every cached registered slab (to the pool's free list, which evicts
 * them as needed). Returns how many. */
static guint
drain_cache (GstDoradmaSlabAllocator * self)
{
  SlabEntry *all = NULL, *e;
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

static SlabEntry *
entry_new (GstDoradmaSlabAllocator * self, gsize size, GError ** error)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_slab *slab = NULL;
  SlabEntry *e;
  GString *why;
  int ret, c;

  if (self->rdma != RDMA_NONE && (c = expected_class (self, size)) >= 0) {
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
  if (ret == -ENOMEM && self->rdma != RDMA_NONE && diag.field
      && !strcmp (diag.field, GST_DORADMA_SLAB_BUDGET_ENV)
      && drain_cache (self) > 0)
    ret = doradma_cuda_slab_alloc (self->pool, size, &slab, &diag);
  if (ret < 0) {
    set_cuda_error (error, ret, &diag, "slab allocation");
    return NULL;
  }
  e = g_new0 (SlabEntry, 1);
  e->slab = slab;
  e->info = doradma_cuda_slab_get_info (slab);
  if (self->rdma != RDMA_NONE) {
    why = g_string_new (NULL);
    if (!entry_register (self, e, why)) {
      g_set_error (error, GST_DORADMA_SLAB_ERROR,
          GST_DORADMA_SLAB_ERROR_FAILED, "NIC registration of a %s slab of "
          "%" G_GSIZE_FORMAT " bytes failed (%s): %s",
          doradma_cuda_slab_kind_name (e->info->kind), e->info->capacity,
          rdma_mode_names[self->rdma], why->str);
      g_string_free (why, TRUE);
      entry_release (self, e);
      return NULL;
    }
    g_string_free (why, TRUE);
  }
  return e;
}

static void
entry_return (GstDoradmaSlabAllocator * self, SlabEntry * e)
{
  /* A managed slab goes back attached to the host (as the pool made it). */
  if (e->stream != NULL)
    attach_locked_entry (self, e, NULL, NULL);
  if (self->rdma != RDMA_NONE && e->info->size_class >= 0) {
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
wrap_entry (GstDoradmaSlabAllocator * self, SlabEntry * e, GstMemory * parent,
    GstMemoryFlags flags, gsize maxsize, gsize align, gsize offset, gsize size)
{
  GstDoradmaSlabMemory *m = g_new0 (GstDoradmaSlabMemory, 1);

  if (e->info->kind == DORADMA_CUDA_SLAB_DEVICE)
    flags |= GST_MEMORY_FLAG_NOT_MAPPABLE;
  gst_memory_init (GST_MEMORY_CAST (m), flags, GST_ALLOCATOR_CAST (self),
      parent, maxsize, align, offset, size);
  m->e = e;
  return GST_MEMORY_CAST (m);
}

static GstMemory *
alloc_full (GstDoradmaSlabAllocator * self, gsize size,
    GstAllocationParams * params, GError ** error)
{
  GstAllocationParams dflt;
  SlabEntry *e;
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
  ok = ensure_pool_locked (self, error);
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
  GstMemory *mem = alloc_full (self, size, params, &err);

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

  debug_init ();
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

static GstDoradmaSlabAllocator *
allocator_new_lazy (GstDoradmaSlabKind kind, guint64 budget)
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
  if (!resolve_budget (budget, &b, error))
    return NULL;
  self = allocator_new_lazy (kind, b);
  if (!ensure_pool_locked (self, error)) {
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

  debug_init ();
  for (i = 0; i < G_N_ELEMENTS (regs); i++) {
    GstAllocator *a = gst_allocator_find (regs[i].name);

    /* The plugin may be loaded again (registry rescans): keep the first. */
    if (a != NULL) {
      gst_object_unref (a);
      continue;
    }
    gst_allocator_register (regs[i].name,
        GST_ALLOCATOR_CAST (allocator_new_lazy (regs[i].kind, 0)));
  }
}

GstMemory *
gst_doradma_slab_allocator_alloc (GstAllocator * allocator, gsize size,
    GError ** error)
{
  g_return_val_if_fail (GST_IS_DORADMA_SLAB_ALLOCATOR (allocator), NULL);
  return alloc_full ((GstDoradmaSlabAllocator *) allocator, size, NULL, error);
}

/* ------------------------------------------------------------------------ */
/* RDMA constructor: GPUDirect -> pinned -> managed */

#ifdef HAVE_IBVERBS
/* Creates an allocator of `kind` registering with `mode`; NULL with the
 * reason appended to `why`. */
static GstDoradmaSlabAllocator *
try_rdma_step (GstDoradmaSlabKind kind, RdmaMode mode, gpointer pd,
    guint64 budget, GString * why)
{
  GstDoradmaSlabAllocator *self = allocator_new_lazy (kind, budget);
  GError *err = NULL;
  GstMemory *mem;

  if (!ensure_pool_locked (self, &err)) {
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
  mem = alloc_full (self, DORADMA_CUDA_SLAB_MIN_CLASS, NULL, &err);
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

  debug_init ();
  if (!resolve_budget (budget, &b, error))
    goto out;
  gst_doradma_gpudirect_run_probe (0, &p);

  /* 1. GPUDirect RDMA: device slabs, NIC reads/writes GPU memory. */
  if (gst_doradma_gpudirect_usable (&p)) {
#ifdef HAVE_IBVERBS
    GString *why = g_string_new (NULL);
    RdmaMode mode = (p.ok[GST_DORADMA_PROBE_DMABUF_MR]
        && p.ok[GST_DORADMA_PROBE_CUDA_DMABUF]) ?
        RDMA_GPUDIRECT_DMABUF : RDMA_GPUDIRECT_PEERMEM;

    self = try_rdma_step (GST_DORADMA_SLAB_KIND_DEVICE, mode, pd, b, why);
    g_string_append_printf (steps, "%s: %s\n", rdma_mode_names[mode],
        self ? "ok" : why->str);
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

      self = try_rdma_step (GST_DORADMA_SLAB_KIND_PINNED, RDMA_PINNED_MR, pd,
          b, why);
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
      rdma_mode_names[self->rdma], self->fallback);

out:
  g_string_free (steps, TRUE);
  return GST_ALLOCATOR_CAST (self);
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
      "rdma-mode", G_TYPE_STRING, rdma_mode_names[self->rdma],
      "rdma-fallback", G_TYPE_STRING, self->fallback ? self->fallback : "",
      "mr-registrations", G_TYPE_UINT64,
      __atomic_load_n (&self->mr_regs, __ATOMIC_RELAXED),
      "mr-hits", G_TYPE_UINT64, __atomic_load_n (&self->mr_hits,
          __ATOMIC_RELAXED), "mr-deregistrations", G_TYPE_UINT64,
      __atomic_load_n (&self->mr_deregs, __ATOMIC_RELAXED), NULL);
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

gboolean
gst_doradma_slab_memory_upload (GstMemory * mem, gsize offset,
    gconstpointer src, gsize size, GError ** error)
{
  GstDoradmaSlabAllocator *self;
  SlabEntry *e;

  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), FALSE);
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
  g_return_val_if_fail (gst_is_doradma_slab_memory (mem), FALSE);
  return attach_locked_entry ((GstDoradmaSlabAllocator *) mem->allocator,
      ((GstDoradmaSlabMemory *) mem)->e, stream, error);
}
