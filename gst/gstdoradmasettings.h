/* doradma GStreamer plugin — the settings both elements resolve or check:
 * $DORADMA_TRANSPORT (parsed here only) and the channel name.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SETTINGS_H__
#define __GST_DORADMA_SETTINGS_H__

#include <gst/gst.h>

#include "gstdoradmaenums.h"

G_BEGIN_DECLS
/* What $DORADMA_TRANSPORT names: AUTO when unset, empty or "auto". FALSE
 * with *bad_value set (to be g_free'd) when it holds an unknown value. */
    gboolean gst_doradma_transport_from_env (GstDoradmaTransport * from_env,
    gchar ** bad_value);
/* The same, posting RESOURCE/SETTINGS on `element` naming the variable. */
gboolean gst_doradma_transport_from_env_or_error (GstElement * element,
    GstDoradmaTransport * from_env);

/* The writer's transport: `auto` resolves through $DORADMA_TRANSPORT, and
 * to shmem when that is unset; an explicit property wins. FALSE after
 * posting an error for a bad value. */
gboolean gst_doradma_transport_resolve_or_error (GstElement * element,
    GstDoradmaTransport requested, GstDoradmaTransport * resolved);
const gchar *gst_doradma_transport_name (GstDoradmaTransport t);

/* TRUE when `channel` is set and a valid DORADMA name; else posts
 * RESOURCE/SETTINGS on `element` naming the fault (call it without the
 * object lock). */
gboolean gst_doradma_channel_check_or_error (GstElement * element,
    const gchar * channel);

/* doradmasink at start: TRUE unless the name `channel` holds now what the
 * writer would refuse (a live writer's channel, a FIFO, a link or another
 * user's object: a squatter); else posts that error on `element`, so the
 * state change fails at once instead of upstream's streaming thread
 * failing later. The creation checks again (the name may change). */
gboolean gst_doradma_channel_free_or_error (GstElement * element,
    const gchar * channel);

G_END_DECLS
#endif /* __GST_DORADMA_SETTINGS_H__ */
