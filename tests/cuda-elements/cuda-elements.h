/* doradma — tests/cuda-elements: what the scenarios and their helper
 * modes share (exit codes, the test caps, CHECK).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DORADMA_CUDA_ELEMENTS_H
#define DORADMA_CUDA_ELEMENTS_H

/* the CUDA tests' exit codes and failure check (tests/cuda) */
#include "../cuda/cuda-test.h"

#define PASS T_EXIT_PASS
#define FAIL T_EXIT_FAIL
#define SKIP T_EXIT_SKIP
#define CHECK T_CHECK

#define W 320
#define H 240
#define CAPS "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

#endif /* DORADMA_CUDA_ELEMENTS_H */
