/* doradma GStreamer plugin — doradmasrc's frame timing.
 *
 * Which received frames go out after a join or a pause, and at which PTS:
 * frames published while the element was paused never go out; of the
 * frames in the ring when it joined that were captured before its base
 * time, only the newest does; PTS never repeat nor go backwards. Also the
 * DISCONT flag, raised by every frame that does not go out.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_SRC_TIME_H__
#define __GST_DORADMA_SRC_TIME_H__

#include <gst/gst.h>

#include "gstdoradmaenums.h"
#include "gstdoradmaclock.h"
#include "gstdoradmaconsumer.h"

G_BEGIN_DECLS typedef struct
{
  GstElement *element;          /* the source; not a ref */

  /* under the element's object lock: the resume time of a PAUSED →
   * PLAYING after having played */
  gboolean played;
  GstClockTime resume_mono;
  gint resync;                  /* atomic: frames before resume_mono go */

  /* streaming thread only (set in start()) */
  GstDoradmaReadMode read_mode;
  gboolean discont;             /* the next buffer goes out DISCONT */
  gboolean pushed;              /* a buffer went out since start() */
  GstClockTime last_pts;
  GstClockTime rebase;          /* next mode: added to running times */
  GstClockTime placed_rebase;   /* the rebase of the frame placed last:
                                 * ours once it is stamped */
  guint64 last_mono_pts;        /* the capture time (writer's
                                 * CLOCK_MONOTONIC) of the frame stamped
                                 * last_pts, or DORADMA_TIME_NONE */
  GstDoradmaClockMap clock_map; /* mono_pts → running time */
} GstDoradmaSrcTime;

void gst_doradma_src_time_init (GstDoradmaSrcTime * t, GstElement * element);
/* start(), with the object lock: nothing played, nothing pushed yet. */
void gst_doradma_src_time_start (GstDoradmaSrcTime * t,
    GstDoradmaReadMode read_mode);
/* PAUSED → PLAYING, with the object lock: a resume after an earlier
 * PLAYING makes frames published before now stale. */
void gst_doradma_src_time_playing (GstDoradmaSrcTime * t);

/* Leaves `fr` unused (lease or copy back, counted); the next buffer is
 * DISCONT. */
void gst_doradma_src_time_drop (GstDoradmaSrcTime * t,
    GstDoradmaConsumer * consumer, GstDoradmaConsumerFrame * fr);
/* Decides whether the frame goes out now, and at which *pts. FALSE when
 * the frame was dropped, or set aside for a newer one. */
gboolean gst_doradma_src_time_place (GstDoradmaSrcTime * t,
    GstDoradmaConsumer * consumer, GstDoradmaConsumerFrame * fr,
    GstClockTime * pts);
/* Stamps the buffer `fr` became (gst_doradma_src_output_frame, which
 * gave it its frame meta): PTS, the writer's fields, DISCONT. `fr` is the
 * frame place() accepted last: its shift and capture time become the
 * reference of the next frames. */
void gst_doradma_src_time_stamp (GstDoradmaSrcTime * t, GstBuffer * buf,
    const GstDoradmaConsumerFrame * fr, GstClockTime pts);

G_END_DECLS
#endif /* __GST_DORADMA_SRC_TIME_H__ */
