/* doradma GStreamer plugin — dora-rs memory pools (`dora-pool=`), the
 * second format beside the ring: doradmasrc reads a dora pool, doradmasink
 * writes one. Each of the elements' vfuncs that a path has runs the dora
 * path's function below first when `dora-pool` is set (and its own ring
 * code otherwise); their set/get_property hand the dora properties here.
 * The state lives on the element as qdata, so the elements' instance
 * structs do not change.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_DORA_H__
#define __GST_DORADMA_DORA_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS typedef enum
{
  GST_DORADMA_CHANNEL_ORDER_RGB,
  GST_DORADMA_CHANNEL_ORDER_BGR,
} GstDoradmaChannelOrder;

GType gst_doradma_channel_order_get_type (void);
#define GST_TYPE_DORADMA_CHANNEL_ORDER (gst_doradma_channel_order_get_type ())

/* From the END of doradmasrc's class_init: installs the properties
 * dora-pool, poll-interval, channel-order and caps (ids from
 * GST_DORADMA_DORA_PROP_BASE up) and registers the path. */
void gst_doradma_dora_src_class_init (GObjectClass * klass);
/* doradmasrc's vfuncs when `dora-pool` is set */
gboolean gst_doradma_dora_src_start (GstBaseSrc * src);
gboolean gst_doradma_dora_src_stop (GstBaseSrc * src);
GstCaps *gst_doradma_dora_src_get_caps (GstBaseSrc * src, GstCaps * filter);
gboolean gst_doradma_dora_src_negotiate (GstBaseSrc * src);
GstFlowReturn gst_doradma_dora_src_create (GstPushSrc * psrc,
    GstBuffer ** outbuf);
/* unlock (TRUE) and unlock_stop (FALSE): called whichever path runs (the
 * one not running has nothing to unlock) */
gboolean gst_doradma_dora_src_unlock (GstBaseSrc * src, gboolean unlocked);
/* Frames pushed and generations skipped (never pushed: a gap, marked
 * DISCONT) since start; any thread. */
void gst_doradma_dora_src_counts (GstBaseSrc * src, guint64 * frames,
    guint64 * skipped);

/* The same for doradmasink: the property dora-pool. */
void gst_doradma_dora_sink_class_init (GObjectClass * klass);
/* doradmasink's vfuncs when `dora-pool` is set */
gboolean gst_doradma_dora_sink_start (GstBaseSink * sink);
gboolean gst_doradma_dora_sink_stop (GstBaseSink * sink);
gboolean gst_doradma_dora_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
gboolean gst_doradma_dora_sink_propose_allocation (GstBaseSink * sink,
    GstQuery * query);
GstFlowReturn gst_doradma_dora_sink_render (GstBaseSink * sink,
    GstBuffer * buf);

/* The element's set/get_property call these first: TRUE when `prop_id` is
 * a dora property, which they handled (changed only in NULL/READY). */
gboolean gst_doradma_dora_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
gboolean gst_doradma_dora_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

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
  /* the element starts its path when it leaves this state (the sink at
   * NULL→READY, the src at READY→PAUSED): the path's properties change
   * only up to it */
  GstState starts_after;
  gsize state_size;
  void (*state_init) (GstDoradmaDoraState * s); /* or NULL */
  void (*state_clear) (GstDoradmaDoraState * s);        /* or NULL */
  /* its properties: dora-pool and n_props - 1 more, ids BASE + 1 up, which
   * these get and set (lock held; 1 .. n_props - 1 as given) */
  guint n_props;
  void (*set_property) (GstDoradmaDoraState * s, guint id,
      const GValue * value);
  void (*get_property) (GstDoradmaDoraState * s, guint id, GValue * value);
};

/* Makes `path` klass's (and its subclasses') dora path. The path installs
 * its properties itself. */
void gst_doradma_dora_register_path (GObjectClass * klass,
    const GstDoradmaDoraPath * path);

/* The element's state (its path's struct), created on the first call:
 * first from the element's instance init. */
gpointer gst_doradma_dora_state (gpointer element);
/* `dora-pool` is set: the dora path runs. */
gboolean gst_doradma_dora_enabled (gpointer element);
/* `dora-pool` (g_free). */
gchar *gst_doradma_dora_pool_name (gpointer element);

/* Where dora pools are: $DORADMA_SHM_DIR when set, else /dev/shm. dora's
 * nodes always look in /dev/shm (shm_open): TRUE when the variable moves
 * our pools out of their reach (F3); the dir in *dir. */
gboolean gst_doradma_dora_dir_moved (const gchar ** dir);

/* Before a dora pool is touched: `channel` unset (one element, one
 * format) and `dora-pool` valid. FALSE after posting an error that says
 * which. */
gboolean gst_doradma_dora_check_settings (GstElement * element);

/* The element's properties among `names` (NULL-terminated; names the
 * element lacks are skipped) that are set to anything but their default:
 * the ring's settings, which a dora pool has no use for, would be ignored
 * in silence (F8). One WARNING names them ("Ignored with dora-pool: ..."),
 * the pool and `why` in its debug text. */
void gst_doradma_dora_warn_ignored (GstElement * element, const gchar * pool,
    const gchar * const *names, const gchar * why);

G_END_DECLS
#endif
