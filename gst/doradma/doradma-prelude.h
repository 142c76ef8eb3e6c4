/* doradma application SDK — symbol export of libgstdoradma-1.0.
 *
 * The library is built with -fvisibility=hidden: only declarations marked
 * GST_DORADMA_API are exported (as gst-plugins-bad's cuda-prelude.h).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_PRELUDE_H__
#define __GST_DORADMA_PRELUDE_H__

#include <gst/gst.h>

/* Spelled out rather than GST_API_EXPORT, which GStreamer 1.18 lacks
 * (doradma is Linux-only: the ELF visibility attribute is all it takes). */
#ifndef GST_DORADMA_API
# ifdef BUILDING_GST_DORADMA
#  define GST_DORADMA_API __attribute__ ((visibility ("default"))) extern
# else
#  define GST_DORADMA_API extern
# endif
#endif

#endif /* __GST_DORADMA_PRELUDE_H__ */
