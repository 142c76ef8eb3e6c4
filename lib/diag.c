/* Cold-path error detail: a static field name and a formatted message,
 * written into caller-owned storage without allocation. */
#include <stdarg.h>
#include <stdio.h>

#include "segment-desc.h"

int
diag_set (struct doradma_diag *diag, int err, const char *field,
    const char *fmt, ...)
{
  va_list ap;

  if (diag == NULL)
    return err;

  diag->field = field;
  va_start (ap, fmt);
  vsnprintf (diag->msg, sizeof (diag->msg), fmt, ap);
  va_end (ap);
  return err;
}
