/* See image-helper.h. The object is laid out as lib/segment.c writes it:
 * header, JSON padded to data_offset, slots, then the RCB; the object size is
 * rounded up to the page size. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"


void
image_params_default (struct image_params *p)
{
  memset (p, 0, sizeof (*p));
  p->slots = 2;
  p->stride = 4096;
  p->page = 4096;
}

static uint64_t
round_up (uint64_t v, uint64_t a)
{
  return (v + a - 1) / a * a;
}

void
image_build (struct image *img, const struct image_params *p)
{
  struct doradma_segment_desc desc;
  struct doradma_shm_header *h;
  struct doradma_shm_rcb *rcb;
  const char *caps = p->caps ? p->caps : IMAGE_DEFAULT_CAPS;
  uint64_t json_len, json_len2;
  char *json, *json2;

  memset (img, 0, sizeof (*img));
  memset (&desc, 0, sizeof (desc));
  desc.slot_count = p->slots;
  desc.slot_stride = p->stride;
  desc.page_size = p->page;
  desc.ipc = p->ipc;
  g_strlcpy (desc.transport, p->transport ? p->transport
      : (p->ipc ? "ipc" : "shmem"), sizeof (desc.transport));
  g_strlcpy (desc.caps, caps, sizeof (desc.caps));

  /* Let meta_build choose the offsets, then rebuild with them explicit
   * (both modes of meta_build must agree). */
  json = meta_build (&desc, &json_len);
  if (json == NULL) {
    fprintf (stderr, "image_build: meta_build refused the parameters\n");
    abort ();
  }
  img->json_len = json_len;
  img->data_offset = round_up (DORADMA_HEADER_SIZE + json_len, p->page);
  img->rcb_offset = img->data_offset
      + (p->ipc ? 0 : (uint64_t) p->slots * p->stride);
  desc.slots_offset = img->data_offset;
  desc.rcb_offset = img->rcb_offset;
  json2 = meta_build (&desc, &json_len2);
  if (json2 == NULL || json_len2 != json_len || strcmp (json, json2) != 0) {
    fprintf (stderr, "image_build: meta_build modes disagree\n");
    abort ();
  }
  g_free (json2);

  img->len = round_up (img->rcb_offset + sizeof (struct doradma_shm_rcb),
      p->page);
  img->data = g_malloc0 (img->len);
  img->ctl_token = 0x5eed5eed0badf00dull;

  h = (struct doradma_shm_header *) img->data;
  memcpy (h->magic, DORADMA_MAGIC, sizeof (h->magic));
  h->json_len = json_len;
  h->data_offset = img->data_offset;
  h->ipc_flag = p->ipc ? 1 : 0;
  if (p->ipc)
    memset (h->ipc_handle, 0xa5, sizeof (h->ipc_handle));
  h->dora_gen = DORADMA_DORA_GEN_ODD;
  memcpy (img->data + DORADMA_HEADER_SIZE, json, json_len);
  g_free (json);

  rcb = image_rcb (img);
  rcb->magic = DORADMA_RCB_MAGIC;
  rcb->layout_version = DORADMA_LAYOUT_VERSION;
  rcb->page_size = p->page;
  rcb->compat_flags = 0;
  rcb->incompat_flags = p->ipc ? DORADMA_INCOMPAT_DEVICE_SLOTS : 0;
  rcb->slot_count = p->slots;
  rcb->writer_pid = 4242;
  rcb->slot_stride = p->stride;
  rcb->slots_offset = img->data_offset;
  rcb->ctl_token = img->ctl_token;
  rcb->state = DORADMA_STATE_LIVE;
  rcb->caps_epoch = 0;
  rcb->first_seq = 1;
  rcb->caps[0].epoch = 0;
  rcb->caps[0].length = strlen (caps);
  g_strlcpy (rcb->caps[0].caps, caps, sizeof (rcb->caps[0].caps));
}

void
image_build_default (struct image *img)
{
  struct image_params p;

  image_params_default (&p);
  image_build (img, &p);
}

void
image_free (struct image *img)
{
  g_free (img->data);
  img->data = NULL;
}

struct doradma_shm_header *
image_header (struct image *img)
{
  return (struct doradma_shm_header *) img->data;
}

struct doradma_shm_rcb *
image_rcb (struct image *img)
{
  return (struct doradma_shm_rcb *) (img->data + img->rcb_offset);
}

void
image_set_json (struct image *img, const char *text)
{
  size_t n = strlen (text);

  if (n > img->json_len) {
    fprintf (stderr,
        "image_set_json: %zu bytes do not fit in %" G_GUINT64_FORMAT "\n", n,
        img->json_len);
    abort ();
  }
  memcpy (img->data + DORADMA_HEADER_SIZE, text, n);
  memset (img->data + DORADMA_HEADER_SIZE + n, ' ', img->json_len - n);
}

void
image_replace_json (struct image *img, const char *from, const char *to)
{
  char *json = g_strndup ((const char *) img->data + DORADMA_HEADER_SIZE,
      img->json_len);
  char *at = strstr (json, from);
  GString *s;

  if (at == NULL) {
    fprintf (stderr, "image_replace_json: \"%s\" not in %s\n", from, json);
    abort ();
  }
  s = g_string_new_len (json, at - json);
  g_string_append (s, to);
  g_string_append (s, at + strlen (from));
  image_set_json (img, g_strchomp (s->str));
  g_string_free (s, TRUE);
  g_free (json);
}

uint8_t *
image_build_ctl (uint64_t token, uint32_t slots, size_t *len)
{
  struct doradma_shm_ctl *ctl = g_malloc0 (sizeof (*ctl));

  ctl->magic = DORADMA_CTL_MAGIC;
  ctl->layout_version = DORADMA_LAYOUT_VERSION;
  ctl->slot_count = slots;
  ctl->token = token;
  *len = sizeof (*ctl);
  return (uint8_t *) ctl;
}

void
image_valid_record (struct doradma_shm_slot *rec)
{
  memset (rec, 0, sizeof (*rec));
  rec->gen = 2;
  rec->seq = 7;
  rec->caps_epoch = 0;
  rec->n_planes = 3;
  rec->width = 64;
  rec->height = 48;
  /* I420 64x48: Y 64x48, U and V 32x24. */
  rec->planes[0] = (struct doradma_shm_plane) { 0, 64, 48, 64, 0 };
  rec->planes[1] = (struct doradma_shm_plane) { 3072, 32, 24, 32, 0 };
  rec->planes[2] = (struct doradma_shm_plane) { 3840, 32, 24, 32, 0 };
  rec->payload_bytes = 4608;
  rec->pts = 1000;
  rec->dts = DORADMA_TIME_NONE;
  rec->duration = 33333333;
  rec->offset = 7;
  rec->offset_end = 8;
  rec->publish_time = 123456789;
  rec->mono_pts = DORADMA_TIME_NONE;
}

void
image_build_published (struct image *img)
{
  struct image_params p;
  struct doradma_shm_rcb *rcb;

  image_params_default (&p);
  p.stride = 8192;
  image_build (img, &p);
  rcb = image_rcb (img);
  image_valid_record (&rcb->slots[0]);
  rcb->slots[0].seq = 1;
  rcb->slot_seq[0] = 1;
  rcb->first_seq = 1;
  rcb->newest = DORADMA_NEWEST_PACK (1, 0);
  rcb->caps[0].gen = 2;
  rcb->caps[0].length = strlen (IMAGE_DEFAULT_CAPS);
  memcpy (rcb->caps[0].caps, IMAGE_DEFAULT_CAPS, sizeof IMAGE_DEFAULT_CAPS);
}
