/* doradma GStreamer plugin — private: one segment of a producer.
 *
 * A segment is one libdoradma writer and its slot table. Each slot has one
 * GstDoradmaMemory, created on first use and recycled by its dispose hook:
 * a memory lent out holds a reference on its segment, so buffers of a
 * replaced segment keep it mapped until they are freed, and a slot that
 * comes back still WRITING (never published) is abandoned: it is never
 * readable as a frame. Lent slots are held in the ring
 * (doradma_writer_hold) until they come back, so the writer never hands out
 * a slot still referenced in this process (a decoder's reference frame, a
 * tee branch, videorate's last buffer).
 *
 * The segment's lock guards only its slot table; the producer
 * (gstdoradmaproducer.c) chooses when to create, replace and drop one.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_PRODUCER_SEGMENT_H__
#define __GST_DORADMA_PRODUCER_SEGMENT_H__

#include <gst/gst.h>
#include <doradma/doradma.h>

#include "gstdoradmacuda.h"

G_BEGIN_DECLS typedef enum
{
  GST_DORADMA_SLOT_FREE = 0,    /* no WRITING mark; maybe published */
  GST_DORADMA_SLOT_WRITING,     /* marked WRITING, handed out */
  GST_DORADMA_SLOT_PUBLISHED,   /* published, memory still referenced */
} GstDoradmaSlotState;

typedef struct
{
  gint refcount;
  struct doradma_writer *w;     /* read-only after _new */
  guint32 n_slots;
  guint64 stride;
  /* transport ipc: the device allocation holding the slots, freed right
   * after the writer closes */
  GstDoradmaCudaSlots *device_slots;

  GMutex lock;                  /* the slot table below */
  GstMemory *mems[DORADMA_MAX_SLOTS];
  gboolean cached[DORADMA_MAX_SLOTS];   /* mems[s] not referenced elsewhere */
  GstDoradmaSlotState state[DORADMA_MAX_SLOTS];
  gboolean closing;
} GstDoradmaSegment;

/* Takes the writer `w` and the device slots `area` (may be NULL); one
 * reference. */
GstDoradmaSegment *gst_doradma_segment_new (struct doradma_writer *w,
    GstDoradmaCudaSlots * area);
GstDoradmaSegment *gst_doradma_segment_ref (GstDoradmaSegment * seg);
/* The last reference closes the writer. NULL is fine. */
void gst_doradma_segment_unref (GstDoradmaSegment * seg);

/* Slot `s`, just acquired from the writer, as a writable memory of `size`
 * bytes; it holds a reference on the segment until it comes back. */
GstMemory *gst_doradma_segment_lend (GstDoradmaSegment * seg, guint32 s,
    gsize size);
/* The segment `mem` was lent from, or NULL for any other memory. */
GstDoradmaSegment *gst_doradma_segment_of (GstMemory * mem);
/* `mem`'s slot is marked WRITING (lent, not published yet). */
gboolean gst_doradma_segment_is_writing (GstDoradmaSegment * seg,
    GstMemory * mem);
/* `mem`'s slot was published: read-only from now on. */
void gst_doradma_segment_published (GstDoradmaSegment * seg, GstMemory * mem);

G_END_DECLS
#endif /* __GST_DORADMA_PRODUCER_SEGMENT_H__ */
