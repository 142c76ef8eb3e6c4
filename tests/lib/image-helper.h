/* Test helper: data and control object images built in memory exactly as
 * the writer lays them out (meta_build for the JSON), so that each test can
 * mutate one field and check the validator's verdict (T_EXPECT_IMAGE; the
 * rest of the vocabulary is helpers.h's). */
#ifndef DORADMA_TEST_IMAGE_HELPER_H
#define DORADMA_TEST_IMAGE_HELPER_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "helpers.h"
#include "segment-desc.h"


struct image_params
{
  uint32_t slots;
  uint64_t stride;
  uint32_t page;
  int ipc;                      /* slots in device memory (transport "ipc") */
  const char *transport;        /* NULL: "ipc" if ipc, else "shmem" */
  const char *caps;             /* NULL: a default I420 64x48 caps string */
};

struct image
{
  uint8_t *data;                /* g_malloc0'd, page-size-rounded object */
  size_t len;
  uint64_t json_len, data_offset, rcb_offset;
  uint64_t ctl_token;
};

#define IMAGE_DEFAULT_CAPS \
  "video/x-raw, format=(string)I420, width=(int)64, height=(int)48, " \
  "framerate=(fraction)30/1"

/* 2 slots of 4096 bytes, 4096-byte pages, shmem. */
void image_params_default (struct image_params *p);
/* Aborts if meta_build refuses the parameters. */
void image_build (struct image *img, const struct image_params *p);
void image_build_default (struct image *img);
void image_free (struct image *img);

struct doradma_shm_header *image_header (struct image *img);
struct doradma_shm_rcb *image_rcb (struct image *img);

/* Rewrites the JSON text in place, padded with spaces to the current
 * json_len (aborts if it does not fit). */
void image_set_json (struct image *img, const char *text);
/* Replaces the first occurrence of `from` in the JSON by `to` (aborts if
 * absent). */
void image_replace_json (struct image *img, const char *from, const char *to);

/* A control object image of sizeof (struct doradma_shm_ctl) bytes. */
uint8_t *image_build_ctl (uint64_t token, uint32_t slots, size_t *len);

/* A valid I420 64x48 record: 4608 payload bytes (slots of 8192 hold it). */
void image_valid_record (struct doradma_shm_slot *rec);

/* A segment of 2 slots of 8192 bytes whose slot 0 holds a published
 * frame (image_valid_record with seq 1; slot_seq, newest and first_seq
 * say so) and whose caps entry 0 holds its caps, as a live writer leaves
 * it: what the CLI inspects. */
void image_build_published (struct image *img);

/* Validates img with doradma_segment_validate and checks the verdict as
 * T_EXPECT_DIAG (helpers.h) does. */
#define T_EXPECT_IMAGE(failed, img, want, field, what) do { \
    struct doradma_diag t_img_diag_; \
    memset (&t_img_diag_, 0, sizeof t_img_diag_); \
    T_EXPECT_DIAG ((failed), doradma_segment_validate ((img)->data, \
            (img)->len, &t_img_diag_), (want), &t_img_diag_, (field), (what)); \
  } while (0)

#endif
