/* doradma GStreamer plugin — the consumer joining a channel: waiting for
 * it (inotify, across a dead writer's replacement), opening the lib's
 * reader, choosing copy or lease and the CUDA path for the segment, and
 * the errors that name why a join failed.
 *
 * Copyright (C) 2025 the doradma authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <sys/stat.h>

#include "gstdoradmaconsumerprivate.h"
#include "gstdoradmaclock.h"
#include "gstdoradmasettings.h"

/* doradmasrc's: GST_DEBUG=doradmasrc:5 shows the whole consumer side */
GST_DEBUG_CATEGORY_EXTERN (gst_doradma_src_debug);
#define GST_CAT_DEFAULT gst_doradma_src_debug

/* A wait this long for something that should be brief gets a warning */
#define WAIT_WARN_NS (3 * GST_SECOND)

/* ---------------------------------------------------------------------- */
/* Errors */

static void
post_open_error (GstDoradmaConsumer * c, int r, const struct doradma_diag *diag)
{
  const gchar *channel = c->s.channel;
  const gchar *field = diag->field ? diag->field : "";

  switch (-r) {
    case EACCES:
    case EPERM:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_AUTHORIZED,
          ("Not allowed to read channel \"%s\"", channel),
          ("%s: %s (allowed-uid %" G_GINT64_FORMAT ")", diag->msg,
              g_strerror (-r), c->s.allowed_uid),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EBADMSG:
    case EPROTONOSUPPORT:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, STREAM, FORMAT,
          ("Channel \"%s\" is not a valid doradma ring", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, "field", G_TYPE_STRING, field,
              NULL));
      break;
    case EUSERS:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, BUSY,
          ("Channel \"%s\" has no free reader entry", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    case EINVAL:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, SETTINGS,
          ("Invalid channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
    default:
      GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, OPEN_READ,
          ("Could not open channel \"%s\"", channel),
          ("%s: %s", diag->msg, g_strerror (-r)),
          ("channel", G_TYPE_STRING, channel, NULL));
      break;
  }
}

/* ---------------------------------------------------------------------- */
/* CUDA: which path for this segment */

/* `auto` unless $DORADMA_TRANSPORT (which overrides `auto` only) names a
 * reader transport; `ipc` there is the writer's business: the segment
 * says whether its slots are in GPU memory. FALSE after posting an error
 * for a bad value. */
static gboolean
resolve_transport (GstDoradmaConsumer * c, GstDoradmaSrcTransport * out)
{
  GstDoradmaTransport from_env;

  *out = c->s.transport;
  if (*out != GST_DORADMA_SRC_TRANSPORT_AUTO)
    return TRUE;
  if (!gst_doradma_transport_from_env_or_error (c->owner, &from_env))
    return FALSE;
  if (from_env == GST_DORADMA_TRANSPORT_SHMEM)
    *out = GST_DORADMA_SRC_TRANSPORT_SHMEM;
  else if (from_env == GST_DORADMA_TRANSPORT_UNIFIED)
    *out = GST_DORADMA_SRC_TRANSPORT_UNIFIED;
  return TRUE;
}

/* The segment's ipc flag forces an IPC import; `unified` (or `auto` with a
 * CUDA downstream) registers the mapping. Returns the GstDoradmaCudaReader,
 * NULL for plain shmem, or sets *fatal after posting an error. */
static GstDoradmaCudaReader *
setup_cuda (GstDoradmaConsumer * c, struct doradma_reader *reader,
    gboolean * fatal)
{
  struct doradma_segment_info si;
  GstDoradmaSrcTransport t;
  GstDoradmaCudaReader *cr;
  gboolean want, needed;
  gchar *reason = NULL;

  *fatal = FALSE;
  if (!resolve_transport (c, &t)) {
    *fatal = TRUE;
    return NULL;
  }
  doradma_reader_segment_info (reader, &si);
  want = c->want_cuda && c->want_cuda (c->want_cuda_data);
  needed = si.ipc || t == GST_DORADMA_SRC_TRANSPORT_UNIFIED;
  if (!needed && !(t == GST_DORADMA_SRC_TRANSPORT_AUTO && want)) {
    GST_DEBUG_OBJECT (c->owner, "CUDA path none (downstream %s CUDA memory)",
        want ? "wants" : "does not want");
    return NULL;
  }
  cr = gst_doradma_cuda_reader_new (reader, &reason);
  if (cr == NULL) {
    if (needed) {
      GST_ELEMENT_ERROR (c->owner, RESOURCE, SETTINGS,
          ("%s needs CUDA: %s", si.ipc ?
              "The writer's slots live in GPU memory (transport ipc); reading "
              "them" : "transport=unified", reason),
          ("segment transport \"%s\"", si.transport));
      *fatal = TRUE;
    } else {
      GST_INFO_OBJECT (c->owner, "auto: staying on shmem: %s", reason);
    }
    g_free (reason);
    return NULL;
  }
  GST_INFO_OBJECT (c->owner, "CUDA path %s (segment transport \"%s\")",
      gst_doradma_cuda_path_name (gst_doradma_cuda_reader_path (cr)),
      si.transport);
  return cr;
}

/* ---------------------------------------------------------------------- */
/* Opening */

/* Sleeps `ms`, or less when interrupted. FALSE when interrupted. */
static gboolean
cancellable_sleep (GstDoradmaConsumer * c, gint ms)
{
  struct pollfd pfd = { c->cancel_fd, POLLIN, 0 };

  if (g_atomic_int_get (&c->unlocked))
    return FALSE;
  poll (&pfd, 1, ms);
  return !g_atomic_int_get (&c->unlocked);
}

/* The owner uid the lib may accept besides ours: the configured one, or
 * for -1 (any) the current owner of the data object. The lib checks the
 * object it opened, so a name swapped in between is refused, not trusted. */
static gint64
owner_to_allow (GstDoradmaConsumer * c)
{
  gchar *path;
  struct stat st;
  gint64 uid = -1;

  if (c->s.allowed_uid >= 0)
    return c->s.allowed_uid;
  path = g_strdup_printf ("%s/doradma.%s", doradma_shm_dir (NULL),
      c->s.channel);
  if (stat (path, &st) == 0)
    uid = st.st_uid;
  g_free (path);
  return uid;
}

GstFlowReturn
gst_doradma_consumer_open_reader (GstDoradmaConsumer * c, guint64 token,
    GstDoradmaReaderHandle ** out)
{
  struct doradma_reader_config cfg = { 0 };
  struct doradma_diag diag = { 0 };
  struct doradma_reader *reader;
  GstDoradmaCudaReader *cr;
  GstClockTime start = gst_doradma_monotonic_now ();
  GstClockTime stale_since = GST_CLOCK_TIME_NONE;
  gboolean fatal, warned = FALSE;
  int r;

  cfg.channel = c->s.channel;
  cfg.backpressure = c->s.mode == DORADMA_READ_NEXT;
  for (;;) {
    gint64 left = -1;

    if (c->s.timeout > 0) {
      GstClockTime spent = gst_doradma_monotonic_now () - start;

      if (spent >= c->s.timeout)
        goto timed_out;
      left = c->s.timeout - spent;
    }
    /* after a writer died, wait (inotify) until its name is replaced */
    r = doradma_channel_wait_new (NULL, c->s.channel, c->lost_dev,
        c->lost_ino, left, c->cancel_fd);
    if (r == -EINTR || g_atomic_int_get (&c->unlocked))
      return GST_FLOW_FLUSHING;
    if (r == -ETIMEDOUT)
      goto timed_out;
    if (r < 0)
      goto open_failed;

    cfg.token = token;
    cfg.allowed_uid = owner_to_allow (c);
    c->joined = gst_doradma_monotonic_now ();
    r = doradma_reader_open (&cfg, &reader, &diag);
    if (r == -ENOENT && token) {
      token = 0;
      continue;
    }
    if (r == -ESTALE) {
      /* A replace links the data object a moment before its control
       * object: a control object of another segment for seconds is not
       * that (a peer's scribble, a writer killed mid-replace). Said
       * once; we go on waiting, as for a successor. */
      GstClockTime now = gst_doradma_monotonic_now ();

      if (!GST_CLOCK_TIME_IS_VALID (stale_since))
        stale_since = now;
      else if (!warned && now - stale_since >= WAIT_WARN_NS) {
        GST_ELEMENT_WARNING_WITH_DETAILS (c->owner, RESOURCE, OPEN_READ,
            ("Waiting for channel \"%s\": its control object does not "
                "belong to its data object", c->s.channel),
            ("%s (for %" GST_TIME_FORMAT ")", diag.msg,
                GST_TIME_ARGS (now - stale_since)),
            ("channel", G_TYPE_STRING, c->s.channel, "field", G_TYPE_STRING,
                diag.field ? diag.field : "", NULL));
        warned = TRUE;
      }
    } else {
      stale_since = GST_CLOCK_TIME_NONE;
    }
    if (r == -ENOENT || r == -ESTALE) {
      /* gone again, or the successor is not linked yet */
      if (!cancellable_sleep (c, 5))
        return GST_FLOW_FLUSHING;
      continue;
    }
    if (r < 0)
      goto open_failed;
    if (c->lost_ino) {
      struct doradma_segment_info si;

      doradma_reader_segment_info (reader, &si);
      if (si.ino == c->lost_ino && si.dev == c->lost_dev) {
        /* replaced and back again in between: wait once more */
        doradma_reader_close (reader);
        continue;
      }
      c->lost_ino = c->lost_dev = 0;
    }
    break;
  }

  /* A peer that may write the control object (group-writable, or owned by
   * a third uid) can clear our lease bit and get a frame we read zero-copy
   * rewritten (docs/threat-model.md); copying detects that (seqlock). */
  /* decided again for every segment: `copy` reads TRUE meanwhile */
  if (!c->s.copy && !c->s.copy_set
      && doradma_reader_ctl_writable_by_others (reader)) {
    if (!g_atomic_int_get (&c->copy_forced))
      GST_ELEMENT_WARNING (c->owner, RESOURCE, OPEN_READ,
          ("Copying every frame of channel \"%s\": its control object is "
              "writable by other users", c->s.channel),
          ("set copy-mode=never to read zero-copy anyway, copy-mode=always to "
              "say so"));
    g_atomic_int_set (&c->copy_forced, TRUE);
  } else {
    g_atomic_int_set (&c->copy_forced, FALSE);
  }

  cr = setup_cuda (c, reader, &fatal);
  if (fatal) {
    doradma_reader_close (reader);
    return GST_FLOW_ERROR;
  }
  doradma_reader_set_spin (reader, c->s.spin_time);
  *out = gst_doradma_reader_handle_new (reader, c->shells);
  (*out)->cuda = cr;
  GST_INFO_OBJECT (c->owner, "joined channel \"%s\"", c->s.channel);
  return GST_FLOW_OK;

  /* ERRORS */
timed_out:
  if (GST_CLOCK_TIME_IS_VALID (stale_since)) {
    /* it was there all along: say what kept us out */
    GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_FOUND,
        ("Could not join channel \"%s\" within %" GST_TIME_FORMAT ": its "
            "control object does not belong to its data object",
            c->s.channel, GST_TIME_ARGS (c->s.timeout)), ("%s", diag.msg),
        ("channel", G_TYPE_STRING, c->s.channel, NULL));
    return GST_FLOW_ERROR;
  } else {
    GST_ELEMENT_ERROR_WITH_DETAILS (c->owner, RESOURCE, NOT_FOUND,
        ("Channel \"%s\" did not appear within %" GST_TIME_FORMAT,
            c->s.channel, GST_TIME_ARGS (c->s.timeout)), ("no %s/doradma.%s",
            doradma_shm_dir (NULL), c->s.channel),
        ("channel", G_TYPE_STRING, c->s.channel, NULL));
    return GST_FLOW_ERROR;
  }
open_failed:
  {
    post_open_error (c, r, &diag);
    return GST_FLOW_ERROR;
  }
}
