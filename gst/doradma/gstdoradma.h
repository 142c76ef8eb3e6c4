/* doradma application SDK — everything an application includes.
 *
 *   #include <gst/doradma/gstdoradma.h>
 *   cc app.c $(pkg-config --cflags --libs gstreamer-doradma-1.0)
 *
 * The API (slot memory accessors, the CUDA slab allocator) and the rule
 * for holding buffers: docs/sdk.md.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_H__
#define __GST_DORADMA_H__

#include "doradma-prelude.h"
#include "gstdoradmamemory.h"
#include "gstdoradmaframemeta.h"
#include "gstdoradmaallocator.h"
/* generated (meson): in the build tree, installed next to this one */
#include <gst/doradma/gstdoradmaversion.h>

#endif /* __GST_DORADMA_H__ */
