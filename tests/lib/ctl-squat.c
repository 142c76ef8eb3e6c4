/* Description: what squats a channel's control name (doradma.<ch>~ctl) is
 * named (round 4, R4-2): a directory there, or another user's file, FIFO
 * or link in the sticky shm directory, made doradma_writer_create fail
 * with "cannot publish the name: Operation not permitted" and no field.
 * Now the refusal has field "ctl" and says what is there and whose it is.
 * A successful create carries no diagnostic (R4-11: the door's probe of
 * the new name left "no such object" behind).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static char ch[64], *dir;

/* As uid 65534: create over the FIFO root planted at ~ctl. */
static int
as_other_user (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  int ret;

  (void) arg;
  if (setresgid (65534, 65534, 65534) != 0 ||
      setresuid (65534, 65534, 65534) != 0)
    return T_EXIT_FAIL;
  t_writer_config (&wc, ch, dir, 2, 4096);
  ret = doradma_writer_create (&wc, &w, &diag);
  t_log ("uid 65534 creates over root's FIFO at ~ctl: %s: [%s] %s",
      t_errname (ret), diag.field ? diag.field : "-", diag.msg);
  T_RC (ret, -EPERM, "create over another user's FIFO at ~ctl");
  T_CHECK (diag.field && strcmp (diag.field, "ctl") == 0, "field %s, want "
      "ctl", diag.field ? diag.field : "(null)");
  T_CHECK (strstr (diag.msg, "a FIFO") && strstr (diag.msg, "(uid 0)"),
      "the message does not name root's FIFO: %s", diag.msg);
  return T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* Plants `type` at ~ctl as the caller, then tries to create the channel. */
static int
squatted_create (const char *type, uid_t squatter)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  char path[512], owner[32];
  int ret;

  snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
  if (strcmp (type, "a directory") == 0)
    T_CHECK (mkdir (path, 0700) == 0, "mkdir %s", path);
  else
    T_CHECK (mkfifo (path, 0600) == 0, "mkfifo %s", path);
  if (squatter != getuid ())
    T_CHECK (lchown (path, squatter, squatter) == 0, "lchown %s", path);

  t_writer_config (&wc, ch, dir, 2, 4096);
  ret = doradma_writer_create (&wc, &w, &diag);
  t_log ("create over %s of uid %u at ~ctl: %s: [%s] %s", type,
      (unsigned) squatter, t_errname (ret), diag.field ? diag.field : "-",
      diag.msg);
  T_CHECK (ret < 0, "a writer over a squatted control name");
  T_CHECK (diag.field && strcmp (diag.field, "ctl") == 0, "field %s, want "
      "ctl", diag.field ? diag.field : "(null)");
  snprintf (owner, sizeof owner, "(uid %u)", (unsigned) squatter);
  T_CHECK (strstr (diag.msg, type) && strstr (diag.msg, owner) &&
      strstr (diag.msg, "~ctl"), "the message does not name %s %s at ~ctl: "
      "%s", type, owner, diag.msg);
  T_CHECK (access (path, F_OK) == 0 || errno != ENOENT, "the squatter was "
      "removed");
  remove (path);
  return 0;
err:
  doradma_writer_close (w);
  remove (path);
  return -1;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  int ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "ctlsq");
  if (dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "cs");

  /* a directory cannot be renamed over, whoever owns it */
  if (squatted_create ("a directory", getuid ()) < 0)
    goto err;
  /* root's FIFO in the sticky directory, the writer another user: the
   * rename over it is EPERM (needs root to switch uids) */
  if (getuid () == 0) {
    char path[512];
    pid_t child;

    T_CHECK (chmod (dir, 01777) == 0, "chmod %s", dir);
    snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, ch);
    T_CHECK (mkfifo (path, 0600) == 0, "mkfifo %s", path);
    child = t_fork (as_other_user, NULL);
    T_CHECK (t_wait (child, 10000) == 0, "another user's create over root's "
        "FIFO at ~ctl was not refused as squatted (see the log)");
    remove (path);
  } else {
    t_log ("SKIP part: another user's FIFO needs root to switch uids");
  }

  /* R4-11 */
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_CHECK (diag.field == NULL && diag.msg[0] == '\0', "a successful create "
      "left a diagnostic: [%s] %s", diag.field ? diag.field : "-", diag.msg);
  ret = T_EXIT_PASS;
err:
  doradma_writer_close (w);
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
