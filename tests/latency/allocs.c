/* Description: nothing per frame but the hand-off (issue 14): the steady
 * path allocates nothing, on either side of a channel. The heap
 * allocations of one streaming thread are counted from its 100th buffer to
 * its 1100th by interposing malloc/calloc/realloc in this process (a
 * thread-local switch set by a pad probe in that thread;
 * G_SLICE=always-malloc routes GLib's slice allocator through malloc):
 *  - producer: videotestsrc ! doradmasink (latest, no reader), counted in
 *    videotestsrc's thread. videotestsrc and basesrc recycle their
 *    buffers, so what remains is doradmasink's (a slot buffer shell
 *    recycled through a GQueue cost one list node each);
 *  - consumer-next / consumer-latest: doradmasrc read-mode=next (from a
 *    lossless doradmasink) or latest (from a latest one), transport shmem,
 *    into fakesink, counted in doradmasrc's thread: the buffer, the leased
 *    memory and the metas (video meta, crop meta, GstDoradmaFrameMeta)
 *    must come back recycled, not allocated.
 * Must be ~0 per frame (at most 0.01).
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sanitizers bring their own allocator: counting through glibc's is
 * meaningless there (and interposing malloc breaks ASan's start-up). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static __thread int counting;
static guint64 allocs;          /* atomic */

#ifndef UNDER_SANITIZER
extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);

void *
malloc (size_t n)
{
  if (counting)
    __atomic_fetch_add (&allocs, 1, __ATOMIC_RELAXED);
  return __libc_malloc (n);
}

void *
calloc (size_t a, size_t b)
{
  if (counting)
    __atomic_fetch_add (&allocs, 1, __ATOMIC_RELAXED);
  return __libc_calloc (a, b);
}

void *
realloc (void *p, size_t n)
{
  if (counting)
    __atomic_fetch_add (&allocs, 1, __ATOMIC_RELAXED);
  return __libc_realloc (p, n);
}
#endif

#define FIRST 100
#define FRAMES 1000

static guint64 seen;

/* Runs in the counted streaming thread, before the buffer is pushed on. */
static GstPadProbeReturn
count_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  seen++;
  if (seen == FIRST)
    counting = 1;
  else if (seen == FIRST + FRAMES)
    counting = 0;
  return GST_PAD_PROBE_OK;
}

static GstElement *
launch (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);

  if (pipe == NULL)
    fprintf (stderr, "FAIL: %s: %s\n", desc, err->message);
  g_clear_error (&err);
  return pipe;
}

/* Counts in the streaming thread of the element named "counted". */
static void
probe_counted (GstElement * pipe)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), "counted");
  GstPad *pad = gst_element_get_static_pad (e, "src");

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (e);
}

static gboolean
reaches_eos (GstElement * pipe, const gchar * what)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean eos = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

  if (!eos)
    fprintf (stderr, "FAIL: the %s pipeline did not reach EOS\n", what);
  if (msg)
    gst_message_unref (msg);
  return eos;
}

static void
stop (GstElement * pipe)
{
  if (pipe == NULL)
    return;
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

#define CAPS "video/x-raw,format=I420,width=320,height=240"

/* videotestsrc ! doradmasink, no reader: counted in videotestsrc's thread. */
static gboolean
run_producer (void)
{
  gchar *desc = g_strdup_printf ("videotestsrc name=counted num-buffers=%d "
      "pattern=black ! " CAPS " ! doradmasink channel=allocs-%d mode=latest "
      "sync=false", FIRST + FRAMES + 20, (int) getpid ());
  GstElement *pipe = launch (desc);
  gboolean ok;

  g_free (desc);
  if (pipe == NULL)
    return FALSE;
  probe_counted (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  ok = reaches_eos (pipe, "producer");
  stop (pipe);
  return ok;
}

/* doradmasrc (zero-copy, shmem) ! fakesink, fed by doradmasink in this
 * process: counted in doradmasrc's thread. `next`: every frame of a
 * lossless writer; `latest`: a live 3000 fps writer, 3000 frames, of which
 * the consumer gets most. */
static gboolean
run_consumer (gboolean next)
{
  gchar *ch = g_strdup_printf ("allocs-c-%d", (int) getpid ());
  gchar *pdesc = next ?
      g_strdup_printf ("videotestsrc num-buffers=%d pattern=black ! " CAPS
      " ! doradmasink channel=%s mode=lossless wait-for-readers=1 sync=false",
      FIRST + FRAMES + 20, ch) :
      g_strdup_printf ("videotestsrc num-buffers=3000 is-live=true "
      "pattern=black ! " CAPS ",framerate=3000/1 ! doradmasink channel=%s "
      "mode=latest sync=false", ch);
  gchar *cdesc = g_strdup_printf ("doradmasrc name=counted channel=%s "
      "read-mode=%s transport=shmem copy=false ! fakesink sync=false "
      "enable-last-sample=false", ch, next ? "next" : "latest");
  GstElement *cons = launch (cdesc), *prod = launch (pdesc);
  gboolean ok = FALSE;

  g_free (pdesc);
  g_free (cdesc);
  g_free (ch);
  if (cons && prod) {
    probe_counted (cons);
    /* joined (waiting for the channel) before the first frame */
    gst_element_set_state (cons, GST_STATE_PLAYING);
    g_usleep (200000);
    gst_element_set_state (prod, GST_STATE_PLAYING);
    ok = reaches_eos (cons, "consumer");
    if (ok && seen < FIRST + FRAMES) {
      fprintf (stderr, "FAIL: the consumer got %" G_GUINT64_FORMAT " frames,"
          " fewer than the %d counted\n", seen, FIRST + FRAMES);
      ok = FALSE;
    }
  }
  stop (cons);
  stop (prod);
  return ok;
}

int
main (int argc, char **argv)
{
  const gchar *what = argc > 1 ? argv[1] : "producer";
  gchar dir[] = "/dev/shm/dtest-allocs-XXXXXX";
  gboolean ok;
  guint64 n;
  int ret = 1;

#ifdef UNDER_SANITIZER
  printf ("SKIP: allocations are counted through glibc's malloc, which a "
      "sanitizer build replaces\n");
  return 77;
#endif
  /* GLib reads G_SLICE when its constructors run, before main: re-exec */
  if (g_strcmp0 (getenv ("G_SLICE"), "always-malloc") != 0) {
    setenv ("G_SLICE", "always-malloc", 1);
    execv ("/proc/self/exe", argv);
    perror ("execv /proc/self/exe");
    return 1;
  }
  if (mkdtemp (dir) == NULL)
    return 1;
  setenv ("DORADMA_SHM_DIR", dir, 1);
  gst_init (&argc, &argv);
  if (gst_registry_find_feature (gst_registry_get (), "doradmasink",
          GST_TYPE_ELEMENT_FACTORY) == NULL) {
    fprintf (stderr, "FAIL: doradmasink not found\n");
    return 1;
  }
  if (g_str_equal (what, "producer"))
    ok = run_producer ();
  else if (g_str_equal (what, "consumer-next"))
    ok = run_consumer (TRUE);
  else if (g_str_equal (what, "consumer-latest"))
    ok = run_consumer (FALSE);
  else {
    fprintf (stderr, "usage: %s producer|consumer-next|consumer-latest\n",
        argv[0]);
    return 2;
  }
  if (ok) {
    n = __atomic_load_n (&allocs, __ATOMIC_RELAXED);
    printf ("%s streaming thread: %" G_GUINT64_FORMAT " heap allocations "
        "over %d frames (%.3f per frame)\n", what, n, FRAMES,
        (double) n / FRAMES);
    if (n > FRAMES / 100)
      fprintf (stderr, "FAIL: the %s's steady path allocates (%.3f per "
          "frame, at most 0.01 allowed)\n", what, (double) n / FRAMES);
    else
      ret = 0;
  }
  rmdir (dir);
  return ret;
}
