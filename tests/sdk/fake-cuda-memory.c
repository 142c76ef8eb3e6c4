/* A stand-in for GstCudaMemory where there is no GPU (tests/sdk
 * python-device-frames): memory of the type gstreamer-cuda gives its own
 * ("gst.cuda.memory") whose map with GST_MAP_CUDA yields a made-up device
 * address and whose host map fails (a real one would download into a
 * staging copy: the Python module must never take that path). Nothing
 * dereferences the address. Loaded with ctypes; counts live memories so the
 * test can see when the frame let go.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>

#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)       /* gstcudamemory.h's GST_MAP_CUDA */

typedef struct
{
  GstMemory mem;
  guint64 device;
} FakeCudaMemory;

typedef GstAllocator FakeCudaAllocator;
typedef GstAllocatorClass FakeCudaAllocatorClass;

GType fake_cuda_allocator_get_type (void);
G_DEFINE_TYPE (FakeCudaAllocator, fake_cuda_allocator, GST_TYPE_ALLOCATOR);

static gint live;
static gint host_maps;

static void
fake_free (GstAllocator * a, GstMemory * mem)
{
  g_atomic_int_add (&live, -1);
  g_free (mem);
}

static gpointer
fake_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  if (!(flags & MAP_CUDA)) {
    g_atomic_int_inc (&host_maps);
    return NULL;
  }
  return (gpointer) (guintptr) ((FakeCudaMemory *) mem)->device;
}

static void
fake_unmap (GstMemory * mem)
{
}

static void
fake_cuda_allocator_class_init (FakeCudaAllocatorClass * klass)
{
  klass->free = fake_free;
}

static void
fake_cuda_allocator_init (FakeCudaAllocator * a)
{
  a->mem_type = "gst.cuda.memory";
  a->mem_map = fake_map;
  a->mem_unmap = fake_unmap;
  GST_OBJECT_FLAG_SET (a, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

/* Appends `size` bytes of fake CUDA memory at `device` to `buffer` (a
 * writable GstBuffer). Returns 0, or -1 when `buffer` is not one. */
int
fake_cuda_append (gpointer buffer, guint64 device, gsize size)
{
  static GstAllocator *alloc;
  FakeCudaMemory *m;

  if (buffer == NULL || GST_MINI_OBJECT_TYPE (buffer) != GST_TYPE_BUFFER
      || !gst_buffer_is_writable (buffer))
    return -1;
  if (alloc == NULL)
    alloc = g_object_new (fake_cuda_allocator_get_type (), NULL);
  m = g_new0 (FakeCudaMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (m), 0, alloc, NULL, size, 0, 0, size);
  m->device = device;
  g_atomic_int_inc (&live);
  gst_buffer_append_memory (buffer, GST_MEMORY_CAST (m));
  return 0;
}

int
fake_cuda_live (void)
{
  return g_atomic_int_get (&live);
}

int
fake_cuda_host_maps (void)
{
  return g_atomic_int_get (&host_maps);
}
