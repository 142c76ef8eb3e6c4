/* doradma GStreamer plugin — the enumerations of the element properties.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ENUMS_H__
#define __GST_DORADMA_ENUMS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  GST_DORADMA_TRANSPORT_AUTO,
  GST_DORADMA_TRANSPORT_SHMEM,
  GST_DORADMA_TRANSPORT_UNIFIED,
  GST_DORADMA_TRANSPORT_IPC,
} GstDoradmaTransport;

typedef enum
{
  GST_DORADMA_MODE_LATEST,
  GST_DORADMA_MODE_LOSSLESS,
} GstDoradmaMode;

typedef enum
{
  GST_DORADMA_READ_MODE_NEXT,
  GST_DORADMA_READ_MODE_LATEST,
} GstDoradmaReadMode;

typedef enum
{
  GST_DORADMA_STALL_WAIT,
  GST_DORADMA_STALL_EVICT,
  GST_DORADMA_STALL_ERROR,
} GstDoradmaStallPolicy;

typedef enum
{
  GST_DORADMA_WRITER_LOST_WAIT,
  GST_DORADMA_WRITER_LOST_EOS,
  GST_DORADMA_WRITER_LOST_ERROR,
} GstDoradmaWriterLost;

GType gst_doradma_transport_get_type (void);
GType gst_doradma_mode_get_type (void);
GType gst_doradma_read_mode_get_type (void);
GType gst_doradma_stall_policy_get_type (void);
GType gst_doradma_writer_lost_get_type (void);
#define GST_TYPE_DORADMA_TRANSPORT (gst_doradma_transport_get_type ())
#define GST_TYPE_DORADMA_MODE (gst_doradma_mode_get_type ())
#define GST_TYPE_DORADMA_READ_MODE (gst_doradma_read_mode_get_type ())
#define GST_TYPE_DORADMA_STALL_POLICY (gst_doradma_stall_policy_get_type ())
#define GST_TYPE_DORADMA_WRITER_LOST (gst_doradma_writer_lost_get_type ())

/* Defines `GType func (void)` registering enum `Name` from `values` once.
 * Both plugins (libgstdoradma, libgstdoradmanet) carry a copy of this code:
 * whichever loads second takes the type the first registered (same name,
 * same values) instead of failing to register it again. */
#define GST_DORADMA_DEFINE_ENUM(func, Name, values)                     \
GType                                                                   \
func (void)                                                             \
{                                                                       \
  static gsize id = 0;                                                  \
  if (g_once_init_enter (&id)) {                                        \
    GType t = g_type_from_name (Name);                                  \
    if (t == 0)                                                         \
      t = g_enum_register_static (Name, values);                        \
    g_once_init_leave (&id, t);                                         \
  }                                                                     \
  return (GType) id;                                                    \
}

G_END_DECLS
#endif /* __GST_DORADMA_ENUMS_H__ */
