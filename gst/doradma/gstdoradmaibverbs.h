/* doradma GStreamer plugin — libibverbs.so.1 loaded at run time.
 *
 * Only GPUDirect RDMA registration needs libibverbs (gstdoradmagpudirect.c),
 * so the library does not link it: an application that only reads frames
 * needs no rdma-core installed. The first caller dlopens it (once per
 * process) and resolves the functions below; the headers are needed at
 * build time only (HAVE_IBVERBS).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef __GST_DORADMA_IBVERBS_H__
#define __GST_DORADMA_IBVERBS_H__

#ifdef HAVE_IBVERBS
#include <glib.h>
#include <infiniband/verbs.h>

G_BEGIN_DECLS

/* The exported functions (not verbs.h's inline wrappers, which would need
 * the symbols at link time). */
typedef struct
{
  struct ibv_device **(*get_device_list) (int *num);
  void (*free_device_list) (struct ibv_device ** list);
  const char *(*get_device_name) (struct ibv_device * device);
  struct ibv_context *(*open_device) (struct ibv_device * device);
  int (*close_device) (struct ibv_context * context);
  int (*query_device) (struct ibv_context * context,
      struct ibv_device_attr * attr);
  /* the exported compat entry: its struct is a prefix of ibv_port_attr */
  int (*query_port) (struct ibv_context * context, uint8_t port, void *attr);
  const char *(*port_state_str) (enum ibv_port_state state);
  struct ibv_pd *(*alloc_pd) (struct ibv_context * context);
  int (*dealloc_pd) (struct ibv_pd * pd);
  struct ibv_mr *(*reg_mr) (struct ibv_pd * pd, void *addr, size_t length,
      int access);
  struct ibv_mr *(*reg_dmabuf_mr) (struct ibv_pd * pd, uint64_t offset,
      size_t length, uint64_t iova, int fd, int access);
  int (*dereg_mr) (struct ibv_mr * mr);
} GstDoradmaIbv;

/* The table, or NULL with *why (static text) saying why libibverbs.so.1
 * could not be loaded. */
const GstDoradmaIbv *gst_doradma_ibv (const gchar ** why);

G_END_DECLS
#endif /* HAVE_IBVERBS */
#endif /* __GST_DORADMA_IBVERBS_H__ */
