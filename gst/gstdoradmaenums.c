/* doradma GStreamer plugin — the enumerations of the element properties.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaenums.h"

/* *INDENT-OFF* */
static const GEnumValue transport_values[] = {
  {GST_DORADMA_TRANSPORT_AUTO, "$DORADMA_TRANSPORT when set and not empty, else shmem", "auto"},
  {GST_DORADMA_TRANSPORT_SHMEM, "Slots in POSIX shared memory (no CUDA needed)", "shmem"},
  {GST_DORADMA_TRANSPORT_UNIFIED, "Slots in POSIX shared memory that readers register with CUDA (needs CUDA)", "unified"},
  {GST_DORADMA_TRANSPORT_IPC, "Slots in one CUDA device allocation shared through CUDA IPC (needs a discrete GPU)", "ipc"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_transport_get_type, "GstDoradmaTransport", transport_values)

static const GEnumValue mode_values[] = {
  {GST_DORADMA_MODE_LATEST, "Never wait for readers; slow readers skip frames", "latest"},
  {GST_DORADMA_MODE_LOSSLESS, "Wait until every next-mode reader consumed a frame", "lossless"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_mode_get_type, "GstDoradmaMode", mode_values)

static const GEnumValue read_mode_values[] = {
  {GST_DORADMA_READ_MODE_NEXT, "Every frame in order (lossless writers wait for us)", "next"},
  {GST_DORADMA_READ_MODE_LATEST, "Always the newest frame, skipping older ones", "latest"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_read_mode_get_type, "GstDoradmaReadMode", read_mode_values)

static const GEnumValue stall_values[] = {
  {GST_DORADMA_STALL_WAIT, "Keep waiting for the stalled reader", "wait"},
  {GST_DORADMA_STALL_EVICT, "Evict the stalled reader from back-pressure", "evict"},
  {GST_DORADMA_STALL_ERROR, "Post an error and stop", "error"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_stall_policy_get_type, "GstDoradmaStallPolicy", stall_values)

static const GEnumValue writer_lost_values[] = {
  {GST_DORADMA_WRITER_LOST_WAIT, "Warn and wait for a new writer", "wait"},
  {GST_DORADMA_WRITER_LOST_EOS, "End the stream", "eos"},
  {GST_DORADMA_WRITER_LOST_ERROR, "Post an error", "error"},
  {0, NULL, NULL}
};
GST_DORADMA_DEFINE_ENUM (gst_doradma_writer_lost_get_type, "GstDoradmaWriterLost", writer_lost_values)
/* *INDENT-ON* */
