/* doradma GStreamer plugin — doradmasrc's dora read path, its settings:
 * the properties it adds to doradmasrc (dora-pool, poll-interval,
 * channel-order, caps), their defaults in the per-element state, and the
 * path's registration with gstdoradmadora.c. Reading the pool:
 * gstdoradmadorasrc.c.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmadorasrcprivate.h"

#define DEFAULT_POLL_INTERVAL (1 * GST_MSECOND)
#define DEFAULT_CHANNEL_ORDER GST_DORADMA_CHANNEL_ORDER_RGB

/* ids from GST_DORADMA_DORA_PROP_BASE */
enum
{
  PROP_DORA_POOL,
  PROP_POLL_INTERVAL,
  PROP_CHANNEL_ORDER,
  PROP_CAPS,
  N_DORA_PROPS
};

static const GEnumValue channel_order_values[] = {
  {GST_DORADMA_CHANNEL_ORDER_RGB, "[H,W,3]/[H,W,4] are RGB/RGBA", "rgb"},
  {GST_DORADMA_CHANNEL_ORDER_BGR,
      "[H,W,3]/[H,W,4] are BGR/BGRA (OpenCV-based dora nodes)", "bgr"},
  {0, NULL, NULL}
};

GST_DORADMA_DEFINE_ENUM (gst_doradma_channel_order_get_type,
    "GstDoradmaChannelOrder", channel_order_values);

static void
dora_src_init (GstDoradmaDoraState * head)
{
  DoraSrc *s = (DoraSrc *) head;

  g_cond_init (&s->cond);
  s->poll_interval = DEFAULT_POLL_INTERVAL;
  s->order = DEFAULT_CHANNEL_ORDER;
}

static void
dora_src_clear (GstDoradmaDoraState * head)
{
  DoraSrc *s = (DoraSrc *) head;

  gst_clear_caps (&s->caps_prop);
  gst_clear_caps (&s->out_caps);
  g_cond_clear (&s->cond);
}

/* ---------------------------------------------------------------------- */
/* Properties */

static void
gst_doradma_dora_src_install_properties (GObjectClass * klass)
{
  const guint first_id = GST_DORADMA_DORA_PROP_BASE;

  GST_DEBUG_CATEGORY_INIT (gst_doradma_dora_src_debug, "doradmadorasrc", 0,
      "doradmasrc reading a dora memory pool");

  /**
   * GstDoradmaSrc:dora-pool:
   *
   * Read the dora-rs memory pool of this name
   * (`dora_pool_<dataflow>_<node>_<pool>`, at most 253 bytes) instead of a
   * doradma channel. Mutually exclusive with `channel`. Frames are copied.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + PROP_DORA_POOL,
      g_param_spec_string ("dora-pool", "dora pool",
          "Name of a dora-rs memory pool to read instead of a channel "
          "(dora_pool_<dataflow>_<node>_<pool>)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstDoradmaSrc:poll-interval:
   *
   * With `dora-pool`: nanoseconds between two looks at the pool's
   * generation word while no new frame is there (dora pools have no
   * wake-up). A new generation is pushed at most this late.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + PROP_POLL_INTERVAL,
      g_param_spec_uint64 ("poll-interval", "Poll interval",
          "dora-pool: nanoseconds between polls of the generation word",
          10 * GST_USECOND, GST_SECOND, DEFAULT_POLL_INTERVAL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstDoradmaSrc:channel-order:
   *
   * With `dora-pool` and no `caps`: whether a uint8 [H,W,3] / [H,W,4]
   * tensor is RGB/RGBA or BGR/BGRA (the JSON does not say).
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + PROP_CHANNEL_ORDER,
      g_param_spec_enum ("channel-order", "Channel order",
          "dora-pool: colour order of 3- and 4-channel uint8 tensors",
          GST_TYPE_DORADMA_CHANNEL_ORDER, DEFAULT_CHANNEL_ORDER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstDoradmaSrc:caps:
   *
   * With `dora-pool`: the caps of the frames (fixed video/x-raw), like
   * appsrc's. A frame of these caps is the pool's size or its tensor's
   * bytes, in GStreamer's default layout for these caps (taken as-is) or
   * packed (each plane's rows as wide as its pixels, the planes back to
   * back: copied into the default layout). Unset: derived from the pool's
   * JSON (uint8 [H,W,3], [H,W,4], [H,W], tightly packed).
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps",
          "dora-pool: caps of the frames (default: from the pool's JSON)",
          GST_TYPE_CAPS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  gst_type_mark_as_plugin_api (GST_TYPE_DORADMA_CHANNEL_ORDER, 0);
}

/* The path's properties but dora-pool (gstdoradmadora.c: lock held). */
static void
gst_doradma_dora_src_set_property (GstDoradmaDoraState * head, guint id,
    const GValue * value)
{
  DoraSrc *s = (DoraSrc *) head;

  switch (id) {
    case PROP_POLL_INTERVAL:
      s->poll_interval = g_value_get_uint64 (value);
      break;
    case PROP_CHANNEL_ORDER:
      s->order = g_value_get_enum (value);
      break;
    case PROP_CAPS:
      gst_clear_caps (&s->caps_prop);
      s->caps_prop = g_value_dup_boxed (value);
      break;
  }
}

static void
gst_doradma_dora_src_get_property (GstDoradmaDoraState * head, guint id,
    GValue * value)
{
  DoraSrc *s = (DoraSrc *) head;

  switch (id) {
    case PROP_POLL_INTERVAL:
      g_value_set_uint64 (value, s->poll_interval);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum (value, s->order);
      break;
    case PROP_CAPS:
      g_value_set_boxed (value, s->caps_prop);
      break;
  }
}

/* ---------------------------------------------------------------------- */
/* The path's registration */

static const GstDoradmaDoraPath path = {
  .starts_after = GST_STATE_READY,
  .state_size = sizeof (DoraSrc),
  .state_init = dora_src_init,
  .state_clear = dora_src_clear,
  .n_props = N_DORA_PROPS,
  .set_property = gst_doradma_dora_src_set_property,
  .get_property = gst_doradma_dora_src_get_property,
};

void
gst_doradma_dora_src_class_init (GObjectClass * klass)
{
  gst_doradma_dora_register_path (klass, &path);
  gst_doradma_dora_src_install_properties (klass);
}
