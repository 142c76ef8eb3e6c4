/* doradma GStreamer plugin — doradmasink's settings (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <doradma/doradma.h>

#include "gstdoradmasinksettings.h"

/* the element's category: a refused change is the sink's warning */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_sink_debug);
#define GST_CAT_DEFAULT gst_doradma_sink_debug

#define DEFAULT_CHANNEL NULL
#define DEFAULT_SLOTS 8
#define DEFAULT_TRANSPORT GST_DORADMA_TRANSPORT_AUTO
#define DEFAULT_MODE GST_DORADMA_MODE_LATEST
#define DEFAULT_PERMISSIONS 0600
#define DEFAULT_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_WAIT_FOR_READERS 0
#define DEFAULT_ON_STALL GST_DORADMA_STALL_ERROR
#define DEFAULT_SPIN_TIME 0

enum
{
  PROP_0,
  PROP_CHANNEL,
  PROP_SLOTS,
  PROP_TRANSPORT,
  PROP_MODE,
  PROP_PERMISSIONS,
  PROP_TIMEOUT,
  PROP_WAIT_FOR_READERS,
  PROP_ON_READER_STALL,
  PROP_SPIN_TIME,
  N_SETTINGS_PROPS
};

G_STATIC_ASSERT (N_SETTINGS_PROPS == GST_DORADMA_SINK_SETTINGS_N_PROPS);

static GParamSpec *properties[N_SETTINGS_PROPS];

void
gst_doradma_sink_settings_install (GObjectClass * gobject_class)
{
  /**
   * GstDoradmaSink:channel:
   *
   * Name of the channel: 1 to 200 bytes of [A-Za-z0-9_.-], not starting with
   * a dot. The ring lives in /dev/shm/doradma.<channel> (or under
   * $DORADMA_SHM_DIR).
   *
   * Since: 0.1
   */
  properties[PROP_CHANNEL] = g_param_spec_string ("channel", "Channel",
      "Channel name ([A-Za-z0-9_.-], 1-200 bytes); the ring is "
      "/dev/shm/doradma.<channel>", DEFAULT_CHANNEL,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:slots:
   *
   * Frame slots in the ring, at least 2 (the newest frame is never
   * rewritten, so one slot would publish a single frame). Sizing rule:
   * slots >= 1 (the newest frame) + buffers upstream keeps (decoder
   * references) + the sum of the readers' max-leases + 1.
   *
   * Since: 0.1
   */
  properties[PROP_SLOTS] = g_param_spec_uint ("slots", "Slots",
      "Frame slots in the ring (>= 1 newest + upstream outstanding + sum of "
      "reader max-leases + 1)", 2, DORADMA_MAX_SLOTS, DEFAULT_SLOTS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:transport:
   *
   * Where the slots live. `auto` follows $DORADMA_TRANSPORT when it is set
   * and not empty, else `shmem`. `unified` and `ipc` need CUDA.
   *
   * Since: 0.1
   */
  properties[PROP_TRANSPORT] = g_param_spec_enum ("transport", "Transport",
      "Where the slots live (auto follows $DORADMA_TRANSPORT, else shmem)",
      GST_TYPE_DORADMA_TRANSPORT, DEFAULT_TRANSPORT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:mode:
   *
   * `latest` never waits for readers (frames go through a fallback buffer or
   * are dropped when every slot is busy, counted); `lossless` waits until
   * every `next`-mode reader consumed a frame before reusing its slot.
   *
   * Since: 0.1
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode",
      "latest: never wait for readers; lossless: wait for every next-mode "
      "reader", GST_TYPE_DORADMA_MODE, DEFAULT_MODE,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:permissions:
   *
   * File mode of the channel's objects in /dev/shm. Readers need read
   * access to the data object and read-write access to the control object;
   * share with another user through a common group (0660). Modes writable
   * by others (o+w, such as 0666) are refused at start: every reader
   * refuses such objects. 0 means 0600.
   *
   * Since: 0.1
   */
  properties[PROP_PERMISSIONS] = g_param_spec_uint ("permissions",
      "Permissions", "File mode of the channel's shared-memory objects "
      "(e.g. 0600 = 384, 0660 = 432; 0 = 0600; o+w is refused)", 0, 0777,
      DEFAULT_PERMISSIONS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:timeout:
   *
   * Nanoseconds lossless mode waits for a free slot before applying
   * #GstDoradmaSink:on-reader-stall. 0 waits forever.
   *
   * Since: 0.1
   */
  properties[PROP_TIMEOUT] = g_param_spec_uint64 ("timeout", "Timeout",
      "Nanoseconds lossless mode waits for a free slot (or, before "
      "replacing the segment, for readers still in an older one) before "
      "applying on-reader-stall (0 = forever)", 0, G_MAXUINT64, DEFAULT_TIMEOUT,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:spin-time:
   *
   * Nanoseconds lossless mode polls the ring for a free slot (CPU pause
   * hint, no system call) before sleeping on the futex: a reader that
   * frees the slot then hands it over without a wake-up. Costs up to one
   * core for that long per full ring. Counted as `spins` (waits that ended
   * while polling) and `sleeps` in #GstDoradmaSink:stats. 0 sleeps at once.
   *
   * Since: 0.1
   */
  properties[PROP_SPIN_TIME] = g_param_spec_uint64 ("spin-time", "Spin time",
      "Nanoseconds lossless mode polls for a free slot before sleeping "
      "(0 = sleep at once; costs a core while polling)", 0, G_MAXUINT64,
      DEFAULT_SPIN_TIME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /**
   * GstDoradmaSink:wait-for-readers:
   *
   * Publish nothing until this many readers joined the channel: render
   * blocks (interruptibly) until then, once per start; readers leaving
   * later do not stop publishing. 0 publishes at once.
   *
   * Since: 0.1
   */
  properties[PROP_WAIT_FOR_READERS] = g_param_spec_uint ("wait-for-readers",
      "Wait for readers", "Block rendering until this many readers joined "
      "(0 = publish at once)", 0, DORADMA_MAX_READERS,
      DEFAULT_WAIT_FOR_READERS,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  /**
   * GstDoradmaSink:on-reader-stall:
   *
   * What lossless mode does when no slot became free within `timeout`:
   * keep waiting, evict the stalled readers from back-pressure (their leases
   * stay honoured), or post an error.
   *
   * Since: 0.1
   */
  properties[PROP_ON_READER_STALL] = g_param_spec_enum ("on-reader-stall",
      "On reader stall", "Lossless mode, no slot free within timeout (or a "
      "reader not yet in the segment being replaced): wait, evict the "
      "stalled readers, or error", GST_TYPE_DORADMA_STALL_POLICY,
      DEFAULT_ON_STALL, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (gobject_class, N_SETTINGS_PROPS,
      properties);
}

void
gst_doradma_sink_settings_init (GstDoradmaSinkSettings * s)
{
  s->channel = g_strdup (DEFAULT_CHANNEL);
  s->slots = DEFAULT_SLOTS;
  s->transport = DEFAULT_TRANSPORT;
  s->mode = DEFAULT_MODE;
  s->permissions = DEFAULT_PERMISSIONS;
  s->timeout = DEFAULT_TIMEOUT;
  s->wait_for_readers = DEFAULT_WAIT_FOR_READERS;
  s->on_stall = DEFAULT_ON_STALL;
  s->spin_time = DEFAULT_SPIN_TIME;
  s->started = FALSE;
}

void
gst_doradma_sink_settings_finalize (GstDoradmaSinkSettings * s)
{
  g_clear_pointer (&s->channel, g_free);
}

void
gst_doradma_sink_settings_set_property (GstDoradmaSinkSettings * s,
    GObject * object, guint prop_id, const GValue * value, GParamSpec * pspec,
    gboolean dora_runs)
{
  GST_OBJECT_LOCK (object);
  /* start() (NULL to READY) took the snapshot the channel is made from:
   * a later change would apply to part of the element only; with the dora
   * path started, to a path that does not run */
  if (prop_id != PROP_WAIT_FOR_READERS && (s->started || (dora_runs
              && GST_STATE (object) > GST_STATE_NULL))) {
    GST_WARNING_OBJECT (object, "cannot change %s after the element started "
        "(set it in the NULL state)", pspec->name);
    GST_OBJECT_UNLOCK (object);
    return;
  }
  switch (prop_id) {
    case PROP_CHANNEL:
      g_free (s->channel);
      s->channel = g_value_dup_string (value);
      break;
    case PROP_SLOTS:
      s->slots = g_value_get_uint (value);
      break;
    case PROP_TRANSPORT:
      s->transport = g_value_get_enum (value);
      break;
    case PROP_MODE:
      s->mode = g_value_get_enum (value);
      break;
    case PROP_PERMISSIONS:
      s->permissions = g_value_get_uint (value);
      break;
    case PROP_TIMEOUT:
      s->timeout = g_value_get_uint64 (value);
      break;
    case PROP_WAIT_FOR_READERS:
      s->wait_for_readers = g_value_get_uint (value);
      break;
    case PROP_ON_READER_STALL:
      s->on_stall = g_value_get_enum (value);
      break;
    case PROP_SPIN_TIME:
      s->spin_time = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

void
gst_doradma_sink_settings_get_property (GstDoradmaSinkSettings * s,
    GObject * object, guint prop_id, GValue * value, GParamSpec * pspec)
{
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_CHANNEL:
      g_value_set_string (value, s->channel);
      break;
    case PROP_SLOTS:
      g_value_set_uint (value, s->slots);
      break;
    case PROP_TRANSPORT:
      g_value_set_enum (value, s->transport);
      break;
    case PROP_MODE:
      g_value_set_enum (value, s->mode);
      break;
    case PROP_PERMISSIONS:
      g_value_set_uint (value, s->permissions);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, s->timeout);
      break;
    case PROP_WAIT_FOR_READERS:
      g_value_set_uint (value, s->wait_for_readers);
      break;
    case PROP_ON_READER_STALL:
      g_value_set_enum (value, s->on_stall);
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
