/* libgstdoradma-1.0 — the library's debug categories (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmadebugprivate.h"

GST_DEBUG_CATEGORY (gst_doradma_allocator_debug);
GST_DEBUG_CATEGORY (gst_doradma_memory_debug);

void
gst_doradma_lib_debug_init (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (gst_doradma_allocator_debug, "doradmaallocator", 0,
        "doradma CUDA slab allocator");
    GST_DEBUG_CATEGORY_INIT (gst_doradma_memory_debug, "doradmamemory", 0,
        "doradma slot memory");
    g_once_init_leave (&once, 1);
  }
}
