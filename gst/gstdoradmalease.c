/* doradma GStreamer plugin — a reader's lease as slot memory.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Plugin side of the slot memory: the memory itself lives in
 * libgstdoradma-1.0 (gstdoradmamemory.c, a leaf that knows its owner only
 * through a GstDoradmaMemoryOwner vtable); the reader handle and the lease
 * owner use the ring library and CUDA, so they stay in the plugin. Moved
 * verbatim from gstdoradmamemory.c when the library was split out.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>

#include "gstdoradmamemoryprivate.h"

/* ---------------------------------------------------------------------- */
/* Reader handle, used by doradmasrc until the consumer branch is merged:
 * gstdoradmaconsumer.c defines these three functions then, and this block
 * goes (from here to the "Lease memory" line). */

#include "gstdoradmaelements.h"
#include "gstdoradmacuda.h"

DoradmaReaderHandle *
doradma_reader_handle_new (struct doradma_reader *r)
{
  DoradmaReaderHandle *rh = g_new0 (DoradmaReaderHandle, 1);

  rh->refcount = 1;
  rh->r = r;
  rh->pid = getpid ();
  return rh;
}

DoradmaReaderHandle *
doradma_reader_handle_ref (DoradmaReaderHandle * rh)
{
  g_atomic_int_inc (&rh->refcount);
  return rh;
}

void
doradma_reader_handle_unref (DoradmaReaderHandle * rh)
{
  if (rh && g_atomic_int_dec_and_test (&rh->refcount)) {
    if (rh->pid == getpid ()) {
      /* unregister / unmap the IPC handle before the mapping goes */
      gst_doradma_cuda_reader_free (rh->cuda);
      doradma_reader_close (rh->r);
    }
    g_free (rh);
  }
}

/* ---------------------------------------------------------------------- */
/* Lease memory: a reader's lease as an owner of gst_doradma_memory_new (the
 * consumer makes its leases the same way; then this block moves there). */

static gpointer
lease_owner_ref (gpointer rh)
{
  g_atomic_int_inc (&((DoradmaReaderHandle *) rh)->outstanding);
  return doradma_reader_handle_ref (rh);
}

static void
lease_owner_unref (gpointer rh)
{
  g_atomic_int_add (&((DoradmaReaderHandle *) rh)->outstanding, -1);
  doradma_reader_handle_unref (rh);
}

/* The lib makes a release from a forked child a no-op: no getpid here. */
static void
lease_release (gpointer rh, guint32 slot, GstMemory * mem)
{
  doradma_reader_release (((DoradmaReaderHandle *) rh)->r, slot);
}

static const GstDoradmaMemoryOwner lease_owner = {
  NULL, lease_release, lease_owner_ref, lease_owner_unref
};

GstMemory *
doradma_memory_new_lease (DoradmaReaderHandle * rh,
    const struct doradma_frame *frame)
{
  return gst_doradma_memory_new (GST_MEMORY_FLAG_READONLY,
      (gpointer) frame->data, frame->info.payload_bytes, frame->slot,
      gst_doradma_cuda_reader_frame_pointer (rh->cuda, frame), &lease_owner,
      rh);
}

