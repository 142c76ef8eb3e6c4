/* doradma — the parts of cuda/ that need no CUDA headers: diagnostics, slab
 * size classes and the budget variable. Built in every configuration. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda-private.h"

int
__doradma_cuda_diag (struct doradma_diag *diag, const char *field, int ret,
    const char *fmt, ...)
{
  va_list ap;

  if (diag == NULL)
    return ret;
  diag->field = field;
  va_start (ap, fmt);
  vsnprintf (diag->msg, sizeof diag->msg, fmt, ap);
  va_end (ap);
  return ret;
}

const char *
doradma_cuda_slab_kind_name (enum doradma_cuda_slab_kind kind)
{
  switch (kind) {
    case DORADMA_CUDA_SLAB_MANAGED:
      return "managed";
    case DORADMA_CUDA_SLAB_PINNED:
      return "pinned";
    case DORADMA_CUDA_SLAB_DEVICE:
      return "device";
  }
  return "unknown";
}

size_t
doradma_cuda_slab_class_size (int i)
{
  size_t base;

  if (i < 0 || i >= DORADMA_CUDA_SLAB_N_CLASSES)
    return 0;
  /* 4 classes per power of two bound the waste to 25%. */
  base = (size_t) DORADMA_CUDA_SLAB_MIN_CLASS << (i / 4);
  return base + (base / 4) * (i % 4);
}

int
doradma_cuda_slab_budget_from_env (uint64_t * out, struct doradma_diag *diag)
{
  const char *v = getenv (DORADMA_CUDA_SLAB_BUDGET_ENV);
  unsigned long long n;
  char *end;
  int shift = 0;

  *out = 0;
  if (v == NULL || *v == '\0')
    return 0;
  errno = 0;
  if (*v < '0' || *v > '9')
    goto bad;
  n = strtoull (v, &end, 10);
  if (errno != 0)
    goto bad;
  switch (*end) {
    case 'k':
    case 'K':
      shift = 10;
      end++;
      break;
    case 'm':
    case 'M':
      shift = 20;
      end++;
      break;
    case 'g':
    case 'G':
      shift = 30;
      end++;
      break;
    case 't':
    case 'T':
      shift = 40;
      end++;
      break;
    default:
      break;
  }
  if (shift != 0 && *end == 'i')
    end++;
  if (*end == 'B')
    end++;
  if (*end != '\0' || n == 0 || (shift && n > (UINT64_MAX >> shift)))
    goto bad;
  *out = (uint64_t) n << shift;
  return 0;

bad:
  return __doradma_cuda_diag (diag, DORADMA_CUDA_SLAB_BUDGET_ENV, -EINVAL,
      DORADMA_CUDA_SLAB_BUDGET_ENV "='%.64s' is not a byte count > 0 "
      "(expected e.g. 536870912, 512M, 2GiB)", v);
}
