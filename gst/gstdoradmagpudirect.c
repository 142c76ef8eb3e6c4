/* doradma GStreamer plugin — libibverbs probe and memory registration.
 *
 * No fake NIC and no mock: everything here talks to the real libibverbs.
 * Machines without an RDMA device (the project's CI and GPU machines) get an
 * empty device list, which the probe reports as "ibverbs-device" missing.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "gstdoradmagpudirect.h"

struct _GstDoradmaMr
{
  struct ibv_mr *mr;
  guint64 iova;
};

#define MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
    IBV_ACCESS_REMOTE_READ)

/* Finds the first device with an active port. Returns its index in `list`
 * or -1; fills the probe's texts. */
static int
find_active (struct ibv_device **list, int n, GstDoradmaVerbsProbe * p)
{
  GString *seen = g_string_new (NULL);
  int i, found = -1;

  for (i = 0; i < n && found < 0; i++) {
    struct ibv_context *ctx = ibv_open_device (list[i]);
    struct ibv_device_attr da;
    guint8 port;

    if (ctx == NULL) {
      g_string_append_printf (seen, "%s%s: ibv_open_device: %s",
          seen->len ? "; " : "", ibv_get_device_name (list[i]),
          g_strerror (errno));
      continue;
    }
    if (ibv_query_device (ctx, &da) != 0)
      da.phys_port_cnt = 0;
    for (port = 1; port <= da.phys_port_cnt && found < 0; port++) {
      struct ibv_port_attr pa;

      if (ibv_query_port (ctx, port, &pa) != 0)
        continue;
      g_string_append_printf (seen, "%s%s port %u: %s", seen->len ? "; " : "",
          ibv_get_device_name (list[i]), port,
          ibv_port_state_str (pa.state));
      if (pa.state == IBV_PORT_ACTIVE) {
        found = i;
        p->port = port;
        g_strlcpy (p->device_name, ibv_get_device_name (list[i]),
            sizeof p->device_name);
      }
    }
    ibv_close_device (ctx);
  }
  if (found >= 0)
    g_snprintf (p->port_detail, sizeof p->port_detail, "%s port %u is active",
        p->device_name, p->port);
  else
    g_snprintf (p->port_detail, sizeof p->port_detail,
        "no port in state ACTIVE (%s)", seen->len ? seen->str : "no ports");
  g_string_free (seen, TRUE);
  return found;
}

void
gst_doradma_verbs_probe (GstDoradmaVerbsProbe * p)
{
  struct ibv_device **list;
  int n = 0, i;
  GString *names;

  memset (p, 0, sizeof *p);
  errno = 0;
  list = ibv_get_device_list (&n);
  if (list == NULL || n <= 0) {
    g_snprintf (p->device_detail, sizeof p->device_detail,
        "ibv_get_device_list found no RDMA device (%s); "
        "/sys/class/infiniband is empty or absent",
        list == NULL ? g_strerror (errno) : "0 devices");
    g_snprintf (p->port_detail, sizeof p->port_detail,
        "no RDMA device, so no port");
    if (list)
      ibv_free_device_list (list);
    return;
  }
  p->device = TRUE;
  names = g_string_new (NULL);
  for (i = 0; i < n; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "",
        ibv_get_device_name (list[i]));
  g_snprintf (p->device_detail, sizeof p->device_detail, "%d device(s): %s",
      n, names->str);
  g_string_free (names, TRUE);
  p->active_port = find_active (list, n, p) >= 0;
  ibv_free_device_list (list);
}

gpointer
gst_doradma_verbs_open_pd (gpointer * ctx_out, GString * why)
{
  GstDoradmaVerbsProbe p;
  struct ibv_device **list;
  struct ibv_context *ctx = NULL;
  struct ibv_pd *pd;
  int n = 0, i;

  *ctx_out = NULL;
  list = ibv_get_device_list (&n);
  if (list == NULL || n <= 0) {
    g_string_append (why, "ibverbs-device (no RDMA device)");
    if (list)
      ibv_free_device_list (list);
    return NULL;
  }
  memset (&p, 0, sizeof p);
  i = find_active (list, n, &p);
  if (i < 0) {
    g_string_append_printf (why, "active-port (%s)", p.port_detail);
    ibv_free_device_list (list);
    return NULL;
  }
  ctx = ibv_open_device (list[i]);
  ibv_free_device_list (list);
  if (ctx == NULL) {
    g_string_append_printf (why, "ibv_open_device (%s): %s", p.device_name,
        g_strerror (errno));
    return NULL;
  }
  pd = ibv_alloc_pd (ctx);
  if (pd == NULL) {
    g_string_append_printf (why, "ibv_alloc_pd (%s): %s", p.device_name,
        g_strerror (errno));
    ibv_close_device (ctx);
    return NULL;
  }
  *ctx_out = ctx;
  return pd;
}

void
gst_doradma_verbs_close_pd (gpointer pd, gpointer ctx)
{
  if (pd)
    ibv_dealloc_pd (pd);
  if (ctx)
    ibv_close_device (ctx);
}

GstDoradmaMr *
gst_doradma_mr_reg_dmabuf (gpointer pd, gint fd, guint64 len, guint64 iova,
    GString * why)
{
  struct ibv_mr *mr;
  GstDoradmaMr *r;

  errno = 0;
  mr = ibv_reg_dmabuf_mr (pd, 0, len, iova, fd, MR_ACCESS);
  if (mr == NULL) {
    g_string_append_printf (why, "ibv_reg_dmabuf_mr (%" G_GUINT64_FORMAT
        " bytes, iova 0x%" G_GINT64_MODIFIER "x): %s", len, iova,
        g_strerror (errno ? errno : EIO));
    return NULL;
  }
  r = g_new0 (GstDoradmaMr, 1);
  r->mr = mr;
  r->iova = iova;
  return r;
}

GstDoradmaMr *
gst_doradma_mr_reg (gpointer pd, gpointer addr, guint64 len, GString * why)
{
  struct ibv_mr *mr;
  GstDoradmaMr *r;

  errno = 0;
  mr = ibv_reg_mr (pd, addr, len, MR_ACCESS);
  if (mr == NULL) {
    g_string_append_printf (why, "ibv_reg_mr (%p, %" G_GUINT64_FORMAT
        " bytes): %s", addr, len, g_strerror (errno ? errno : EIO));
    return NULL;
  }
  r = g_new0 (GstDoradmaMr, 1);
  r->mr = mr;
  r->iova = (guint64) (guintptr) addr;
  return r;
}

void
gst_doradma_mr_dereg (GstDoradmaMr * r)
{
  if (r == NULL)
    return;
  ibv_dereg_mr (r->mr);
  g_free (r);
}

guint32
gst_doradma_mr_lkey (const GstDoradmaMr * r)
{
  return r->mr->lkey;
}

guint32
gst_doradma_mr_rkey (const GstDoradmaMr * r)
{
  return r->mr->rkey;
}

guint64
gst_doradma_mr_iova (const GstDoradmaMr * r)
{
  return r->iova;
}
