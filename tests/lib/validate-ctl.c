/* Description: the control object's identity line: size, magic, layout
 * version, and the token that ties it to its data object (a ctl object of
 * another segment is refused). */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

int
main (void)
{
  const uint64_t token = 0x1122334455667788ull;
  struct doradma_shm_ctl *ctl;
  struct doradma_diag diag;
  uint8_t *img, *cut;
  size_t len;

  img = image_build_ctl (token, 4, &len);
  ctl = (struct doradma_shm_ctl *) img;
  T_EXPECT (failures, len == 0x2100, "%s", __func__);
  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, len, token, &diag), 0,
      &diag, NULL, "valid ctl");
  /* Reader-written words are not part of the identity. */
  ctl->notify = 0xffffffff;
  ctl->readers[3].state = 99;
  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, len, token,
          &diag), 0, &diag, NULL, "reader words ignored");

  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, 0, token, &diag),
      -EBADMSG, &diag, "ctl.size", "empty");
  cut = g_memdup2 (img, len - 1);
  T_EXPECT_DIAG (failures, doradma_ctl_validate (cut, len - 1, token,
          &diag), -EBADMSG, &diag, "ctl.size", "one byte short");
  g_free (cut);

  ctl->magic = DORADMA_RCB_MAGIC;
  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, len, token, &diag),
      -EBADMSG, &diag, "ctl.magic", "magic");
  ctl->magic = DORADMA_CTL_MAGIC;
  ctl->layout_version = 2;
  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, len, token, &diag),
      -EPROTONOSUPPORT, &diag, "ctl.layout_version", "layout version 2");
  ctl->layout_version = DORADMA_LAYOUT_VERSION;
  T_EXPECT_DIAG (failures, doradma_ctl_validate (img, len,
          token + 1, &diag), -EBADMSG, &diag, "ctl.token",
      "another segment's ctl");
  T_EXPECT_DIAG (failures, ctl_parse (img, len, token, &diag), 0, &diag, NULL,
      "ctl_parse agrees");
  g_free (img);
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
