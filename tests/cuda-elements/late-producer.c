/* doradma — tests/cuda-elements: the late-producer mode. Upstream's
 * write still queued on its memory's stream when the buffer is pushed
 * (GStreamer >= 1.24's contract: the memory carries the stream and is
 * marked NEED_SYNC; whoever reads it syncs), made late enough that a sink
 * which does not wait publishes a clobbered frame. The `-nostream`
 * variants: memory without a stream, the late write on the legacy stream
 * of the memory's context (as a writer's pageable "synchronous" copy whose
 * DMA is still in flight): the sink must synchronise that context.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudastream.h>

#include "cuda-api.h"
#include "cuda-elements.h"
#include "late-producer.h"

/* The late write (scenario `late`): device scratch for the delay and the
 * saved frame, in the context of upstream's memory. */
#define LATE_DELAY_BYTES (512u << 20)   /* one copy: ~0.4 ms on an H200 */
#define LATE_DELAY_COPIES 10

typedef struct
{
  GstCudaContext *ctx;
  CUdeviceptr scratch;          /* 2 x LATE_DELAY_BYTES */
  CUdeviceptr saved;            /* one frame */
  gsize saved_size;
  gboolean nostream;            /* the -nostream variants */
  guint late, no_stream, with_stream, failed;
} LateWrite;

/* On the memory's stream (-nostream: the legacy stream of its context),
 * after upstream's own write: save the frame, clobber it, wait, restore
 * it; then return at once (the unmap of a CUDA write map marks memory with
 * a stream NEED_SYNC, as upstream's own did). */
static GstPadProbeReturn
make_write_late (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  const struct doradma_cuda_api *cu = doradma_cuda_api ();
  LateWrite *lw = data;
  GstMemory *mem = gst_buffer_peek_memory (GST_PAD_PROBE_INFO_BUFFER (info),
      0);
  GstCudaMemory *cmem;
  GstCudaStream *stream;
  CUstream s;
  GstMapInfo map;
  gboolean ok = TRUE;
  guint i;

  if (!gst_is_cuda_memory (mem)) {
    lw->failed++;
    return GST_PAD_PROBE_OK;
  }
  cmem = GST_CUDA_MEMORY_CAST (mem);
  stream = gst_cuda_memory_get_stream (cmem);
  if (stream == NULL && !lw->nostream) {
    lw->no_stream++;
    return GST_PAD_PROBE_OK;
  }
  if (stream != NULL && lw->nostream) {
    lw->with_stream++;
    return GST_PAD_PROBE_OK;
  }
  s = stream ? gst_cuda_stream_get_handle (stream) : NULL;
  if (!gst_memory_map (mem, &map, GST_MAP_READWRITE | GST_MAP_CUDA)) {
    lw->failed++;
    return GST_PAD_PROBE_OK;
  }
  gst_cuda_context_push (cmem->context);
  if (lw->scratch == 0) {
    lw->ctx = gst_object_ref (cmem->context);
    lw->saved_size = map.size;
    ok = cu->MemAlloc (&lw->scratch, 2 * (gsize) LATE_DELAY_BYTES) ==
        CUDA_SUCCESS && cu->MemAlloc (&lw->saved, map.size) == CUDA_SUCCESS;
  }
  ok = ok && map.size <= lw->saved_size;
  ok = ok && cu->MemcpyDtoDAsync (lw->saved, (CUdeviceptr) map.data,
      map.size, s) == CUDA_SUCCESS;
  ok = ok && cu->MemcpyDtoDAsync ((CUdeviceptr) map.data, lw->scratch,
      map.size, s) == CUDA_SUCCESS;
  for (i = 0; ok && i < LATE_DELAY_COPIES; i++)
    ok = cu->MemcpyDtoDAsync (lw->scratch + LATE_DELAY_BYTES, lw->scratch,
        LATE_DELAY_BYTES, s) == CUDA_SUCCESS;
  ok = ok && cu->MemcpyDtoDAsync ((CUdeviceptr) map.data, lw->saved,
      map.size, s) == CUDA_SUCCESS;
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &map);
  if (ok)
    lw->late++;
  else
    lw->failed++;
  return GST_PAD_PROBE_OK;
}

/* As a CUDA decoder does (nvh264dec: "downstream CUDA stream is not
 * available, use ours"): the pool the sink answered with gets a stream in
 * its config, so cudaupload writes on it and pushes without a sync, the
 * memory marked NEED_SYNC; the probe's late write goes on that stream.
 * `data` "copy": the sink's pool is replaced by a CUDA pool of ours, of
 * the same context and with a stream, so the sink copies every frame.
 * "-nostream" (pool-nostream, copy-nostream): no stream is added. */
static GstPadProbeReturn
give_the_pool_a_stream (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);
  gboolean copy = g_str_has_prefix ((const gchar *) data, "copy");
  gboolean nostream = g_str_has_suffix ((const gchar *) data, "-nostream");
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstCudaStream *stream;
  GstCaps *caps = NULL;
  guint size = 0, min = 0, max = 0;

  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION
      || gst_query_get_n_allocation_pools (q) == 0)
    return GST_PAD_PROBE_OK;
  gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, &min, &max);
  if (pool == NULL || !GST_IS_CUDA_BUFFER_POOL (pool)) {
    gst_clear_object (&pool);
    return GST_PAD_PROBE_OK;
  }
  if (copy) {
    GstBufferPool *ours =
        gst_cuda_buffer_pool_new (GST_CUDA_BUFFER_POOL (pool)->context);

    gst_object_unref (pool);
    pool = ours;
    gst_query_parse_allocation (q, &caps, NULL);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  } else {
    config = gst_buffer_pool_get_config (pool);
  }
  stream = gst_buffer_pool_config_get_cuda_stream (config);
  if (stream == NULL && !nostream) {
    stream = gst_cuda_stream_new (GST_CUDA_BUFFER_POOL (pool)->context);
    gst_buffer_pool_config_set_cuda_stream (config, stream);
    printf ("late-producer: %s pool now has stream %p\n",
        copy ? "our" : "the sink's", stream);
  }
  gst_clear_cuda_stream (&stream);
  if (!gst_buffer_pool_set_config (pool, config))
    printf ("late-producer: the pool refused the stream\n");
  if (copy)
    gst_query_set_nth_allocation_pool (q, 0, pool, size, min, max);
  gst_object_unref (pool);
  return GST_PAD_PROBE_OK;
}

/* Mode late-producer CH N pool|copy[-nostream]: cudaupload ! doradmasink
 * with the late write probe, cudaupload writing into the sink's slot pool
 * (pool), or into another CUDA pool (copy: the sink copies each frame on
 * the device), the memory with a stream or without (-nostream); prints
 * what it did and the sink's stats. Exit 0 when every frame was written
 * late on the stream the variant names. */
int
late_producer (const gchar * ch, guint n, const gchar * via)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball num-buffers=%u ! "
      CAPS " ! cudaupload name=up ! video/x-raw(memory:CUDAMemory) ! "
      "doradmasink name=sink channel=%s transport=ipc mode=lossless "
      "wait-for-readers=1 sync=false", n, ch);
  GstElement *pipe = gst_parse_launch (desc, NULL), *up = NULL, *sink = NULL;
  LateWrite lw = {.nostream = g_str_has_suffix (via, "-nostream") };
  guint64 dcopies = G_MAXUINT64;
  GstStructure *stats = NULL;
  GstMessage *m = NULL;
  GstPad *pad;
  gchar *str;
  int ret = FAIL;

  CHECK (pipe != NULL, "%s does not parse", desc);
  up = gst_bin_get_by_name (GST_BIN (pipe), "up");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  pad = gst_element_get_static_pad (up, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
      GST_PAD_PROBE_TYPE_PULL, give_the_pool_a_stream, (gpointer) via, NULL);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, make_write_late, &lw,
      NULL);
  gst_object_unref (pad);
  CHECK (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE, "producer does not start");
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  CHECK (m != NULL && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS,
      "producer: %s", m ? "error" : "no EOS within 60 s");
  g_object_get (sink, "stats", &stats, NULL);
  str = gst_structure_to_string (stats);
  printf ("late-producer: %u frames written late on %s, %u skipped on "
      "memory without a stream, %u on memory with one, %u failed; sink %s\n",
      lw.late, lw.nostream ? "their context's legacy stream" :
      "their memory's stream", lw.no_stream, lw.with_stream, lw.failed, str);
  g_free (str);
  CHECK (lw.late == n, "%u of %u frames were written late (%u without a "
      "stream, %u with one: not the memory the variant races)", lw.late, n,
      lw.no_stream, lw.with_stream);
  /* the path the scenario is about: published in place, or copied */
  gst_structure_get_uint64 (stats, "device-copies", &dcopies);
  CHECK (dcopies == (g_str_has_prefix (via, "copy") ? n : 0), "the sink made %"
      G_GUINT64_FORMAT " device copies of %u frames (%s)", dcopies, n, via);
  ret = PASS;
err:
  if (m)
    gst_message_unref (m);
  if (stats)
    gst_structure_free (stats);
  if (pipe)
    gst_element_set_state (pipe, GST_STATE_NULL);
  if (lw.ctx) {
    gst_cuda_context_push (lw.ctx);
    doradma_cuda_api ()->MemFree (lw.scratch);
    doradma_cuda_api ()->MemFree (lw.saved);
    gst_cuda_context_pop (NULL);
    gst_object_unref (lw.ctx);
  }
  gst_clear_object (&up);
  gst_clear_object (&sink);
  gst_clear_object (&pipe);
  g_free (desc);
  return ret;
}
