/* libFuzzer target over the network bridge's wire decoders
 * (gst/net/gstdoradmanetwire.c): what a hostile peer controls. Besides "no
 * crash, no sanitizer report", it asserts what acceptance promises: an
 * accepted frame's payload is the announced length and at most max_frame
 * bytes, its planes lie inside it, its crop inside the picture, its caps
 * are a NUL-terminated video/x-raw string; every refusal names a field.
 *
 * The first byte of the input chooses what the rest is:
 *   'H'  XORed over a valid frame header (the rest of the input from its
 *        first byte), decoded with the payload length the header announced
 *   'L'  as 'H', but the first 8 bytes are the payload length received
 *   'C'  a credit message (raw bytes)
 *   anything else: the whole input as a frame header, payload length 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gstdoradmanetwire.h"

#define MAX_FRAME (1u << 20)

static void
check_refusal (int ret, const struct doradma_diag *diag)
{
  if (ret == 0)
    return;
  if (ret != -EBADMSG && ret != -EPROTONOSUPPORT)
    abort ();
  if (diag->field == NULL || diag->msg[0] == '\0')
    abort ();
}

static void
check_frame (const struct doradma_net_frame *f, uint64_t payload_len)
{
  const struct doradma_frame_info *fi = &f->info;
  uint32_t p;

  if (fi->payload_bytes != payload_len || payload_len > MAX_FRAME)
    abort ();
  if (fi->n_planes < 1 || fi->n_planes > DORADMA_MAX_PLANES)
    abort ();
  for (p = 0; p < fi->n_planes; p++) {
    const struct doradma_shm_plane *pl = &fi->planes[p];

    if (pl->offset + (uint64_t) pl->stride * (pl->rows - 1) + pl->row_bytes
        > fi->payload_bytes)
      abort ();
  }
  if (fi->crop_width && ((uint64_t) fi->crop_x + fi->crop_width > fi->width
          || (uint64_t) fi->crop_y + fi->crop_height > fi->height))
    abort ();
  if (memchr (f->caps, '\0', sizeof (f->caps)) == NULL
      || strncmp (f->caps, "video/x-raw", 11) != 0)
    abort ();
}

static void
valid_header (struct doradma_net_frame_header *h)
{
  struct doradma_frame_info fi;

  memset (&fi, 0, sizeof (fi));
  fi.n_planes = 2;
  fi.width = 64;
  fi.height = 48;
  fi.planes[0] = (struct doradma_shm_plane) {
    0, 64, 48, 64, 0
  };
  fi.planes[1] = (struct doradma_shm_plane) {
    64 * 48, 64, 24, 64, 0
  };
  fi.payload_bytes = 64 * 48 * 3 / 2;
  fi.seq = 1;
  fi.pts = fi.dts = fi.mono_pts = DORADMA_TIME_NONE;
  doradma_net_frame_encode (h, &fi,
      "video/x-raw, format=(string)NV12, width=(int)64, height=(int)48", 1, 0,
      0);
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  struct doradma_net_frame_header h;
  struct doradma_net_frame f;
  struct doradma_net_credit c;
  struct doradma_diag diag;
  uint64_t payload_len = 0;
  uint8_t *bytes;
  size_t i, n;
  int ret;

  if (size < 1)
    return 0;
  memset (&diag, 0, sizeof (diag));
  switch (data[0]) {
    case 'H':
    case 'L':
      valid_header (&h);
      payload_len = h.record.payload_bytes;
      data++;
      size--;
      if (data[-1] == 'L') {
        if (size < 8)
          return 0;
        memcpy (&payload_len, data, 8);
        data += 8;
        size -= 8;
      }
      bytes = (uint8_t *) & h;
      n = size < sizeof (h) ? size : sizeof (h);
      for (i = 0; i < n; i++)
        bytes[i] ^= data[i];
      ret = doradma_net_frame_decode (&h, sizeof (h), payload_len, MAX_FRAME,
          &f, &diag);
      check_refusal (ret, &diag);
      if (ret == 0)
        check_frame (&f, payload_len);
      break;
    case 'C':
      ret = doradma_net_credit_decode (data + 1, size - 1, &c, &diag);
      check_refusal (ret, &diag);
      if (ret == 0 && (c.credits > 64 || c.hello > 1))
        abort ();
      break;
    default:
      ret = doradma_net_frame_decode (data, size, 0, MAX_FRAME, &f, &diag);
      check_refusal (ret, &diag);
      if (ret == 0)
        check_frame (&f, 0);
      break;
  }
  return 0;
}
