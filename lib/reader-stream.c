/* What the writer tells a reader of the stream besides the frames: the
 * caps of an epoch (read under the caps entry's seqlock), the latency, a
 * clean stop. */
#include <errno.h>
#include <string.h>

#include "atomic.h"
#include "keep-errno.h"
#include "reader-private.h"
#include "segment.h"
#include "seqlock.h"

DORADMA_API int
doradma_reader_writer_stopped (struct doradma_reader *r)
{
  /* ACQUIRE: pairs with the writer's store before its lock went */
  return dr_load_acquire (&r->rcb->stopped) == 1;
}

DORADMA_API int
doradma_reader_caps (struct doradma_reader *r, uint32_t epoch, char *buf,
    size_t len, struct doradma_diag *diag)
{
  KEEP_ERRNO;
  const struct doradma_shm_caps *c =
      &r->rcb->caps[epoch % DORADMA_CAPS_ENTRIES];
  char local[DORADMA_CAPS_MAX];
  int attempt;

  for (attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
    uint64_t g = seqlock_read_begin (&c->gen);
    uint32_t e, i;

    if (g & 1)
      continue;
    e = dr_load_relaxed (&c->epoch);
    for (i = 0; i < DORADMA_CAPS_MAX; i++)
      local[i] = dr_load_relaxed (&c->caps[i]);
    if (!seqlock_read_ok (&c->gen, g))
      continue;
    if (e != epoch || g == 0)
      return diag_set (diag, -ENOENT, "rcb.caps",
          "%s: caps epoch %u is no longer in the caps table", r->paths.label,
          epoch);
    {
      int ret = caps_string_validate (local, sizeof local, diag);
      if (ret < 0)
        return ret;
    }
    if (strlen (local) + 1 > len)
      return -ENOBUFS;
    memcpy (buf, local, strlen (local) + 1);
    return 0;
  }
  return diag_set (diag, -EAGAIN, "rcb.caps",
      "%s: caps entry kept changing while read", r->paths.label);
}

DORADMA_API uint64_t
doradma_reader_latency (struct doradma_reader *r)
{
  KEEP_ERRNO;
  return dr_load_relaxed (&r->rcb->latency);
}
