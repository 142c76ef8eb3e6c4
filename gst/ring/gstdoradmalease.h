/* doradma GStreamer plugin — private: doradmasrc's leases.
 *
 * One responsibility: a frame the reader leased becomes a GstMemory that
 * holds the lease until its last reference goes, from any thread. The
 * reader handle is refcounted (every such memory holds a reference, so the
 * mapping outlives the element); the memories whose lease ended are kept
 * as shells and re-pointed at the next lease, so the steady path
 * allocates nothing, and a memory still referenced anywhere is never
 * re-used.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_LEASE_H__
#define __GST_DORADMA_LEASE_H__

#include <gst/gst.h>
#include <doradma/doradma.h>

G_BEGIN_DECLS

/* The free shells of one consumer, shared with every reader handle it
 * made (the memories out hold a handle). */
typedef struct _GstDoradmaLeaseShells GstDoradmaLeaseShells;

GstDoradmaLeaseShells *gst_doradma_lease_shells_new (void);
/* The consumer goes: its reference is dropped, the free shells freed, and
 * memories still out are freed (not kept) when they come back. */
void gst_doradma_lease_shells_close (GstDoradmaLeaseShells * sh);

/* ---------------------------------------------------------------------- */
/* Reader side: a refcounted handle on a doradma_reader. Every leased memory
 * holds a reference, so the mapping outlives the element. */

typedef struct _GstDoradmaReaderHandle GstDoradmaReaderHandle;
struct _GstDoradmaReaderHandle
{
  gint refcount;
  struct doradma_reader *r;
  gint outstanding;             /* leased memories alive */
  /* GstDoradmaCudaReader (gstdoradmacuda.h): the segment's CUDA
   * registration or IPC mapping, or NULL; set once before the first lease,
   * released by the last unref BEFORE the reader unmaps */
  gpointer cuda;
  /* where this handle's memories go when their lease ends, or NULL; a
   * reference */
  GstDoradmaLeaseShells *shells;
};

/* `shells` (or NULL: memories are freed when their lease ends) gets a
 * reference. */
GstDoradmaReaderHandle *gst_doradma_reader_handle_new (struct doradma_reader *r,
    GstDoradmaLeaseShells * shells);
GstDoradmaReaderHandle *gst_doradma_reader_handle_ref (GstDoradmaReaderHandle * rh);
void gst_doradma_reader_handle_unref (GstDoradmaReaderHandle * rh);

/* A read-only memory on leased frame `f` (device address `devptr`, or 0)
 * that owns the lease and a reference on `rh`: a recycled shell when one
 * is free. */
GstMemory *gst_doradma_lease_memory (GstDoradmaReaderHandle * rh,
    const struct doradma_frame *f, guint64 devptr);

G_END_DECLS
#endif /* __GST_DORADMA_LEASE_H__ */
