/* Description: the control object's identity line: size, magic, layout
 * version, and the token that ties it to its data object (a ctl object of
 * another segment is refused). */
#include <errno.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

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
  t_check (len == 0x2100);
  t_expect ("valid ctl", doradma_ctl_validate (img, len, token, &diag), 0,
      &diag, NULL);
  /* Reader-written words are not part of the identity. */
  ctl->notify = 0xffffffff;
  ctl->readers[3].state = 99;
  t_expect ("reader words ignored", doradma_ctl_validate (img, len, token,
          &diag), 0, &diag, NULL);

  t_expect ("empty", doradma_ctl_validate (img, 0, token, &diag), -EBADMSG,
      &diag, "ctl.size");
  cut = g_memdup2 (img, len - 1);
  t_expect ("one byte short", doradma_ctl_validate (cut, len - 1, token,
          &diag), -EBADMSG, &diag, "ctl.size");
  g_free (cut);

  ctl->magic = DORADMA_RCB_MAGIC;
  t_expect ("magic", doradma_ctl_validate (img, len, token, &diag), -EBADMSG,
      &diag, "ctl.magic");
  ctl->magic = DORADMA_CTL_MAGIC;
  ctl->layout_version = 2;
  t_expect ("layout version 2", doradma_ctl_validate (img, len, token, &diag),
      -EPROTONOSUPPORT, &diag, "ctl.layout_version");
  ctl->layout_version = DORADMA_LAYOUT_VERSION;
  t_expect ("another segment's ctl", doradma_ctl_validate (img, len,
          token + 1, &diag), -EBADMSG, &diag, "ctl.token");
  t_expect ("ctl_parse agrees", ctl_parse (img, len, token, &diag), 0, &diag,
      NULL);
  g_free (img);
  return t_result ();
}
