/* doradma GStreamer plugin — doradmasrc's leases (see gstdoradmalease.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmalease.h"
#include "gstdoradmacuda.h"
#include <gst/doradma/gstdoradmamemoryprivate.h>

/* ---------------------------------------------------------------------- */
/* Lease shells: leased memories whose last reference went (their lease
 * ended), disowned, kept for the next lease. Shared by the consumer and
 * every reader handle it made, as the memories out hold a handle. */

struct _GstDoradmaLeaseShells
{
  gint refcount;
  GMutex lock;
  gboolean closed;              /* the consumer went: free, do not keep */
  GPtrArray *free;              /* GstMemory, one reference each */
};

GstDoradmaLeaseShells *
gst_doradma_lease_shells_new (void)
{
  GstDoradmaLeaseShells *sh = g_new0 (GstDoradmaLeaseShells, 1);

  sh->refcount = 1;
  g_mutex_init (&sh->lock);
  sh->free = g_ptr_array_new_full (8, (GDestroyNotify) gst_memory_unref);
  return sh;
}

static GstDoradmaLeaseShells *
lease_shells_ref (GstDoradmaLeaseShells * sh)
{
  g_atomic_int_inc (&sh->refcount);
  return sh;
}

static void
lease_shells_unref (GstDoradmaLeaseShells * sh)
{
  if (sh && g_atomic_int_dec_and_test (&sh->refcount)) {
    g_ptr_array_unref (sh->free);
    g_mutex_clear (&sh->lock);
    g_free (sh);
  }
}

/* The consumer goes: shells are freed, and memories still out are freed
 * (not kept) when they come back. */
void
gst_doradma_lease_shells_close (GstDoradmaLeaseShells * sh)
{
  GPtrArray *free;

  g_mutex_lock (&sh->lock);
  sh->closed = TRUE;
  free = sh->free;
  sh->free = g_ptr_array_new_full (0, (GDestroyNotify) gst_memory_unref);
  g_mutex_unlock (&sh->lock);
  g_ptr_array_unref (free);
  lease_shells_unref (sh);
}

/* Takes `mem` (in its dispose, no reference left) as a free shell: TRUE
 * when kept (disowned, resurrected), FALSE to let it be freed. */
static gboolean
lease_shells_keep (GstDoradmaLeaseShells * sh, GstMemory * mem)
{
  gboolean keep;

  g_mutex_lock (&sh->lock);
  keep = !sh->closed && gst_doradma_memory_disown (mem);
  if (keep)
    g_ptr_array_add (sh->free, gst_memory_ref (mem));
  g_mutex_unlock (&sh->lock);
  return keep;
}

/* A free shell, or NULL. */
static GstMemory *
lease_shells_take (GstDoradmaLeaseShells * sh)
{
  GstMemory *mem = NULL;

  g_mutex_lock (&sh->lock);
  if (sh->free->len > 0)
    mem = g_ptr_array_steal_index_fast (sh->free, sh->free->len - 1);
  g_mutex_unlock (&sh->lock);
  return mem;
}

/* ---------------------------------------------------------------------- */
/* The reader handle: refcounted, so leased memories keep the mapping (and
 * the segment's CUDA registration) alive after the element let go. */

GstDoradmaReaderHandle *
gst_doradma_reader_handle_new (struct doradma_reader *r,
    GstDoradmaLeaseShells * shells)
{
  GstDoradmaReaderHandle *rh = g_new0 (GstDoradmaReaderHandle, 1);

  rh->refcount = 1;
  rh->r = r;
  rh->shells = shells ? lease_shells_ref (shells) : NULL;
  return rh;
}

GstDoradmaReaderHandle *
gst_doradma_reader_handle_ref (GstDoradmaReaderHandle * rh)
{
  g_atomic_int_inc (&rh->refcount);
  return rh;
}

void
gst_doradma_reader_handle_unref (GstDoradmaReaderHandle * rh)
{
  if (rh && g_atomic_int_dec_and_test (&rh->refcount)) {
    /* unregister / unmap the IPC handle before the mapping goes; a forked
     * child's close leaves our entry alone (the lib's fork generation) */
    gst_doradma_cuda_reader_free (rh->cuda);
    doradma_reader_close (rh->r);
    lease_shells_unref (rh->shells);
    g_free (rh);
  }
}

/* ---------------------------------------------------------------------- */
/* Lease memories */

/* A leased slot as an owner of gst_doradma_memory_new: the memory holds a
 * reference on the handle (so the mapping outlives the element) and
 * releases the lease when its last reference goes, from any thread: then
 * it is kept as a shell for the next lease (lease_returned), or freed
 * (lease_release, lease_owner_unref) once the consumer is gone. The lib
 * makes a release from a forked child a no-op, so there is no getpid
 * here. */
static gpointer
lease_owner_ref (gpointer rh)
{
  g_atomic_int_inc (&((GstDoradmaReaderHandle *) rh)->outstanding);
  return gst_doradma_reader_handle_ref (rh);
}

static void
lease_owner_unref (gpointer rh)
{
  g_atomic_int_add (&((GstDoradmaReaderHandle *) rh)->outstanding, -1);
  gst_doradma_reader_handle_unref (rh);
}

static void
lease_release (gpointer rh, guint32 slot, GstMemory * mem)
{
  doradma_reader_release (((GstDoradmaReaderHandle *) rh)->r, slot);
}

/* The memory is disowned and kept before the lease ends: once kept it may
 * wrap another slot at once, but `slot` and `rh` are ours. */
static gboolean
lease_returned (gpointer owner, guint32 slot, GstMemory * mem)
{
  GstDoradmaReaderHandle *rh = owner;

  if (rh->shells == NULL || !lease_shells_keep (rh->shells, mem))
    return TRUE;
  lease_release (rh, slot, mem);
  lease_owner_unref (rh);
  return FALSE;
}

static const GstDoradmaMemoryOwner lease_owner = {
  lease_returned, lease_release, lease_owner_ref, lease_owner_unref
};

GstMemory *
gst_doradma_lease_memory (GstDoradmaReaderHandle * rh,
    const struct doradma_frame *f, guint64 devptr)
{
  GstMemory *mem = rh->shells ? lease_shells_take (rh->shells) : NULL;

  /* a shell that is not free (a broken invariant, logged as critical) is
   * left alone rather than re-pointed under its holder */
  if (mem != NULL && gst_doradma_memory_reuse (mem, GST_MEMORY_FLAG_READONLY,
          (gpointer) f->data, f->info.payload_bytes, f->slot, devptr,
          &lease_owner, rh))
    return mem;
  return gst_doradma_memory_new (GST_MEMORY_FLAG_READONLY,
      (gpointer) f->data, f->info.payload_bytes, f->slot, devptr,
      &lease_owner, rh);
}
