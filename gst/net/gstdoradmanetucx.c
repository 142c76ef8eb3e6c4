/* doradma GStreamer plugin — the UCX worker of a network element (see the
 * header).
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "gstdoradmanetgate.h"
#include "gstdoradmanetucx.h"

#define UCX_ERROR(error, status, ...) \
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE, \
      __VA_ARGS__), (void) (status)

/* Sets UCX configuration `key` in `config` unless the user's environment
 * sets it (`env`: UCX_<prefix><key>), which then wins as UCX reads it.
 * Never the environment itself: other threads may be reading it. */
static gboolean
config_default (ucp_config_t * config, const gchar * env, const gchar * key,
    const gchar * value, GError ** error)
{
  ucs_status_t st;

  if (g_getenv (env) != NULL)
    return TRUE;
  st = ucp_config_modify (config, key, value);
  if (st != UCS_OK) {
    UCX_ERROR (error, st, "UCX refused %s=%s: %s", key, value,
        ucs_status_string (st));
    return FALSE;
  }
  return TRUE;
}

/* TRUE when UCX may pick its tcp transport from `tls` (a UCX_TLS list):
 * the tcp keys below would otherwise be unused, and UCX warns of those */
static gboolean
may_use_tcp (const gchar * tls)
{
  return tls == NULL || tls[0] == '\0' || strstr (tls, "tcp") != NULL
      || strstr (tls, "all") != NULL;
}

/* allowed-peers (`u->gate`): the listening sockets UCX opened since
 * `before` (gst_doradma_net_gate_snapshot, taken whenever there is a
 * list; freed here) gated by the kernel, before the worker first reads
 * from them. TRUE without a list. */
static gboolean
gate_new_listeners (GstDoradmaNetUcx * u, GHashTable * before, GError ** error)
{
  gint n;

  if (u->gate == NULL)
    return TRUE;
  n = gst_doradma_net_gate_apply (before, u->gate, u->gated, error);
  g_hash_table_unref (before);
  return n >= 0;
}

gboolean
gst_doradma_net_ucx_port_range (const gchar * range, guint * first,
    guint * last)
{
  guint f, l;
  gchar end;

  if (range == NULL || sscanf (range, "%u-%u%c", &f, &l, &end) != 2
      || f == 0 || f > l || l > G_MAXUINT16)
    return FALSE;
  *first = f;
  *last = l;
  return TRUE;
}

gboolean
gst_doradma_net_ucx_open (GstDoradmaNetUcx * u, const gchar * transports,
    const gchar * device, const gchar * port_range, GPtrArray * allow,
    GError ** error)
{
  GHashTable *before = NULL;
  ucp_params_t params = { 0 };
  ucp_worker_params_t wparams = { 0 };
  ucp_context_attr_t attr = { 0 };
  ucp_config_t *config = NULL;
  ucs_status_t st;
  GString *types;
  guint t;
  gboolean ok;

  memset (u, 0, sizeof (*u));
  u->worker_fd = u->cancel_fd = u->spare_fd = -1;

  st = ucp_config_read (NULL, NULL, &config);
  if (st != UCS_OK) {
    UCX_ERROR (error, st, "Could not read the UCX configuration: %s",
        ucs_status_string (st));
    return FALSE;
  }
  if (transports && transports[0]) {
    st = ucp_config_modify (config, "TLS", transports);
    if (st != UCS_OK) {
      UCX_ERROR (error, st, "UCX refused transports=\"%s\": %s", transports,
          ucs_status_string (st));
      ucp_config_release (config);
      return FALSE;
    }
  }
  /* Set in UCX's configuration object, where UCX 1.13 hands keys it does
   * not know itself to its transports and connection managers: "CM_*" to
   * the TCP connection manager (UCX_TCP_CM_*), the others to the tcp
   * transport (UCX_TCP_*). A value in the environment wins. */
  /* A receiver restarted after kill -9 listens on the same port at once,
   * beside the dead one's connections in TIME_WAIT. */
  ok = config_default (config, "UCX_TCP_CM_REUSEADDR", "CM_REUSEADDR", "y",
      error);
  /* A connection with nothing in flight whose peer vanished (link cut,
   * host down) is found by TCP keepalive in about 5 s instead of UCX's
   * default ~30 s. One with data in flight: the sink's peer-timeout. */
  if (ok && may_use_tcp (transports && transports[0] ? transports :
          g_getenv ("UCX_TLS"))) {
    ok = config_default (config, "UCX_TCP_KEEPIDLE", "KEEPIDLE", "2s", error)
        && config_default (config, "UCX_TCP_KEEPINTVL", "KEEPINTVL", "1s",
        error)
        && config_default (config, "UCX_TCP_KEEPCNT", "KEEPCNT", "3", error);
  }
  /* A peer that vanishes without closing (link cut, host down) is found
   * by keepalive. */
  ok = ok && config_default (config, "UCX_KEEPALIVE_INTERVAL",
      "KEEPALIVE_INTERVAL", "1s", error);
  /* No transport listens or sends on another device (review N-10, N-6).
   * Not CM_USE_ALL_DEVICES: UCX 1.13 crashes or refuses a connection
   * between two ends that set it differently. */
  if (ok && device && device[0])
    ok = config_default (config, "UCX_NET_DEVICES", "NET_DEVICES", device,
        error);
  /* The tcp transport's data listener on these ports, not an ephemeral
   * one: a firewall can name them. The property is explicit: it wins. */
  if (ok && port_range && port_range[0]) {
    guint first, last;

    /* UCX checks it only when the transport opens, and then just warns */
    if (!gst_doradma_net_ucx_port_range (port_range, &first, &last)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "data-ports=\"%s\" is not FIRST-LAST, 1 <= FIRST <= LAST <= "
          "65535", port_range);
      ucp_config_release (config);
      return FALSE;
    }
    st = ucp_config_modify (config, "PORT_RANGE", port_range);
    if (st != UCS_OK) {
      UCX_ERROR (error, st, "UCX refused data-ports=\"%s\" (FIRST-LAST): %s",
          port_range, ucs_status_string (st));
      ok = FALSE;
    }
  }
  if (!ok) {
    ucp_config_release (config);
    return FALSE;
  }

  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
  params.name = "doradma";
  st = ucp_init (&params, config, &u->context);
  ucp_config_release (config);
  if (st != UCS_OK) {
    UCX_ERROR (error, st, "Could not initialise UCX (transports \"%s\"): %s",
        transports && transports[0] ? transports :
        (g_getenv ("UCX_TLS") ? g_getenv ("UCX_TLS") : "UCX default"),
        ucs_status_string (st));
    return FALSE;
  }

  wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  /* one thread at a time: the caller's, or the progress thread under lock */
  wparams.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  /* the worker's tcp transport listens from here on (its data ports);
   * every failure from here on goes through close, which drops `gate` */
  u->gate = allow ? g_ptr_array_ref (allow) : NULL;
  if (u->gate)
    u->gated = g_array_new (FALSE, FALSE, sizeof (int));
  /* no other element's socket made between the snapshot and the gate */
  gst_doradma_net_gate_lock ();
  ok = u->gate == NULL
      || (before = gst_doradma_net_gate_snapshot (error)) != NULL;
  if (ok) {
    st = ucp_worker_create (u->context, &wparams, &u->worker);
    if (st == UCS_OK)
      st = ucp_worker_get_efd (u->worker, &u->worker_fd);
    if (st != UCS_OK) {
      UCX_ERROR (error, st, "Could not create a UCX worker: %s",
          ucs_status_string (st));
      g_clear_pointer (&before, g_hash_table_unref);
      ok = FALSE;
    } else {
      ok = gate_new_listeners (u, before, error);
    }
  }
  gst_doradma_net_gate_unlock ();
  if (!ok) {
    gst_doradma_net_ucx_close (u);
    return FALSE;
  }
  u->cancel_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (u->cancel_fd < 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "eventfd: %s", g_strerror (errno));
    gst_doradma_net_ucx_close (u);
    return FALSE;
  }

  /* The run-time probe: which memory UCX can send from. */
  attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  types = g_string_new (NULL);
  if (ucp_context_query (u->context, &attr) == UCS_OK) {
    u->memory_type_mask = attr.memory_types;
    for (t = 0; t < UCS_MEMORY_TYPE_LAST; t++) {
      if (attr.memory_types & UCS_BIT (t))
        g_string_append_printf (types, "%s%s", types->len ? "," : "",
            ucs_memory_type_names[t]);
    }
  }
  u->memory_types = g_string_free (types, FALSE);
  return TRUE;
}

void
gst_doradma_net_ucx_close (GstDoradmaNetUcx * u)
{
  if (u->worker)
    ucp_worker_destroy (u->worker);
  if (u->context)
    ucp_cleanup (u->context);
  if (u->cancel_fd >= 0)
    close (u->cancel_fd);
  g_clear_pointer (&u->stuck_seen, g_hash_table_unref);
  g_clear_pointer (&u->sweep_dir, closedir);
  g_clear_pointer (&u->gate, g_ptr_array_unref);
  if (u->gated) {
    guint i;

    for (i = 0; i < u->gated->len; i++)
      close (g_array_index (u->gated, int, i));
    g_array_unref (u->gated);
  }
  if (u->spare_fd >= 0)
    close (u->spare_fd);
  g_free (u->memory_types);
  g_mutex_clear (&u->lock);
  g_cond_clear (&u->cond);
  memset (u, 0, sizeof (*u));
  u->worker_fd = u->cancel_fd = u->spare_fd = -1;
}

static gpointer
progress_thread (gpointer data)
{
  GstDoradmaNetUcx *u = data;
  struct pollfd pfd[2] = {
    {u->worker_fd, POLLIN, 0},
    {u->cancel_fd, POLLIN, 0},
  };
  guint64 v;

  g_mutex_lock (&u->lock);
  while (!u->stop) {
    if (ucp_worker_progress (u->worker) != 0) {
      g_cond_broadcast (&u->cond);
      continue;
    }
    g_cond_broadcast (&u->cond);
    if (ucp_worker_arm (u->worker) != UCS_OK)
      continue;                 /* BUSY: events came meanwhile */
    g_mutex_unlock (&u->lock);
    while (poll (pfd, 2, 100) < 0 && errno == EINTR);
    if (pfd[1].revents & POLLIN && read (u->cancel_fd, &v, sizeof (v)) < 0)
      GST_DEBUG ("eventfd read: %s", g_strerror (errno));
    g_mutex_lock (&u->lock);
  }
  g_mutex_unlock (&u->lock);
  return NULL;
}

void
gst_doradma_net_ucx_start_thread (GstDoradmaNetUcx * u)
{
  u->stop = FALSE;
  u->thread = g_thread_new ("doradmanet-ucx", progress_thread, u);
}

void
gst_doradma_net_ucx_stop_thread (GstDoradmaNetUcx * u)
{
  guint64 v = 1;

  if (u->thread == NULL)
    return;
  g_mutex_lock (&u->lock);
  u->stop = TRUE;
  g_mutex_unlock (&u->lock);
  if (write (u->cancel_fd, &v, sizeof (v)) < 0)
    GST_WARNING ("eventfd write: %s", g_strerror (errno));
  g_thread_join (u->thread);
  u->thread = NULL;
  /* the thread's wake-up must not read as an interrupt later */
  gst_doradma_net_ucx_interrupt (u, FALSE);
}

void
gst_doradma_net_ucx_wait_progress (GstDoradmaNetUcx * u, gint timeout_ms)
{
  g_cond_wait_until (&u->cond, &u->lock,
      g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND);
}

void
gst_doradma_net_ucx_progress (GstDoradmaNetUcx * u)
{
  while (ucp_worker_progress (u->worker) != 0);
}

gboolean
gst_doradma_net_ucx_interrupted (GstDoradmaNetUcx * u)
{
  struct pollfd pfd = { u->cancel_fd, POLLIN, 0 };

  return poll (&pfd, 1, 0) > 0;
}

gboolean
gst_doradma_net_ucx_wait (GstDoradmaNetUcx * u, gint timeout_ms)
{
  struct pollfd pfd[2] = {
    {u->worker_fd, POLLIN, 0},
    {u->cancel_fd, POLLIN, 0},
  };
  ucs_status_t st;

  if (ucp_worker_progress (u->worker) != 0) {
    gst_doradma_net_ucx_progress (u);
    return !gst_doradma_net_ucx_interrupted (u);
  }
  /* BUSY: events came in since the progress; run them instead of sleeping. */
  st = ucp_worker_arm (u->worker);
  if (st == UCS_OK) {
    while (poll (pfd, 2, timeout_ms) < 0 && errno == EINTR);
  }
  gst_doradma_net_ucx_progress (u);
  return !gst_doradma_net_ucx_interrupted (u);
}

void
gst_doradma_net_ucx_interrupt (GstDoradmaNetUcx * u, gboolean on)
{
  guint64 v = 1;

  if (u->cancel_fd < 0)
    return;
  if (on) {
    if (write (u->cancel_fd, &v, sizeof (v)) < 0)
      GST_WARNING ("eventfd write: %s", g_strerror (errno));
  } else if (read (u->cancel_fd, &v, sizeof (v)) < 0 && errno != EAGAIN) {
    GST_WARNING ("eventfd read: %s", g_strerror (errno));
  }
}

ucs_status_t
gst_doradma_net_ucx_finish (GstDoradmaNetUcx * u, void *req, gint64 timeout_us)
{
  gint64 deadline = timeout_us ? g_get_monotonic_time () + timeout_us : 0;
  ucs_status_t st, why = UCS_OK;

  if (req == NULL)
    return UCS_OK;
  if (UCS_PTR_IS_ERR (req))
    return UCS_PTR_STATUS (req);
  while ((st = ucp_request_check_status (req)) == UCS_INPROGRESS) {
    gboolean go_on = gst_doradma_net_ucx_wait (u, 100);

    if (why != UCS_OK)
      continue;                 /* cancelled: wait for the completion */
    if (!go_on)
      why = UCS_ERR_CANCELED;
    else if (deadline && g_get_monotonic_time () > deadline)
      why = UCS_ERR_TIMED_OUT;
    if (why != UCS_OK)
      ucp_request_cancel (u->worker, req);
  }
  ucp_request_free (req);
  return why != UCS_OK && st != UCS_OK ? why : st;
}

gboolean
gst_doradma_net_ucx_resolve (const gchar * host, guint port,
    struct sockaddr_storage *ss, socklen_t * len, GError ** error)
{
  struct addrinfo hints = { 0 }, *res = NULL;
  gchar service[16];
  int r;

  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  g_snprintf (service, sizeof (service), "%u", port);
  r = getaddrinfo (host && host[0] ? host : NULL, service, &hints, &res);
  if (r != 0 || res == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "Could not resolve \"%s\" port %u: %s", host ? host : "", port,
        gai_strerror (r));
    return FALSE;
  }
  memcpy (ss, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  freeaddrinfo (res);
  return TRUE;
}

gchar *
gst_doradma_net_ucx_interface_of (const gchar * address, GError ** error)
{
  struct sockaddr_storage ss;
  socklen_t len;
  struct ifaddrs *ifs = NULL, *i;
  gchar *name = NULL;

  if (!gst_doradma_net_ucx_resolve (address, 0, &ss, &len, error))
    return NULL;
  if ((ss.ss_family == AF_INET &&
          ((struct sockaddr_in *) &ss)->sin_addr.s_addr == htonl (INADDR_ANY))
      || (ss.ss_family == AF_INET6 &&
          IN6_IS_ADDR_UNSPECIFIED (&((struct sockaddr_in6 *) &ss)->sin6_addr)))
    return g_strdup ("");
  if (getifaddrs (&ifs) != 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "getifaddrs: %s", g_strerror (errno));
    return NULL;
  }
  for (i = ifs; i != NULL && name == NULL; i = i->ifa_next) {
    if (i->ifa_addr == NULL || i->ifa_addr->sa_family != ss.ss_family)
      continue;
    if ((ss.ss_family == AF_INET &&
            ((struct sockaddr_in *) i->ifa_addr)->sin_addr.s_addr ==
            ((struct sockaddr_in *) &ss)->sin_addr.s_addr)
        || (ss.ss_family == AF_INET6 &&
            IN6_ARE_ADDR_EQUAL (&((struct sockaddr_in6 *) i->ifa_addr)->
                sin6_addr, &((struct sockaddr_in6 *) &ss)->sin6_addr)))
      name = g_strdup (i->ifa_name);
  }
  freeifaddrs (ifs);
  if (name == NULL)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "address \"%s\" is on none of this host's network interfaces "
        "(getifaddrs)", address);
  return name;
}

gchar **
gst_doradma_net_ucx_interfaces (void)
{
  struct ifaddrs *ifs = NULL, *i;
  GPtrArray *names = g_ptr_array_new ();

  if (getifaddrs (&ifs) == 0) {
    for (i = ifs; i != NULL; i = i->ifa_next) {
      if (i->ifa_addr == NULL || !(i->ifa_flags & IFF_UP)
          || (i->ifa_flags & IFF_LOOPBACK)
          || (i->ifa_addr->sa_family != AF_INET
              && i->ifa_addr->sa_family != AF_INET6)
          || g_ptr_array_find_with_equal_func (names, i->ifa_name,
              g_str_equal, NULL))
        continue;
      g_ptr_array_add (names, g_strdup (i->ifa_name));
    }
    freeifaddrs (ifs);
  }
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

gchar *
gst_doradma_net_ucx_route_interface (const gchar * host, guint port)
{
  struct sockaddr_storage ss, local;
  socklen_t len, llen = sizeof (local);
  gchar addr[INET6_ADDRSTRLEN] = "";
  gchar *name = NULL;
  int fd;

  if (!gst_doradma_net_ucx_resolve (host, port, &ss, &len, NULL))
    return NULL;
  /* a UDP connect sends nothing: it only asks the kernel for the route */
  fd = socket (ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return NULL;
  if (connect (fd, (struct sockaddr *) &ss, len) == 0
      && getsockname (fd, (struct sockaddr *) &local, &llen) == 0) {
    if (local.ss_family == AF_INET)
      inet_ntop (AF_INET, &((struct sockaddr_in *) &local)->sin_addr, addr,
          sizeof (addr));
    else if (local.ss_family == AF_INET6)
      inet_ntop (AF_INET6, &((struct sockaddr_in6 *) &local)->sin6_addr,
          addr, sizeof (addr));
  }
  close (fd);
  if (addr[0])
    name = gst_doradma_net_ucx_interface_of (addr, NULL);
  return name;
}

ucp_ep_h
gst_doradma_net_ucx_connect (GstDoradmaNetUcx * u, const gchar * host,
    guint port, const struct sockaddr_storage *ss, socklen_t len,
    ucp_err_handler_cb_t on_error, gpointer arg, GError ** error)
{
  ucp_ep_params_t p = { 0 };
  ucp_ep_h ep = NULL;
  ucs_status_t st;

  p.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  p.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  p.sockaddr.addr = (const struct sockaddr *) ss;
  p.sockaddr.addrlen = len;
  p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  p.err_handler.cb = on_error;
  p.err_handler.arg = arg;
  st = ucp_ep_create (u->worker, &p, &ep);
  if (st != UCS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        "Could not connect to %s port %u: %s", host, port,
        ucs_status_string (st));
    return NULL;
  }
  return ep;
}

gboolean
gst_doradma_net_ucx_request_address (ucp_conn_request_h request,
    struct sockaddr_storage *ss)
{
  ucp_conn_request_attr_t attr = { 0 };

  attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
  if (ucp_conn_request_query (request, &attr) != UCS_OK)
    return FALSE;
  *ss = attr.client_address;
  return TRUE;
}

ucp_ep_h
gst_doradma_net_ucx_accept (GstDoradmaNetUcx * u, ucp_conn_request_h request,
    ucp_err_handler_cb_t on_error, gpointer arg, GError ** error)
{
  ucp_ep_params_t p = { 0 };
  ucp_ep_h ep = NULL;
  ucs_status_t st;

  p.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST |
      UCP_EP_PARAM_FIELD_ERR_HANDLER | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  p.conn_request = request;
  p.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  p.err_handler.cb = on_error;
  p.err_handler.arg = arg;
  st = ucp_ep_create (u->worker, &p, &ep);
  if (st != UCS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not accept a connection: %s", ucs_status_string (st));
    return NULL;
  }
  return ep;
}

ucp_listener_h
gst_doradma_net_ucx_listen (GstDoradmaNetUcx * u, const gchar * address,
    guint port, ucp_listener_conn_callback_t on_conn, gpointer arg,
    GError ** error)
{
  struct sockaddr_storage ss;
  socklen_t len;
  ucp_listener_params_t p = { 0 };
  ucp_listener_h l = NULL;
  GHashTable *before = NULL;
  ucs_status_t st;

  if (!gst_doradma_net_ucx_resolve (address, port, &ss, &len, error))
    return NULL;
  p.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR |
      UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
  p.sockaddr.addr = (const struct sockaddr *) &ss;
  p.sockaddr.addrlen = len;
  p.conn_handler.cb = on_conn;
  p.conn_handler.arg = arg;
  gst_doradma_net_gate_lock ();
  if (u->gate && (before = gst_doradma_net_gate_snapshot (error)) == NULL) {
    gst_doradma_net_gate_unlock ();
    return NULL;
  }
  st = ucp_listener_create (u->worker, &p, &l);
  if (st != UCS_OK) {
    gst_doradma_net_gate_unlock ();
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "Could not listen on %s port %u: %s", address && address[0] ?
        address : "*", port, ucs_status_string (st));
    g_clear_pointer (&before, g_hash_table_unref);
    return NULL;
  }
  /* the connection manager reads in UCX's async thread: gated at once */
  if (!gate_new_listeners (u, before, error)) {
    gst_doradma_net_gate_unlock ();
    ucp_listener_destroy (l);
    return NULL;
  }
  gst_doradma_net_gate_unlock ();
  gst_doradma_net_ucx_sweep_prepare (u, l, &ss, len);
  return l;
}

/* Progresses the worker until `req` completes (then frees it) or the
 * monotonic `deadline` passes (0: none). TRUE when it completed. */
static gboolean
wait_request (GstDoradmaNetUcx * u, void *req, gint64 deadline)
{
  while (ucp_request_check_status (req) == UCS_INPROGRESS) {
    if (deadline && g_get_monotonic_time () >= deadline)
      return FALSE;
    ucp_worker_progress (u->worker);
  }
  ucp_request_free (req);
  return TRUE;
}

gboolean
gst_doradma_net_ucx_regate (GstDoradmaNetUcx * u, GPtrArray * allow,
    GError ** error)
{
  g_return_val_if_fail (u->gated != NULL, FALSE);
  return gst_doradma_net_gate_refilter (u->gated, allow, error);
}

guint
gst_doradma_net_ucx_listener_port (GstDoradmaNetUcx * u)
{
  return gst_doradma_net_sockaddr_port (&u->sweep_addr);
}

gboolean
gst_doradma_net_ucx_close_ep (GstDoradmaNetUcx * u, ucp_ep_h ep,
    gboolean force, gint64 grace_us)
{
  ucp_request_param_t p = { 0 };
  gint64 deadline;
  gboolean clean = TRUE;
  void *req;

  if (ep == NULL)
    return TRUE;
  deadline = grace_us > 0 ? g_get_monotonic_time () + grace_us : 0;
  if (!force) {
    /* a peer that takes no more data (stopped, its host stuck) never lets
     * a flush complete: past the grace the close is forced instead */
    req = ucp_ep_flush_nbx (ep, &p);
    if (UCS_PTR_IS_PTR (req) && !wait_request (u, req, deadline)) {
      ucp_request_free (req);   /* released when the forced close ends it */
      force = TRUE;
      clean = FALSE;
    }
  }
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = force ? UCP_EP_CLOSE_FLAG_FORCE : 0;
  req = ucp_ep_close_nbx (ep, &p);
  if (req == NULL || UCS_PTR_IS_ERR (req))
    return clean;
  /* a forced close is local and ends; a graceful one is bounded again, its
   * request then released to the worker's teardown */
  deadline = force || grace_us <= 0 ? 0 : g_get_monotonic_time () + grace_us;
  if (!wait_request (u, req, deadline)) {
    ucp_request_free (req);
    clean = FALSE;
  }
  return clean;
}

gboolean
gst_doradma_net_ucx_set_am_handler (GstDoradmaNetUcx * u, guint id,
    ucp_am_recv_callback_t cb, gpointer arg, GError ** error)
{
  ucp_am_handler_param_t p = { 0 };
  ucs_status_t st;

  p.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
      UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
      UCP_AM_HANDLER_PARAM_FIELD_ARG;
  p.id = id;
  p.flags = UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA;
  p.cb = cb;
  p.arg = arg;
  st = ucp_worker_set_am_recv_handler (u->worker, &p);
  if (st != UCS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "Could not register the UCX active message handler: %s",
        ucs_status_string (st));
    return FALSE;
  }
  return TRUE;
}

static void
copy_sent (void *request, ucs_status_t status, void *user_data)
{
  g_free (user_data);
  /* freed here, not at the send: a freed request gets no callback */
  ucp_request_free (request);
}

gboolean
gst_doradma_net_ucx_send_copy (ucp_ep_h ep, guint id, const void *buf,
    gsize len)
{
  ucp_request_param_t param = { 0 };
  gpointer copy = g_memdup2 (buf, len);
  void *req;

  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  param.cb.send = copy_sent;
  param.user_data = copy;
  req = ucp_am_send_nbx (ep, id, copy, len, NULL, 0, &param);
  if (req == NULL || UCS_PTR_IS_ERR (req))
    g_free (copy);
  return !UCS_PTR_IS_ERR (req);
}

gboolean
gst_doradma_net_ucx_set_unknown_am_handler (GstDoradmaNetUcx * u,
    ucp_am_recv_callback_t cb, gpointer arg, GError ** error)
{
  guint id;

  /* the highest first: UCX sizes its table once */
  for (id = G_MAXUINT16 + 1; id-- > 0;) {
    if (!gst_doradma_net_ucx_set_am_handler (u, id, cb, arg, error))
      return FALSE;
  }
  return TRUE;
}

const gchar *
gst_doradma_net_ucx_memory_types (GstDoradmaNetUcx * u)
{
  return u->memory_types ? u->memory_types : "";
}

gboolean
gst_doradma_net_ucx_has_cuda (GstDoradmaNetUcx * u)
{
  return (u->memory_type_mask & UCS_BIT (UCS_MEMORY_TYPE_CUDA)) != 0;
}

GstStructure *
gst_doradma_net_ucx_stats_new (GstDoradmaNetUcx * u, gboolean open,
    const gchar * name, const gchar * const *names, guint64 * counters, guint n)
{
  GstStructure *s = gst_structure_new_empty (name);
  guint c;

  for (c = 0; c < n; c++)
    gst_structure_set (s, names[c], G_TYPE_UINT64,
        __atomic_load_n (&counters[c], __ATOMIC_RELAXED), NULL);
  gst_structure_set (s, "ucx-memory-types", G_TYPE_STRING, open ?
      gst_doradma_net_ucx_memory_types (u) : "", NULL);
  return s;
}
