/* doradma GStreamer plugin — GstMemory over ring slots.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One allocator, mem_type "DoradmaSlot", one memory kind: a slot of a ring
 * (host address, size, slot index, device address) and its owner, known
 * only through a GstDoradmaMemoryOwner vtable (gstdoradmamemoryprivate.h).
 * The owner decides what a returning memory means: the producer recycles
 * its writer slots in the dispose hook (the unixfd allocator model, so
 * "this slot is referenced in this process" is exactly "its memory is
 * alive"); a reader's lease ends in release, from any thread.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmamemoryprivate.h"
#include "gstdoradmadebugprivate.h"

#define GST_CAT_DEFAULT gst_doradma_memory_debug

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* first byte of the slot, NULL: device only */
  guint32 slot;
  guint64 devptr;               /* CUDA device address of the slot, or 0 */
  const GstDoradmaMemoryOwner *vtable;  /* NULL for shares */
  gpointer owner;
} GstDoradmaMemory;

typedef GstAllocator GstDoradmaAllocator;
typedef GstAllocatorClass GstDoradmaAllocatorClass;

GType gst_doradma_allocator_get_type (void);
G_DEFINE_TYPE_WITH_CODE (GstDoradmaAllocator, gst_doradma_allocator,
    GST_TYPE_ALLOCATOR, gst_doradma_lib_debug_init ());

static GstMemory *
gst_doradma_allocator_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  /* Slots come from a ring; they are never allocated on request. */
  return NULL;
}

static void
gst_doradma_allocator_free (GstAllocator * allocator, GstMemory * mem)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) mem;
  const GstDoradmaMemoryOwner *v = dm->vtable;

  if (v && v->release)
    v->release (dm->owner, dm->slot, mem);
  if (v && v->unref)
    v->unref (dm->owner);
  g_slice_free (GstDoradmaMemory, dm);
}

static gpointer
gst_doradma_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstDoradmaMemory *) mem)->data;
}

static void
gst_doradma_mem_unmap (GstMemory * mem)
{
}

static GstMemory *
gst_doradma_mem_share (GstMemory * mem, gssize offset, gssize size)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) mem, *sub;
  GstMemory *parent;

  /* A sub-memory keeps its parent alive: the lease (or the slot's
   * "referenced" state) lasts as long as the share does. */
  if ((parent = mem->parent) == NULL)
    parent = mem;
  if (size == -1)
    size = mem->size - offset;

  sub = g_slice_new0 (GstDoradmaMemory);
  gst_memory_init (GST_MEMORY_CAST (sub), GST_MINI_OBJECT_FLAGS (parent) |
      GST_MINI_OBJECT_FLAG_LOCK_READONLY, mem->allocator, parent,
      mem->maxsize, mem->align, mem->offset + offset, size);
  sub->data = dm->data;
  sub->slot = dm->slot;
  sub->devptr = dm->devptr;
  return GST_MEMORY_CAST (sub);
}

/* Two pieces of one slot, back to back: gst_buffer_span/merge take the
 * parent instead of copying. */
static gboolean
gst_doradma_mem_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  GstDoradmaMemory *a = (GstDoradmaMemory *) mem1;
  GstDoradmaMemory *b = (GstDoradmaMemory *) mem2;

  if (a->data != b->data || a->devptr != b->devptr
      || mem1->offset + mem1->size != mem2->offset)
    return FALSE;
  if (offset)
    *offset = mem1->offset - (mem1->parent ? mem1->parent->offset : 0);
  return TRUE;
}

static void
gst_doradma_allocator_class_init (GstDoradmaAllocatorClass * klass)
{
  klass->alloc = gst_doradma_allocator_alloc;
  klass->free = gst_doradma_allocator_free;
}

static void
gst_doradma_allocator_init (GstDoradmaAllocator * alloc)
{
  alloc->mem_type = GST_DORADMA_MEMORY_TYPE;
  alloc->mem_map = gst_doradma_mem_map;
  alloc->mem_unmap = gst_doradma_mem_unmap;
  alloc->mem_share = gst_doradma_mem_share;
  alloc->mem_is_span = gst_doradma_mem_is_span;
  GST_OBJECT_FLAG_SET (alloc, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

static GstAllocator *
gst_doradma_allocator_get (void)
{
  static GstAllocator *allocator = NULL;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *a = g_object_new (gst_doradma_allocator_get_type (), NULL);

    gst_object_ref_sink (a);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&allocator, a);
  }
  return allocator;
}

/* A disowned memory (vtable NULL) is simply freed. */
static gboolean
gst_doradma_memory_dispose (GstMiniObject * obj)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) obj;

  if (dm->vtable == NULL)
    return TRUE;
  return dm->vtable->returned (dm->owner, dm->slot, GST_MEMORY_CAST (dm));
}

/* The slot and owner of a root memory, new or reused. */
static void
gst_doradma_memory_point (GstDoradmaMemory * dm, gpointer data, guint32 slot,
    guint64 devptr, const GstDoradmaMemoryOwner * vtable, gpointer owner)
{
  dm->data = data;
  dm->slot = slot;
  dm->devptr = devptr;
  dm->vtable = vtable;
  dm->owner = vtable && vtable->ref ? vtable->ref (owner) : owner;
  GST_MINI_OBJECT_CAST (dm)->dispose = vtable && vtable->returned ?
      gst_doradma_memory_dispose : NULL;
}

GstMemory *
gst_doradma_memory_new (GstMemoryFlags flags, gpointer data, gsize size,
    guint32 slot, guint64 devptr, const GstDoradmaMemoryOwner * vtable,
    gpointer owner)
{
  GstDoradmaMemory *dm = g_slice_new0 (GstDoradmaMemory);

  if (data == NULL)
    flags |= GST_MEMORY_FLAG_NOT_MAPPABLE;
  gst_memory_init (GST_MEMORY_CAST (dm), flags, gst_doradma_allocator_get (),
      NULL, size, 0, 0, size);
  gst_doradma_memory_point (dm, data, slot, devptr, vtable, owner);
  return GST_MEMORY_CAST (dm);
}

gboolean
gst_doradma_memory_disown (GstMemory * mem)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) mem;

  /* a share, a mapping or a lock left behind: not a clean shell */
  if (mem->parent != NULL || GST_MINI_OBJECT_CAST (mem)->lockstate != 0)
    return FALSE;
  dm->vtable = NULL;
  dm->owner = NULL;
  GST_MINI_OBJECT_CAST (mem)->dispose = gst_doradma_memory_dispose;
  return TRUE;
}

gboolean
gst_doradma_memory_reuse (GstMemory * mem, GstMemoryFlags flags,
    gpointer data, gsize size, guint32 slot, guint64 devptr,
    const GstDoradmaMemoryOwner * vtable, gpointer owner)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) mem;

  g_return_val_if_fail (dm->vtable == NULL
      && GST_MINI_OBJECT_REFCOUNT_VALUE (mem) == 1, FALSE);

  if (data == NULL)
    flags |= GST_MEMORY_FLAG_NOT_MAPPABLE;
  /* as gst_memory_init leaves them, without a second allocator ref */
  GST_MINI_OBJECT_FLAGS (mem) = flags | GST_MINI_OBJECT_FLAG_LOCKABLE;
  mem->maxsize = size;
  mem->align = 0;
  mem->offset = 0;
  mem->size = size;
  gst_doradma_memory_point (dm, data, slot, devptr, vtable, owner);
  return TRUE;
}

gpointer
gst_doradma_memory_get_owner (GstMemory * mem,
    const GstDoradmaMemoryOwner * vtable)
{
  if (mem == NULL || mem->allocator != gst_doradma_allocator_get ()
      || ((GstDoradmaMemory *) mem)->vtable != vtable)
    return NULL;
  return ((GstDoradmaMemory *) mem)->owner;
}

guint32
gst_doradma_memory_get_slot (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_doradma_memory (mem), G_MAXUINT32);

  return ((GstDoradmaMemory *) mem)->slot;
}

/* ---------------------------------------------------------------------- */
/* Public accessors */

gboolean
gst_is_doradma_memory (GstMemory * mem)
{
  g_return_val_if_fail (mem != NULL, FALSE);

  return gst_memory_is_type (mem, GST_DORADMA_MEMORY_TYPE);
}

gpointer
gst_doradma_memory_get_host_pointer (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_doradma_memory (mem), NULL);

  if (((GstDoradmaMemory *) mem)->data == NULL)
    return NULL;
  return ((GstDoradmaMemory *) mem)->data + mem->offset;
}

guint64
gst_doradma_memory_get_device_pointer (GstMemory * mem)
{
  GstDoradmaMemory *dm;

  g_return_val_if_fail (gst_is_doradma_memory (mem), 0);

  dm = (GstDoradmaMemory *) mem;
  if (dm->devptr == 0) {
    GST_LOG ("no device pointer: %s",
#ifdef HAVE_CUDA
        "the slot is not registered with CUDA (transport=shmem, or no GPU)"
#else
        "not built with CUDA support"
#endif
        );
    return 0;
  }
  return dm->devptr + mem->offset;
}
