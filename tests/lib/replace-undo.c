/* Description: a replace that fails at its last step, the rename of the
 * new control object to doradma.<ch>~ctl (issue 32), leaves the channel
 * as it was. The data name had already gone to the new segment, which the
 * failure then freed: the name pointed at an abandoned object whose ~ctl
 * was the old one's, so no reader could open the channel, and the old
 * writer, still publishing, served nobody new. Now the old data object is
 * renamed back over the data name: the failure is reported (field "ctl",
 * the errno's text), the old writer keeps serving its reader, a new reader
 * opens the channel, no temporary name is left, and a later replace
 * works. The failure is forced by a directory at ~ctl (the test keeps a
 * second link to the real control object and puts it back afterwards).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

#define BYTES 4096
#define MS 1000000ll

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *a = NULL, *b = NULL;
  struct doradma_reader *r = NULL, *r2 = NULL;
  struct doradma_segment_info si;
  struct doradma_frame f;
  struct doradma_diag diag = { 0 };
  char ch[64], *dir, data_path[512], ctl_path[512], saved[512];
  struct stat st;
  int ret, planted = 0;

  t_watchdog (25);
  dir = t_shm_dir_new (NULL, "replace-undo");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "rundo");
  snprintf (data_path, sizeof data_path, "%s/doradma.%s", dir, ch);
  snprintf (ctl_path, sizeof ctl_path, "%s/doradma.%s~ctl", dir, ch);
  snprintf (saved, sizeof saved, "%s/saved-ctl", dir);
  T_RC (t_open_pair (dir, ch, 4, BYTES, 1, &a, &r), 0, "open");
  T_RC (t_publish_as (a, DORADMA_POLICY_LOSSLESS, 0, BYTES, 1, NULL), 0,
      "publish 1");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, &diag), 0,
      diag.msg);
  doradma_reader_release (r, f.slot);
  doradma_reader_segment_info (r, &si);

  t_step ("a directory at ~ctl makes the replace's last rename fail");
  T_CHECK (link (ctl_path, saved) == 0 && unlink (ctl_path) == 0 &&
      mkdir (ctl_path, 0700) == 0, "swap ~ctl for a directory");
  planted = 1;
  t_writer_config (&wc, ch, dir, 4, BYTES);
  ret = doradma_writer_replace (a, &wc, &b, &diag);
  t_log ("replace: %s: [%s] %s", t_errname (ret),
      diag.field ? diag.field : "-", diag.msg);
  T_CHECK (ret < 0, "the replace over a directory at ~ctl succeeded");
  T_CHECK (diag.field != NULL && strcmp (diag.field, "ctl") == 0,
      "field %s, want ctl", diag.field ? diag.field : "(null)");
  T_CHECK (strstr (diag.msg, "~ctl") && strstr (diag.msg, strerror (-ret)),
      "the message names neither ~ctl nor %s", strerror (-ret));

  t_step ("the data name is the old segment's again");
  T_CHECK (stat (data_path, &st) == 0 && st.st_ino == si.ino &&
      st.st_dev == si.dev, "%s no longer names the old data object (ino "
      "%llu, want %llu): the failed replace left its own there", data_path,
      (unsigned long long) st.st_ino, (unsigned long long) si.ino);
  T_CHECK (t_leftovers (dir, "~new.") == 0, "temporary names were left");
  T_CHECK (rmdir (ctl_path) == 0 && rename (saved, ctl_path) == 0,
      "put ~ctl back");
  planted = 0;

  t_step ("the old writer serves its reader and a new one");
  t_reader_config (&rc, ch, dir, 1);
  T_RC (doradma_reader_open (&rc, &r2, &diag), 0, diag.msg);
  T_RC (t_publish_as (a, DORADMA_POLICY_LOSSLESS, 0, BYTES, 2, NULL), 0,
      "publish 2 on the old writer");
  T_RC (doradma_reader_next (r, DORADMA_READ_NEXT, 500 * MS, &f, &diag), 0,
      diag.msg);
  T_CHECK (f.info.seq == 2, "seq %llu", (unsigned long long) f.info.seq);
  doradma_reader_release (r, f.slot);
  /* a late joiner starts with the newest frame at its join: 1 */
  for (uint64_t s = 1; s <= 2; s++) {
    T_RC (doradma_reader_next (r2, DORADMA_READ_NEXT, 500 * MS, &f, &diag),
        0, diag.msg);
    T_CHECK (f.info.seq == s, "the new reader read seq %llu, want %llu",
        (unsigned long long) f.info.seq, (unsigned long long) s);
    doradma_reader_release (r2, f.slot);
  }

  t_step ("a later replace works");
  T_RC (doradma_writer_replace (a, &wc, &b, &diag), 0, diag.msg);
  T_RC (t_publish_as (b, DORADMA_POLICY_LATEST, 0, BYTES, 3, NULL), 0,
      "publish 3 on the new writer");

  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  return t_shm_dir_remove (dir) ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (planted) {
    rmdir (ctl_path);
    unlink (saved);
  }
  doradma_reader_close (r2);
  doradma_reader_close (r);
  doradma_writer_close (b);
  doradma_writer_close (a);
  t_unlink_channel (dir, ch);
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
