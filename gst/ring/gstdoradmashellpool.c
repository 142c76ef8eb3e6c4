/* doradma GStreamer plugin — doradmasrc's buffer shells (see the header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmashellpool.h"
#include "gstdoradmasrcframe.h"

typedef struct
{
  GstBufferPool parent;
  GMutex lock;
  GPtrArray *free;              /* GstBuffer, reset, without memory */
} GstDoradmaShellPool;

typedef GstBufferPoolClass GstDoradmaShellPoolClass;

GType gst_doradma_shell_pool_get_type (void);
G_DEFINE_TYPE (GstDoradmaShellPool, gst_doradma_shell_pool,
    GST_TYPE_BUFFER_POOL);

static GstFlowReturn
gst_doradma_shell_pool_acquire (GstBufferPool * pool, GstBuffer ** buf,
    GstBufferPoolAcquireParams * params)
{
  GstDoradmaShellPool *self = (GstDoradmaShellPool *) pool;

  g_mutex_lock (&self->lock);
  *buf = self->free->len > 0 ?
      g_ptr_array_steal_index_fast (self->free, self->free->len - 1) : NULL;
  g_mutex_unlock (&self->lock);
  if (*buf == NULL)
    *buf = gst_buffer_new ();
  return GST_FLOW_OK;
}

/* The memory goes (its last unref ends the lease), then what the default
 * reset clears: flags, timestamps, metas that are not POOLED. */
static void
gst_doradma_shell_pool_reset (GstBufferPool * pool, GstBuffer * buf)
{
  gst_buffer_remove_all_memory (buf);
  GST_BUFFER_POOL_CLASS (gst_doradma_shell_pool_parent_class)->reset_buffer
      (pool, buf);
}

static void
gst_doradma_shell_pool_release (GstBufferPool * pool, GstBuffer * buf)
{
  GstDoradmaShellPool *self = (GstDoradmaShellPool *) pool;

  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->free, buf);
  g_mutex_unlock (&self->lock);
}

/* Deactivated, with no buffer out: the shells are freed. */
static gboolean
gst_doradma_shell_pool_stop (GstBufferPool * pool)
{
  GstDoradmaShellPool *self = (GstDoradmaShellPool *) pool;

  g_mutex_lock (&self->lock);
  g_ptr_array_set_size (self->free, 0);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
gst_doradma_shell_pool_finalize (GObject * object)
{
  GstDoradmaShellPool *self = (GstDoradmaShellPool *) object;

  g_ptr_array_unref (self->free);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (gst_doradma_shell_pool_parent_class)->finalize (object);
}

static void
gst_doradma_shell_pool_class_init (GstDoradmaShellPoolClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_doradma_shell_pool_finalize;
  klass->acquire_buffer = gst_doradma_shell_pool_acquire;
  klass->reset_buffer = gst_doradma_shell_pool_reset;
  klass->release_buffer = gst_doradma_shell_pool_release;
  klass->stop = gst_doradma_shell_pool_stop;
}

static void
gst_doradma_shell_pool_init (GstDoradmaShellPool * self)
{
  g_mutex_init (&self->lock);
  self->free = g_ptr_array_new_full (8, (GDestroyNotify) gst_buffer_unref);
}

GstBufferPool *
gst_doradma_shell_pool_new (void)
{
  GstBufferPool *pool = g_object_new (gst_doradma_shell_pool_get_type (),
      NULL);

  gst_object_ref_sink (pool);
  return gst_doradma_pool_activate (pool, NULL, 0);
}

static gboolean
keep_meta (GstBuffer * buf, GstMeta ** meta, gpointer user_data)
{
  GST_META_FLAG_SET (*meta, GST_META_FLAG_POOLED);
  return TRUE;
}

void
gst_doradma_shell_pool_keep_metas (GstBuffer * buf)
{
  gst_buffer_foreach_meta (buf, keep_meta, NULL);
}
