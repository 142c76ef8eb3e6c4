/* What the writer tells its readers of the stream besides the frames: the
 * caps of each epoch (the caps table, a seqlock per entry), the latency,
 * the end of stream. */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "atomic.h"
#include "futex.h"
#include "keep-errno.h"
#include "segment.h"
#include "writer-private.h"

void
write_caps_entry (struct doradma_writer *w, uint32_t epoch, const char *caps)
{
  uint32_t e = epoch % DORADMA_CAPS_ENTRIES;
  struct doradma_shm_caps *c = &w->rcb->caps[e];
  size_t len = strlen (caps), i;
  uint64_t g = w->caps_gen[e];

  dr_store_relaxed (&c->gen, g + 1);
  /* Orders the odd gen before the entry's stores (copy readers see odd or
   * detect the change at their re-check). */
  dr_fence_release ();
  dr_store_relaxed (&c->epoch, epoch);
  dr_store_relaxed (&c->length, (uint32_t) len);
  for (i = 0; i < DORADMA_CAPS_MAX; i++)
    dr_store_relaxed (&c->caps[i], i < len ? caps[i] : '\0');
  /* RELEASE pairs with the reader's ACQUIRE of gen. */
  dr_store_release (&c->gen, g + 2);
  w->caps_gen[e] = g + 2;
}

/* Would writing `epoch` overwrite the caps of a frame still in the ring? */
static int
caps_entry_in_use_locked (struct doradma_writer *w, uint32_t epoch)
{
  uint32_t s;

  for (s = 0; s < w->desc.slot_count; s++)
    if (w->seq[s] != 0 && w->slot_epoch[s] != epoch &&
        w->slot_epoch[s] % DORADMA_CAPS_ENTRIES == epoch % DORADMA_CAPS_ENTRIES)
      return 1;
  return 0;
}

DORADMA_API int
doradma_writer_set_caps (struct doradma_writer *w, const char *caps,
    uint32_t * epoch)
{
  KEEP_ERRNO;
  int ret;

  if (caps == NULL)
    return -EINVAL;
  if (strlen (caps) >= DORADMA_CAPS_MAX)
    return -E2BIG;
  ret = caps_string_validate (caps, strlen (caps) + 1, NULL);
  if (ret < 0)
    return -EINVAL;
  pthread_mutex_lock (&w->lock);
  if (caps_entry_in_use_locked (w, w->caps_epoch + 1)) {
    pthread_mutex_unlock (&w->lock);
    return -EBUSY;
  }
  w->caps_epoch++;
  write_caps_entry (w, w->caps_epoch, caps);
  dr_store_release (&w->rcb->caps_epoch, w->caps_epoch);
  if (epoch)
    *epoch = w->caps_epoch;
  pthread_mutex_unlock (&w->lock);
  return 0;
}

DORADMA_API void
doradma_writer_set_latency (struct doradma_writer *w, uint64_t latency_ns)
{
  KEEP_ERRNO;
  dr_store_relaxed (&w->rcb->latency, latency_ns);
  eventcount_bump (&w->ctl->notify);
}

DORADMA_API int
doradma_writer_eos (struct doradma_writer *w)
{
  KEEP_ERRNO;
  pthread_mutex_lock (&w->lock);
  w->eos = 1;
  dr_store_relaxed (&w->rcb->final_seq, w->last_seq);
  /* RELEASE: a reader that sees EOS sees final_seq and every frame. */
  dr_store_release (&w->rcb->state, DORADMA_STATE_EOS);
  pthread_mutex_unlock (&w->lock);
  eventcount_bump (&w->ctl->notify);
  return 0;
}
