/* doradma GStreamer plugin — libibverbs.so.1 loaded at run time; see
 * gstdoradmaibverbs.h.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstdoradmaibverbs.h"

#ifdef HAVE_IBVERBS
#include <dlfcn.h>

static GstDoradmaIbv ibv;
static const GstDoradmaIbv *loaded;
static gchar load_error[256];

static gpointer
load (gpointer unused)
{
  void *h = dlopen ("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *missing = NULL;

  if (h == NULL) {
    g_snprintf (load_error, sizeof load_error, "dlopen(\"libibverbs.so.1\") "
        "failed: %s (rdma-core's libibverbs1 package)", dlerror ());
    return NULL;
  }
#define RESOLVE(field, symbol) \
  if (missing == NULL \
      && (*(void **) &ibv.field = dlsym (h, symbol)) == NULL) \
    missing = symbol
  RESOLVE (get_device_list, "ibv_get_device_list");
  RESOLVE (free_device_list, "ibv_free_device_list");
  RESOLVE (get_device_name, "ibv_get_device_name");
  RESOLVE (open_device, "ibv_open_device");
  RESOLVE (close_device, "ibv_close_device");
  RESOLVE (query_device, "ibv_query_device");
  RESOLVE (query_port, "ibv_query_port");
  RESOLVE (port_state_str, "ibv_port_state_str");
  RESOLVE (alloc_pd, "ibv_alloc_pd");
  RESOLVE (dealloc_pd, "ibv_dealloc_pd");
  RESOLVE (reg_mr, "ibv_reg_mr");
  RESOLVE (reg_dmabuf_mr, "ibv_reg_dmabuf_mr");
  RESOLVE (dereg_mr, "ibv_dereg_mr");
#undef RESOLVE
  if (missing) {
    g_snprintf (load_error, sizeof load_error, "libibverbs.so.1 has no %s "
        "(rdma-core >= 34 needed)", missing);
    dlclose (h);
    return NULL;
  }
  /* kept loaded for the life of the process, as libcuda.so.1 is */
  loaded = &ibv;
  return NULL;
}

const GstDoradmaIbv *
gst_doradma_ibv (const gchar ** why)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, load, NULL);
  if (loaded == NULL && why)
    *why = load_error;
  return loaded;
}
#endif /* HAVE_IBVERBS */
