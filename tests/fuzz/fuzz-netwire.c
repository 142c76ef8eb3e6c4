/* libFuzzer target over the network bridge's wire decoders
 * (gst/net/gstdoradmanetwire.c): what a hostile peer controls. Besides "no
 * crash, no sanitizer report", it asserts what acceptance promises: an
 * accepted frame's payload is the announced length and at most max_frame
 * bytes, its planes lie inside it, its crop inside the picture, its caps
 * are a NUL-terminated video/x-raw string; every refusal names a field.
 * Then what doradmanetsrc adds (gst/net/gstdoradmanetcaps.h): caps it
 * accepts are fixed raw video, and a frame whose geometry it accepts
 * against them (gst_doradma_frame_fits) is read inside its payload by
 * anything that reads the caps' planes through a GstVideoMeta built from
 * the record (review N-1), strides within a gint.
 *
 * The first byte of the input chooses what the rest is:
 *   'H'  XORed over a valid frame header (the rest of the input from its
 *        first byte), decoded with the payload length the header announced
 *   'L'  as 'H', but the first 8 bytes are the payload length received
 *   'C'  a credit message (raw bytes)
 *   'A'  an authentication message (raw bytes)
 *   'R'  8 bytes of payload length, then a whole frame header (raw bytes:
 *        regression inputs made from a header, see regressions-net/README)
 *   anything else: the whole input as a frame header, payload length 0. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gstdoradmanetwire.h"
#include "gstdoradmanetcaps.h"

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

/* The bytes of plane `p` a reader of caps `info` touches through a
 * GstVideoMeta with the record's offset and stride: its rows (the tallest
 * component of the plane) times the stride, and the last row's bytes up to
 * the last pixel of the widest component. Computed from the format's
 * components, not from gst_doradma_plane_needs; packed formats whose
 * components have no pixel stride, tiled ones and planes without a
 * component (palettes) fall back to the needs. */
static void
plane_extent (const GstVideoInfo * info, const GstDoradmaPlaneNeeds * needs,
    guint p, guint64 * rows, guint64 * row_bytes)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  guint c;

  *rows = *row_bytes = 0;
  if (!GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)) {
    for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
      gint ps = GST_VIDEO_INFO_COMP_PSTRIDE (info, c);
      guint64 h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
      guint64 w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
      guint64 end;

      if ((guint) GST_VIDEO_INFO_COMP_PLANE (info, c) != p)
        continue;
      if (ps <= 0 || w == 0) {
        *rows = 0;
        break;
      }
      end = GST_VIDEO_INFO_COMP_POFFSET (info, c) + (guint64) ps *(w - 1)
      + (GST_VIDEO_INFO_COMP_DEPTH (info, c) + 7) / 8;
      *rows = MAX (*rows, h);
      *row_bytes = MAX (*row_bytes, end);
    }
  }
  if (*rows == 0) {
    *rows = needs->rows[p];
    *row_bytes = needs->row_bytes[p];
  }
}

static gboolean gst_inited;

/* GStreamer's one-time allocations (types, quarks, the registry) are not
 * an input's leak: libFuzzer calls this before the first input. */
int LLVMFuzzerInitialize (int *argc, char ***argv);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  if (!gst_inited) {
    /* Caps need no plugin: no registry. A scan would also record the
     * plugins in the tests' shared registry file, and in the ASan build,
     * where this test runs without the preloaded runtime, record them as
     * unloadable: the next suites then found no doradmasrc. */
    g_setenv ("GST_REGISTRY_DISABLE", "yes", TRUE);
    gst_init (NULL, NULL);
    /* the types and quarks parsing caps makes, once */
    gst_caps_unref (gst_caps_from_string ("video/x-raw, format=(string)NV12, "
            "width=(int)64, height=(int)48, framerate=(fraction)30/1"));
    gst_inited = TRUE;
  }
  return 0;
}

static void
check_against_caps (const struct doradma_net_frame *f)
{
  const struct doradma_frame_info *fi = &f->info;
  GstDoradmaPlaneNeeds needs;
  GstVideoInfo info;
  const gchar *why;
  GstCaps *caps;
  guint p;

  LLVMFuzzerInitialize (NULL, NULL);    /* replay-main.c does not */
  caps = gst_doradma_net_caps_parse (f->caps, &info, &needs, &why);
  if (caps == NULL) {
    if (why == NULL)
      abort ();
    return;
  }
  gst_caps_unref (caps);
  if (GST_VIDEO_INFO_WIDTH (&info) <= 0 || GST_VIDEO_INFO_HEIGHT (&info) <= 0)
    abort ();
  if (!gst_doradma_frame_fits (&info, &needs, fi))
    return;
  /* accepted: the GstVideoMeta doradmanetsrc builds is read in bounds */
  if (fi->width != (guint) GST_VIDEO_INFO_WIDTH (&info)
      || fi->height != (guint) GST_VIDEO_INFO_HEIGHT (&info)
      || fi->n_planes != GST_VIDEO_INFO_N_PLANES (&info))
    abort ();
  for (p = 0; p < fi->n_planes; p++) {
    const struct doradma_shm_plane *pl = &fi->planes[p];
    guint64 rows, row_bytes;

    if (pl->stride > G_MAXINT)
      abort ();
    plane_extent (&info, &needs, p, &rows, &row_bytes);
    if (rows && pl->offset + (guint64) pl->stride * (rows - 1) + row_bytes
        > fi->payload_bytes)
      abort ();
  }
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

/* The caps check parses caps with GStreamer, whose per-type caches live as
 * long as the process, after GLib's own start-up allocations; LeakSanitizer
 * reports them (libglib has no frame pointers: the stacks end at g_malloc),
 * so this target's leak check leaves GLib's allocator alone, in the replay
 * under ASan as in the libFuzzer run (run-bounded.sh: detect_leaks=0). */
const char *__lsan_default_suppressions (void);
const char *
__lsan_default_suppressions (void)
{
  return "leak:libglib-2.0.so\nleak:libgobject-2.0.so\n"
      "leak:libgstreamer-1.0.so\n";
}

int LLVMFuzzerTestOneInput (const uint8_t * data, size_t size);

/* What docs/network.md promises of an accepted record: kinds 1..6; the
 * in-band kinds carry only known setting bits, the door's none but
 * DOOR_PROOF's, which is the UCX listener's port (1..65535). */
static void
check_auth (const struct doradma_net_auth *a)
{
  if (a->kind < DORADMA_NET_AUTH_CHALLENGE
      || a->kind > DORADMA_NET_AUTH_DOOR_PROOF)
    abort ();
  if (a->kind == DORADMA_NET_AUTH_DOOR_PROOF) {
    if (a->flags < 1 || a->flags > 65535)
      abort ();
  } else if (a->kind >= DORADMA_NET_AUTH_DOOR_CHALLENGE) {
    if (a->flags != 0)
      abort ();
  } else if ((a->flags & ~DORADMA_NET_AUTH_FLAGS_KNOWN) != 0) {
    abort ();
  }
}

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
      if (ret == 0) {
        check_frame (&f, payload_len);
        check_against_caps (&f);
      }
      break;
    case 'R':
      if (size < 9)
        return 0;
      memcpy (&payload_len, data + 1, 8);
      ret = doradma_net_frame_decode (data + 9, size - 9, payload_len,
          MAX_FRAME, &f, &diag);
      check_refusal (ret, &diag);
      if (ret == 0) {
        check_frame (&f, payload_len);
        check_against_caps (&f);
      }
      break;
    case 'A':{
      struct doradma_net_auth a;

      ret = doradma_net_auth_decode (data + 1, size - 1, &a, &diag);
      check_refusal (ret, &diag);
      if (ret == 0)
        check_auth (&a);
      break;
    }
    case 'C':
      ret = doradma_net_credit_decode (data + 1, size - 1, &c, &diag);
      check_refusal (ret, &diag);
      if (ret == 0 && (c.credits > 64 || c.hello > 1))
        abort ();
      break;
    default:
      ret = doradma_net_frame_decode (data, size, 0, MAX_FRAME, &f, &diag);
      check_refusal (ret, &diag);
      if (ret == 0) {
        check_frame (&f, 0);
        check_against_caps (&f);
      }
      break;
  }
  return 0;
}
