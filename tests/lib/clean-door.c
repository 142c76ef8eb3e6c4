/* Description: doradma_clean_channel judges what it removes by the door's
 * rules (round 4, R4-6). Before: with the dead writer's lock held it
 * unlinked whatever sat at doradma.<ch>~ctl (another user's file as root,
 * without --force) and returned 0 with removed_ctl 0 when a directory sat
 * there; the leftover sweep unlinked every doradma.<ch>~new.* name,
 * whoever owned it. Now a directory at ~ctl is named and nothing is
 * removed; another user's ~ctl needs DORADMA_CLEAN_ANY_OWNER; leftovers
 * are removed only when they are regular files of ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include <doradma/inspect.h>

static char ch[64], *dir;

/* A writer that dies without closing: a stale channel. */
static int
die_writing (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  struct doradma_diag diag = { 0 };

  (void) arg;
  t_writer_config (&wc, ch, dir, 2, 4096);
  return doradma_writer_create (&wc, &w, &diag) == 0 ? 0 : 1;
}

static int
make_stale (const char *tag)
{
  t_channel (ch, sizeof ch, tag);
  return t_wait (t_fork (die_writing, NULL), 10000);
}

static int
exists (const char *suffix)
{
  char path[512];
  struct stat st;

  snprintf (path, sizeof path, "%s/doradma.%s%s", dir, ch, suffix);
  return lstat (path, &st) == 0;
}

static void
path_of (char *path, size_t len, const char *suffix)
{
  snprintf (path, len, "%s/doradma.%s%s", dir, ch, suffix);
}

int
main (void)
{
  struct doradma_clean_report rep;
  struct doradma_diag diag = { 0 };
  char ctl[512], path[512];
  int ret = T_EXIT_FAIL, rc;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "cldoor");
  if (dir == NULL)
    return T_EXIT_FAIL;

  /* a directory at ~ctl: named, nothing removed */
  T_CHECK (make_stale ("cd") == 0, "stale channel");
  path_of (ctl, sizeof ctl, "~ctl");
  T_CHECK (unlink (ctl) == 0 && mkdir (ctl, 0700) == 0, "mkdir ~ctl");
  rc = doradma_clean_channel (dir, ch, &rep, &diag);
  t_log ("clean with a directory at ~ctl: %s: %s", t_errname (rc), diag.msg);
  T_CHECK (rc < 0 && strstr (diag.msg, "a directory") &&
      strstr (diag.msg, "~ctl"), "a directory at ~ctl was not named: %s "
      "%s", t_errname (rc), diag.msg);
  T_CHECK (exists ("") && exists ("~ctl"), "clean removed something");
  rmdir (ctl);
  T_RC (doradma_clean_channel (dir, ch, &rep, &diag), 0, diag.msg);

  if (getuid () != 0) {
    t_log ("SKIP part: other owners need root (lchown)");
    ret = T_EXIT_PASS;
    goto err;
  }

  /* another user's file at ~ctl: only with DORADMA_CLEAN_ANY_OWNER */
  T_CHECK (make_stale ("co") == 0, "stale channel");
  path_of (ctl, sizeof ctl, "~ctl");
  T_CHECK (chown (ctl, 65534, 65534) == 0, "chown ~ctl");
  rc = doradma_clean_channel (dir, ch, &rep, &diag);
  t_log ("clean with uid 65534's ~ctl: %s: %s", t_errname (rc), diag.msg);
  T_CHECK (rc == -EPERM && strstr (diag.msg, "(uid 65534)"), "another "
      "user's ~ctl: %s %s", t_errname (rc), diag.msg);
  T_CHECK (exists ("") && exists ("~ctl"), "clean removed something");
  T_RC (doradma_clean_channel_flags (dir, ch, DORADMA_CLEAN_ANY_OWNER, &rep,
          &diag), 0, diag.msg);
  T_CHECK (!exists ("") && !exists ("~ctl") && rep.removed_ctl == 1,
      "--force left something");

  /* leftovers: ours go; another user's and a link stay (and its target) */
  T_CHECK (make_stale ("cl") == 0, "stale channel");
  path_of (path, sizeof path, "~new.1.aa");
  T_CHECK (close (open (path, O_CREAT | O_WRONLY, 0600)) == 0, "ours");
  path_of (path, sizeof path, "~new.2.bb");
  T_CHECK (close (open (path, O_CREAT | O_WRONLY, 0600)) == 0 &&
      chown (path, 65534, 65534) == 0, "another user's");
  path_of (path, sizeof path, "~new.3.cc");
  T_CHECK (symlink (ctl, path) == 0, "a link to the control object");
  T_RC (doradma_clean_channel (dir, ch, &rep, &diag), 0, diag.msg);
  t_log ("leftovers removed: %d", rep.removed_leftovers);
  T_CHECK (!exists ("~new.1.aa"), "our leftover stayed");
  T_CHECK (exists ("~new.2.bb"), "another user's leftover was removed");
  T_CHECK (exists ("~new.3.cc"), "a link was removed as a leftover");
  T_CHECK (rep.removed_leftovers == 1, "removed_leftovers %d, want 1",
      rep.removed_leftovers);
  path_of (path, sizeof path, "~new.2.bb");
  unlink (path);
  path_of (path, sizeof path, "~new.3.cc");
  unlink (path);
  ret = T_EXIT_PASS;
err:
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
