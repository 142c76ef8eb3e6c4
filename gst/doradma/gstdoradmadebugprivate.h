/* libgstdoradma-1.0 — private: the library's debug categories.
 *
 * Registered together, once: by gst_doradma_slab_allocator_register_all
 * (the plugin's init, so `gst-inspect-1.0 --gst-debug-help` lists them
 * with the plugin loaded) and, for safety, before any first use.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DEBUG_PRIVATE_H__
#define __GST_DORADMA_DEBUG_PRIVATE_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* "doradmaallocator" and "doradmamemory" */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_allocator_debug);
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_memory_debug);

/* Not exported (the library builds with -fvisibility=hidden). */
void gst_doradma_lib_debug_init (void);

G_END_DECLS
#endif /* __GST_DORADMA_DEBUG_PRIVATE_H__ */
