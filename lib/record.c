/* The frame record: a frame_info laid out as the writer stores it in a
 * slot, and the public face of the record and caps validators, so that
 * what crosses a network (gst/gstdoradmanetwire.c) is checked by the same
 * rules as a slot of the ring.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "segment-desc.h"

#define PUBLIC __attribute__ ((visibility ("default")))

PUBLIC void
doradma_frame_record_encode (const struct doradma_frame_info *info,
    struct doradma_shm_slot *rec)
{
  memset (rec, 0, sizeof (*rec));
  rec->seq = info->seq;
  rec->caps_epoch = info->caps_epoch;
  rec->n_planes = info->n_planes;
  rec->width = info->width;
  rec->height = info->height;
  memcpy (rec->planes, info->planes, sizeof (rec->planes));
  rec->crop_x = info->crop_x;
  rec->crop_y = info->crop_y;
  rec->crop_width = info->crop_width;
  rec->crop_height = info->crop_height;
  rec->pts = info->pts;
  rec->dts = info->dts;
  rec->duration = info->duration;
  rec->offset = info->offset;
  rec->offset_end = info->offset_end;
  rec->flags = info->flags;
  rec->video_flags = info->video_flags;
  rec->payload_bytes = info->payload_bytes;
  rec->publish_time = info->publish_time;
  rec->mono_pts = info->mono_pts;
}

PUBLIC int
doradma_frame_record_validate (const struct doradma_shm_slot *rec,
    uint64_t capacity, struct doradma_frame_info *info,
    struct doradma_diag *diag)
{
  struct doradma_segment_desc desc;

  memset (&desc, 0, sizeof (desc));
  desc.slot_stride = capacity;
  return slot_record_validate (rec, &desc, info, diag);
}

PUBLIC int
doradma_caps_validate (const char *caps, size_t len, struct doradma_diag *diag)
{
  return caps_string_validate (caps, len, diag);
}
