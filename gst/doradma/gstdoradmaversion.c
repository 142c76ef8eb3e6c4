/* The library's version at run time (gstdoradmaversion.h). */
#include <gst/doradma/gstdoradmaversion.h>

void
gst_doradma_version (guint * major, guint * minor, guint * micro)
{
  if (major)
    *major = GST_DORADMA_VERSION_MAJOR;
  if (minor)
    *minor = GST_DORADMA_VERSION_MINOR;
  if (micro)
    *micro = GST_DORADMA_VERSION_MICRO;
}

const gchar *
gst_doradma_version_string (void)
{
  return G_STRINGIFY (GST_DORADMA_VERSION_MAJOR) "."
      G_STRINGIFY (GST_DORADMA_VERSION_MINOR) "."
      G_STRINGIFY (GST_DORADMA_VERSION_MICRO);
}
