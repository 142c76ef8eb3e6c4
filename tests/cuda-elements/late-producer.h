/* doradma — tests/cuda-elements: the producer of the `late` and
 * `late-copy` scenarios and their `-nostream` variants (GStreamer >= 1.24),
 * run as this program's late-producer mode.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_LATE_PRODUCER_H
#define DORADMA_LATE_PRODUCER_H

#include <glib.h>

/* videotestsrc ! cudaupload ! doradmasink transport=ipc on `channel`, `n`
 * frames, each written late on its memory's stream; `via` "pool": into the
 * sink's slot pool, "copy": into another CUDA pool (the sink copies);
 * "pool-nostream", "copy-nostream": the same with memory without a stream,
 * the late write on its context's legacy stream.
 * PASS when every frame was written late and the sink took that path. */
int late_producer (const gchar * channel, guint n, const gchar * via);

#endif /* DORADMA_LATE_PRODUCER_H */
