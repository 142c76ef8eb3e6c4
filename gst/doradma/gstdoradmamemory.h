/* doradma GStreamer plugin — public accessors for doradma memory.
 *
 * Buffers pushed by doradmasrc (zero-copy path) and buffers handed out by
 * doradmasink's pool carry GstMemory of type "DoradmaSlot": a frame slot of
 * a doradma ring in shared memory. Applications that want the raw pointer,
 * or the CUDA device alias of a slot, use these accessors (the gstfdmemory
 * model). libgstdoradma-1.0 exports them; declare them through this header.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_MEMORY_H__
#define __GST_DORADMA_MEMORY_H__

#include <gst/gst.h>
#include "doradma-prelude.h"

G_BEGIN_DECLS

/**
 * GST_DORADMA_MEMORY_TYPE:
 *
 * The mem_type of doradma slot memory ("DoradmaSlot").
 */
#define GST_DORADMA_MEMORY_TYPE "DoradmaSlot"

/**
 * gst_is_doradma_memory:
 * @mem: a #GstMemory
 *
 * Returns: %TRUE when @mem is a slot of a doradma ring (either a slot a
 * writer fills or a leased, read-only slot a reader received).
 */
GST_DORADMA_API
gboolean gst_is_doradma_memory (GstMemory * mem);

/**
 * gst_doradma_memory_get_host_pointer:
 * @mem: a doradma #GstMemory
 *
 * Returns: (type guintptr): the host address of the first byte of @mem (its
 * offset applied; the address gst_memory_map() gives), or %NULL (0) when
 * the slot lives in device memory only. Readers' memory is mapped
 * read-only: never write through this pointer. It is valid while @mem is
 * alive (introspected as an integer, for ctypes/NumPy).
 */
GST_DORADMA_API
gpointer gst_doradma_memory_get_host_pointer (GstMemory * mem);

/**
 * gst_doradma_memory_get_device_pointer:
 * @mem: a doradma #GstMemory
 *
 * Returns: the CUDA device address (CUdeviceptr) of the first byte of @mem,
 * or 0 when there is none (this build has no CUDA support, or the reader
 * did not register the segment with CUDA).
 *
 * For doradmasrc's transport "unified" it is the device alias of the
 * page-locked shm mapping (alias + slot offset: never assume it equals the
 * host pointer); for "ipc" it is inside the writer's device allocation
 * (base + slot * stride), and the memory has no host pointer. The address
 * is valid in device 0's primary context while @mem is alive (it holds the
 * slot's lease); finish the GPU work that reads it (synchronise the
 * stream) before unreffing the buffer.
 */
GST_DORADMA_API
guint64 gst_doradma_memory_get_device_pointer (GstMemory * mem);

/**
 * gst_doradma_memory_get_slot:
 * @mem: a doradma #GstMemory
 *
 * Returns: the index of the ring slot @mem wraps (0 .. slots - 1; shares
 * of a memory have their parent's slot). While @mem is alive the slot is
 * held: a writer cannot reuse it (a reader's lease), so release buffers
 * promptly.
 */
GST_DORADMA_API
guint32 gst_doradma_memory_get_slot (GstMemory * mem);

G_END_DECLS

#endif /* __GST_DORADMA_MEMORY_H__ */
