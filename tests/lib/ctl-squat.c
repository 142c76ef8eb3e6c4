/* Description: what squats a channel's control name (doradma.<ch>~ctl) is
 * named (round 4, R4-2): a directory there, or another user's file, FIFO
 * or link in the sticky shm directory, made doradma_writer_create fail
 * with "cannot publish the name: Operation not permitted" and no field.
 * Now the refusal has field "ctl" and says what is there and whose it is,
 * at create and at replace. Our own file, FIFO or dangling link there is a
 * dead writer's leftover: replaced, the link not followed. A successful
 * create carries no diagnostic (R4-11: the door's probe of the new name
 * left "no such object" behind).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

/* The phrases of doradma/file-type.h, which the refusal quotes. */
static const char *const squatter_types[] = {
  "a regular file", "a directory", "a FIFO", "a symbolic link",
};

static char ch[64], *dir, ctl_path[512], link_target[512];

static void
channel_new (void)
{
  t_channel (ch, sizeof ch, "cs");
  snprintf (ctl_path, sizeof ctl_path, "%s/doradma.%s~ctl", dir, ch);
  snprintf (link_target, sizeof link_target, "%s/doradma.%s-target", dir, ch);
}

/* Plants `type` at ~ctl as the caller; the link dangles (link_target). */
static int
plant (const char *type)
{
  int fd;

  if (strcmp (type, "a regular file") == 0) {
    fd = open (ctl_path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    return fd >= 0 ? close (fd) : -1;
  }
  if (strcmp (type, "a directory") == 0)
    return mkdir (ctl_path, 0700);
  if (strcmp (type, "a FIFO") == 0)
    return mkfifo (ctl_path, 0600);
  return symlink (link_target, ctl_path);
}

/* The refusal names the squatter: its type and its owner, at ~ctl. */
static int
names_squatter (int ret, const struct doradma_diag *diag, const char *type,
    uid_t owner)
{
  char uid[32];

  snprintf (uid, sizeof uid, "(uid %u)", (unsigned) owner);
  t_log ("uid %u publishes over %s of uid %u at ~ctl: %s: [%s] %s",
      (unsigned) getuid (), type, (unsigned) owner, t_errname (ret),
      diag->field ? diag->field : "-", diag->msg);
  T_CHECK (ret < 0, "a writer over %s at ~ctl", type);
  T_CHECK (diag->field && strcmp (diag->field, "ctl") == 0, "field %s, "
      "want ctl", diag->field ? diag->field : "(null)");
  T_CHECK (strstr (diag->msg, type) && strstr (diag->msg, uid) &&
      strstr (diag->msg, "~ctl"), "the message does not name %s %s at "
      "~ctl: %s", type, uid, diag->msg);
  return 1;
err:
  return 0;
}

/* As uid 65534: create over what root planted at ~ctl (arg: its type). */
static int
as_other_user (void *arg)
{
  const char *type = arg;
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  char data_path[512];
  int ret;

  if (setresgid (65534, 65534, 65534) != 0 ||
      setresuid (65534, 65534, 65534) != 0)
    return T_EXIT_FAIL;
  t_writer_config (&wc, ch, dir, 2, 4096);
  ret = doradma_writer_create (&wc, &w, &diag);
  T_CHECK (names_squatter (ret, &diag, type, 0), "root's %s at ~ctl", type);
  /* the data name it had linked is removed again */
  snprintf (data_path, sizeof data_path, "%s/doradma.%s", dir, ch);
  T_CHECK (access (data_path, F_OK) != 0 && errno == ENOENT, "%s was left "
      "behind", data_path);
  return T_EXIT_PASS;
err:
  doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* Our own non-file at ~ctl cannot be renamed over: a directory. */
static int
own_directory (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };

  channel_new ();
  T_CHECK (plant ("a directory") == 0, "mkdir %s", ctl_path);
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_CHECK (names_squatter (doradma_writer_create (&wc, &w, &diag), &diag,
          "a directory", getuid ()), "our own directory at ~ctl");
  T_CHECK (access (ctl_path, F_OK) == 0, "the squatter was removed");
  remove (ctl_path);
  return 0;
err:
  doradma_writer_close (w);
  remove (ctl_path);
  return -1;
}

/* Our own file, FIFO or dangling link at ~ctl: replaced by the control
 * object, the link not followed. */
static int
own_leftover (const char *type)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  struct stat st;

  channel_new ();
  T_CHECK (plant (type) == 0, "plant %s at %s", type, ctl_path);
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_CHECK (lstat (ctl_path, &st) == 0 && S_ISREG (st.st_mode), "%s at ~ctl "
      "was not replaced by the control object", type);
  T_CHECK (access (link_target, F_OK) != 0, "the link at ~ctl was followed: "
      "%s exists", link_target);
  doradma_writer_close (w);
  return 0;
err:
  doradma_writer_close (w);
  remove (ctl_path);
  remove (link_target);
  return -1;
}

/* A squatter at ~ctl of a live channel (ours was removed, as clean would)
 * is named by replace too. */
static int
replace_squatted (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL, *w2 = NULL;
  struct doradma_diag diag = { 0 };

  channel_new ();
  t_writer_config (&wc, ch, dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_CHECK (unlink (ctl_path) == 0 && plant ("a directory") == 0, "swap "
      "~ctl for a directory");
  T_CHECK (names_squatter (doradma_writer_replace (w, &wc, &w2, &diag),
          &diag, "a directory", getuid ()), "replace over a directory at "
      "~ctl");
  remove (ctl_path);
  doradma_writer_close (w);
  /* the failed replace gave the data name back to w, which unlinks it */
  t_unlink_channel (dir, ch);
  return 0;
err:
  doradma_writer_close (w2);
  doradma_writer_close (w);
  remove (ctl_path);
  t_unlink_channel (dir, ch);
  return -1;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag = { 0 };
  size_t i;
  int ret = T_EXIT_FAIL;

  t_watchdog (30);
  dir = t_shm_dir_new (NULL, "ctlsq");
  if (dir == NULL)
    return T_EXIT_FAIL;

  if (own_directory () < 0)
    goto err;
  for (i = 0; i < sizeof squatter_types / sizeof squatter_types[0]; i++)
    if (strcmp (squatter_types[i], "a directory") != 0 &&
        own_leftover (squatter_types[i]) < 0)
      goto err;
  if (replace_squatted () < 0)
    goto err;

  /* root's squatters in the sticky directory, the writer another user:
   * each rename over them is EPERM (needs root to switch uids) */
  if (getuid () == 0) {
    T_CHECK (chmod (dir, 01777) == 0, "chmod %s", dir);
    for (i = 0; i < sizeof squatter_types / sizeof squatter_types[0]; i++) {
      const char *type = squatter_types[i];
      pid_t child;

      channel_new ();
      T_CHECK (plant (type) == 0, "plant %s at %s", type, ctl_path);
      child = t_fork (as_other_user, (void *) type);
      T_CHECK (t_wait (child, 10000) == 0, "another user's create over "
          "root's %s at ~ctl was not refused as squatted (see the log)", type);
      remove (ctl_path);
    }
  } else {
    t_log ("SKIP part: another user's squatters need root to switch uids");
  }

  /* R4-11 */
  channel_new ();
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
