/* doradma — element-level CUDA tests (suite 'cuda'), one scenario per argv[1]:
 *
 *   unified  CPU producer (gst-launch videotestsrc pattern=ball ! doradmasink)
 *            → doradmasrc transport=unified ! appsink in this process; a
 *            CUDA kernel hashes every row of every frame through
 *            gst_doradma_memory_get_device_pointer () (no copy) and must
 *            equal the CPU hash of the same rows, for >= 200 frames whose
 *            content changes; the mapping was registered once.
 *   ipc      cudaupload ! doradmasink transport=ipc → doradmasrc !
 *            cudadownload ! appsink: frames equal the producer's.
 *   cudapool cudaupload ! memory:CUDAMemory ! doradmasink transport=ipc
 *            (the caps forced: left alone, cudaupload and the sink settle
 *            on system memory and cudaupload passes through) → doradmasrc !
 *            memory:CUDAMemory ! cudadownload: frames equal, and the sink's
 *            stats (its EOS message, printed by gst-launch -m) say how the
 *            frames reached the slots: built with
 *            gst_cuda_allocator_alloc_wrapped (GStreamer >= 1.24),
 *            cudaupload wrote into the device slots through the sink's CUDA
 *            slot pool (copies == device-copies == 0); below 1.24 each frame
 *            was copied on the device (copies == device-copies == frames).
 *   late     as cudapool, with upstream's write late on its memory's stream
 *            (GStreamer >= 1.24: a CUDA memory carries the stream its
 *            writer queued the work on and is marked NEED_SYNC; whoever
 *            reads it syncs). The producer is this program in its
 *            late-producer mode (late-producer.c): a probe after cudaupload
 *            queues, on the memory's stream, "save the frame, clobber it,
 *            ~4 ms of device copies, restore it", and returns at once.
 *            Frames must equal the
 *            producer's: a sink that published the slot before the stream
 *            finished hands out clobbered frames.
 *   late-copy the same with the sink's pool replaced, in the answer to
 *            cudaupload's allocation query, by another CUDA pool with a
 *            stream: the sink copies each frame on the device, after
 *            syncing the memory's stream.
 *   late-nostream, late-copy-nostream
 *            late and late-copy with memory that carries no stream, the
 *            late write queued on the legacy stream of the memory's
 *            context (as a pageable "synchronous" copy whose DMA is still
 *            in flight): the sink must synchronise the memory's context
 *            before its slot is published or its copy (on a non-blocking
 *            stream of ours) reads it.
 *   cudamem  CPU producer → doradmasrc (auto) ! cudadownload: the source
 *            outputs memory:CUDAMemory (device copy from the registered
 *            alias), frames equal.
 *   kill     kill -9 of a CUDA consumer and of a CUDA (ipc) producer: the
 *            surviving consumer keeps receiving frames (from a new
 *            producer after the old one died), and device memory in use
 *            returns to its starting level (cuMemGetInfo).
 *   copyto   copy-to=uma/pinned/device: frames equal, leases released.
 *
 * Exit 0 pass, 1 fail, 77 skip (no CUDA build, no driver, no GPU, or a
 * missing GStreamer element), printing "SKIP: <reason>".
 *
 * Reference frames come from the same videotestsrc pipeline run in this
 * process (videotestsrc is deterministic per frame number). Frames are
 * compared by an FNV-1a hash over the visible bytes of each plane row, so
 * layouts (strides) may differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

#include "doradma-cuda.h"
#include "gstdoradmamemory.h"
#include "gstdoradmaallocator.h"

#ifdef DORADMA_HAVE_CUDA
#include "cuda-api.h"
#endif

#include "cuda-elements.h"
#ifdef EXPECT_CUDA_SLOT_POOL
#include "late-producer.h"
#endif

static struct doradma_cuda_device *dev;

static guint64
fnv (guint64 h, const guint8 * p, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* Rows and visible bytes of I420 plane p at W x H. */
static void
plane_geom (guint p, guint * rows, guint * row_bytes)
{
  *rows = p == 0 ? H : H / 2;
  *row_bytes = p == 0 ? W : W / 2;
}

/* Hash of a mapped frame's visible bytes (host memory). */
static guint64
frame_hash (GstBuffer * buf)
{
  GstVideoInfo info;
  GstVideoFrame f;
  guint64 h = 0xcbf29ce484222325ull;
  guint p, r;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, W, H);
  if (!gst_video_frame_map (&f, &info, buf, GST_MAP_READ))
    return 0;
  for (p = 0; p < 3; p++) {
    guint rows, rb;

    plane_geom (p, &rows, &rb);
    for (r = 0; r < rows; r++)
      h = fnv (h, (guint8 *) f.data[p] + (gsize) r * f.info.stride[p], rb);
  }
  gst_video_frame_unmap (&f);
  return h;
}

/* ------------------------------------------------------------------------ */
/* Processes */

static gchar *
unique_channel (const gchar * what)
{
  return g_strdup_printf ("ce-%s-%d", what, (int) getpid ());
}

/* Runs `cmd` (a shell-quoted command line) in the background, its
 * standard output into `log` when there is one. */
static GPid
spawn_command (const gchar * cmd, const gchar * log)
{
  gchar **argv = NULL;
  GError *e = NULL;
  GPid pid = 0;
  int fd = log ? open (log, O_WRONLY | O_CREAT | O_TRUNC, 0600) : -1;

  printf ("[spawn] %s%s%s\n", cmd, log ? " > " : "", log ? log : "");
  fflush (stdout);
  if ((log && fd < 0) || !g_shell_parse_argv (cmd, NULL, &argv, &e)
      || !g_spawn_async_with_fds (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, -1, fd, -1, &e)) {
    fprintf (stderr, "spawn failed: %s\n", e ? e->message : g_strerror (errno));
    g_clear_error (&e);
    pid = 0;
  }
  if (fd >= 0)
    close (fd);
  g_strfreev (argv);
  return pid;
}

static GPid
launch (const gchar * pipeline)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", pipeline);
  GPid pid = spawn_command (cmd, NULL);

  g_free (cmd);
  return pid;
}

/* As launch (), with gst-launch -m writing its messages (the sink's stats
 * at EOS) into `log`. */
static GPid
launch_logged (const gchar * pipeline, const gchar * log)
{
  gchar *cmd = g_strdup_printf ("gst-launch-1.0 -m %s", pipeline);
  GPid pid = spawn_command (cmd, log);

  g_free (cmd);
  return pid;
}

/* The last "doradmasink-stats" structure in a gst-launch -m log, or NULL. */
static GstStructure *
sink_stats_from_log (const gchar * log)
{
  gchar *text = NULL, *at, *end;
  GstStructure *st = NULL;

  if (!g_file_get_contents (log, &text, NULL, NULL))
    return NULL;
  at = g_strrstr (text, "doradmasink-stats,");
  if (at) {
    if ((end = strchr (at, '\n')))
      *end = '\0';
    st = gst_structure_from_string (at, NULL);
  }
  g_free (text);
  return st;
}

static int
wait_exit (GPid pid, int timeout_s)
{
  int st = 0, i;

  for (i = 0; i < timeout_s * 100; i++) {
    pid_t r = waitpid (pid, &st, WNOHANG);

    if (r == pid)
      return WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
    g_usleep (10000);
  }
  kill (pid, SIGKILL);
  waitpid (pid, &st, 0);
  return -1;
}

static void
kill9 (GPid pid)
{
  int st;

  kill (pid, SIGKILL);
  waitpid (pid, &st, 0);
}

/* ------------------------------------------------------------------------ */
/* Pipelines in this process */

typedef struct
{
  GstElement *pipe;
  GstElement *sink;
  GstElement *src;              /* doradmasrc */
} Consumer;

static gboolean
consumer_start (Consumer * c, const gchar * desc)
{
  GError *e = NULL;

  printf ("[consumer] %s\n", desc);
  c->pipe = gst_parse_launch (desc, &e);
  if (c->pipe == NULL) {
    fprintf (stderr, "parse: %s\n", e->message);
    g_clear_error (&e);
    return FALSE;
  }
  c->sink = gst_bin_get_by_name (GST_BIN (c->pipe), "out");
  c->src = gst_bin_get_by_name (GST_BIN (c->pipe), "src");
  return gst_element_set_state (c->pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE;
}

static void
consumer_stop (Consumer * c)
{
  if (c->pipe == NULL)
    return;
  gst_element_set_state (c->pipe, GST_STATE_NULL);
  gst_clear_object (&c->sink);
  gst_clear_object (&c->src);
  gst_clear_object (&c->pipe);
}

/* The next sample, or NULL at EOS / error / timeout. */
static GstSample *
pull (Consumer * c, GstClockTime timeout)
{
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (c->sink),
      timeout);

  if (s == NULL) {
    GstBus *bus = gst_element_get_bus (c->pipe);
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (m) {
      GError *e = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (m, &e, &dbg);
      fprintf (stderr, "consumer error: %s (%s)\n", e->message, dbg);
      g_clear_error (&e);
      g_free (dbg);
      gst_message_unref (m);
    }
    gst_object_unref (bus);
  }
  return s;
}

static void
print_stats (Consumer * c)
{
  GstStructure *st = NULL;
  gchar *str;

  g_object_get (c->src, "stats", &st, NULL);
  str = gst_structure_to_string (st);
  printf ("[stats] %s\n", str);
  g_free (str);
  gst_structure_free (st);
}

static const gchar *
stat_str (Consumer * c, const gchar * field, GstStructure ** keep)
{
  g_object_get (c->src, "stats", keep, NULL);
  return gst_structure_get_string (*keep, field);
}

static guint64
stat_u64 (Consumer * c, const gchar * field)
{
  GstStructure *st = NULL;
  guint64 v = 0;

  g_object_get (c->src, "stats", &st, NULL);
  gst_structure_get_uint64 (st, field, &v);
  gst_structure_free (st);
  return v;
}

/* Reference hashes of the first n frames of the producer's pattern. */
static guint64 *
reference (guint n)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      CAPS " ! appsink name=out sync=false", n);
  guint64 *ref = g_new0 (guint64, n);
  Consumer c = { 0 };
  guint i;

  if (!consumer_start (&c, desc))
    goto done;
  for (i = 0; i < n; i++) {
    GstSample *s = pull (&c, 10 * GST_SECOND);

    if (s == NULL)
      break;
    ref[i] = frame_hash (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
done:
  consumer_stop (&c);
  g_free (desc);
  return ref;
}

/* ------------------------------------------------------------------------ */
/* CUDA */

#if defined(DORADMA_HAVE_CUDA) && defined(DORADMA_HAVE_TEST_KERNELS)
extern const unsigned char doradma_test_kernels_fatbin[];
static CUfunction fn_hash;

static int
load_kernel (void)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  CUmodule mod;
  int ok;

  if (doradma_cuda_device_push (dev, NULL) < 0)
    return -1;
  ok = cu->ModuleLoadData (&mod, doradma_test_kernels_fatbin) == CUDA_SUCCESS
      && cu->ModuleGetFunction (&fn_hash, mod, "dr_row_hash") == CUDA_SUCCESS;
  doradma_cuda_device_pop ();
  return ok ? 0 : -1;
}

/* Per-row hashes of `rows` rows at dptr (pitch) computed by the GPU, then
 * folded like frame_hash (): FNV of the concatenated rows is not the fold
 * of row hashes, so both sides compare row hashes. */
static int
gpu_row_hashes (guint64 dptr, guint64 rows, guint64 row_bytes, guint64 pitch,
    guint64 * out_host)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  CUdeviceptr out = 0;
  void *args[] = { &dptr, &rows, &row_bytes, &pitch, &out };
  int ret = -1;

  if (doradma_cuda_device_push (dev, NULL) < 0)
    return -1;
  if (cu->MemAlloc (&out, rows * 8) == CUDA_SUCCESS
      && cu->LaunchKernel (fn_hash, (unsigned) ((rows + 127) / 128), 1, 1,
          128, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS
      && cu->CtxSynchronize () == CUDA_SUCCESS
      && cu->MemcpyDtoH (out_host, out, rows * 8) == CUDA_SUCCESS)
    ret = 0;
  if (out)
    cu->MemFree (out);
  doradma_cuda_device_pop ();
  return ret;
}

static int
dtoh (void *dst, guint64 src, gsize n)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  int ret;

  if (doradma_cuda_device_push (dev, NULL) < 0)
    return -1;
  ret = cu->MemcpyDtoH (dst, src, n) == CUDA_SUCCESS ? 0 : -1;
  doradma_cuda_device_pop ();
  return ret;
}
#else
static int
load_kernel (void)
{
  return -2;
}

static int
gpu_row_hashes (guint64 dptr, guint64 rows, guint64 row_bytes, guint64 pitch,
    guint64 * out_host)
{
  return -1;
}

static int
dtoh (void *dst, guint64 src, gsize n)
{
  return -1;
}
#endif

static guint64
mem_free_now (void)
{
  uint64_t f = 0, t = 0;

  doradma_cuda_device_mem_info (dev, &f, &t, NULL);
  return f;
}

/* ------------------------------------------------------------------------ */
/* (a) unified: kernel through the device pointer, no copy */

static int
test_unified (void)
{
  const guint n = 240;
  gchar *ch = unique_channel ("unified");
  gchar *prod = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      CAPS " ! doradmasink channel=%s mode=lossless wait-for-readers=1 "
      "sync=false", n, ch);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "transport=unified timeout=20000000000 on-writer-lost=eos ! "
      "appsink name=out sync=false max-buffers=2", ch);
  Consumer c = { 0 };
  GstStructure *st = NULL;
  GPid pid = 0;
  guint i = 0, distinct = 0;
  guint64 prev = 0;
  int ret = FAIL, k = load_kernel ();

  if (k == -2) {
    printf ("SKIP: built without nvcc: the test kernels are missing\n");
    ret = SKIP;
    goto err;
  }
  CHECK (k == 0, "loading dr_row_hash");
  CHECK (consumer_start (&c, desc), "consumer");
  CHECK ((pid = launch (prod)) > 0, "producer");
  for (;;) {
    GstSample *s = pull (&c, 20 * GST_SECOND);
    GstBuffer *buf;
    GstMemory *mem;
    GstVideoMeta *vm;
    guint64 dptr, frame_sig = 0;
    guint8 *host;
    guint p;

    if (s == NULL)
      break;
    buf = gst_sample_get_buffer (s);
    CHECK (gst_buffer_n_memory (buf) == 1, "one memory per buffer");
    mem = gst_buffer_peek_memory (buf, 0);
    CHECK (gst_is_doradma_memory (mem), "frame %u is not doradma memory "
        "(copied?)", i);
    dptr = gst_doradma_memory_get_device_pointer (mem);
    host = gst_doradma_memory_get_host_pointer (mem);
    CHECK (dptr != 0, "frame %u: no device pointer", i);
    vm = gst_buffer_get_video_meta (buf);
    for (p = 0; p < 3; p++) {
      guint rows, rb, r;
      gsize off = vm ? vm->offset[p] : (p == 0 ? 0 : p == 1 ? W * H :
          W * H + W * H / 4);
      gint stride = vm ? vm->stride[p] : (p == 0 ? W : W / 2);
      guint64 gpu[H];

      plane_geom (p, &rows, &rb);
      CHECK (gpu_row_hashes (dptr + off, rows, rb, stride, gpu) == 0,
          "kernel launch (frame %u plane %u)", i, p);
      for (r = 0; r < rows; r++) {
        guint64 cpu = fnv (0xcbf29ce484222325ull,
            host + off + (gsize) r * stride, rb);
        CHECK (cpu == gpu[r], "frame %u plane %u row %u: GPU %016llx CPU "
            "%016llx", i, p, r, (unsigned long long) gpu[r],
            (unsigned long long) cpu);
        frame_sig = fnv (frame_sig, (guint8 *) & cpu, 8);
      }
    }
    if (i == 0 || frame_sig != prev)
      distinct++;
    prev = frame_sig;
    if (i == 0)
      printf ("frame 0: host %p device 0x%llx (%s)\n", host,
          (unsigned long long) dptr, (guint64) (guintptr) host == dptr ?
          "alias == host pointer on this GPU" : "alias differs");
    gst_sample_unref (s);
    i++;
  }
  printf ("%u frames checked on the GPU, %u distinct\n", i, distinct);
  print_stats (&c);
  CHECK (i >= 200, "only %u frames", i);
  CHECK (distinct >= 100, "content does not change (%u distinct)", distinct);
  CHECK (g_strcmp0 (stat_str (&c, "cuda-path", &st), "unified") == 0 ||
      g_strcmp0 (gst_structure_get_string (st, "cuda-path"),
          "unified-integrated") == 0, "cuda-path %s",
      gst_structure_get_string (st, "cuda-path"));
  CHECK (stat_u64 (&c, "cuda-registrations") == 1,
      "registered %llu times, not once",
      (unsigned long long) stat_u64 (&c, "cuda-registrations"));
  CHECK (stat_u64 (&c, "copies") == 0, "frames were copied");
  CHECK (wait_exit (pid, 20) == 0, "producer exit");
  pid = 0;
  ret = PASS;
err:
  if (st)
    gst_structure_free (st);
  if (pid)
    kill9 (pid);
  consumer_stop (&c);
  g_free (ch);
  g_free (prod);
  g_free (desc);
  return ret;
}

/* ------------------------------------------------------------------------ */
/* (b) ipc, (c) cudamem: checksums against the reference */

/* "@N@" → n, "@CH@" → channel */
static gchar *
subst (const gchar * tmpl, guint n, const gchar * ch)
{
  gchar *ns = g_strdup_printf ("%u", n);
  gchar **a = g_strsplit (tmpl, "@N@", -1);
  gchar *t = g_strjoinv (ns, a), *out;

  g_strfreev (a);
  a = g_strsplit (t, "@CH@", -1);
  out = g_strjoinv (ch, a);
  g_strfreev (a);
  g_free (t);
  g_free (ns);
  return out;
}

/* The producer of a compare_run: gst-launch-1.0 with `prod` (its messages
 * into `log` when there is one), or `spawn`. */
typedef GPid (*Spawn) (const gchar * prod, const gchar * log);

/* A producer (`prod_fmt`, @N@ frames on channel @CH@) in another process,
 * doradmasrc (`cons_fmt`) here: every frame must equal the reference, and
 * the source's stats name `want_path` and `want_mem`. */
static int
compare_run_with (Spawn spawn, const gchar * what, const gchar * prod_fmt,
    const gchar * cons_fmt, const gchar * want_path, const gchar * want_mem,
    guint n, const gchar * prod_log)
{
  gchar *ch = unique_channel (what);
  gchar *prod = subst (prod_fmt, n, ch);
  gchar *desc = subst (cons_fmt, n, ch);
  guint64 *ref = reference (n);
  Consumer c = { 0 };
  GstStructure *st = NULL;
  GPid pid = 0;
  guint i = 0;
  int ret = FAIL;

  CHECK (ref[n - 1] != 0, "reference run");
  CHECK (consumer_start (&c, desc), "consumer");
  if (spawn)
    pid = spawn (prod, prod_log);
  else
    pid = prod_log ? launch_logged (prod, prod_log) : launch (prod);
  CHECK (pid > 0, "producer");
  for (;;) {
    GstSample *s = pull (&c, 20 * GST_SECOND);
    guint64 h;

    if (s == NULL)
      break;
    h = frame_hash (gst_sample_get_buffer (s));
    gst_sample_unref (s);
    CHECK (i < n, "more frames than produced");
    CHECK (h == ref[i], "frame %u: %016llx, producer's %016llx", i,
        (unsigned long long) h, (unsigned long long) ref[i]);
    i++;
  }
  print_stats (&c);
  printf ("%s: %u/%u frames equal\n", what, i, n);
  CHECK (i == n, "%u of %u frames", i, n);
  CHECK (g_strcmp0 (stat_str (&c, "cuda-path", &st), want_path) == 0,
      "cuda-path %s, want %s", gst_structure_get_string (st, "cuda-path"),
      want_path);
  CHECK (g_strcmp0 (gst_structure_get_string (st, "memory"), want_mem) == 0,
      "memory %s, want %s", gst_structure_get_string (st, "memory"), want_mem);
  CHECK (wait_exit (pid, 20) == 0, "producer exit");
  pid = 0;
  ret = PASS;
err:
  if (st)
    gst_structure_free (st);
  if (pid)
    kill9 (pid);
  consumer_stop (&c);
  g_free (ref);
  g_free (ch);
  g_free (prod);
  g_free (desc);
  return ret;
}

static int
compare_run (const gchar * what, const gchar * prod_fmt,
    const gchar * cons_fmt, const gchar * want_path, const gchar * want_mem,
    guint n, const gchar * prod_log)
{
  return compare_run_with (NULL, what, prod_fmt, cons_fmt, want_path,
      want_mem, n, prod_log);
}

static gboolean
have_element (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f == NULL) {
    printf ("SKIP: GStreamer element %s is missing (gst-plugins-bad "
        "nvcodec)\n", name);
    return FALSE;
  }
  gst_object_unref (f);
  return TRUE;
}

static int
test_ipc (void)
{
  int r;

  if (!have_element ("cudaupload") || !have_element ("cudadownload"))
    return SKIP;
  r = compare_run ("ipc", "videotestsrc pattern=ball num-buffers=@N@ ! " CAPS
      " ! cudaupload ! doradmasink channel=@CH@ transport=ipc mode=lossless "
      "wait-for-readers=1 sync=false",
      "doradmasrc name=src channel=@CH@ timeout=20000000000 "
      "on-writer-lost=eos ! cudadownload ! video/x-raw ! "
      "appsink name=out sync=false", "ipc", "memory:CUDAMemory", 120, NULL);
  if (r != PASS)
    return r;
  /* system-memory output from device slots: downloaded by doradmasrc */
  return compare_run ("ipc-sys", "videotestsrc pattern=ball num-buffers=@N@ ! "
      CAPS " ! doradmasink channel=@CH@ transport=ipc mode=lossless "
      "wait-for-readers=1 sync=false",
      "doradmasrc name=src channel=@CH@ timeout=20000000000 "
      "on-writer-lost=eos ! appsink name=out sync=false", "ipc", "system", 120,
      NULL);
}

static int
test_cudapool (void)
{
  const guint n = 120;
  gchar *log = g_strdup_printf ("%s/ce-cudapool-%d.log", g_get_tmp_dir (),
      (int) getpid ());
  guint64 frames = 0, copies = G_MAXUINT64, dcopies = G_MAXUINT64;
  GstStructure *sink = NULL;
  int ret;

  if (!have_element ("cudaupload") || !have_element ("cudadownload")) {
    g_free (log);
    return SKIP;
  }
  ret = compare_run ("cudapool", "videotestsrc pattern=ball num-buffers=@N@ ! "
      CAPS " ! cudaupload ! 'video/x-raw(memory:CUDAMemory)' ! "
      "doradmasink channel=@CH@ transport=ipc mode=lossless "
      "wait-for-readers=1 sync=false",
      "doradmasrc name=src channel=@CH@ timeout=20000000000 "
      "on-writer-lost=eos ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink name=out sync=false", "ipc", "memory:CUDAMemory",
      n, log);
  if (ret != PASS)
    goto err;
  ret = FAIL;
  /* the producer exited: its log holds the sink's EOS stats */
  sink = sink_stats_from_log (log);
  CHECK (sink != NULL, "no doradmasink-stats message in %s", log);
  {
    gchar *str = gst_structure_to_string (sink);

    printf ("[sink stats] %s\n", str);
    g_free (str);
  }
  gst_structure_get_uint64 (sink, "frames", &frames);
  gst_structure_get_uint64 (sink, "copies", &copies);
  gst_structure_get_uint64 (sink, "device-copies", &dcopies);
  CHECK (frames == n, "the sink published %llu frames, not %u",
      (unsigned long long) frames, n);
#ifdef EXPECT_CUDA_SLOT_POOL
  /* cudaupload wrote each frame into a device slot: published in place */
  CHECK (copies == 0 && dcopies == 0, "GStreamer >= 1.24: the sink copied "
      "%llu frames (%llu device to device), want 0: cudaupload did not write "
      "into the slots", (unsigned long long) copies,
      (unsigned long long) dcopies);
#else
  /* no gst_cuda_allocator_alloc_wrapped: one device copy a frame */
  CHECK (copies == n && dcopies == n, "GStreamer < 1.24: copies %llu, "
      "device-copies %llu, want %u each", (unsigned long long) copies,
      (unsigned long long) dcopies, n);
#endif
  ret = PASS;
err:
  if (sink)
    gst_structure_free (sink);
  g_unlink (log);
  g_free (log);
  return ret;
}

#ifdef EXPECT_CUDA_SLOT_POOL
/* compare_run's producer: "CH N pool|copy" → this program in
 * late-producer mode */
static GPid
spawn_late_producer (const gchar * prod, const gchar * log)
{
  gchar *exe = g_file_read_link ("/proc/self/exe", NULL);
  gchar *cmd = g_strdup_printf ("'%s' late-producer %s", exe, prod);
  GPid pid = spawn_command (cmd, log);

  g_free (cmd);
  g_free (exe);
  return pid;
}
#endif

/* `via`: pool (the slot pool's sync) or copy (the device copy's sync), with
 * "-nostream": memory without a stream (the context's sync) */
static int
test_late (const gchar * via)
{
#ifdef EXPECT_CUDA_SLOT_POOL
  gchar *log = g_strdup_printf ("%s/ce-late-%d.log", g_get_tmp_dir (),
      (int) getpid ());
  gchar *prod = g_strdup_printf ("@CH@ @N@ %s", via);
  gchar *text = NULL;
  int ret;

  if (!have_element ("cudaupload") || !have_element ("cudadownload")) {
    g_free (log);
    g_free (prod);
    return SKIP;
  }
  ret = compare_run_with (spawn_late_producer, "late", prod,
      "doradmasrc name=src channel=@CH@ timeout=20000000000 "
      "on-writer-lost=eos ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "video/x-raw ! appsink name=out sync=false", "ipc", "memory:CUDAMemory",
      120, log);
  if (g_file_get_contents (log, &text, NULL, NULL))
    printf ("[producer] %s", text);
  g_free (text);
  g_unlink (log);
  g_free (log);
  g_free (prod);
  return ret;
#else
  printf ("SKIP: GStreamer < 1.24: the late producer is written against "
      "CUDA memory with streams (gst_cuda_memory_get_stream, a stream in "
      "the pool's config)\n");
  return SKIP;
#endif
}

static int
test_cudamem (void)
{
  if (!have_element ("cudadownload"))
    return SKIP;
  return compare_run ("cudamem", "videotestsrc pattern=ball num-buffers=@N@ ! "
      CAPS " ! doradmasink channel=@CH@ mode=lossless wait-for-readers=1 "
      "sync=false",
      "doradmasrc name=src channel=@CH@ timeout=20000000000 "
      "on-writer-lost=eos ! cudadownload ! video/x-raw ! "
      "appsink name=out sync=false", "unified", "memory:CUDAMemory", 120, NULL);
}

/* ------------------------------------------------------------------------ */
/* (d) kill -9 */

static gboolean
frames_flow (Consumer * c, guint want, GstClockTime timeout)
{
  guint i;

  for (i = 0; i < want; i++) {
    GstSample *s = pull (c, timeout);

    if (s == NULL)
      return FALSE;
    gst_sample_unref (s);
  }
  return TRUE;
}

static int
test_kill (void)
{
  gchar *ch = unique_channel ("kill");
  gchar *prod = g_strdup_printf ("videotestsrc pattern=ball is-live=true ! "
      CAPS " ! cudaupload ! doradmasink channel=%s transport=ipc", ch);
  gchar *victim = g_strdup_printf ("doradmasrc channel=%s ! cudadownload ! "
      "fakesink", ch);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "read-mode=latest on-writer-lost=wait ! cudadownload ! video/x-raw ! "
      "appsink name=out sync=false max-buffers=1 drop=true", ch);
  Consumer c = { 0 };
  GPid p1 = 0, p2 = 0, v = 0;
  guint64 before, after;
  int ret = FAIL, tries;

  if (!have_element ("cudaupload") || !have_element ("cudadownload"))
    return SKIP;
  before = mem_free_now ();
  printf ("device memory free before: %llu MiB\n",
      (unsigned long long) (before >> 20));
  CHECK ((p1 = launch (prod)) > 0, "producer 1");
  CHECK ((v = launch (victim)) > 0, "victim consumer");
  CHECK (consumer_start (&c, desc), "survivor");
  CHECK (frames_flow (&c, 30, 20 * GST_SECOND), "survivor gets frames");
  g_usleep (500000);
  kill9 (v);
  v = 0;
  printf ("killed the CUDA consumer\n");
  CHECK (frames_flow (&c, 30, 5 * GST_SECOND),
      "survivor stalled after the consumer died");
  kill9 (p1);
  p1 = 0;
  printf ("killed the CUDA producer\n");
  g_usleep (300000);
  CHECK ((p2 = launch (prod)) > 0, "producer 2");
  CHECK (frames_flow (&c, 30, 20 * GST_SECOND),
      "survivor gets no frames from the new producer");
  print_stats (&c);
  /* the second producer stops cleanly (gst-launch handles SIGINT): its
   * channel must be gone afterwards, the killed one's reclaimed by it */
  kill (p2, SIGINT);
  CHECK (wait_exit (p2, 20) == 0, "producer 2 did not stop cleanly on SIGINT");
  p2 = 0;
  consumer_stop (&c);
  {
    const gchar *shm = g_getenv ("DORADMA_SHM_DIR") ?
        g_getenv ("DORADMA_SHM_DIR") : "/dev/shm";
    gchar *data = g_strdup_printf ("%s/doradma.%s", shm, ch);
    gchar *ctl = g_strdup_printf ("%s/doradma.%s~ctl", shm, ch);
    gboolean left = g_file_test (data, G_FILE_TEST_EXISTS)
        || g_file_test (ctl, G_FILE_TEST_EXISTS);

    g_free (data);
    g_free (ctl);
    CHECK (!left, "channel %s left in %s after the clean stop", ch, shm);
  }
  /* the driver frees a killed process's context asynchronously */
  for (tries = 0; tries < 50; tries++) {
    after = mem_free_now ();
    if (after + (8ull << 20) >= before)
      break;
    g_usleep (100000);
  }
  printf ("device memory free after: %llu MiB (before %llu MiB)\n",
      (unsigned long long) (after >> 20), (unsigned long long) (before >> 20));
  CHECK (after + (8ull << 20) >= before, "device memory not returned: %lld "
      "KiB still in use", (long long) (before - after) / 1024);
  ret = PASS;
err:
  if (v)
    kill9 (v);
  if (p1)
    kill9 (p1);
  if (p2)
    kill9 (p2);
  consumer_stop (&c);
  g_free (ch);
  g_free (prod);
  g_free (victim);
  g_free (desc);
  return ret;
}

/* ------------------------------------------------------------------------ */
/* (e) copy-to */

static int
copyto_one (const gchar * kind, guint n, const guint64 * ref)
{
  gchar *ch = unique_channel (kind);
  gchar *prod = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      CAPS " ! doradmasink channel=%s mode=lossless wait-for-readers=1 "
      "sync=false", n, ch);
  gchar *desc = g_strdup_printf ("doradmasrc name=src channel=%s "
      "copy-to=%s copy-budget=67108864 timeout=20000000000 "
      "on-writer-lost=eos ! appsink name=out sync=false", ch, kind);
  Consumer c = { 0 };
  GList *held = NULL;
  GPid pid = 0;
  guint i = 0;
  int ret = FAIL;
  guint8 *tmp = g_malloc (W * H * 2);

  CHECK (consumer_start (&c, desc), "consumer");
  CHECK ((pid = launch (prod)) > 0, "producer");
  for (;;) {
    GstSample *s = pull (&c, 20 * GST_SECOND);
    GstBuffer *buf, *hb;
    GstMemory *mem;
    guint64 h;

    if (s == NULL)
      break;
    buf = gst_sample_get_buffer (s);
    mem = gst_buffer_peek_memory (buf, 0);
    CHECK (gst_is_doradma_slab_memory (mem), "frame %u not in a slab", i);
    if (g_str_equal (kind, "device")) {
      GstVideoMeta *vm = gst_buffer_get_video_meta (buf);
      gsize size = gst_buffer_get_size (buf);

      CHECK (size <= W * H * 2, "size");
      CHECK (dtoh (tmp, gst_doradma_slab_memory_get_device_pointer (mem),
              size) == 0, "cuMemcpyDtoH");
      hb = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, tmp, size,
          0, size, NULL, NULL);
      if (vm)
        gst_buffer_add_video_meta_full (hb, 0, vm->format, vm->width,
            vm->height, vm->n_planes, vm->offset, vm->stride);
      h = frame_hash (hb);
      gst_buffer_unref (hb);
    } else {
      h = frame_hash (buf);
    }
    CHECK (i < n && h == ref[i], "%s frame %u differs", kind, i);
    /* keep a few: leases were released, the writer is not held back */
    if (i < 12)
      held = g_list_prepend (held, gst_sample_ref (s));
    gst_sample_unref (s);
    i++;
  }
  print_stats (&c);
  printf ("copy-to=%s: %u/%u frames equal\n", kind, i, n);
  CHECK (i == n, "%u of %u frames", i, n);
  CHECK (stat_u64 (&c, "copied-to-slab") == n, "copied-to-slab %llu",
      (unsigned long long) stat_u64 (&c, "copied-to-slab"));
  CHECK (wait_exit (pid, 20) == 0, "producer exit");
  pid = 0;
  ret = PASS;
err:
  g_list_free_full (held, (GDestroyNotify) gst_sample_unref);
  if (pid)
    kill9 (pid);
  consumer_stop (&c);
  g_free (tmp);
  g_free (ch);
  g_free (prod);
  g_free (desc);
  return ret;
}

static int
test_copyto (void)
{
  const guint n = 60;
  guint64 *ref = reference (n);
  int r = PASS;

  if (r == PASS)
    r = copyto_one ("device", n, ref);
  if (r == PASS)
    r = copyto_one ("pinned", n, ref);
  if (r == PASS)
    r = copyto_one ("uma", n, ref);
  g_free (ref);
  return r;
}

/* ------------------------------------------------------------------------ */

int
main (int argc, char **argv)
{
  struct doradma_diag d = { 0 };
  const gchar *which = argc > 1 ? argv[1] : "";
  int r;

  setvbuf (stdout, NULL, _IOLBF, 0);
  r = doradma_cuda_device_open (0, &dev, &d);
  if (r == -ENOSYS) {
    printf ("SKIP: built without CUDA support: %s\n", d.msg);
    return SKIP;
  }
  if (r == -ENOENT || r == -ENODEV) {
    printf ("SKIP: %s: %s\n", r == -ENOENT ? "no libcuda.so.1" :
        "no CUDA device", d.msg);
    return SKIP;
  }
  if (r < 0) {
    fprintf (stderr, "FAIL: CUDA device 0: %s\n", d.msg);
    return FAIL;
  }
  gst_init (&argc, &argv);
  {
    GstElementFactory *f = gst_element_factory_find ("doradmasrc");

    if (f == NULL) {
      fprintf (stderr, "FAIL: the doradma plugin is not found "
          "(GST_PLUGIN_PATH)\n");
      return FAIL;
    }
    gst_object_unref (f);
  }
  {
    const struct doradma_cuda_device_info *i = doradma_cuda_device_get_info
        (dev);
    printf ("device: %s, cc %d.%d, %s, driver %d, GStreamer %s\n", i->name,
        i->cc_major, i->cc_minor, i->integrated ? "integrated" : "discrete",
        doradma_cuda_driver_version (), gst_version_string ());
  }

  if (g_str_equal (which, "unified"))
    r = test_unified ();
  else if (g_str_equal (which, "ipc"))
    r = test_ipc ();
  else if (g_str_equal (which, "cudapool"))
    r = test_cudapool ();
  else if (g_str_equal (which, "late"))
    r = test_late ("pool");
  else if (g_str_equal (which, "late-copy"))
    r = test_late ("copy");
  else if (g_str_equal (which, "late-nostream"))
    r = test_late ("pool-nostream");
  else if (g_str_equal (which, "late-copy-nostream"))
    r = test_late ("copy-nostream");
#ifdef EXPECT_CUDA_SLOT_POOL
  else if (g_str_equal (which, "late-producer") && argc == 5)
    r = late_producer (argv[2], (guint) g_ascii_strtoull (argv[3], NULL, 10),
        argv[4]);
#endif
  else if (g_str_equal (which, "cudamem"))
    r = test_cudamem ();
  else if (g_str_equal (which, "kill"))
    r = test_kill ();
  else if (g_str_equal (which, "copyto"))
    r = test_copyto ();
  else {
    fprintf (stderr, "usage: %s unified|ipc|cudapool|late|late-copy|"
        "late-nostream|late-copy-nostream|cudamem|kill|copyto\n", argv[0]);
    r = FAIL;
  }
  printf ("%s: %s\n", which, r == PASS ? "PASS" : r == SKIP ? "SKIP" : "FAIL");
  return r;
}
