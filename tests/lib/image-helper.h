/* Test helper: data and control object images built in memory exactly as
 * the writer lays them out (meta_build for the JSON), so that each test can
 * mutate one field and check the validator's verdict. Also the small
 * pass/fail vocabulary of the validate-* tests (exit 0 / 1 / 77). */
#ifndef DORADMA_TEST_IMAGE_HELPER_H
#define DORADMA_TEST_IMAGE_HELPER_H

#include <stddef.h>
#include <stdint.h>

#include "segment-desc.h"

#define T_EXIT_PASS 0
#define T_EXIT_FAIL 1
#define T_EXIT_SKIP 77

extern int t_failures;

struct image_params {
  uint32_t slots;
  uint64_t stride;
  uint32_t page;
  int ipc;                  /* slots in device memory (transport "ipc") */
  const char *transport;    /* NULL: "ipc" if ipc, else "shmem" */
  const char *caps;         /* NULL: a default I420 64x48 caps string */
};

struct image {
  uint8_t *data;            /* g_malloc0'd, page-size-rounded object */
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

/* Checks that ret == want and, when want < 0, that diag->field == field.
 * Counts failures in t_failures; returns 1 if the check held. */
#define t_expect(what, ret, want, diag, field) \
  t_expect_at (__FILE__, __LINE__, (what), (ret), (want), (diag), (field))
int t_expect_at (const char *file, int line, const char *what, int ret,
    int want, const struct doradma_diag *diag, const char *field);

#define t_check(cond) t_check_at (__FILE__, __LINE__, #cond, (cond))
int t_check_at (const char *file, int line, const char *what, int ok);

/* Validates img with doradma_segment_validate and checks the verdict. */
#define t_expect_image(what, img, want, field) \
  t_expect_image_at (__FILE__, __LINE__, (what), (img), (want), (field))
int t_expect_image_at (const char *file, int line, const char *what,
    struct image *img, int want, const char *field);

int t_result (void);

#endif
