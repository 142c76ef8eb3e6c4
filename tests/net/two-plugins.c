/* Both plugins in one process: libgstdoradma and libgstdoradmanet each
 * carry the shared code's enum types (GstDoradmaMode, ...); whichever loads
 * second must reuse the registered type, not fail to register it again
 * (a g_warning, fatal here) and leave its properties without a type. */
#include <gst/gst.h>

static GType
prop_type (GstElement * e, const gchar * name)
{
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);

  g_assert_nonnull (ps);
  return ps->value_type;
}

int
main (int argc, char **argv)
{
  /* the net plugin first, so that it is the one registering */
  const gchar *names[] = { "doradmanetsrc", "doradmasrc", "doradmasink",
    "doradmanetsink"
  };
  GstElement *e[4];
  guint i;

  g_log_set_always_fatal (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL);
  gst_init (&argc, &argv);
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    e[i] = gst_element_factory_make (names[i], NULL);
    if (e[i] == NULL)
      g_error ("%s not found", names[i]);
  }
  g_assert_true (G_TYPE_IS_ENUM (prop_type (e[0], "mode")));
  g_assert_true (prop_type (e[0], "mode") == prop_type (e[2], "mode"));
  g_assert_true (prop_type (e[0], "mode") == prop_type (e[3], "mode"));
  g_assert_true (prop_type (e[0], "on-peer-lost") ==
      prop_type (e[3], "on-peer-lost"));
  g_assert_true (prop_type (e[0], "on-peer-lost") ==
      prop_type (e[1], "on-writer-lost"));
  g_assert_cmpstr (gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE
          (gst_element_get_factory (e[0]))), ==, "doradmanet");
  g_assert_cmpstr (gst_plugin_feature_get_plugin_name (GST_PLUGIN_FEATURE
          (gst_element_get_factory (e[1]))), ==, "doradma");
  for (i = 0; i < G_N_ELEMENTS (names); i++)
    gst_object_unref (e[i]);
  g_print ("ok: both plugins in one process, one GstDoradmaMode type\n");
  return 0;
}
