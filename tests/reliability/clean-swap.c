/* Description: clean removes only the control object the door judged
 * (review round 4, R4-6: lib/clean.c renamed or unlinked ~ctl by path
 * after door_open had looked at it, so whatever sat there by then was
 * removed). Built with -Wl,--wrap=rename,--wrap=unlink: right before the
 * lib's first rename or unlink of doradma.<ch>~ctl, the wrapper swaps
 * another regular file in under that name (a new inode, as a process
 * racing clean would). Clean must then remove nothing, put the newcomer
 * back and say the name changed (-EAGAIN, field "ctl"), for a stale
 * channel (the data lock held) and for an orphan control object. Before,
 * clean returned 0 and the newcomer, never judged, was gone. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include <doradma/inspect.h>

#include "helpers.h"

static char ch[64], *dir, ctl_path[4200], swap_path[4200];
static int armed, swapped;

int __real_rename (const char *oldpath, const char *newpath);
int __real_unlink (const char *path);

/* A new regular file (a new inode: made before the old one is gone) takes
 * the control name. */
static void
swap_in (const char *path)
{
  if (!armed || strcmp (path, ctl_path) != 0)
    return;
  armed = 0;
  if (g_file_set_contents (swap_path, "newcomer", -1, NULL)
      && __real_rename (swap_path, ctl_path) == 0)
    swapped = 1;
}

int
__wrap_rename (const char *oldpath, const char *newpath)
{
  swap_in (oldpath);
  return __real_rename (oldpath, newpath);
}

int
__wrap_unlink (const char *path)
{
  swap_in (path);
  return __real_unlink (path);
}

static int
stale_channel (const char *tag)
{
  pid_t pid;

  t_channel (ch, sizeof ch, tag);
  snprintf (ctl_path, sizeof ctl_path, "%s/doradma.%s~ctl", dir, ch);
  snprintf (swap_path, sizeof swap_path, "%s/swap", dir);
  pid = t_fork_live_writer (ch, dir);
  if (pid <= 0)
    return -1;
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  return 0;
}

/* The newcomer must still be at the control name, and clean must have
 * said so. */
static int
check_kept (const char *what, int rc, const struct doradma_diag *diag,
    const struct doradma_clean_report *rep)
{
  char *text = NULL;
  int ok;

  ok = g_file_get_contents (ctl_path, &text, NULL, NULL)
      && strcmp (text, "newcomer") == 0;
  t_log ("%s: swapped %d, clean %s [%s] %s, removed ctl %d, newcomer %s",
      what, swapped, t_errname (rc), diag->field ? diag->field : "-",
      diag->msg, rep->removed_ctl, ok ? "kept" : "gone");
  g_free (text);
  return swapped && ok && rc == -EAGAIN && g_strcmp0 (diag->field, "ctl") == 0
      && strstr (diag->msg, "changed while we looked") && rep->removed_ctl == 0
      ? 0 : 1;
}

int
main (void)
{
  struct doradma_clean_report rep;
  struct doradma_diag diag = { 0 };
  char data_path[4200];
  struct stat st;
  int fails = 0, rc;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "clswap");
  if (dir == NULL)
    return T_EXIT_FAIL;

  /* a stale channel: clean holds the dead writer's lock */
  T_CHECK (stale_channel ("swl") == 0, "stale channel");
  swapped = 0;
  armed = 1;
  rc = doradma_clean_channel (dir, ch, &rep, &diag);
  armed = 0;
  fails += check_kept ("stale channel", rc, &diag, &rep);
  snprintf (data_path, sizeof data_path, "%s/doradma.%s", dir, ch);
  T_EXPECT (fails, lstat (data_path, &st) == 0, "the data object was "
      "removed although clean refused");
  /* nothing raced this time: all of it goes */
  T_RC (doradma_clean_channel (dir, ch, &rep, &diag), 0, diag.msg);
  T_EXPECT (fails, rep.removed_data == 1 && rep.removed_ctl == 1,
      "second clean: removed data %d ctl %d", rep.removed_data,
      rep.removed_ctl);

  /* an orphan control object: no lock guards its name */
  T_CHECK (stale_channel ("swo") == 0, "stale channel");
  snprintf (data_path, sizeof data_path, "%s/doradma.%s", dir, ch);
  T_CHECK (unlink (data_path) == 0, "unlink the data object");
  swapped = 0;
  armed = 1;
  memset (&diag, 0, sizeof diag);
  rc = doradma_clean_channel (dir, ch, &rep, &diag);
  armed = 0;
  fails += check_kept ("orphan control object", rc, &diag, &rep);
  unlink (ctl_path);

  if (t_shm_dir_remove (dir) != 0)
    fails++;
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  t_shm_dir_remove (dir);
  return T_EXIT_FAIL;
}
