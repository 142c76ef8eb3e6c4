/* Description: doradma_writer_create refuses a mode writable by others
 * (o+w: 0666, 0602) with -EINVAL naming the mode, before creating
 * anything: the door of every later open (a restart of the stale channel,
 * a second writer, any reader) refuses such objects, so the writer would
 * make a channel it can never reopen. 0664 (no o+w) is accepted and a
 * second writer then gets -EBUSY. */
#include <errno.h>
#include <string.h>

#include "helpers.h"

int
main (void)
{
  static const uint32_t refused[] = { 0666, 0602, 0777 };
  char *dir = t_shm_dir_new (NULL, "mode");
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL, *w2 = NULL;
  struct doradma_diag diag;
  char ch[64], want[16];
  int failed = 0;

  t_channel (ch, sizeof ch, "mode");
  t_writer_config (&wc, ch, dir, 2, 4096);
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
    wc.mode = refused[i];
    memset (&diag, 0, sizeof diag);
    T_EXPECT_DIAG (failed, doradma_writer_create (&wc, &w, &diag), -EINVAL,
        &diag, "mode", "o+w mode");
    snprintf (want, sizeof want, "%04o", (unsigned) refused[i]);
    T_EXPECT (failed, strstr (diag.msg, want) != NULL,
        "the diag does not name mode %s: \"%s\"", want, diag.msg);
    T_EXPECT (failed, w == NULL, "mode %s: a writer was handed out", want);
    T_EXPECT (failed, t_leftovers (dir, ch) == 0,
        "mode %s: objects created before the refusal", want);
    if (w != NULL) {
      doradma_writer_close (w);
      w = NULL;
    }
  }

  wc.mode = 0664;
  memset (&diag, 0, sizeof diag);
  T_EXPECT_DIAG (failed, doradma_writer_create (&wc, &w, &diag), 0, &diag,
      NULL, "mode 0664");
  if (w != NULL) {
    memset (&diag, 0, sizeof diag);
    T_EXPECT_DIAG (failed, doradma_writer_create (&wc, &w2, &diag), -EBUSY,
        &diag, NULL, "second writer of a 0664 channel");
    if (w2 != NULL)
      doradma_writer_close (w2);
    doradma_writer_close (w);
  }
  if (t_shm_dir_remove (dir) != 0)
    failed++;
  return failed ? T_EXIT_FAIL : T_EXIT_PASS;
}
