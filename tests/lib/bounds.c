/* Description: the bounds of the caps rule, of meta_parse's input length and
 * of the writer's own geometry check, each as a boundary pair: the last
 * accepted value and the first refused one (and the writer's slot count),
 * side by side, so that an
 * off-by-one in either direction fails (tests/mutation has the mutants).
 * Pairs elsewhere: the slot record and crop (validate-record.c), JSON depth
 * and digit runs (validate-json.c), slot count (validate-rcb.c), channel
 * name (name.c); docs/reliability.md lists them all. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;


/* caps: the NUL within DORADMA_CAPS_MAX bytes (959 characters at most). */
static void
test_caps_pair (void)
{
  char buf[DORADMA_CAPS_MAX + 1];
  struct doradma_diag diag;
  const char *head = "video/x-raw, x=(string)";

  memset (buf, 'a', sizeof buf);
  memcpy (buf, head, strlen (head));
  buf[DORADMA_CAPS_MAX - 1] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (buf, sizeof buf, &diag), 0,
      &diag, NULL, "caps of 959 characters");
  buf[DORADMA_CAPS_MAX - 1] = 'a';
  buf[DORADMA_CAPS_MAX] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (buf, sizeof buf, &diag),
      -EBADMSG, &diag, "caps", "caps of 960 characters");
}

/* json_len: DORADMA_JSON_MAX bytes are parsed, one more is refused before
 * any parsing. */
static void
test_json_len_pair (void)
{
  struct image img;
  struct doradma_segment_desc d;
  struct doradma_diag diag;
  char *text = g_malloc (DORADMA_JSON_MAX + 1);

  image_build_default (&img);
  memset (text, ' ', DORADMA_JSON_MAX + 1);
  memcpy (text, img.data + DORADMA_HEADER_SIZE, img.json_len);
  memset (&d, 0, sizeof d);
  T_EXPECT_DIAG (failures, meta_parse (text, DORADMA_JSON_MAX, &d, &diag), 0,
      &diag, NULL, "JSON of DORADMA_JSON_MAX bytes");
  T_EXPECT_DIAG (failures, meta_parse (text, DORADMA_JSON_MAX + 1, &d, &diag),
      -EBADMSG, &diag, "header.json_len", "JSON of DORADMA_JSON_MAX + 1 bytes");
  g_free (text);
  image_free (&img);
}

/* The writer's own check of what it is asked to publish. */
static void
test_publish_geometry_pairs (void)
{
  char *dir = t_shm_dir_new (NULL, "bounds");
  char ch[64];
  struct doradma_writer *w;
  struct doradma_frame_info info;
  uint32_t slot;

  t_channel (ch, sizeof ch, "bounds");
  T_CHECK (t_open_pair (dir, ch, 2, 8192, 0, &w, NULL) == 0, "writer");
  T_CHECK (doradma_writer_acquire (w, DORADMA_POLICY_LATEST, 0, &slot) == 0,
      "acquire");

  t_frame_info (&info, 4096);
  info.payload_bytes = 8192 + 1;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), -EOVERFLOW,
      "publish of slot_stride + 1 bytes");
  info.payload_bytes = 8192;
  info.n_planes = 5;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), -EINVAL,
      "publish of 5 planes");
  info.n_planes = 4;
  info.planes[0].rows = 1;
  for (int p = 1; p < 4; p++)
    info.planes[p] = info.planes[0];
  info.planes[3].offset = 8192 - 4096;
  info.planes[3].rows = 1;
  T_EXPECT_RC (failures, doradma_writer_publish (w, slot, &info), 0,
      "publish of 4 planes ending at slot_stride");

  doradma_writer_close (w);
  w = NULL;

  /* slots: 64 accepted, 65 refused naming the field */
  {
    struct doradma_writer_config cfg;
    struct doradma_diag diag = { 0 };

    t_writer_config (&cfg, ch, dir, 64, 4096);
    T_EXPECT_DIAG (failures, doradma_writer_create (&cfg, &w, &diag), 0, &diag,
        NULL, "64 slots");
    if (w)
      doradma_writer_close (w);
    t_writer_config (&cfg, ch, dir, 65, 4096);
    T_EXPECT_DIAG (failures, doradma_writer_create (&cfg, &w, &diag), -EINVAL,
        &diag, "slots", "65 slots");
  }
  T_EXPECT (failures, t_shm_dir_remove (dir) == 0, "leftovers");
  return;
err:
  failures++;
}

int
main (void)
{
  test_caps_pair ();
  test_json_len_pair ();
  test_publish_geometry_pairs ();
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
