/* doradma GStreamer plugin — doradmasrc's settings.
 *
 * Its properties but `stats`: their specs and documentation, defaults and
 * values, and the src's own two enums. The values are under the element's
 * object lock, and changes are refused from start() to stop() (but
 * processing-deadline's, which re-announces the latency).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SRC_SETTINGS_H__
#define __GST_DORADMA_SRC_SETTINGS_H__

#include <gst/gst.h>

#include "gstdoradmaenums.h"
#include "gstdoradmaconsumer.h"
#include "gstdoradmacudaoutput.h"

G_BEGIN_DECLS GType gst_doradma_src_transport_get_type (void);
GType gst_doradma_copy_to_get_type (void);
GType gst_doradma_copy_mode_get_type (void);
#define GST_TYPE_DORADMA_SRC_TRANSPORT (gst_doradma_src_transport_get_type ())
#define GST_TYPE_DORADMA_COPY_TO (gst_doradma_copy_to_get_type ())
#define GST_TYPE_DORADMA_COPY_MODE (gst_doradma_copy_mode_get_type ())

/* `copy-mode`: lease or copy. AUTO copies only a channel whose control
 * object other users may write (docs/threat-model.md). */
typedef enum
{
  GST_DORADMA_COPY_MODE_AUTO = 0,
  GST_DORADMA_COPY_MODE_NEVER = 1,
  GST_DORADMA_COPY_MODE_ALWAYS = 2,
} GstDoradmaCopyMode;

/* The settings' property ids are 1 to this - 1; the element's own start
 * here. */
#define GST_DORADMA_SRC_SETTINGS_N_PROPS 14

typedef struct
{
  gchar *channel;
  guint64 timeout;
  GstDoradmaReadMode read_mode;
  GstDoradmaCopyMode copy_mode;  /* also what the boolean `copy` sets */
  guint max_leases;
  GstDoradmaWriterLost on_writer_lost;
  GstClockTime processing_deadline;
  GstDoradmaSrcTransport transport;
  GstDoradmaCopyTo copy_to;
  guint64 copy_budget;
  gint64 allowed_uid;
  guint64 spin_time;
  gboolean started;             /* from start() to stop(): changes refused */
} GstDoradmaSrcSettings;

/* From class_init: installs the properties (before the element's own). */
void gst_doradma_src_settings_install (GObjectClass * gobject_class);

void gst_doradma_src_settings_init (GstDoradmaSrcSettings * s);
void gst_doradma_src_settings_finalize (GstDoradmaSrcSettings * s);

/* The element's set/get_property for the settings' ids (`object` is the
 * element; they take its object lock). */
void gst_doradma_src_settings_set_property (GstDoradmaSrcSettings * s,
    GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec);
void gst_doradma_src_settings_get_property (GstDoradmaSrcSettings * s,
    GObject * object, guint prop_id, GValue * value, GParamSpec * pspec);

G_END_DECLS
#endif /* __GST_DORADMA_SRC_SETTINGS_H__ */
