/* doradma — private helpers shared by every cuda/ file, with or without the
 * CUDA headers. */
#ifndef DORADMA_CUDA_PRIVATE_H
#define DORADMA_CUDA_PRIVATE_H

#include "doradma-cuda.h"

/* printf into diag->msg and set diag->field (diag may be NULL); returns
 * `ret`, so error paths read `return __doradma_cuda_diag (...)`. */
int __doradma_cuda_diag (struct doradma_diag *diag, const char *field,
    int ret, const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

#endif /* DORADMA_CUDA_PRIVATE_H */
