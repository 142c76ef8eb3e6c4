/* doradma GStreamer plugin — the slab allocator's insides (not installed).
 *
 * Shared by gstdoradmaallocator.c (the allocator: its pool, slabs in and
 * out, the GstMemory vfuncs and accessors) and gstdoradmaallocatorrdma.c
 * (NIC registration of slabs and the RDMA constructor's fallback chain).
 * Hidden in libgstdoradma-1.0 like everything not GST_DORADMA_API.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ALLOCATOR_PRIVATE_H__
#define __GST_DORADMA_ALLOCATOR_PRIVATE_H__

#include "gstdoradmaallocator.h"
/* the public API only (copies, streams and managed attach included); never
 * the private driver table cuda-api.h */
#include "doradma-cuda.h"
#include "gstdoradmagpudirect.h"
#include "gstdoradmadebugprivate.h"

G_BEGIN_DECLS

#define N_CLASSES DORADMA_CUDA_SLAB_N_CLASSES

typedef enum
{
  GST_DORADMA_RDMA_NONE = 0,
  GST_DORADMA_RDMA_GPUDIRECT_DMABUF,
  GST_DORADMA_RDMA_GPUDIRECT_PEERMEM,
  GST_DORADMA_RDMA_PINNED_MR,
} GstDoradmaRdmaMode;

/* "none", "gpudirect-dmabuf", ... (the stats' rdma-mode) */
const gchar *gst_doradma_rdma_mode_name (GstDoradmaRdmaMode mode);

/* One slab handed out or cached here, with its memory region. */
typedef struct _GstDoradmaSlabEntry GstDoradmaSlabEntry;
struct _GstDoradmaSlabEntry
{
  struct doradma_cuda_slab *slab;
  const struct doradma_cuda_slab_info *info;
  GstDoradmaMr *mr;             /* NULL unless RDMA mode */
  gpointer stream;              /* managed: CUstream it is attached to */
  GstDoradmaSlabEntry *next;    /* cache link, under the allocator lock */
};

typedef struct
{
  GstMemory mem;
  GstDoradmaSlabEntry *e;       /* the root's entry; shared by sub-memories */
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

  GstDoradmaRdmaMode rdma;
  gpointer pd, pd_ctx;          /* pd_ctx != NULL: we own the PD */
  gchar *fallback;              /* steps of the RDMA fallback chain */
  /* RDMA mode, under lock: registered slabs by size class. */
  GstDoradmaSlabEntry *cache[N_CLASSES];
  guint64 mr_regs, mr_hits, mr_deregs;
};

/* The budget: the argument, else the variable, else the default. A
 * malformed variable is an error even where CUDA is absent. */
gboolean gst_doradma_slab_resolve_budget (guint64 arg, guint64 * out,
    GError ** error);
/* An allocator whose device and pool are opened on first use. */
GstDoradmaSlabAllocator *gst_doradma_slab_allocator_new_lazy (GstDoradmaSlabKind
    kind, guint64 budget);
/* Opens device 0 and creates the pool. Lock held (or object private). */
gboolean gst_doradma_slab_allocator_ensure_pool (GstDoradmaSlabAllocator *
    self, GError ** error);
GstMemory *gst_doradma_slab_allocator_alloc_full (GstDoradmaSlabAllocator *
    self, gsize size, GstAllocationParams * params, GError ** error);

/* gstdoradmaallocatorrdma.c: registers e's slab once in the allocator's
 * RDMA mode (TRUE at once without); FALSE with the reason in `why`. */
gboolean gst_doradma_slab_entry_register (GstDoradmaSlabAllocator * self,
    GstDoradmaSlabEntry * e, GString * why);
void gst_doradma_slab_entry_dereg (GstDoradmaSlabAllocator * self,
    GstDoradmaSlabEntry * e);

G_END_DECLS
#endif /* __GST_DORADMA_ALLOCATOR_PRIVATE_H__ */
