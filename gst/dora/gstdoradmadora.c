/* doradma GStreamer plugin — what doradmasrc's and doradmasink's dora paths
 * share: their state on the element, `dora-pool` and the path's
 * properties, and the settings check before a pool is touched.
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <doradma/dora-pool.h>

#include "gstdoradmadora.h"
#include "gstdoradmaelements.h"

#define GST_CAT_DEFAULT gst_doradma_debug

/* the path of a class: type qdata, found from any subclass too */
static GQuark path_quark;
/* the state of an element: object qdata */
static GQuark state_quark;

static const GstDoradmaDoraPath *
path_of (gpointer element)
{
  GType t;

  for (t = G_OBJECT_TYPE (element); t != 0; t = g_type_parent (t)) {
    const GstDoradmaDoraPath *path = g_type_get_qdata (t, path_quark);

    if (path != NULL)
      return path;
  }
  g_return_val_if_reached (NULL);
}

static void
state_free (gpointer data)
{
  GstDoradmaDoraState *s = data;

  if (s->path->state_clear)
    s->path->state_clear (s);
  g_free (s->pool_name);
  g_mutex_clear (&s->lock);
  g_free (s);
}

gpointer
gst_doradma_dora_state (gpointer element)
{
  GstDoradmaDoraState *s = g_object_get_qdata (G_OBJECT (element),
      state_quark);

  if (s == NULL) {
    const GstDoradmaDoraPath *path = path_of (element);

    s = g_malloc0 (path->state_size);
    s->path = path;
    g_mutex_init (&s->lock);
    if (path->state_init)
      path->state_init (s);
    g_object_set_qdata_full (G_OBJECT (element), state_quark, s, state_free);
  }
  return s;
}

gboolean
gst_doradma_dora_enabled (gpointer element)
{
  GstDoradmaDoraState *s = gst_doradma_dora_state (element);
  gboolean on;

  g_mutex_lock (&s->lock);
  on = s->pool_name != NULL;
  g_mutex_unlock (&s->lock);
  return on;
}

gchar *
gst_doradma_dora_pool_name (gpointer element)
{
  GstDoradmaDoraState *s = gst_doradma_dora_state (element);
  gchar *name;

  g_mutex_lock (&s->lock);
  name = g_strdup (s->pool_name);
  g_mutex_unlock (&s->lock);
  return name;
}

gboolean
gst_doradma_dora_dir_moved (const gchar ** dir)
{
  *dir = doradma_shm_dir (NULL);
  return g_strcmp0 (*dir, "/dev/shm") != 0;
}

/* ---------------------------------------------------------------------- */
/* The dora properties, on the element's behalf */

static gboolean
is_dora_property (const GstDoradmaDoraPath * path, guint prop_id)
{
  return prop_id >= GST_DORADMA_DORA_PROP_BASE
      && prop_id < GST_DORADMA_DORA_PROP_BASE + path->n_props;
}

gboolean
gst_doradma_dora_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  const GstDoradmaDoraPath *path = path_of (object);
  GstDoradmaDoraState *s;

  if (!is_dora_property (path, prop_id))
    return FALSE;
  s = gst_doradma_dora_state (object);
  /* the path that runs was chosen when the element started: a change
   * after that would send frames to a path that never started */
  if (GST_STATE (object) > path->starts_after) {
    GST_WARNING_OBJECT (object, "cannot change %s after the element started "
        "(set it in the %s state)", pspec->name,
        gst_element_state_get_name (path->starts_after));
    return TRUE;
  }
  g_mutex_lock (&s->lock);
  if (prop_id == GST_DORADMA_DORA_PROP_BASE) {
    g_free (s->pool_name);
    s->pool_name = g_value_dup_string (value);
  } else {
    path->set_property (s, prop_id - GST_DORADMA_DORA_PROP_BASE, value);
  }
  g_mutex_unlock (&s->lock);
  return TRUE;
}

gboolean
gst_doradma_dora_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  const GstDoradmaDoraPath *path = path_of (object);
  GstDoradmaDoraState *s;

  if (!is_dora_property (path, prop_id))
    return FALSE;
  s = gst_doradma_dora_state (object);
  g_mutex_lock (&s->lock);
  if (prop_id == GST_DORADMA_DORA_PROP_BASE)
    g_value_set_string (value, s->pool_name);
  else
    path->get_property (s, prop_id - GST_DORADMA_DORA_PROP_BASE, value);
  g_mutex_unlock (&s->lock);
  return TRUE;
}

void
gst_doradma_dora_register_path (GObjectClass * klass,
    const GstDoradmaDoraPath * path)
{
  path_quark = g_quark_from_static_string ("gst-doradma-dora-path");
  state_quark = g_quark_from_static_string ("gst-doradma-dora-state");
  g_type_set_qdata (G_OBJECT_CLASS_TYPE (klass), path_quark, (gpointer) path);
}

/* ---------------------------------------------------------------------- */
/* Settings */

gboolean
gst_doradma_dora_check_settings (GstElement * element)
{
  struct doradma_diag diag = { 0 };
  gchar *channel = NULL, *name = gst_doradma_dora_pool_name (element);
  gboolean ok = FALSE;
  int ret;

  /* one element, one format: a channel is a doradma ring, never a pool */
  if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "channel"))
    g_object_get (element, "channel", &channel, NULL);
  if (channel != NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Both `channel` and `dora-pool` are set"),
        ("%s uses either a doradma channel (\"%s\") or a dora pool (\"%s\"): "
            "unset one of them", GST_OBJECT_NAME (element), channel, name));
  } else if ((ret = doradma_pool_name_validate (name, &diag)) < 0) {
    GST_ELEMENT_ERROR_WITH_DETAILS (element, RESOURCE, SETTINGS,
        ("Invalid dora pool name \"%s\"", name),
        ("%s: %s", diag.msg, g_strerror (-ret)),
        ("dora-pool", G_TYPE_STRING, name, NULL));
  } else {
    ok = TRUE;
  }
  g_free (channel);
  g_free (name);
  return ok;
}

void
gst_doradma_dora_warn_ignored (GstElement * element, const gchar * pool,
    const gchar * const *names, const gchar * why)
{
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GString *set = g_string_new (NULL);
  guint i;

  for (i = 0; names[i] != NULL; i++) {
    GParamSpec *ps = g_object_class_find_property (klass, names[i]);
    GValue v = G_VALUE_INIT;

    if (ps == NULL)
      continue;
    g_value_init (&v, ps->value_type);
    g_object_get_property (G_OBJECT (element), names[i], &v);
    if (!g_param_value_defaults (ps, &v))
      g_string_append_printf (set, "%s%s", set->len ? ", " : "", names[i]);
    g_value_unset (&v);
  }
  if (set->len > 0)
    GST_ELEMENT_WARNING_WITH_DETAILS (element, RESOURCE, SETTINGS,
        ("Ignored with dora-pool: %s", set->str),
        ("dora pool %s: %s", pool, why),
        ("dora-pool", G_TYPE_STRING, pool, "ignored", G_TYPE_STRING, set->str,
            NULL));
  g_string_free (set, TRUE);
}
