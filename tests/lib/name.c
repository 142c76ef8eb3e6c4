/* Description: channel names are validated before any system call: empty,
 * "..", leading '.', '/', '~', 201 bytes and non-ASCII bytes are -EINVAL
 * (diag.field "name") from doradma_name_validate, doradma_writer_create and
 * doradma_reader_open alike; 200 bytes and "cam.0_-x" are accepted.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

static int
check_bad (const char *name, const char *label)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;

  memset (&diag, 0, sizeof diag);
  T_RC (doradma_name_validate (name, &diag), -EINVAL, label);
  T_CHECK (diag.field != NULL && strcmp (diag.field, "name") == 0,
      "%s: diag.field is %s, want \"name\"", label,
      diag.field ? diag.field : "NULL");
  T_CHECK (diag.msg[0] != '\0', "%s: empty diag.msg", label);
  T_RC (doradma_name_validate (name, NULL), -EINVAL, label);

  t_writer_config (&wc, name, NULL, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, NULL), -EINVAL, label);
  T_CHECK (w == NULL, "%s: writer handed out on error", label);
  t_reader_config (&rc, name, NULL, 0);
  T_RC (doradma_reader_open (&rc, &r, NULL), -EINVAL, label);
  T_CHECK (r == NULL, "%s: reader handed out on error", label);
  T_RC (doradma_channel_wait (NULL, name, 0, -1), -EINVAL, label);
  return 0;
err:
  doradma_writer_close (w);
  doradma_reader_close (r);
  return -1;
}

int
main (void)
{
  char long201[202], long200[201], name[64], buf[300];
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;
  char *dir;
  int failed = 0;

  /* *INDENT-OFF* */
  static const struct { const char *name, *label; } bad[] = {
    { "", "empty" }, { "..", "\"..\"" }, { ".x", "leading dot" },
    { "a/b", "slash" }, { "/etc/passwd", "absolute path" },
    { "a~b", "tilde (the ctl separator)" }, { "a..b", "\"..\" inside" },
    { "caf\xc3\xa9", "non-ASCII UTF-8" }, { "a\xff", "byte 0xff" },
    { "a b", "space" }, { "a\nb", "newline" }, { "a*b", "glob" },
    { "a%s", "percent" }, { ".", "single dot" },
  };
  /* *INDENT-ON* */

  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (check_bad (bad[i].name, bad[i].label) < 0)
      failed++;
  if (check_bad (NULL, "NULL name") < 0)
    failed++;

  memset (long201, 'a', 201);
  long201[201] = '\0';
  if (check_bad (long201, "201 bytes") < 0)
    failed++;

  /* Accepted names. */
  memset (long200, 'b', 200);
  long200[200] = '\0';
  T_RC (doradma_name_validate (long200, NULL), 0, "200 bytes");
  T_RC (doradma_name_validate ("cam.0_-x", NULL), 0, "cam.0_-x");
  T_RC (doradma_name_validate ("a", NULL), 0, "one byte");
  T_RC (doradma_name_validate ("x.y.z", NULL), 0, "single dots inside");

  /* And they really work end to end, in a private directory. */
  dir = t_shm_dir_new (NULL, "name");
  T_CHECK (dir != NULL, "no private shm dir");
  {
    const char *good[] = { long200, "cam.0_-x" };
    for (int i = 0; i < 2; i++) {
      memset (&diag, 0, sizeof diag);
      t_writer_config (&wc, good[i], dir, 2, 4096);
      T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
      t_reader_config (&rc, good[i], dir, 0);
      T_RC (doradma_reader_open (&rc, &r, &diag), 0, diag.msg);
      doradma_reader_close (r);
      r = NULL;
      doradma_writer_close (w);
      w = NULL;
    }
  }
  snprintf (buf, sizeof buf, "%s", t_channel (name, sizeof name, "name"));
  T_RC (doradma_name_validate (buf, NULL), 0, "t_channel names");
  T_CHECK (t_shm_dir_remove (dir) == 0, "objects left in the private dir");
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  doradma_reader_close (r);
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}
