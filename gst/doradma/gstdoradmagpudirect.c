/* doradma GStreamer plugin — GPUDirect RDMA: what the machine offers (the
 * probe) and, with libibverbs, NIC memory registration.
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
#include <unistd.h>

#include "gstdoradmagpudirect.h"
/* the public API only; never the private driver table cuda-api.h */
#include "doradma-cuda.h"

/* the device slab pool try_dmabuf_mr exports one slab from */
#define PROBE_POOL_BYTES (64ull << 20)

#ifdef HAVE_IBVERBS
#include "gstdoradmaibverbs.h"

/* Set once gst_doradma_ibv() loaded libibverbs.so.1: every entry point
 * below that reaches a verb checks it first (verbs_loaded). */
static const GstDoradmaIbv *ibv;

static gboolean
verbs_loaded (GString * why)
{
  const gchar *err = NULL;

  ibv = gst_doradma_ibv (&err);
  if (ibv == NULL && why)
    g_string_append (why, err);
  return ibv != NULL;
}

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
    struct ibv_context *ctx = ibv->open_device (list[i]);
    struct ibv_device_attr da;
    guint8 port;

    if (ctx == NULL) {
      g_string_append_printf (seen, "%s%s: ibv_open_device: %s",
          seen->len ? "; " : "", ibv->get_device_name (list[i]),
          g_strerror (errno));
      continue;
    }
    if (ibv->query_device (ctx, &da) != 0)
      da.phys_port_cnt = 0;
    for (port = 1; port <= da.phys_port_cnt && found < 0; port++) {
      struct ibv_port_attr pa;

      if (ibv->query_port (ctx, port, &pa) != 0)
        continue;
      g_string_append_printf (seen, "%s%s port %u: %s", seen->len ? "; " : "",
          ibv->get_device_name (list[i]), port, ibv->port_state_str (pa.state));
      if (pa.state == IBV_PORT_ACTIVE) {
        found = i;
        p->port = port;
        g_strlcpy (p->device_name, ibv->get_device_name (list[i]),
            sizeof p->device_name);
      }
    }
    ibv->close_device (ctx);
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
  list = ibv->get_device_list (&n);
  if (list == NULL || n <= 0) {
    g_snprintf (p->device_detail, sizeof p->device_detail,
        "ibv_get_device_list found no RDMA device (%s); "
        "/sys/class/infiniband is empty or absent",
        list == NULL ? g_strerror (errno) : "0 devices");
    g_snprintf (p->port_detail, sizeof p->port_detail,
        "no RDMA device, so no port");
    if (list)
      ibv->free_device_list (list);
    return;
  }
  p->device = TRUE;
  names = g_string_new (NULL);
  for (i = 0; i < n; i++)
    g_string_append_printf (names, "%s%s", i ? ", " : "",
        ibv->get_device_name (list[i]));
  g_snprintf (p->device_detail, sizeof p->device_detail, "%d device(s): %s",
      n, names->str);
  g_string_free (names, TRUE);
  p->active_port = find_active (list, n, p) >= 0;
  ibv->free_device_list (list);
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
  if (!verbs_loaded (why))
    return NULL;
  list = ibv->get_device_list (&n);
  if (list == NULL || n <= 0) {
    g_string_append (why, "ibverbs-device (no RDMA device)");
    if (list)
      ibv->free_device_list (list);
    return NULL;
  }
  memset (&p, 0, sizeof p);
  i = find_active (list, n, &p);
  if (i < 0) {
    g_string_append_printf (why, "active-port (%s)", p.port_detail);
    ibv->free_device_list (list);
    return NULL;
  }
  ctx = ibv->open_device (list[i]);
  ibv->free_device_list (list);
  if (ctx == NULL) {
    g_string_append_printf (why, "ibv_open_device (%s): %s", p.device_name,
        g_strerror (errno));
    return NULL;
  }
  pd = ibv->alloc_pd (ctx);
  if (pd == NULL) {
    g_string_append_printf (why, "ibv_alloc_pd (%s): %s", p.device_name,
        g_strerror (errno));
    ibv->close_device (ctx);
    return NULL;
  }
  *ctx_out = ctx;
  return pd;
}

void
gst_doradma_verbs_close_pd (gpointer pd, gpointer ctx)
{
  if (pd)
    ibv->dealloc_pd (pd);
  if (ctx)
    ibv->close_device (ctx);
}

GstDoradmaMr *
gst_doradma_mr_reg_dmabuf (gpointer pd, gint fd, guint64 len, guint64 iova,
    GString * why)
{
  struct ibv_mr *mr;
  GstDoradmaMr *r;

  if (!verbs_loaded (why))
    return NULL;
  errno = 0;
  mr = ibv->reg_dmabuf_mr (pd, 0, len, iova, fd, MR_ACCESS);
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

  if (!verbs_loaded (why))
    return NULL;
  errno = 0;
  mr = ibv->reg_mr (pd, addr, len, MR_ACCESS);
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
  ibv->dereg_mr (r->mr);
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
#endif /* HAVE_IBVERBS */

/* ------------------------------------------------------------------------ */
/* GPUDirect probe */

static gboolean
peermem_loaded (gchar * detail, gsize n)
{
  static const char *const mods[] = {
    "/sys/module/nvidia_peermem", "/sys/module/nv_peer_mem"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (mods); i++)
    if (g_file_test (mods[i], G_FILE_TEST_IS_DIR)) {
      g_snprintf (detail, n, "%s is loaded", mods[i]);
      return TRUE;
    }
  g_snprintf (detail, n, "kernel module nvidia_peermem not loaded "
      "(no /sys/module/nvidia_peermem); needed only by the legacy path");
  return FALSE;
}

static const char *const probe_names[GST_DORADMA_PROBE_N] = {
  "libibverbs", "ibverbs-device", "active-port", "dmabuf-mr", "cuda",
  "cuda-dma-buf", "nvidia-peermem"
};

#ifdef HAVE_IBVERBS
/* Registers a real dma-buf of a small device slab with a real PD: the only
 * reliable test of dmabuf-mr (kernel, provider and driver must agree). */
static gboolean
try_dmabuf_mr (struct doradma_cuda_device *dev, gchar * detail, gsize n)
{
  struct doradma_diag diag = { 0 };
  struct doradma_cuda_slab_pool *pool = NULL;
  struct doradma_cuda_slab *slab = NULL;
  GstDoradmaMr *mr = NULL;
  gpointer pd, ctx = NULL;
  GString *why = g_string_new (NULL);
  uint64_t sz = 0;
  int fd = -1;

  pd = gst_doradma_verbs_open_pd (&ctx, why);
  if (pd == NULL)
    goto done;
  if (doradma_cuda_slab_pool_new (dev, DORADMA_CUDA_SLAB_DEVICE,
          PROBE_POOL_BYTES, &pool, &diag) < 0
      || doradma_cuda_slab_alloc (pool, DORADMA_CUDA_SLAB_MIN_CLASS, &slab,
          &diag) < 0
      || doradma_cuda_slab_export_dmabuf (slab, &fd, &sz, &diag) < 0) {
    g_string_append (why, diag.msg);
    goto done;
  }
  mr = gst_doradma_mr_reg_dmabuf (pd, fd, sz,
      doradma_cuda_slab_get_info (slab)->device, why);
done:
  if (mr) {
    g_snprintf (detail, n, "ibv_reg_dmabuf_mr of a %" G_GUINT64_FORMAT
        "-byte CUDA dma-buf succeeded", (guint64) sz);
    gst_doradma_mr_dereg (mr);
  } else {
    g_snprintf (detail, n, "%s", why->str);
  }
  if (fd >= 0)
    close (fd);
  if (slab)
    doradma_cuda_slab_free (slab);
  if (pool)
    doradma_cuda_slab_pool_destroy (pool);
  gst_doradma_verbs_close_pd (pd, ctx);
  g_string_free (why, TRUE);
  return mr != NULL;
}
#endif


/* Fills every prerequisite with its state and reason. */
void
gst_doradma_gpudirect_run_probe (gint ordinal, GstDoradmaGpudirectProbe * p)
{
  struct doradma_cuda_device *dev = NULL;
  struct doradma_diag diag = { 0 };
  int ret;

  memset (p, 0, sizeof *p);
#ifdef HAVE_IBVERBS
  {
    GstDoradmaVerbsProbe v;
    GString *why = g_string_new (NULL);

    p->ok[GST_DORADMA_PROBE_LIBIBVERBS] = verbs_loaded (why);
    g_snprintf (p->detail[GST_DORADMA_PROBE_LIBIBVERBS], sizeof p->detail[0],
        "%s", p->ok[GST_DORADMA_PROBE_LIBIBVERBS] ?
        "libibverbs.so.1 loaded at run time" : why->str);
    g_string_free (why, TRUE);
    if (p->ok[GST_DORADMA_PROBE_LIBIBVERBS]) {
      gst_doradma_verbs_probe (&v);
      p->ok[GST_DORADMA_PROBE_DEVICE] = v.device;
      g_strlcpy (p->detail[GST_DORADMA_PROBE_DEVICE], v.device_detail,
          sizeof p->detail[0]);
      p->ok[GST_DORADMA_PROBE_PORT] = v.active_port;
      g_strlcpy (p->detail[GST_DORADMA_PROBE_PORT], v.port_detail,
          sizeof p->detail[0]);
    } else {
      g_snprintf (p->detail[GST_DORADMA_PROBE_DEVICE], sizeof p->detail[0],
          "not checked: no libibverbs.so.1");
      g_snprintf (p->detail[GST_DORADMA_PROBE_PORT], sizeof p->detail[0],
          "not checked: no libibverbs.so.1");
    }
  }
#else
  g_snprintf (p->detail[GST_DORADMA_PROBE_LIBIBVERBS], sizeof p->detail[0],
      "built without libibverbs (meson option ibverbs)");
  g_snprintf (p->detail[GST_DORADMA_PROBE_DEVICE], sizeof p->detail[0],
      "not checked: built without libibverbs");
  g_snprintf (p->detail[GST_DORADMA_PROBE_PORT], sizeof p->detail[0],
      "not checked: built without libibverbs");
#endif
  p->ok[GST_DORADMA_PROBE_PEERMEM] =
      peermem_loaded (p->detail[GST_DORADMA_PROBE_PEERMEM],
      sizeof p->detail[0]);

  ret = doradma_cuda_device_open (ordinal, &dev, &diag);
  if (ret < 0) {
    g_snprintf (p->detail[GST_DORADMA_PROBE_CUDA], sizeof p->detail[0], "%s",
        diag.msg);
    g_snprintf (p->detail[GST_DORADMA_PROBE_CUDA_DMABUF], sizeof p->detail[0],
        "not checked: no CUDA device (%s)", g_strerror (-ret));
  } else {
    const struct doradma_cuda_device_info *i =
        doradma_cuda_device_get_info (dev);

    p->ok[GST_DORADMA_PROBE_CUDA] = TRUE;
    g_snprintf (p->detail[GST_DORADMA_PROBE_CUDA], sizeof p->detail[0],
        "device %d: %s, " "driver %d", ordinal, i->name,
        doradma_cuda_driver_version ());
    /* Device slabs are cuMemCreate ranges where VMM exists. */
    p->ok[GST_DORADMA_PROBE_CUDA_DMABUF] = i->dma_buf_supported
        && (!i->vmm_supported || i->gpu_direct_rdma_with_vmm_supported);
    g_snprintf (p->detail[GST_DORADMA_PROBE_CUDA_DMABUF], sizeof p->detail[0],
        "device %d (%s): CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED=%d, "
        "GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED=%d", ordinal, i->name,
        i->dma_buf_supported, i->gpu_direct_rdma_with_vmm_supported);
  }

  if (!(p->ok[GST_DORADMA_PROBE_DEVICE] && p->ok[GST_DORADMA_PROBE_PORT]
          && p->ok[GST_DORADMA_PROBE_CUDA_DMABUF])) {
    g_snprintf (p->detail[GST_DORADMA_PROBE_DMABUF_MR], sizeof p->detail[0],
        "not checked: ibv_reg_dmabuf_mr can only be tried with an RDMA "
        "device, an active port and a CUDA dma-buf");
  } else {
#ifdef HAVE_IBVERBS
    p->ok[GST_DORADMA_PROBE_DMABUF_MR] =
        try_dmabuf_mr (dev, p->detail[GST_DORADMA_PROBE_DMABUF_MR],
        sizeof p->detail[0]);
#endif
  }
  if (dev)
    doradma_cuda_device_unref (dev);
}

gboolean
gst_doradma_gpudirect_usable (const GstDoradmaGpudirectProbe * p)
{
  return p->ok[GST_DORADMA_PROBE_LIBIBVERBS] && p->ok[GST_DORADMA_PROBE_DEVICE]
      && p->ok[GST_DORADMA_PROBE_PORT]
      && p->ok[GST_DORADMA_PROBE_CUDA] && ((p->ok[GST_DORADMA_PROBE_DMABUF_MR]
          && p->ok[GST_DORADMA_PROBE_CUDA_DMABUF])
      || p->ok[GST_DORADMA_PROBE_PEERMEM]);
}

/* "name (detail); name (detail)" for the missing ones among `which`. */
static gchar *
missing_of (const GstDoradmaGpudirectProbe * p, const int *which, guint n)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    if (!p->ok[which[i]])
      g_string_append_printf (s, "%s%s (%s)", s->len ? "; " : "",
          probe_names[which[i]], p->detail[which[i]]);
  return g_string_free (s, FALSE);
}

static const int gpudirect_prereqs[] = {
  GST_DORADMA_PROBE_LIBIBVERBS, GST_DORADMA_PROBE_DEVICE,
  GST_DORADMA_PROBE_PORT, GST_DORADMA_PROBE_DMABUF_MR,
  GST_DORADMA_PROBE_CUDA, GST_DORADMA_PROBE_CUDA_DMABUF,
  GST_DORADMA_PROBE_PEERMEM
};

static const int pinned_prereqs[] = {
  GST_DORADMA_PROBE_LIBIBVERBS, GST_DORADMA_PROBE_DEVICE,
  GST_DORADMA_PROBE_PORT, GST_DORADMA_PROBE_CUDA
};

gchar *
gst_doradma_gpudirect_missing (const GstDoradmaGpudirectProbe * p,
    gboolean pinned)
{
  return pinned ? missing_of (p, pinned_prereqs, G_N_ELEMENTS (pinned_prereqs))
      : missing_of (p, gpudirect_prereqs, G_N_ELEMENTS (gpudirect_prereqs));
}

const gchar *
gst_doradma_gpudirect_item_name (GstDoradmaProbeItem item)
{
  return probe_names[item];
}
