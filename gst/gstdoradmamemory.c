/* doradma GStreamer plugin — GstMemory over ring slots.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two kinds of memory share one allocator and the mem_type "DoradmaSlot":
 *
 *  - a writer slot: one memory per slot of a doradmasink's segment, created
 *    once and recycled by its dispose hook (the unixfd allocator model), so
 *    "this slot is referenced somewhere in this process" is exactly "its
 *    memory is alive". Its state (FREE, WRITING, PUBLISHED) lives here and
 *    is changed under the writer handle's lock.
 *  - a reader lease: read-only, wraps a slot leased by doradmasrc; its free
 *    releases the lease (from any thread) and drops a reference on the
 *    reader handle, so the mapping outlives the element.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>

#include "gstdoradmaelements.h"
#include "gstdoradmamemory.h"
#include "gstdoradmacuda.h"

#define GST_CAT_DEFAULT gst_doradma_debug

typedef enum
{
  KIND_SLOT,
  KIND_LEASE,
  KIND_SHARE,
} MemKind;

typedef struct
{
  GstMemory mem;
  MemKind kind;
  guint8 *data;                 /* first byte of the slot */
  guint32 slot;
  DoradmaWriterHandle *wh;      /* KIND_SLOT: not a reference */
  DoradmaSlotState state;       /* KIND_SLOT, under wh->lock */
  DoradmaReaderHandle *rh;      /* KIND_LEASE: a reference */
  guint64 devptr;               /* CUDA device address of `data`, or 0 */
} GstDoradmaMemory;

typedef GstAllocator GstDoradmaAllocator;
typedef GstAllocatorClass GstDoradmaAllocatorClass;

GType gst_doradma_allocator_get_type (void);
G_DEFINE_TYPE (GstDoradmaAllocator, gst_doradma_allocator, GST_TYPE_ALLOCATOR);

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

  if (dm->kind == KIND_LEASE) {
    DoradmaReaderHandle *rh = dm->rh;

    /* After fork() the child owns no lease of ours. */
    if (rh->pid == getpid ())
      doradma_reader_release (rh->r, dm->slot);
    g_atomic_int_add (&rh->outstanding, -1);
    doradma_reader_handle_unref (rh);
  }
  g_slice_free (GstDoradmaMemory, dm);
}

static gpointer
doradma_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  return ((GstDoradmaMemory *) mem)->data;
}

static void
doradma_mem_unmap (GstMemory * mem)
{
}

static GstMemory *
doradma_mem_share (GstMemory * mem, gssize offset, gssize size)
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
  sub->kind = KIND_SHARE;
  sub->data = dm->data;
  sub->slot = dm->slot;
  sub->devptr = dm->devptr;
  return GST_MEMORY_CAST (sub);
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
  alloc->mem_map = doradma_mem_map;
  alloc->mem_unmap = doradma_mem_unmap;
  alloc->mem_share = doradma_mem_share;
  GST_OBJECT_FLAG_SET (alloc, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

static GstAllocator *
doradma_allocator_get (void)
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

GstMemory *
doradma_memory_new_lease (DoradmaReaderHandle * rh,
    const struct doradma_frame *frame)
{
  GstDoradmaMemory *dm = g_slice_new0 (GstDoradmaMemory);
  gsize size = frame->info.payload_bytes;

  /* device slots (transport ipc) have no host address: not mappable */
  gst_memory_init (GST_MEMORY_CAST (dm), GST_MEMORY_FLAG_READONLY |
      (frame->data ? 0 : GST_MEMORY_FLAG_NOT_MAPPABLE),
      doradma_allocator_get (), NULL, size, 0, 0, size);
  dm->kind = KIND_LEASE;
  dm->data = (guint8 *) frame->data;
  dm->slot = frame->slot;
  dm->devptr = doradma_cuda_reader_frame_pointer (rh->cuda, frame);
  dm->rh = doradma_reader_handle_ref (rh);
  g_atomic_int_inc (&rh->outstanding);
  return GST_MEMORY_CAST (dm);
}

/* ---------------------------------------------------------------------- */
/* Writer slot memory */

static gboolean
slot_mem_dispose (GstMiniObject * obj)
{
  GstDoradmaMemory *dm = (GstDoradmaMemory *) obj;
  DoradmaWriterHandle *wh = dm->wh;

  g_mutex_lock (&wh->lock);
  if (wh->closing) {
    g_mutex_unlock (&wh->lock);
    return TRUE;
  }
  /* Every return without a render ends here with the slot still WRITING:
   * abandon it, it must never be readable as a frame. */
  if (dm->state == DORADMA_SLOT_WRITING) {
    GST_LOG ("abandoning slot %u", dm->slot);
    doradma_writer_abandon (wh->w, dm->slot);
  }
  dm->state = DORADMA_SLOT_FREE;
  gst_memory_ref (GST_MEMORY_CAST (dm));
  wh->cached[dm->slot] = TRUE;
  doradma_writer_hold (wh->w, dm->slot, 0);
  g_mutex_unlock (&wh->lock);

  /* the reference the lent-out memory held */
  doradma_writer_handle_unref (wh);
  return FALSE;
}

GstMemory *
doradma_memory_new_slot (DoradmaWriterHandle * wh, guint32 slot)
{
  GstDoradmaMemory *dm = g_slice_new0 (GstDoradmaMemory);

  gst_memory_init (GST_MEMORY_CAST (dm), 0, doradma_allocator_get (), NULL,
      wh->stride, 0, 0, wh->stride);
  dm->kind = KIND_SLOT;
  dm->data = doradma_writer_slot_data (wh->w, slot);
  dm->slot = slot;
  dm->wh = wh;
  dm->state = DORADMA_SLOT_FREE;
  GST_MINI_OBJECT_CAST (dm)->dispose = slot_mem_dispose;
  return GST_MEMORY_CAST (dm);
}

gboolean
doradma_memory_is_slot (GstMemory * mem)
{
  return mem && mem->allocator == doradma_allocator_get ()
      && ((GstDoradmaMemory *) mem)->kind == KIND_SLOT;
}

DoradmaWriterHandle *
doradma_memory_slot_handle (GstMemory * mem)
{
  return doradma_memory_is_slot (mem) ? ((GstDoradmaMemory *) mem)->wh : NULL;
}

guint32
doradma_memory_slot_index (GstMemory * mem)
{
  return ((GstDoradmaMemory *) mem)->slot;
}

DoradmaSlotState
doradma_memory_slot_state (GstMemory * mem)
{
  return ((GstDoradmaMemory *) mem)->state;
}

void
doradma_memory_slot_set_state (GstMemory * mem, DoradmaSlotState state)
{
  ((GstDoradmaMemory *) mem)->state = state;
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
    GST_CAT_LOG (gst_doradma_debug, "no device pointer: %s",
#ifdef HAVE_CUDA
        "the reader did not register the segment with CUDA "
        "(transport=shmem, or no GPU)"
#else
        "not built with CUDA support"
#endif
        );
    return 0;
  }
  return dm->devptr + mem->offset;
}
