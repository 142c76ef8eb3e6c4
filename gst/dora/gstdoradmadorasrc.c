/* doradma GStreamer plugin — doradmasrc's dora read path (`dora-pool=`).
 *
 * A dora pool has no futex and no leases: we poll its generation word every
 * `poll-interval` and push each new complete generation once, as a COPY
 * (the writer overwrites the one buffer in place). The copy is bracketed by
 * the generation protocol (lib/dora-pool.c): a torn copy is discarded and
 * retried, an odd generation left by a dead writer costs frames, never the
 * pipeline.
 *
 *   shmem     pread from the pool's fd (a pool shrunk by its owner is a
 *             short read, never SIGBUS: docs/dora.md "Copying")
 *   unified   the mapping base registered with CUDA over the whole object,
 *             payload = device alias + data_offset, copied device -> host
 *             (pread when CUDA is unavailable: same bytes)
 *   ipc       the header's CUDA IPC handle opened, payload at its offset 0,
 *             copied device -> host; without CUDA: an error
 *
 * Copyright (C) 2026 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <gst/video/video.h>
#include <gst/base/gstpushsrc.h>
#include <doradma/dora-pool.h>
#include <doradma-cuda.h>

#include "gstdoradmadora.h"
#include "gstdoradmaenums.h"
#include "gstdoradmadorasrcprivate.h"

GST_DEBUG_CATEGORY (gst_doradma_dora_src_debug);
#define GST_CAT_DEFAULT gst_doradma_dora_src_debug

/* how often an idle reader checks that the name still leads to its pool */
#define REPLACED_CHECK_US (500 * G_TIME_SPAN_MILLISECOND)

DoraSrc *
gst_doradma_dora_src_get (gpointer src)
{
  return gst_doradma_dora_state (src);
}

/* ---------------------------------------------------------------------- */
/* Opening a pool */

static void
release_pool (DoraSrc * s)
{
  struct doradma_diag diag = { 0 };

  /* the registration goes before the mapping it covers */
  if (s->reg && doradma_cuda_hostreg_release (s->reg, &diag) < 0)
    GST_WARNING ("cuMemHostUnregister: %s", diag.msg);
  s->reg = NULL;
  if (s->imp && doradma_cuda_ipc_import_close (s->imp, &diag) < 0)
    GST_WARNING ("cuIpcCloseMemHandle: %s", diag.msg);
  s->imp = NULL;
  s->dptr = 0;
  g_clear_pointer (&s->dev, doradma_cuda_device_unref);
  g_clear_pointer (&s->r, doradma_pool_reader_close);
}

/* Sets up the device path of a unified or ipc pool. Returns FALSE only for
 * ipc pools (they have no host payload); unified falls back to the host
 * mapping, which holds the same bytes. */
static gboolean
setup_device (GstBaseSrc * src, DoraSrc * s, const gchar * name)
{
  const struct doradma_pool_info *pi = doradma_pool_reader_info (s->r);
  struct doradma_diag diag = { 0 };
  int ret;

  if (pi->transport == DORADMA_POOL_SHMEM)
    return TRUE;
  ret = doradma_cuda_device_open (0, &s->dev, &diag);
  if (ret == 0 && pi->transport == DORADMA_POOL_UNIFIED) {
    /* spec §3: the mapping BASE with the WHOLE length; the payload is the
     * alias + data_offset (a wrong offset would read the header) */
    ret = doradma_cuda_hostreg_acquire (s->dev, doradma_pool_reader_fd (s->r),
        (void *) doradma_pool_reader_base (s->r), pi->segment_len, PROT_READ,
        &s->reg, &diag);
    if (ret == 0) {
      s->dptr = doradma_cuda_hostreg_get_device_pointer (s->reg) +
          pi->data_offset;
      GST_INFO_OBJECT (src, "dora pool %s: unified, reading through the "
          "CUDA device alias (base registered over %" G_GUINT64_FORMAT
          " bytes, payload at alias + %" G_GUINT64_FORMAT ")", name,
          pi->segment_len, pi->data_offset);
      return TRUE;
    }
  }
  if (ret == 0 && pi->transport == DORADMA_POOL_IPC) {
    ret = doradma_cuda_ipc_import_open (s->dev, pi->ipc_handle, &s->imp, &diag);
    if (ret == 0) {
      /* the tensor starts at offset 0 of the imported buffer */
      s->dptr = doradma_cuda_ipc_import_get_device_pointer (s->imp);
      GST_INFO_OBJECT (src, "dora pool %s: ipc, reading through the CUDA IPC "
          "handle (%" G_GUINT64_FORMAT " bytes of device memory)", name,
          pi->size);
      return TRUE;
    }
  }
  g_clear_pointer (&s->dev, doradma_cuda_device_unref);
  if (pi->transport == DORADMA_POOL_UNIFIED) {
    GST_INFO_OBJECT (src, "dora pool %s: unified, reading with pread from "
        "its descriptor (CUDA alias unavailable: %s)", name, diag.msg);
    return TRUE;
  }
  GST_ELEMENT_ERROR (src, RESOURCE, OPEN_READ,
      ("dora pool %s is an ipc pool: its payload is in another process's GPU "
          "memory (CUDA IPC handle in header bytes 32..96), which could not "
          "be opened through CUDA: %s", name, diag.msg),
      ("%s; the pool's JSON: %s", g_strerror (-ret), pi->json));
  return FALSE;
}

/* Sleeps up to `us` microseconds or until unlock(). FALSE: unlocked (the
 * caller returns GST_FLOW_FLUSHING). */
static gboolean
wait_unless_unlocked (DoraSrc * s, gint64 us)
{
  gboolean unlocked;

  g_mutex_lock (&s->head.lock);
  if (!s->unlocked)
    g_cond_wait_until (&s->cond, &s->head.lock, g_get_monotonic_time () + us);
  unlocked = s->unlocked;
  g_mutex_unlock (&s->head.lock);
  return !unlocked;
}

/* An element property of the ring path that the dora path honours too
 * (`timeout`, `allowed-uid`, `on-writer-lost`); FALSE when the element has
 * none of that name. */
static gboolean
element_property (GstBaseSrc * src, const gchar * prop, gpointer value)
{
  if (!g_object_class_find_property (G_OBJECT_GET_CLASS (src), prop))
    return FALSE;
  g_object_get (src, prop, value, NULL);
  return TRUE;
}

/* The owner uid the lib may accept besides ours (the pool owner rule,
 * docs/dora.md "Trust"): `allowed-uid`, or for -1 (any) the current owner
 * of the name; the lib checks the object it opened, so a name swapped in
 * between is refused, not trusted. */
static gint64
pool_owner_to_allow (GstBaseSrc * src, const gchar * name)
{
  gint64 uid = -1;
  gchar *path;
  struct stat st;

  if (!element_property (src, "allowed-uid", &uid) || uid >= 0)
    return uid;
  path = g_build_filename (doradma_shm_dir (NULL), name, NULL);
  if (stat (path, &st) == 0)
    uid = st.st_uid;
  g_free (path);
  return uid;
}

static GstFlowReturn adopt_pool (GstBaseSrc * src, DoraSrc * s,
    const gchar * name);

/* A pool missing from $DORADMA_SHM_DIR that is in /dev/shm, where dora's
 * nodes create theirs (F3): said once, naming the variable. TRUE when
 * said. */
static gboolean
warn_if_elsewhere (GstBaseSrc * src, const gchar * name)
{
  const gchar *dir;
  gchar *there;
  gboolean found;

  if (!gst_doradma_dora_dir_moved (&dir))
    return FALSE;
  there = g_build_filename ("/dev/shm", name, NULL);
  found = g_file_test (there, G_FILE_TEST_EXISTS);
  if (found)
    GST_ELEMENT_WARNING_WITH_DETAILS (src, RESOURCE, NOT_FOUND,
        ("Dora pool %s is not in %s but %s exists: DORADMA_SHM_DIR is set, "
            "and dora nodes create pools in /dev/shm; unset it to read "
            "their pools", name, dir, there),
        ("waiting for %s/%s", dir, name),
        ("dora-pool", G_TYPE_STRING, name, "dir", G_TYPE_STRING, dir, NULL));
  g_free (there);
  return found;
}

/* A wait this long on a half-made pool is no creation in progress */
#define HALF_MADE_WARN_US (3 * G_USEC_PER_SEC)

/* Opens and validates the pool, waiting up to the element's `timeout` for
 * it to appear and for its creator to finish it (F1: dora's crate creates
 * a pool in steps; a reader started first can find it half-made). A pool
 * half-made for HALF_MADE_WARN_US is said once. Returns GST_FLOW_OK,
 * FLUSHING or ERROR (posted). */
static GstFlowReturn
open_pool (GstBaseSrc * src, DoraSrc * s, const gchar * name)
{
  struct doradma_diag diag = { 0 };
  guint64 timeout = 0;
  gint64 deadline, now, half_since = 0;
  gboolean half_warned = FALSE, dir_warned = FALSE;
  int ret;

  /* the element's own `timeout` (ns to wait for the channel) */
  element_property (src, "timeout", &timeout);
  deadline = g_get_monotonic_time () + (gint64) (timeout / 1000);
  for (;;) {
    ret = doradma_pool_reader_open (NULL, name, pool_owner_to_allow (src,
            name), &s->r, &diag);
    if (ret != -ENOENT && ret != -EAGAIN)
      break;
    if (ret == -ENOENT && !dir_warned)
      dir_warned = warn_if_elsewhere (src, name);
    now = g_get_monotonic_time ();
    if (timeout != 0 && now >= deadline)
      break;
    if (ret == -EAGAIN && half_since == 0)
      half_since = now;
    if (ret == -EAGAIN && !half_warned && now - half_since >= HALF_MADE_WARN_US) {
      GST_ELEMENT_WARNING_WITH_DETAILS (src, RESOURCE, OPEN_READ,
          ("Dora pool %s has been half-made for %" G_GINT64_FORMAT " s: %s",
              name, (now - half_since) / G_USEC_PER_SEC, diag.msg),
          ("waiting for its creator to finish it"),
          ("dora-pool", G_TYPE_STRING, name, NULL));
      half_warned = TRUE;
    }
    if (!wait_unless_unlocked (s, 10 * G_TIME_SPAN_MILLISECOND))
      return GST_FLOW_FLUSHING;
  }
  if (ret < 0) {
    /* the code in the message is OPEN_READ; a missing pool says so */
    GST_ELEMENT_ERROR_WITH_DETAILS (src, RESOURCE, OPEN_READ,
        ("Could not open dora pool %s: %s", name, diag.msg),
        ("%s (field %s)", g_strerror (-ret), diag.field ? diag.field : "-"),
        ("dora-pool", G_TYPE_STRING, name, NULL));
    return GST_FLOW_ERROR;
  }
  return adopt_pool (src, s, name);
}

/* Takes the pool reader just opened into s->r: its caps, its device
 * mapping, a fresh epoch. Returns GST_FLOW_OK or ERROR (posted). */
static GstFlowReturn
adopt_pool (GstBaseSrc * src, DoraSrc * s, const gchar * name)
{
  /* caps first: a pool with no usable frames is refused for that, even
   * where CUDA is missing */
  if (!gst_doradma_dora_src_setup_caps (src, s, doradma_pool_reader_info (s->r),
          name) || !setup_device (src, s, name)) {
    release_pool (s);
    return GST_FLOW_ERROR;
  }
  s->next_replaced_check = g_get_monotonic_time () + REPLACED_CHECK_US;
  s->freed_since = 0;
  s->freed_reported = FALSE;
  s->pool_epoch++;
  s->discont = TRUE;
  s->odd_since = 0;
  s->odd_warned = FALSE;
  return GST_FLOW_OK;
}

/* ---------------------------------------------------------------------- */
/* Reading frames */

/* Copies the current generation's payload into `dst` (s->info.size
 * bytes) by s->plan, host or device. Returns 0, -EAGAIN (nothing new),
 * -ESTALE (torn), -errno. */
static int
copy_generation (DoraSrc * s, guint8 * dst, guint64 * gen,
    struct doradma_diag *diag)
{
  const CopyPlan *p = &s->plan;
  guint64 g;
  gsize i;
  guint k;
  int ret;

  if (s->dptr == 0)
    return doradma_pool_reader_copy_rects (s->r, dst, s->info.size, p->rect,
        p->n, s->have_last ? s->last_gen : G_MAXUINT64, gen, diag);

  /* device: the rects were checked against the payload and the frame by
   * setup_caps (doradma_pool_rects_check). The alias reads the pages the
   * registration pinned: a shrink cannot make it fault; only the
   * generation loads need a header still in the object. */
  ret = doradma_pool_read_begin (s->r, &g);
  if (ret == -EBADMSG) {
    struct stat st;

    if (fstat (doradma_pool_reader_fd (s->r), &st) != 0)
      st.st_size = -1;
    diag->field = "segment";
    g_snprintf (diag->msg, sizeof diag->msg, "it shrank below its header: "
        "it now has %" G_GINT64_FORMAT " bytes", (gint64) st.st_size);
    return ret;
  }
  if (ret < 0 || (s->have_last && g == s->last_gen))
    return -EAGAIN;
  for (k = 0; k < p->n; k++) {
    const struct doradma_pool_rect *q = &p->rect[k];
    guint8 *d = dst + q->dst_offset;
    guint64 sp = s->dptr + q->src_offset;

    if (q->src_pitch == q->row_bytes && q->dst_pitch == q->row_bytes) {
      ret = doradma_cuda_copy_dtoh (s->dev, d, sp, q->rows * q->row_bytes,
          diag);
      if (ret < 0)
        return ret;
    } else if (doradma_cuda_have_copy_2d ()) {
      struct doradma_cuda_copy2d c = {
        .dst = (guint64) (guintptr) d,.dst_device = false,
        .dst_pitch = q->dst_pitch,.src = sp,.src_device = true,
        .src_pitch = q->src_pitch,.width = q->row_bytes,.height = q->rows,
      };

      if ((ret = doradma_cuda_copy_2d (s->dev, &c, diag)) < 0)
        return ret;
    } else {
      for (i = 0; i < q->rows; i++)
        if ((ret = doradma_cuda_copy_dtoh (s->dev, d + i * q->dst_pitch,
                    sp + i * q->src_pitch, q->row_bytes, diag)) < 0)
          return ret;
    }
  }
  /* the device copies above are synchronous: done before this check */
  if (!doradma_pool_read_ok (s->r, g))
    return -ESTALE;
  *gen = g;
  return 0;
}

/* Zeroes the bytes of a `size`-byte frame that no rect of `p` writes: row
 * padding, the gaps between planes and after the last: ours, never stale
 * bytes of an older frame. The rects fit the frame
 * (doradma_pool_rects_check), so no sum below wraps. */
static void
zero_unwritten (const CopyPlan * p, guint8 * frame, gsize size)
{
  gsize start = size, end, next;
  guint k, j;
  gsize i;

  for (k = 0; k < p->n; k++) {
    const struct doradma_pool_rect *q = &p->rect[k];

    start = MIN (start, q->dst_offset);
    /* each row's tail but the last's, which the gap below covers */
    for (i = 0; i + 1 < q->rows; i++)
      memset (frame + q->dst_offset + i * q->dst_pitch + q->row_bytes, 0,
          q->dst_pitch - q->row_bytes);
    /* from the rect's last byte to the next rect (or the frame's end) */
    end = q->dst_offset + (q->rows - 1) * q->dst_pitch + q->row_bytes;
    next = size;
    for (j = 0; j < p->n; j++)
      if (p->rect[j].dst_offset >= end)
        next = MIN (next, p->rect[j].dst_offset);
    memset (frame + end, 0, next - end);
  }
  memset (frame, 0, start);
}

/* A generation odd for this long is no write in progress (F4) */
#define ODD_WARN_US (3 * G_USEC_PER_SEC)

/* No new complete generation: when the generation word stays odd, a write
 * never ended (its writer died mid-write, or abandoned it): said once per
 * such stall, and we go on waiting for the next complete write. */
static void
check_odd_generation (GstBaseSrc * src, DoraSrc * s, const gchar * name)
{
  gint64 now = g_get_monotonic_time ();
  guint64 g;

  if (doradma_pool_read_begin (s->r, &g) == 0) {
    s->odd_since = 0;
    return;
  }
  if (s->odd_since == 0) {
    s->odd_since = now;
    return;
  }
  if (s->odd_warned || now - s->odd_since < ODD_WARN_US)
    return;
  GST_ELEMENT_WARNING_WITH_DETAILS (src, RESOURCE, READ,
      ("Dora pool %s has had no complete frame for %" G_GINT64_FORMAT " s: "
          "its generation %" G_GUINT64_FORMAT " stays odd (a write that "
          "never ended: its writer may have died mid-write)", name,
          (now - s->odd_since) / G_USEC_PER_SEC, g),
      ("waiting for the next complete write"),
      ("pool", G_TYPE_STRING, name, "generation", G_TYPE_UINT64, g, NULL));
  s->odd_warned = TRUE;
}

/* The pool was freed and its name still leads nowhere a check later (or
 * to an object we refuse: `refused` says why): the writer is gone (dora
 * readers get a FreeMemoryPool event here). Posted once per pool, then the element's `on-writer-lost` applies: wait (a
 * re-created pool is still followed), EOS, or error. Returns GST_FLOW_OK
 * to go on waiting. */
static GstFlowReturn
pool_freed (GstBaseSrc * src, DoraSrc * s, const gchar * name,
    const gchar * refused)
{
  GstDoradmaWriterLost policy = GST_DORADMA_WRITER_LOST_WAIT;

  if (s->freed_reported)
    return GST_FLOW_OK;
  s->freed_reported = TRUE;
  element_property (src, "on-writer-lost", &policy);
  switch (policy) {
    case GST_DORADMA_WRITER_LOST_EOS:
      GST_ELEMENT_WARNING_WITH_DETAILS (src, RESOURCE, READ,
          ("dora pool %s was freed by its writer: end of stream", name),
          ("on-writer-lost=eos; %s", refused ? refused : "no such object"),
          ("dora-pool", G_TYPE_STRING, name, NULL));
      return GST_FLOW_EOS;
    case GST_DORADMA_WRITER_LOST_ERROR:
      GST_ELEMENT_ERROR_WITH_DETAILS (src, RESOURCE, READ,
          ("dora pool %s was freed by its writer", name),
          ("on-writer-lost=error; %s", refused ? refused : "no such object"),
          ("dora-pool", G_TYPE_STRING, name, NULL));
      return GST_FLOW_ERROR;
    case GST_DORADMA_WRITER_LOST_WAIT:
    default:
      GST_ELEMENT_WARNING_WITH_DETAILS (src, RESOURCE, READ,
          ("dora pool %s was freed by its writer; waiting for it to be "
              "created again", name), ("on-writer-lost=wait; %s",
              refused ? refused : "no such object"),
          ("dora-pool", G_TYPE_STRING, name, NULL));
      return GST_FLOW_OK;
  }
}

/* When idle: has the writer freed the pool, and made a new one? A new one
 * is switched to (new caps, new sizes: the caller drops a buffer sized for
 * the old one, s->pool_epoch tells). */
static GstFlowReturn
check_replaced (GstBaseSrc * src, DoraSrc * s, const gchar * name)
{
  struct doradma_diag diag = { 0 };
  struct doradma_pool_reader *fresh = NULL;
  gint64 now = g_get_monotonic_time ();
  int ret;

  if (now < s->next_replaced_check)
    return GST_FLOW_OK;
  s->next_replaced_check = now + REPLACED_CHECK_US;
  if (!doradma_pool_reader_replaced (s->r))
    return GST_FLOW_OK;
  ret = doradma_pool_reader_open (NULL, name, pool_owner_to_allow (src, name),
      &fresh, &diag);
  if (ret < 0) {
    /* A writer restarting unlinks, then creates and fills its header: one
     * check of grace before the old pool counts as freed (gone, or its
     * name now leads to something we refuse). The old mapping stays. */
    GST_DEBUG_OBJECT (src, "dora pool %s not reopened: %s", name, diag.msg);
    if (s->freed_since == 0)
      s->freed_since = now;
    else if (now - s->freed_since >= REPLACED_CHECK_US)
      return pool_freed (src, s, name, ret == -ENOENT ? NULL : diag.msg);
    return GST_FLOW_OK;
  }
  GST_INFO_OBJECT (src, "dora pool %s was re-created: switching", name);
  release_pool (s);
  s->r = fresh;
  s->have_last = FALSE;
  return adopt_pool (src, s, name);
}

GstFlowReturn
gst_doradma_dora_src_create (GstPushSrc * psrc, GstBuffer ** outbuf)
{
  GstBaseSrc *src = GST_BASE_SRC (psrc);
  DoraSrc *s = gst_doradma_dora_src_get (src);
  struct doradma_diag diag = { 0 };
  GstBufferPool *pool = NULL;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  GstClockTime interval;
  GstFlowReturn fret;
  gchar *name;
  guint torn_in_row = 0, buf_epoch = 0;
  guint64 gen = 0;
  int ret;

  name = gst_doradma_dora_pool_name (src);
  g_mutex_lock (&s->head.lock);
  interval = s->poll_interval;
  g_mutex_unlock (&s->head.lock);

  if (s->r == NULL && (fret = open_pool (src, s, name)) != GST_FLOW_OK)
    goto out;

  for (;;) {
    /* a re-created pool has other sizes: a buffer for the old ones would
     * be overrun (larger) or pushed with a stale tail (smaller) */
    if (buf != NULL && buf_epoch != s->pool_epoch)
      gst_clear_buffer (&buf);
    if (buf == NULL) {
      buf_epoch = s->pool_epoch;
      pool = gst_base_src_get_buffer_pool (src);
      if (pool == NULL || gst_buffer_pool_acquire_buffer (pool, &buf,
              NULL) != GST_FLOW_OK || gst_buffer_get_size (buf) <
          s->info.size) {
        gst_clear_buffer (&buf);
        buf = gst_buffer_new_allocate (NULL, s->info.size, NULL);
      }
      g_clear_object (&pool);
      gst_buffer_set_size (buf, s->info.size);
    }
    if (!gst_buffer_map (buf, &map, GST_MAP_WRITE)) {
      GST_ELEMENT_ERROR (src, RESOURCE, WRITE,
          ("Could not map a %" G_GSIZE_FORMAT "-byte output buffer writable "
              "for dora pool %s", gst_buffer_get_size (buf), name),
          ("gst_buffer_map (GST_MAP_WRITE) failed"));
      fret = GST_FLOW_ERROR;
      goto out;
    }
    ret = copy_generation (s, map.data, &gen, &diag);
    if (ret == 0)
      zero_unwritten (&s->plan, map.data, s->info.size);
    gst_buffer_unmap (buf, &map);

    if (ret == 0)
      break;
    if (ret == -ESTALE) {
      /* torn: the writer moved during the copy; never pushed */
      s->n_torn++;
      GST_DEBUG_OBJECT (src, "torn copy discarded (%" G_GUINT64_FORMAT
          " so far)", s->n_torn);
      if (++torn_in_row < 4)
        continue;
    } else if (ret != -EAGAIN) {
      GST_ELEMENT_ERROR (src, RESOURCE, READ,
          ("Could not read dora pool %s: %s", name, diag.msg),
          ("%s", g_strerror (-ret)));
      fret = GST_FLOW_ERROR;
      goto out;
    } else {
      check_odd_generation (src, s, name);
      if ((fret = check_replaced (src, s, name)) != GST_FLOW_OK)
        goto out;
    }
    torn_in_row = 0;
    if (!wait_unless_unlocked (s, (gint64) (interval / 1000))) {
      fret = GST_FLOW_FLUSHING;
      goto out;
    }
  }

  /* every complete write adds 2 to the generation: a larger step is
   * frames we never saw (polled too rarely, or pushed too slowly) */
  if (s->have_last && gen > s->last_gen + 2) {
    guint64 lost = (gen - s->last_gen) / 2 - 1;

    __atomic_fetch_add (&s->n_skipped, lost, __ATOMIC_RELAXED);
    GST_DEBUG_OBJECT (src, "generation %" G_GUINT64_FORMAT " after %"
        G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " frames skipped", gen,
        s->last_gen, lost);
    s->discont = TRUE;
  }
  s->have_last = TRUE;
  s->last_gen = gen;
  s->odd_since = 0;
  s->odd_warned = FALSE;
  {
    GstClock *clock = gst_element_get_clock (GST_ELEMENT (src));

    if (clock) {
      GstClockTime now = gst_clock_get_time (clock),
          base = gst_element_get_base_time (GST_ELEMENT (src));

      GST_BUFFER_PTS (buf) = now > base ? now - base : 0;
      gst_object_unref (clock);
    }
  }
  GST_BUFFER_OFFSET (buf) = __atomic_fetch_add (&s->n_frames, 1,
      __ATOMIC_RELAXED);
  if (s->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    s->discont = FALSE;
  }
  GST_LOG_OBJECT (src, "generation %" G_GUINT64_FORMAT " pushed", gen);
  *outbuf = buf;
  buf = NULL;
  fret = GST_FLOW_OK;
out:
  gst_clear_buffer (&buf);
  g_free (name);
  return fret;
}

/* ---------------------------------------------------------------------- */
/* States */

/* The ring reader's settings a pool has no use for (one buffer, copied
 * every frame, its transport read from its header): set, they get a
 * warning (F8). Honoured: timeout, allowed-uid, on-writer-lost and
 * processing-deadline (the latency answer). */
static const gchar *const ring_only[] = { "read-mode", "copy-mode", "copy",
  "max-leases", "transport", "copy-to", "copy-budget", "spin-time", NULL
};

gboolean
gst_doradma_dora_src_start (GstBaseSrc * src)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);
  gboolean ok = gst_doradma_dora_check_settings (GST_ELEMENT (src));

  if (ok) {
    gchar *name = gst_doradma_dora_pool_name (src);

    gst_doradma_dora_warn_ignored (GST_ELEMENT (src), name, ring_only,
        "these properties configure the reader of a doradma ring; a dora "
        "pool is one buffer, copied every frame, its transport read from its "
        "header");
    g_free (name);
  }

  s->have_last = FALSE;
  __atomic_store_n (&s->n_frames, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&s->n_skipped, 0, __ATOMIC_RELAXED);
  s->n_torn = 0;
  return ok;
}

gboolean
gst_doradma_dora_src_stop (GstBaseSrc * src)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);

  GST_INFO_OBJECT (src, "dora pool: %" G_GUINT64_FORMAT " frames, %"
      G_GUINT64_FORMAT " skipped, %" G_GUINT64_FORMAT " torn copies "
      "discarded", s->n_frames, s->n_skipped, s->n_torn);
  release_pool (s);
  g_mutex_lock (&s->head.lock);
  gst_clear_caps (&s->out_caps);
  g_mutex_unlock (&s->head.lock);
  return TRUE;
}

void
gst_doradma_dora_src_counts (GstBaseSrc * src, guint64 * frames,
    guint64 * skipped)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);

  *frames = __atomic_load_n (&s->n_frames, __ATOMIC_RELAXED);
  *skipped = __atomic_load_n (&s->n_skipped, __ATOMIC_RELAXED);
}

gboolean
gst_doradma_dora_src_unlock (GstBaseSrc * src, gboolean unlocked)
{
  DoraSrc *s = gst_doradma_dora_src_get (src);

  g_mutex_lock (&s->head.lock);
  s->unlocked = unlocked;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->head.lock);
  return TRUE;
}
