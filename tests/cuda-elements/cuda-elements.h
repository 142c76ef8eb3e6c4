/* doradma — tests/cuda-elements: what the scenarios and their helper
 * modes share (exit codes, the test caps, CHECK).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_CUDA_ELEMENTS_H
#define DORADMA_CUDA_ELEMENTS_H

#include <stdio.h>

#define PASS 0
#define FAIL 1
#define SKIP 77

#define W 320
#define H 240
#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

#define CHECK(cond, ...) do { \
    if (!(cond)) { \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr); \
      goto err; \
    } \
  } while (0)

#endif /* DORADMA_CUDA_ELEMENTS_H */
