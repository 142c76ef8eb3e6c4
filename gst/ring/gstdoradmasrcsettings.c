/* doradma GStreamer plugin — doradmasrc's settings (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>

#include "gstdoradmasrcsettings.h"

#define DEFAULT_CHANNEL NULL
#define DEFAULT_TIMEOUT 0
#define DEFAULT_READ_MODE GST_DORADMA_READ_MODE_NEXT
#define DEFAULT_COPY FALSE
#define DEFAULT_COPY_MODE GST_DORADMA_COPY_MODE_AUTO
#define DEFAULT_MAX_LEASES 4
#define DEFAULT_ON_WRITER_LOST GST_DORADMA_WRITER_LOST_WAIT
#define DEFAULT_PROCESSING_DEADLINE (20 * GST_MSECOND)
#define DEFAULT_TRANSPORT GST_DORADMA_SRC_TRANSPORT_AUTO
#define DEFAULT_COPY_TO GST_DORADMA_COPY_TO_NONE
#define DEFAULT_COPY_BUDGET 0
#define DEFAULT_ALLOWED_UID ((gint64) getuid ())
#define DEFAULT_SPIN_TIME 0

enum
{
  PROP_0,
  PROP_CHANNEL,
  PROP_TIMEOUT,
  PROP_READ_MODE,
  PROP_COPY,
  PROP_MAX_LEASES,
  PROP_ON_WRITER_LOST,
  PROP_PROCESSING_DEADLINE,
  PROP_TRANSPORT,
  PROP_COPY_TO,
  PROP_COPY_BUDGET,
  PROP_ALLOWED_UID,
  PROP_SPIN_TIME,
  PROP_COPY_MODE,
  N_SETTINGS_PROPS
};

G_STATIC_ASSERT (N_SETTINGS_PROPS == GST_DORADMA_SRC_SETTINGS_N_PROPS);

static GParamSpec *properties[N_SETTINGS_PROPS];

/* ---------------------------------------------------------------------- */
/* The src's own enums */

static const GEnumValue src_transport_values[] = {
  {GST_DORADMA_SRC_TRANSPORT_AUTO, "unified when downstream asks for "
        "memory:CUDAMemory and CUDA works, else shmem", "auto"},
  {GST_DORADMA_SRC_TRANSPORT_SHMEM, "Host memory only", "shmem"},
  {GST_DORADMA_SRC_TRANSPORT_UNIFIED, "Register the ring with CUDA: "
        "buffers carry device pointers (needs CUDA)", "unified"},
  {0, NULL, NULL}
};

static const GEnumValue copy_to_values[] = {
  {GST_DORADMA_COPY_TO_NONE, "Lease the slot (zero-copy)", "none"},
  {GST_DORADMA_COPY_TO_UMA, "Copy into a managed (UMA) slab", "uma"},
  {GST_DORADMA_COPY_TO_PINNED, "Copy into a pinned host slab", "pinned"},
  {GST_DORADMA_COPY_TO_DEVICE, "Copy into a device slab", "device"},
  {0, NULL, NULL}
};

static const GEnumValue copy_mode_values[] = {
  {GST_DORADMA_COPY_MODE_AUTO, "Lease slots (zero-copy); copy a channel "
        "whose control object other users may write, with a warning", "auto"},
  {GST_DORADMA_COPY_MODE_NEVER, "Always lease slots (zero-copy)", "never"},
  {GST_DORADMA_COPY_MODE_ALWAYS, "Copy every frame under the slot's seqlock",
      "always"},
  {0, NULL, NULL}
};

GST_DORADMA_DEFINE_ENUM (gst_doradma_copy_mode_get_type, "GstDoradmaCopyMode",
    copy_mode_values);
GST_DORADMA_DEFINE_ENUM (gst_doradma_src_transport_get_type,
    "GstDoradmaSrcTransport", src_transport_values);
GST_DORADMA_DEFINE_ENUM (gst_doradma_copy_to_get_type, "GstDoradmaCopyTo",
    copy_to_values);

void
gst_doradma_src_settings_install (GObjectClass * gobject_class)
{
  /**
   * GstDoradmaSrc:channel:
   *
   * Name of the channel to read (as doradmasink's `channel`).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Channel name to read ([A-Za-z0-9_.-], 1-200 bytes)", DEFAULT_CHANNEL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:timeout:
   *
   * Nanoseconds to wait for the channel to appear before posting an error.
   * 0 waits forever.
   *
   * Since: 0.1
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Nanoseconds to wait for the channel to appear (0 = forever)", 0,
      G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:read-mode:
   *
   * `next` delivers every frame in order (a lossless writer waits for this
   * reader; a latest writer may lap it: skips are counted and flagged
   * DISCONT); `latest` always delivers the newest frame.
   *
   * Since: 0.1
   */
  properties[PROP_READ_MODE] = g_param_spec_enum ("read-mode", "Read mode",
      "next: every frame in order; latest: the newest frame, skipping older "
      "ones", GST_TYPE_DORADMA_READ_MODE, DEFAULT_READ_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-mode:
   *
   * `always`: copy every frame into a local buffer under the slot's
   * seqlock instead of leasing the slot (torn copies are discarded and
   * counted); the writer is never held back by this reader's buffers.
   * `never`: lease the slot (zero-copy). `auto`: lease, except on a channel
   * whose control object other users may write (group-writable, or owned
   * by a third uid): such a peer could clear our lease and get a frame we
   * read zero-copy rewritten (docs/threat-model.md), so the element copies
   * and warns.
   *
   * Since: 0.1
   */
  properties[PROP_COPY_MODE] = g_param_spec_enum ("copy-mode", "Copy mode",
      "auto: lease slots, copy only a channel whose control object other "
      "users may write (with a warning); never: always lease (zero-copy); "
      "always: copy every frame", GST_TYPE_DORADMA_COPY_MODE,
      DEFAULT_COPY_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy:
   *
   * The boolean form of `copy-mode`, kept for compatibility: TRUE sets
   * copy-mode=always, FALSE copy-mode=never. Reads TRUE while the element
   * copies (copy-mode=always, or auto on a channel others may write).
   *
   * Since: 0.1
   */
  properties[PROP_COPY] = g_param_spec_boolean ("copy", "Copy",
      "Boolean form of copy-mode: true = always, false = never; reads true "
      "while frames are copied (also under copy-mode=auto)", DEFAULT_COPY,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:max-leases:
   *
   * Zero-copy buffers this element may have outstanding at once. Beyond
   * it, frames are copied into a local pool (counted in `stats`), so a
   * downstream that holds many buffers cannot pin the ring.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LEASES] = g_param_spec_uint ("max-leases",
      "Max leases", "Zero-copy buffers outstanding at once; beyond, frames "
      "are copied (0 = always copy)", 0, DORADMA_MAX_SLOTS,
      DEFAULT_MAX_LEASES,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:on-writer-lost:
   *
   * What to do when the writer process dies: warn and wait for a new writer
   * on the same channel (its caps may differ), end the stream, or error. A
   * writer that stopped cleanly (NULL without EOS) is not a death: the
   * element waits for a new one without a warning and posts an element
   * message `doradmasrc-writer-stopped` (channel, writer-pid).
   *
   * Since: 0.1
   */
  properties[PROP_ON_WRITER_LOST] = g_param_spec_enum ("on-writer-lost",
      "On writer lost", "The writer died: wait for a new one, EOS, or error",
      GST_TYPE_DORADMA_WRITER_LOST, DEFAULT_ON_WRITER_LOST,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:processing-deadline:
   *
   * Added to the producer's latency in the LATENCY answer: the time this
   * pipeline needs to process a frame.
   *
   * Since: 0.1
   */
  properties[PROP_PROCESSING_DEADLINE] =
      g_param_spec_uint64 ("processing-deadline", "Processing deadline",
      "Nanoseconds added to the producer's latency in the LATENCY answer", 0,
      G_MAXUINT64, DEFAULT_PROCESSING_DEADLINE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstDoradmaSrc:transport:
   *
   * How frames reach the GPU. `shmem`: host memory only. `unified`: the
   * whole read-only data mapping is page-locked with CUDA once per process
   * and buffers carry its device alias (gst_doradma_memory_get_device_pointer
   * ()); an error names what is missing without CUDA. `auto`: `unified`
   * when downstream asks for memory:CUDAMemory and CUDA works, else `shmem`,
   * never an error ($DORADMA_TRANSPORT=shmem or unified overrides `auto`;
   * ipc there is the writer's setting). A writer whose slots live in GPU
   * memory (its transport ipc) is always read through its CUDA IPC handle,
   * whatever this says. The path taken is the stats' `cuda-path`.
   *
   * memory:CUDAMemory output needs a build with gstreamer-cuda (GStreamer
   * >= 1.22): one device copy per frame on 1.22, the slot itself (zero-copy)
   * from 1.24; none on GStreamer 1.20, whose CUDA library is not public
   * (the device-pointer accessor works on every version).
   *
   * Since: 0.1
   */
  properties[PROP_TRANSPORT] = g_param_spec_enum ("transport", "Transport",
      "auto: unified when downstream wants CUDA memory, else shmem; unified: "
      "register the ring with CUDA (device pointers); a writer with GPU slots "
      "is read through CUDA IPC. memory:CUDAMemory output needs gstreamer-cuda"
      " (GStreamer >= 1.22): one device copy per frame on 1.22, the slot "
      "itself from 1.24, none on 1.20", GST_TYPE_DORADMA_SRC_TRANSPORT,
      DEFAULT_TRANSPORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-to:
   *
   * Copy every frame into a CUDA slab of the given kind (managed "uma",
   * mapped "pinned" host memory, or "device" memory, which is not mappable)
   * and release the slot's lease at once, so downstream may keep buffers as
   * long as it likes without holding the writer back. Counted in the
   * stats' `copied-to-slab`. Applies to system-memory output. A
   * downstream that does not accept GstVideoMeta gets the default layout.
   *
   * Since: 0.1
   */
  properties[PROP_COPY_TO] = g_param_spec_enum ("copy-to", "Copy to",
      "Copy frames into CUDA slabs and release the lease at once",
      GST_TYPE_DORADMA_COPY_TO, DEFAULT_COPY_TO,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:copy-budget:
   *
   * Byte budget of the copy-to slab allocator (0: $DORADMA_SLAB_POOL_BYTES,
   * else 512 MiB).
   *
   * Since: 0.1
   */
  properties[PROP_COPY_BUDGET] = g_param_spec_uint64 ("copy-budget",
      "Copy budget", "Bytes the copy-to slabs may hold (0: "
      "$DORADMA_SLAB_POOL_BYTES, else 512 MiB)", 0, G_MAXUINT64,
      DEFAULT_COPY_BUDGET,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:allowed-uid:
   *
   * The uid the channel's owner (the writer's user) must have, besides our
   * own: -1 accepts any owner. Sharing a channel with another user takes a
   * common group, the sink's `permissions=0660`, and this set to the
   * writer's uid (docs/threat-model.md). Objects writable by others are
   * refused whatever this says.
   *
   * Since: 0.1
   */
  properties[PROP_ALLOWED_UID] = g_param_spec_int64 ("allowed-uid",
      "Allowed uid", "The uid the channel's owner must have besides ours "
      "(-1 = any; default: our own uid)", -1, G_MAXUINT32 - 1,
      DEFAULT_ALLOWED_UID,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  /**
   * GstDoradmaSrc:spin-time:
   *
   * Nanoseconds to poll the ring (CPU pause hint, no system call) for the
   * next frame before sleeping on the futex. A frame published meanwhile is
   * handed over without a wake-up, and a writer that finds nobody asleep
   * publishes without a system call; the price is up to one core busy for
   * that long after every frame. Polling stops at once on a frame, EOS,
   * flush or stop; a lost writer is noticed after it. Counted as `spins`
   * and `sleeps` in #GstDoradmaSrc:stats. 0 sleeps at once.
   *
   * Since: 0.1
   */
  properties[PROP_SPIN_TIME] = g_param_spec_uint64 ("spin-time", "Spin time",
      "Nanoseconds to poll for the next frame before sleeping "
      "(0 = sleep at once; costs a core while polling)", 0, G_MAXUINT64,
      DEFAULT_SPIN_TIME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY);

  g_object_class_install_properties (gobject_class, N_SETTINGS_PROPS,
      properties);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_SRC_TRANSPORT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_COPY_TO, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_COPY_MODE, 0);
}

void
gst_doradma_src_settings_init (GstDoradmaSrcSettings * s)
{
  s->channel = DEFAULT_CHANNEL;
  s->timeout = DEFAULT_TIMEOUT;
  s->read_mode = DEFAULT_READ_MODE;
  s->copy_mode = DEFAULT_COPY_MODE;
  s->max_leases = DEFAULT_MAX_LEASES;
  s->on_writer_lost = DEFAULT_ON_WRITER_LOST;
  s->processing_deadline = DEFAULT_PROCESSING_DEADLINE;
  s->transport = DEFAULT_TRANSPORT;
  s->copy_to = DEFAULT_COPY_TO;
  s->copy_budget = DEFAULT_COPY_BUDGET;
  s->allowed_uid = DEFAULT_ALLOWED_UID;
  s->spin_time = DEFAULT_SPIN_TIME;
  s->started = FALSE;
}

void
gst_doradma_src_settings_finalize (GstDoradmaSrcSettings * s)
{
  g_clear_pointer (&s->channel, g_free);
}

void
gst_doradma_src_settings_set_property (GstDoradmaSrcSettings * s,
    GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  if (prop_id != PROP_PROCESSING_DEADLINE && s->started) {
    GST_OBJECT_UNLOCK (object);
    GST_WARNING_OBJECT (object, "cannot change %s once started: set it in "
        "NULL or READY", pspec->name);
    return;
  }
  switch (prop_id) {
    case PROP_CHANNEL:
      g_free (s->channel);
      s->channel = g_value_dup_string (value);
      break;
    case PROP_TIMEOUT:
      s->timeout = g_value_get_uint64 (value);
      break;
    case PROP_READ_MODE:
      s->read_mode = g_value_get_enum (value);
      break;
    case PROP_COPY:
      s->copy_mode = g_value_get_boolean (value) ?
          GST_DORADMA_COPY_MODE_ALWAYS : GST_DORADMA_COPY_MODE_NEVER;
      break;
    case PROP_COPY_MODE:
      s->copy_mode = g_value_get_enum (value);
      break;
    case PROP_MAX_LEASES:
      s->max_leases = g_value_get_uint (value);
      break;
    case PROP_ON_WRITER_LOST:
      s->on_writer_lost = g_value_get_enum (value);
      break;
    case PROP_PROCESSING_DEADLINE:
      s->processing_deadline = g_value_get_uint64 (value);
      break;
    case PROP_TRANSPORT:
      s->transport = g_value_get_enum (value);
      break;
    case PROP_COPY_TO:
      s->copy_to = g_value_get_enum (value);
      break;
    case PROP_COPY_BUDGET:
      s->copy_budget = g_value_get_uint64 (value);
      break;
    case PROP_ALLOWED_UID:
      s->allowed_uid = g_value_get_int64 (value);
      break;
    case PROP_SPIN_TIME:
      s->spin_time = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
  if (prop_id == PROP_PROCESSING_DEADLINE)
    gst_element_post_message (GST_ELEMENT (object),
        gst_message_new_latency (GST_OBJECT (object)));
}

void
gst_doradma_src_settings_get_property (GstDoradmaSrcSettings * s,
    GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_CHANNEL:
      g_value_set_string (value, s->channel);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, s->timeout);
      break;
    case PROP_READ_MODE:
      g_value_set_enum (value, s->read_mode);
      break;
    case PROP_COPY:
      g_value_set_boolean (value, s->copy_mode == GST_DORADMA_COPY_MODE_ALWAYS);
      break;
    case PROP_COPY_MODE:
      g_value_set_enum (value, s->copy_mode);
      break;
    case PROP_MAX_LEASES:
      g_value_set_uint (value, s->max_leases);
      break;
    case PROP_ON_WRITER_LOST:
      g_value_set_enum (value, s->on_writer_lost);
      break;
    case PROP_PROCESSING_DEADLINE:
      g_value_set_uint64 (value, s->processing_deadline);
      break;
    case PROP_TRANSPORT:
      g_value_set_enum (value, s->transport);
      break;
    case PROP_COPY_TO:
      g_value_set_enum (value, s->copy_to);
      break;
    case PROP_COPY_BUDGET:
      g_value_set_uint64 (value, s->copy_budget);
      break;
    case PROP_ALLOWED_UID:
      g_value_set_int64 (value, s->allowed_uid);
      break;
    case PROP_SPIN_TIME:
      g_value_set_uint64 (value, s->spin_time);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}
