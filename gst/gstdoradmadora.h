/* doradma GStreamer plugin — dora-rs memory pools (`dora-pool=`), the
 * second format beside the ring: doradmasrc reads a dora pool, doradmasink
 * writes one. The elements keep their ring code; one call at the end of
 * their class_init wraps their vfuncs so that each goes to the dora path
 * first when `dora-pool` is set. The state lives on the element as qdata,
 * so the elements' instance structs and functions do not change.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DORA_H__
#define __GST_DORADMA_DORA_H__

#include <gst/gst.h>

G_BEGIN_DECLS typedef enum
{
  GST_DORADMA_CHANNEL_ORDER_RGB,
  GST_DORADMA_CHANNEL_ORDER_BGR,
} GstDoradmaChannelOrder;

GType gst_doradma_channel_order_get_type (void);
#define GST_TYPE_DORADMA_CHANNEL_ORDER (gst_doradma_channel_order_get_type ())

/* Hooks the dora path into doradmasrc's class: installs the properties
 * dora-pool, poll-interval, channel-order and caps (ids from
 * GST_DORADMA_DORA_PROP_BASE up), and wraps set/get_property and the base
 * class vfuncs (start, stop, get_caps, negotiate, unlock, unlock_stop,
 * create) so that they run the dora path when `dora-pool` is set and the
 * element's own otherwise. Call at the END of class_init. */
void gst_doradma_dora_src_class_hook (GObjectClass * klass);

/* The same for doradmasink: the property dora-pool; set/get_property,
 * start, stop, set_caps, propose_allocation and render. */
void gst_doradma_dora_sink_class_hook (GObjectClass * klass);

/* ---------------------------------------------------------------------- */
/* What the two paths share (gstdoradmadora.c) */

/* Far above any element's own property ids; BASE itself is `dora-pool`. */
#define GST_DORADMA_DORA_PROP_BASE 0x1000

typedef struct _GstDoradmaDoraPath GstDoradmaDoraPath;

/* The head of each path's state: the state is a larger struct that starts
 * with this one, created while the element is constructed (one thread),
 * so that vfuncs called from any thread only ever look it up. */
typedef struct
{
  const GstDoradmaDoraPath *path;
  GMutex lock;                  /* pool_name and the path's properties */
  gchar *pool_name;             /* `dora-pool`; NULL: the element's own path */
} GstDoradmaDoraState;

/* One element class's dora path, static in its file. */
struct _GstDoradmaDoraPath
{
  gsize state_size;
  void (*state_init) (GstDoradmaDoraState * s); /* or NULL */
  void (*state_clear) (GstDoradmaDoraState * s);        /* or NULL */
  /* its properties: dora-pool and n_props - 1 more, ids BASE + 1 up, which
   * these get and set (lock held; 1 .. n_props - 1 as given) */
  guint n_props;
  void (*set_property) (GstDoradmaDoraState * s, guint id,
      const GValue * value);
  void (*get_property) (GstDoradmaDoraState * s, guint id, GValue * value);

  /* the element's own GObject vfuncs, saved by the hook */
  void (*own_set_property) (GObject *, guint, const GValue *, GParamSpec *);
  void (*own_get_property) (GObject *, guint, GValue *, GParamSpec *);
  void (*own_constructed) (GObject *);
};

/* Wraps klass's constructed (creates the state) and set/get_property
 * (dora-pool and the path's properties, changed only in NULL/READY; the
 * element's own otherwise). The path installs its properties itself. */
void gst_doradma_dora_hook_object_class (GObjectClass * klass,
    GstDoradmaDoraPath * path);

/* The element's state (its path's struct). */
gpointer gst_doradma_dora_state (gpointer element);
/* `dora-pool` is set: the dora path runs. */
gboolean gst_doradma_dora_enabled (gpointer element);
/* `dora-pool` (g_free). */
gchar *gst_doradma_dora_pool_name (gpointer element);

/* Before a dora pool is touched: `channel` unset (one element, one
 * format) and `dora-pool` valid. FALSE after posting an error that says
 * which. */
gboolean gst_doradma_dora_check_settings (GstElement * element);

G_END_DECLS
#endif
