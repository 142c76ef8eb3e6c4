/* Description: the caps string rule: NUL within DORADMA_CAPS_MAX and within
 * the buffer, printable ASCII, "video/x-raw" then end or ',', no caps
 * features (the reader chooses the memory feature itself), one structure. */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

static void
expect_caps (const char *caps, int want, const char *field)
{
  struct doradma_diag diag;

  memset (&diag, 0, sizeof (diag));
  T_EXPECT_DIAG (failures, caps_string_validate (caps, strlen (caps) + 1,
          &diag), want, &diag, field, caps);
}

int
main (void)
{
  struct doradma_diag diag;
  char big[2 * DORADMA_CAPS_MAX];

  expect_caps (IMAGE_DEFAULT_CAPS, 0, NULL);
  expect_caps ("video/x-raw", 0, NULL);
  expect_caps ("video/x-raw,format=NV12", 0, NULL);
  expect_caps ("video/x-raw, colorimetry=(string)bt709", 0, NULL);

  expect_caps ("video/x-raw(memory:NVMM), format=(string)NV12", -EBADMSG,
      "caps.features");
  expect_caps ("video/x-raw(memory:CUDAMemory)", -EBADMSG, "caps.features");
  expect_caps ("video/x-raw(memory:DMABuf), format=(string)DMA_DRM",
      -EBADMSG, "caps.features");
  expect_caps ("video/x-raw(ANY)", -EBADMSG, "caps.features");
  expect_caps ("video/x-raw, format=(string)I420; "
      "video/x-raw(memory:NVMM)", -EBADMSG, "caps");

  expect_caps ("", -EBADMSG, "caps.media_type");
  expect_caps ("video", -EBADMSG, "caps.media_type");
  expect_caps ("audio/x-raw, rate=48000", -EBADMSG, "caps.media_type");
  expect_caps ("video/x-rawx", -EBADMSG, "caps.media_type");
  expect_caps ("video/x-raw format=I420", -EBADMSG, "caps.media_type");
  expect_caps ("image/jpeg", -EBADMSG, "caps.media_type");
  expect_caps ("ANY", -EBADMSG, "caps.media_type");

  expect_caps ("video/x-raw, a=\x01", -EBADMSG, "caps");
  expect_caps ("video/x-raw, a=\t", -EBADMSG, "caps");
  expect_caps ("video/x-raw, a=\xc3\xa9", -EBADMSG, "caps");
  expect_caps ("video/x-raw, a=\x7f", -EBADMSG, "caps");

  /* No NUL within the buffer. */
  T_EXPECT_DIAG (failures, caps_string_validate ("video/x-raw", 11,
          &diag), -EBADMSG, &diag, "caps", "no NUL within len");
  T_EXPECT_DIAG (failures, caps_string_validate ("", 0, &diag), -EBADMSG, &diag,
      "caps", "len 0");
  /* No NUL within DORADMA_CAPS_MAX, in a larger buffer. */
  memset (big, 'a', sizeof (big));
  memcpy (big, "video/x-raw, a=", 15);
  big[DORADMA_CAPS_MAX] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (big, sizeof (big),
          &diag), -EBADMSG, &diag, "caps", "NUL at byte 960");
  big[DORADMA_CAPS_MAX - 1] = '\0';
  T_EXPECT_DIAG (failures, caps_string_validate (big, sizeof (big),
          &diag), 0, &diag, NULL, "NUL at byte 959");
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
