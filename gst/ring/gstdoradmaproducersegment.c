/* doradma GStreamer plugin — one segment of a producer (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaproducersegment.h"
#include <gst/doradma/gstdoradmamemoryprivate.h>

/* the producer's category: a segment's log lines are the producer's */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_producer_debug);
#define GST_CAT_DEFAULT gst_doradma_producer_debug

GstDoradmaSegment *
gst_doradma_segment_new (struct doradma_writer *w, GstDoradmaCudaSlots * area)
{
  GstDoradmaSegment *seg = g_new0 (GstDoradmaSegment, 1);

  seg->refcount = 1;
  g_mutex_init (&seg->lock);
  seg->w = w;
  seg->n_slots = doradma_writer_slot_count (w);
  seg->stride = doradma_writer_slot_stride (w);
  seg->device_slots = area;
  return seg;
}

GstDoradmaSegment *
gst_doradma_segment_ref (GstDoradmaSegment * seg)
{
  g_atomic_int_inc (&seg->refcount);
  return seg;
}

void
gst_doradma_segment_unref (GstDoradmaSegment * seg)
{
  guint i;

  if (seg == NULL || !g_atomic_int_dec_and_test (&seg->refcount))
    return;

  /* Every lent-out memory holds a reference, so all of them are cached now:
   * let their dispose hooks free them this time. */
  g_mutex_lock (&seg->lock);
  seg->closing = TRUE;
  g_mutex_unlock (&seg->lock);
  for (i = 0; i < seg->n_slots; i++) {
    if (seg->mems[i])
      gst_memory_unref (seg->mems[i]);
  }
  doradma_writer_close (seg->w);
  gst_doradma_cuda_slots_free (seg->device_slots);
  g_mutex_clear (&seg->lock);
  g_free (seg);
}

/* The slot memory's dispose: every return without a publish ends here with
 * the slot still WRITING. */
static gboolean
segment_slot_returned (gpointer owner, guint32 slot, GstMemory * mem)
{
  GstDoradmaSegment *seg = owner;

  g_mutex_lock (&seg->lock);
  if (seg->closing) {
    g_mutex_unlock (&seg->lock);
    return TRUE;
  }
  if (seg->state[slot] == GST_DORADMA_SLOT_WRITING) {
    GST_LOG ("abandoning slot %u", slot);
    doradma_writer_abandon (seg->w, slot);
  }
  seg->state[slot] = GST_DORADMA_SLOT_FREE;
  gst_memory_ref (mem);
  seg->cached[slot] = TRUE;
  doradma_writer_hold (seg->w, slot, 0);
  g_mutex_unlock (&seg->lock);

  /* the reference the lent-out memory held */
  gst_doradma_segment_unref (seg);
  return FALSE;
}

static const GstDoradmaMemoryOwner slot_owner = {
  segment_slot_returned, NULL, NULL, NULL
};

GstMemory *
gst_doradma_segment_lend (GstDoradmaSegment * seg, guint32 s, gsize size)
{
  GstMemory *mem;

  g_mutex_lock (&seg->lock);
  if (seg->mems[s] == NULL) {
    guint64 devptr = seg->device_slots ?
        gst_doradma_cuda_slots_pointer (seg->device_slots) + s * seg->stride :
        0;

    seg->mems[s] = gst_doradma_memory_new (0, doradma_writer_slot_data (seg->w,
            s), seg->stride, s, devptr, &slot_owner, seg);
  }
  mem = seg->mems[s];
  seg->cached[s] = FALSE;
  /* Referenced here until its memory comes back: the ring must not hand it
   * out again. */
  doradma_writer_hold (seg->w, s, 1);
  seg->state[s] = GST_DORADMA_SLOT_WRITING;
  GST_MINI_OBJECT_FLAG_UNSET (mem, GST_MEMORY_FLAG_READONLY);
  gst_memory_resize (mem, -(gssize) mem->offset, size);
  g_mutex_unlock (&seg->lock);
  /* the lent memory keeps the segment mapped */
  gst_doradma_segment_ref (seg);
  return mem;
}

GstDoradmaSegment *
gst_doradma_segment_of (GstMemory * mem)
{
  return gst_doradma_memory_get_owner (mem, &slot_owner);
}

gboolean
gst_doradma_segment_is_writing (GstDoradmaSegment * seg, GstMemory * mem)
{
  gboolean ret;

  g_mutex_lock (&seg->lock);
  ret = seg->state[gst_doradma_memory_get_slot (mem)] ==
      GST_DORADMA_SLOT_WRITING;
  g_mutex_unlock (&seg->lock);
  return ret;
}

void
gst_doradma_segment_published (GstDoradmaSegment * seg, GstMemory * mem)
{
  g_mutex_lock (&seg->lock);
  seg->state[gst_doradma_memory_get_slot (mem)] = GST_DORADMA_SLOT_PUBLISHED;
  /* upstream may still hold the buffer: a later write map must copy
   * instead of scribbling over a frame readers lease */
  GST_MINI_OBJECT_FLAG_SET (mem, GST_MEMORY_FLAG_READONLY);
  g_mutex_unlock (&seg->lock);
}
