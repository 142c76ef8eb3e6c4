/* A hostile doradmanetsink: connects to a doradmanetsrc, waits for its
 * hello, sends one frame whose header is malformed in the way named on the
 * command line, and waits until the receiver drops the connection (or 10 s).
 *   bad-peer HOST PORT crop|version|payload|caps
 * Exit 0 when the receiver disconnected us, 1 otherwise. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucp/api/ucp.h>

#include "gstdoradmanetwire.h"

static int hello, broken;

static ucs_status_t
on_credit (void *arg, const void *header, size_t header_length, void *data,
    size_t length, const ucp_am_recv_param_t * param)
{
  struct doradma_net_credit c;

  if (doradma_net_credit_decode (header, header_length, &c, NULL) == 0
      && c.hello)
    hello = 1;
  return UCS_OK;
}

static void
on_error (void *arg, ucp_ep_h ep, ucs_status_t status)
{
  broken = 1;
}

static int
before (const struct timespec *end)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  return now.tv_sec < end->tv_sec;
}

int
main (int argc, char **argv)
{
  static uint8_t payload[64 * 48 * 3 / 2];
  ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
    .features = UCP_FEATURE_AM
  };
  ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
    .thread_mode = UCS_THREAD_MODE_SINGLE
  };
  ucp_am_handler_param_t ap = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
        UCP_AM_HANDLER_PARAM_FIELD_CB,.id = DORADMA_NET_AM_CREDIT,.cb =
        on_credit
  };
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM }, *res;
  struct doradma_net_frame_header h;
  struct doradma_frame_info fi;
  ucp_request_param_t rp = { 0 };
  ucp_ep_params_t ep_params = { 0 };
  struct timespec end;
  ucp_context_h ctx;
  ucp_worker_h worker;
  ucp_ep_h ep;
  uint64_t len = sizeof (payload);
  const char *what;
  void *req;

  if (argc != 4)
    return 2;
  what = argv[3];
  if (getaddrinfo (argv[1], argv[2], &hints, &res) != 0)
    return 2;
  if (ucp_init (&params, NULL, &ctx) != UCS_OK
      || ucp_worker_create (ctx, &wp, &worker) != UCS_OK
      || ucp_worker_set_am_recv_handler (worker, &ap) != UCS_OK)
    return 2;
  ep_params.field_mask = UCP_EP_PARAM_FIELD_FLAGS |
      UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLER |
      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  ep_params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
  ep_params.sockaddr.addr = res->ai_addr;
  ep_params.sockaddr.addrlen = res->ai_addrlen;
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep_params.err_handler.cb = on_error;
  if (ucp_ep_create (worker, &ep_params, &ep) != UCS_OK)
    return 2;

  clock_gettime (CLOCK_MONOTONIC, &end);
  end.tv_sec += 10;
  while (!hello && !broken && before (&end))
    ucp_worker_progress (worker);
  if (!hello) {
    fprintf (stderr, "bad-peer: no hello\n");
    return 1;
  }

  memset (&fi, 0, sizeof (fi));
  fi.seq = 1;
  fi.n_planes = 2;
  fi.width = 64;
  fi.height = 48;
  fi.planes[0] = (struct doradma_shm_plane) {
    0, 64, 48, 64, 0
  };
  fi.planes[1] = (struct doradma_shm_plane) {
    64 * 48, 64, 24, 64, 0
  };
  fi.payload_bytes = sizeof (payload);
  fi.pts = fi.dts = fi.mono_pts = DORADMA_TIME_NONE;
  doradma_net_frame_encode (&h, &fi, "video/x-raw, format=(string)NV12, "
      "width=(int)64, height=(int)48, framerate=(fraction)30/1", 1, 0, 0);
  if (strcmp (what, "crop") == 0) {
    h.record.crop_width = 100;
    h.record.crop_height = 10;
  } else if (strcmp (what, "version") == 0) {
    h.version = 99;
  } else if (strcmp (what, "payload") == 0) {
    len -= 100;                 /* fewer bytes than the record says */
  } else if (strcmp (what, "caps") == 0) {
    strcpy (h.caps, "video/x-raw(memory:NVMM), format=NV12");
    h.caps_len = strlen (h.caps);
  } else {
    return 2;
  }
  req = ucp_am_send_nbx (ep, DORADMA_NET_AM_FRAME, &h, sizeof (h), payload,
      len, &rp);
  while (!broken && before (&end))
    ucp_worker_progress (worker);
  if (req && !UCS_PTR_IS_ERR (req)) {
    if (ucp_request_check_status (req) == UCS_INPROGRESS)
      ucp_request_cancel (worker, req);
    ucp_request_free (req);
  }
  printf ("bad-peer: %s header sent, %s\n", what,
      broken ? "disconnected by the receiver" : "still connected");
  return broken ? 0 : 1;
}
