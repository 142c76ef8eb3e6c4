/* doradma GStreamer plugin — doradmasink's settings.
 *
 * Its properties but `stats`: their specs and documentation, defaults and
 * values. The values are under the element's object lock; start() takes
 * its snapshot of them, and changes are refused from then until stop()
 * (but wait-for-readers'), and while the dora path runs.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SINK_SETTINGS_H__
#define __GST_DORADMA_SINK_SETTINGS_H__

#include <gst/gst.h>

#include "gstdoradmaenums.h"

G_BEGIN_DECLS
/* The settings' property ids are 1 to this - 1; the element's own start
 * here. */
#define GST_DORADMA_SINK_SETTINGS_N_PROPS 10
    typedef struct
{
  gchar *channel;
  guint slots;
  GstDoradmaTransport transport;
  GstDoradmaMode mode;
  guint permissions;
  guint64 timeout;
  guint wait_for_readers;
  GstDoradmaStallPolicy on_stall;
  guint64 spin_time;            /* ns of polling before a lossless sleep */
  gboolean started;             /* from start() to stop(): changes refused */
} GstDoradmaSinkSettings;

/* From class_init: installs the properties (before the element's own). */
void gst_doradma_sink_settings_install (GObjectClass * gobject_class);

void gst_doradma_sink_settings_init (GstDoradmaSinkSettings * s);
void gst_doradma_sink_settings_finalize (GstDoradmaSinkSettings * s);

/* The element's set/get_property for the settings' ids (`object` is the
 * element; they take its object lock). `dora_runs`: the dora path is
 * configured, so past NULL no setting may change either. */
void gst_doradma_sink_settings_set_property (GstDoradmaSinkSettings * s,
    GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec,
    gboolean dora_runs);
void gst_doradma_sink_settings_get_property (GstDoradmaSinkSettings * s,
    GObject * object, guint prop_id, GValue * value, GParamSpec * pspec);

G_END_DECLS
#endif /* __GST_DORADMA_SINK_SETTINGS_H__ */
