/* doradma GStreamer plugin — private: constructing doradma memory.
 *
 * A GstDoradmaMemory is a leaf: it wraps one ring slot (a host address, a
 * size, the slot index, a CUDA device address) and knows the object that
 * owns the slot only through the small vtable below. The producer (writer
 * slots, gstdoradmaproducer.c) and the consumer (reader leases) implement
 * it; the memory never calls into a writer or a reader itself.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_MEMORY_PRIVATE_H__
#define __GST_DORADMA_MEMORY_PRIVATE_H__

#include <gst/gst.h>

#include "gstdoradmamemory.h"

G_BEGIN_DECLS

/* What a slot's owner does when the memory comes back or goes away. Every
 * member may be NULL.
 *
 *  returned: the root memory's last reference was dropped (its dispose).
 *            Return FALSE after resurrecting it (gst_memory_ref: the owner
 *            keeps it for the next lending), TRUE to let it be freed.
 *  release:  the memory is being freed (any thread): give the slot back,
 *            e.g. end a reader's lease.
 *  ref/unref: the memory holds a reference on `owner` from construction
 *            until after `release` (so a lease keeps the mapping alive);
 *            NULL when the owner outlives its memories by itself. */
typedef struct
{
  gboolean (*returned) (gpointer owner, guint32 slot, GstMemory * mem);
  void (*release) (gpointer owner, guint32 slot, GstMemory * mem);
  gpointer (*ref) (gpointer owner);
  void (*unref) (gpointer owner);
} GstDoradmaMemoryOwner;

/* A memory of `size` bytes over slot `slot` whose first byte is `data`
 * (NULL for a slot in device memory only: then also NOT_MAPPABLE) and, when
 * not 0, `devptr` on the device. `flags` as for gst_memory_init (READONLY
 * for a reader's lease). `vtable` must outlive the memory (a static). */
GST_DORADMA_API                 /* exported for the plugin; not installed */
GstMemory *gst_doradma_memory_new (GstMemoryFlags flags, gpointer data,
    gsize size, guint32 slot, guint64 devptr,
    const GstDoradmaMemoryOwner * vtable, gpointer owner);

/* The owner of `mem` when it is a root doradma memory made with `vtable`,
 * else NULL (a share, another owner kind, another allocator). */
GST_DORADMA_API                 /* exported for the plugin; not installed */
gpointer gst_doradma_memory_get_owner (GstMemory * mem,
    const GstDoradmaMemoryOwner * vtable);

/* Recycling a root memory (the consumer's lease shells). In `returned`,
 * an owner may disown `mem` (TRUE: it has no parent, no mapping, no lock;
 * FALSE: keep it out of any free list and let it be freed), take a
 * reference (resurrecting it) and keep it: it then belongs to nothing, and
 * its last unref frees it without calling any owner. _reuse points such a
 * disowned memory, referenced by its keeper alone, at another slot and
 * owner, as gst_doradma_memory_new would have made it (vtable->ref
 * applies). A memory another party still references never comes back
 * through `returned`, so it is never re-pointed; _reuse of one that is
 * not a free shell is refused (FALSE, with a critical). */
GST_DORADMA_API                 /* exported for the plugin; not installed */
gboolean gst_doradma_memory_disown (GstMemory * mem);
GST_DORADMA_API                 /* exported for the plugin; not installed */
gboolean gst_doradma_memory_reuse (GstMemory * mem, GstMemoryFlags flags,
    gpointer data, gsize size, guint32 slot, guint64 devptr,
    const GstDoradmaMemoryOwner * vtable, gpointer owner);

/* A reader's lease, as gstdoradmalease.c makes it (a reference on the
 * reader handle while leased; the lease ends when the last reference goes,
 * in `returned` when the memory is kept as a shell, else on free):
 *
 *   static const GstDoradmaMemoryOwner lease_owner = {
 *     lease_returned, lease_release, reader_handle_ref, reader_handle_unref
 *   };
 *   mem = gst_doradma_memory_new (GST_MEMORY_FLAG_READONLY,
 *       (gpointer) frame->data, frame->info.payload_bytes, frame->slot,
 *       device_pointer_of (frame), &lease_owner, handle);
 *
 * and a producer's slot (gstdoradmaproducer.c: recycled in `returned`, the
 * memory holds no reference on the segment):
 *
 *   static const GstDoradmaMemoryOwner slot_owner = {
 *     segment_slot_returned, NULL, NULL, NULL
 *   };
 */

G_END_DECLS

#endif /* __GST_DORADMA_MEMORY_PRIVATE_H__ */
