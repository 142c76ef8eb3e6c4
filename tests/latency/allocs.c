/* Description: nothing per frame but the hand-off (issue 14): the
 * producer's steady path allocates nothing. videotestsrc ! doradmasink
 * (latest, no reader) runs 1100 frames; the heap allocations the streaming
 * thread makes between frame 100 and frame 1100 are counted by
 * interposing malloc/calloc/realloc (G_SLICE=always-malloc routes GLib's
 * slice allocator through malloc). videotestsrc and basesrc recycle their
 * buffers, so what remains is doradmasink's: must be ~0 per frame
 * (a slot buffer shell recycled through a GQueue cost one list node each).
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

/* Runs in the streaming thread, before the buffer is pushed on. */
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

int
main (int argc, char **argv)
{
  GstElement *pipe, *src;
  GstPad *pad;
  GstMessage *msg;
  GError *err = NULL;
  gchar *desc, dir[] = "/dev/shm/dtest-allocs-XXXXXX";
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
  desc = g_strdup_printf ("videotestsrc name=src num-buffers=%d "
      "pattern=black ! video/x-raw,format=I420,width=320,height=240 ! "
      "doradmasink channel=allocs-%d mode=latest sync=false",
      FIRST + FRAMES + 20, (int) getpid ());
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (pipe == NULL) {
    fprintf (stderr, "FAIL: %s\n", err->message);
    return 1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, NULL, NULL);
  gst_object_unref (pad);
  gst_object_unref (src);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg == NULL || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    fprintf (stderr, "FAIL: the pipeline did not reach EOS\n");
  } else {
    n = __atomic_load_n (&allocs, __ATOMIC_RELAXED);
    printf ("producer streaming thread: %" G_GUINT64_FORMAT " heap "
        "allocations over %d frames (%.3f per frame)\n", n, FRAMES,
        (double) n / FRAMES);
    if (n > FRAMES / 100)
      fprintf (stderr, "FAIL: the producer's steady path allocates (%.3f "
          "per frame, at most 0.01 allowed)\n", (double) n / FRAMES);
    else
      ret = 0;
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  rmdir (dir);
  return ret;
}
