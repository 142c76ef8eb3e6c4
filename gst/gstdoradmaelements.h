/* doradma GStreamer plugin — private declarations shared by the elements.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_ELEMENTS_H__
#define __GST_DORADMA_ELEMENTS_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <doradma/doradma.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (doradmasink);
GST_ELEMENT_REGISTER_DECLARE (doradmasrc);

GST_DEBUG_CATEGORY_EXTERN (gst_doradma_debug);

/* Once per process: the shared debug category, and every enum below marked
 * as plugin API (nowhere else). */
void gst_doradma_element_init (GstPlugin * plugin);

/* Enumerations of the element properties. */
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

/* Defines `GType func (void)` registering enum `Name` from `values` once. */
#define GST_DORADMA_DEFINE_ENUM(func, Name, values)                     \
GType                                                                   \
func (void)                                                             \
{                                                                       \
  static gsize id = 0;                                                  \
  if (g_once_init_enter (&id)) {                                        \
    GType t = g_enum_register_static (Name, values);                    \
    g_once_init_leave (&id, t);                                         \
  }                                                                     \
  return (GType) id;                                                    \
}

/* The caps feature of GStreamer's CUDA memory. */
#define GST_DORADMA_CUDA_FEATURE "memory:CUDAMemory"

/* Buffer flags that travel with a frame (the wire contract: the writer
 * stores exactly these, the reader restores exactly these). */
#define GST_DORADMA_CARRIED_FLAGS (GST_BUFFER_FLAG_DISCONT | \
    GST_BUFFER_FLAG_RESYNC | GST_BUFFER_FLAG_CORRUPTED | \
    GST_BUFFER_FLAG_MARKER | GST_BUFFER_FLAG_HEADER | GST_BUFFER_FLAG_GAP | \
    GST_BUFFER_FLAG_DROPPABLE | GST_BUFFER_FLAG_DELTA_UNIT | \
    GST_BUFFER_FLAG_NON_DROPPABLE)

/* Resolves `auto` through $DORADMA_TRANSPORT (empty = unset). Returns FALSE
 * with *bad_value set (to be g_free'd) when the variable holds an unknown
 * value. */
gboolean gst_doradma_transport_resolve (GstDoradmaTransport requested,
    GstDoradmaTransport * resolved, gchar ** bad_value);
/* The same, posting RESOURCE/SETTINGS on `element` naming the variable. */
gboolean gst_doradma_transport_resolve_or_error (GstElement * element,
    GstDoradmaTransport requested, GstDoradmaTransport * resolved);
const gchar *gst_doradma_transport_name (GstDoradmaTransport t);

/* TRUE when `channel` is set and a valid DORADMA name; else posts
 * RESOURCE/SETTINGS on `element` naming the fault (call it without the
 * object lock). */
gboolean gst_doradma_channel_check_or_error (GstElement * element,
    const gchar * channel);

/* Geometry shared by writer and reader: the rows and bytes per row that a
 * plane of `info`'s format needs at its width/height. The writer publishes
 * exactly these, the reader requires at least these. */
void gst_doradma_plane_needs (const GstVideoInfo * info, guint plane,
    guint32 * rows, guint32 * row_bytes);

/* Nanoseconds of CLOCK_MONOTONIC, the clock of publish_time and mono_pts. */
GstClockTime gst_doradma_monotonic_now (void);

/* How an element maps its running times to CLOCK_MONOTONIC (the clock of
 * mono_pts): base time + (monotonic − pipeline clock), sampled per frame,
 * except on GStreamer's system clock on CLOCK_MONOTONIC (the default
 * pipeline clock) with its calibration untouched: its time is
 * CLOCK_MONOTONIC's, so no clock is read. */
typedef struct
{
  GstClock *monotonic;          /* the element's clock, when it is such a
                                 * clock; compared, never dereferenced */
} GstDoradmaClockMap;

/* From the element's set_clock, before chaining up. A clock's clock-type
 * changed while it is set is seen when it is set again (next PLAYING). */
void gst_doradma_clock_map_set_clock (GstDoradmaClockMap * map,
    GstElement * element, GstClock * clock);
/* CLOCK_MONOTONIC at `element`'s running time 0; FALSE without a clock. */
gboolean gst_doradma_clock_map_offset (GstDoradmaClockMap * map,
    GstElement * element, gint64 * offset);


G_END_DECLS

#endif /* __GST_DORADMA_ELEMENTS_H__ */
