/* Description: a control object whose identity line a peer overwrote
 * (review round 4, R4-1). A zeroed magic is refused at once as what it is,
 * -EBADMSG naming ctl.magic and the object (it was -ESTALE "the writer is
 * switching" after 200 ms of retries, and doradmasrc waited for ever); a
 * foreign layout version is -EPROTONOSUPPORT naming ctl.layout_version; a
 * token of another segment (what a replace in progress looks like) is
 * still -ESTALE after the retries, and its message says whether the data
 * object's writer lock is held.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

int
main (void)
{
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_reader_config rc;
  struct doradma_shm_ctl *ctl = NULL;
  struct doradma_diag diag;
  char ch[64], *dir;
  uint64_t magic, token;
  uint32_t version;
  int failed = 0;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "ctl-identity");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "ctlid");
  T_RC (t_open_pair (dir, ch, 2, 4096, 0, &w, NULL), 0, "writer");
  ctl = t_ctl_map (dir, ch);
  T_CHECK (ctl != NULL, "map ctl");
  magic = ctl->magic;
  version = ctl->layout_version;
  token = ctl->token;
  t_reader_config (&rc, ch, dir, 0);

  ctl->magic = 0;
  memset (&diag, 0, sizeof diag);
  T_EXPECT_RC (failed, doradma_reader_open (&rc, &r, &diag), -EBADMSG,
      "zeroed magic");
  T_EXPECT (failed, diag.field && strcmp (diag.field, "ctl.magic") == 0 &&
      strstr (diag.msg, "~ctl"), "zeroed magic: [%s] %s",
      diag.field ? diag.field : "-", diag.msg);
  ctl->magic = magic;

  ctl->layout_version = version + 1;
  memset (&diag, 0, sizeof diag);
  T_EXPECT_RC (failed, doradma_reader_open (&rc, &r, &diag),
      -EPROTONOSUPPORT, "foreign layout version");
  T_EXPECT (failed, diag.field && strcmp (diag.field,
          "ctl.layout_version") == 0, "layout version: [%s] %s",
      diag.field ? diag.field : "-", diag.msg);
  ctl->layout_version = version;

  ctl->token = token ^ 1;
  memset (&diag, 0, sizeof diag);
  T_EXPECT_RC (failed, doradma_reader_open (&rc, &r, &diag), -ESTALE,
      "foreign token");
  T_EXPECT (failed, diag.field && strcmp (diag.field, "ctl.token") == 0 &&
      strstr (diag.msg, "writer lock is held"), "token: [%s] %s",
      diag.field ? diag.field : "-", diag.msg);
  ctl->token = token;

  memset (&diag, 0, sizeof diag);
  T_EXPECT_RC (failed, doradma_reader_open (&rc, &r, &diag), 0,
      "restored identity");
  doradma_reader_close (r);
  t_ctl_unmap (ctl);
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  t_ctl_unmap (ctl);
  doradma_writer_close (w);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
