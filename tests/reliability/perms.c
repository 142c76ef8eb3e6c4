/* Description: permissions and names (docs/threat-model.md).
 *   other-user  a channel created by one unprivileged user is closed to
 *               another: mode 0600 -> -EACCES; mode 0644 with the owner
 *               allowed -> the ctl object (RW) is refused -> -EACCES; a
 *               foreign owner not allowed -> -EPERM; o+w objects (chmod after
 *               create: the writer refuses o+w modes) -> -EACCES;
 *               a shared group with mode 0660 and allowed_uid works.
 *               Needs root to switch uids (skips otherwise).
 *   names       names that could escape the shm directory or alias an
 *               internal name are refused before any system call: with a
 *               shm_dir that does not exist they give -EINVAL, not -ENOENT.
 */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWNER_UID 65533
#define OTHER_UID 65534
#define SHARED_GID 65530

static char *dir;

static int
become (uid_t uid, gid_t gid, gid_t extra)
{
  gid_t groups[1] = { extra };

  if (setgroups (extra ? 1 : 0, groups) != 0 || setresgid (gid, gid, gid) != 0
      || setresuid (uid, uid, uid) != 0) {
    t_log ("become uid %u: %s", (unsigned) uid, strerror (errno));
    return -1;
  }
  return 0;
}

struct owner_arg
{
  const char *ch;
  int mode;
  gid_t extra;
  int ready, go;
};

static int
owner (void *p)
{
  struct owner_arg *a = p;
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  struct doradma_diag diag;
  char c;

  if (become (OWNER_UID, a->extra ? a->extra : OWNER_UID, 0) != 0)
    return 1;
  umask (022);
  t_writer_config (&wc, a->ch, dir, 2, 4096);
  /* The writer refuses o+w modes itself (-EINVAL): such objects come
   * from a chmod after creation, which the readers must refuse too. */
  wc.mode = a->mode & ~S_IWOTH;
  if (doradma_writer_create (&wc, &w, &diag) != 0) {
    t_log ("owner writer_create: %s", diag.msg);
    return 1;
  }
  if (a->mode & S_IWOTH) {
    char path[4096];

    snprintf (path, sizeof path, "%s/doradma.%s", dir, a->ch);
    if (chmod (path, a->mode) != 0)
      return 1;
    snprintf (path, sizeof path, "%s/doradma.%s~ctl", dir, a->ch);
    if (chmod (path, a->mode) != 0)
      return 1;
  }
  if (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) != 0)
    return 1;
  if (write (a->ready, "r", 1) != 1 || read (a->go, &c, 1) != 1)
    return 1;
  doradma_writer_close (w);
  return 0;
}

struct other_arg
{
  const char *ch;
  int64_t allowed_uid;
  gid_t extra;
  int want;
  const char *field;
};

static int
other (void *p)
{
  struct other_arg *a = p;
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  struct doradma_frame f;
  struct doradma_diag diag;
  int ret;

  if (become (OTHER_UID, a->extra ? a->extra : OTHER_UID, 0) != 0)
    return 1;
  t_reader_config (&rc, a->ch, dir, 0);
  rc.allowed_uid = a->allowed_uid;
  memset (&diag, 0, sizeof diag);
  ret = doradma_reader_open (&rc, &r, &diag);
  t_log ("uid %u opens (allowed_uid %lld): %s %s: %s", getuid (),
      (long long) a->allowed_uid, t_errname (ret),
      diag.field ? diag.field : "", ret ? diag.msg : "");
  if (ret != a->want)
    return 1;
  if (ret < 0 && a->field &&
      (diag.field == NULL || strcmp (diag.field, a->field) != 0))
    return 1;
  if (ret == -EPERM && a->allowed_uid >= 0) {
    char named[48];

    /* F9 (dora.md): the refusal names the allowed uid */
    snprintf (named, sizeof named, "allowed uid %lld",
        (long long) a->allowed_uid);
    if (strstr (diag.msg, named) == NULL)
      return 1;
  }
  if (ret == 0) {
    /* Opened: it really reads frames. */
    ret = doradma_reader_next (r, DORADMA_READ_LATEST, 1000000000, &f, &diag);
    if (ret != 0 || t_check_stamps (f.data, 4096, f.info.seq, NULL) != 0)
      return 1;
    doradma_reader_release (r, f.slot);
    doradma_reader_close (r);
  }
  return 0;
}

static int
test_other_user (void)
{
  /* *INDENT-OFF* */
  static const struct {
    int mode; int64_t allowed; int shared; int want; const char *field;
  } cases[] = {
    { 0600, -1,        0, -EACCES, NULL },     /* no access at all */
    { 0600, OWNER_UID, 0, -EACCES, NULL },     /* allowed, but no access */
    { 0640, OWNER_UID, 0, -EACCES, NULL },     /* not in the group */
    { 0644, -1,        0, -EPERM,  "owner" },  /* readable, foreign owner */
    { 0644, OWNER_UID, 0, -EACCES, "ctl" },    /* data readable, ctl not writable */
    { 0666, OWNER_UID, 0, -EACCES, "mode" },   /* o+w (chmod): anyone could tamper */
    { 0660, OWNER_UID, 1, 0,       NULL },     /* shared group: works */
    { 0660, -1,        1, -EPERM,  "owner" },  /* shared group, owner not allowed */
    { 0644, 12345,     0, -EPERM,  "owner" },  /* another uid allowed: named */
  };
  /* *INDENT-ON* */
  char ch[64];
  size_t i;

  if (geteuid () != 0) {
    printf ("SKIP: switching users needs root\n");
    return T_EXIT_SKIP;
  }
  T_CHECK (chmod (dir, 01777) == 0, "chmod");
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int ready[2], go[2];
    struct owner_arg oa;
    struct other_arg xa;
    pid_t op;
    char c;

    t_channel (ch, sizeof ch, "perm");
    T_CHECK (pipe (ready) == 0 && pipe (go) == 0, "pipe");
    oa.ch = ch;
    oa.mode = cases[i].mode;
    oa.extra = cases[i].shared ? SHARED_GID : 0;
    oa.ready = ready[1];
    oa.go = go[0];
    op = t_fork (owner, &oa);
    T_CHECK (read (ready[0], &c, 1) == 1, "owner ready");
    {
      char path[4096];
      struct stat st;
      snprintf (path, sizeof path, "%s/doradma.%s", dir, ch);
      T_CHECK (stat (path, &st) == 0 && (st.st_mode & 07777) == (mode_t)
          cases[i].mode, "object mode %04o, asked %04o (umask 022 ignored)",
          (unsigned) (st.st_mode & 07777), (unsigned) cases[i].mode);
    }
    xa.ch = ch;
    xa.allowed_uid = cases[i].allowed;
    xa.extra = oa.extra;
    xa.want = cases[i].want;
    xa.field = cases[i].field;
    t_log ("case %zu: mode %04o%s", i, (unsigned) cases[i].mode,
        cases[i].shared ? ", shared group" : "");
    T_CHECK (t_wait (t_fork (other, &xa), 10000) == 0, "case %zu: mode %04o "
        "allowed %lld: want %s", i, (unsigned) cases[i].mode,
        (long long) cases[i].allowed, t_errname (cases[i].want));
    T_CHECK (write (go[1], "g", 1) == 1, "go");
    T_CHECK (t_wait (op, 10000) == 0, "owner");
    close (ready[0]);
    close (ready[1]);
    close (go[0]);
    close (go[1]);
  }
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

static int
test_names (void)
{
  static const char *const bad[] = {
    "../etc/passwd", "..", ".", ".hidden", "a/b", "/abs", "cam0/../x",
    "cam0~ctl", "cam0~new.1.2", "a b", "a\nb", "a\\b", "x..y", "",
    "cam0\xff", "%s%n", "cam0*",
  };
  const char *nodir = "/nonexistent-doradma-test-dir/sub";
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *r = NULL;
  struct doradma_diag diag;
  char longname[300];
  size_t i;
  int ret, fails = 0;

  memset (longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  for (i = 0; i <= sizeof bad / sizeof bad[0]; i++) {
    const char *name = i < sizeof bad / sizeof bad[0] ? bad[i] : longname;

    t_reader_config (&rc, name, nodir, 0);
    memset (&diag, 0, sizeof diag);
    ret = doradma_reader_open (&rc, &r, &diag);
    if (ret != -EINVAL || diag.field == NULL || strcmp (diag.field, "name")) {
      t_log ("reader_open \"%s\": %s (%s)", name, t_errname (ret), diag.msg);
      fails++;
    }
    t_writer_config (&wc, name, nodir, 2, 4096);
    ret = doradma_writer_create (&wc, &w, &diag);
    if (ret != -EINVAL) {
      t_log ("writer_create \"%s\": %s (%s)", name, t_errname (ret), diag.msg);
      fails++;
    }
    ret = doradma_channel_wait (nodir, name, 0, -1);
    if (ret != -EINVAL) {
      t_log ("channel_wait \"%s\": %s", name, t_errname (ret));
      fails++;
    }
    if (doradma_name_validate (name, NULL) != -EINVAL) {
      t_log ("name_validate \"%s\" accepted", name);
      fails++;
    }
  }
  /* NULL name. */
  t_reader_config (&rc, NULL, nodir, 0);
  if (doradma_reader_open (&rc, &r, NULL) != -EINVAL)
    fails++;
  /* Control: a valid name reaches the file system, so the missing
   * directory is what fails. */
  t_reader_config (&rc, "cam0", nodir, 0);
  ret = doradma_reader_open (&rc, &r, &diag);
  if (ret != -ENOENT) {
    t_log ("control: reader_open of a valid name in a missing dir: %s",
        t_errname (ret));
    fails++;
  }
  t_writer_config (&wc, "cam0", nodir, 2, 4096);
  ret = doradma_writer_create (&wc, &w, &diag);
  if (ret != -ENOENT) {
    t_log ("control: writer_create in a missing dir: %s", t_errname (ret));
    fails++;
  }
  /* 200 bytes is the limit, inclusive. */
  longname[200] = '\0';
  if (doradma_name_validate (longname, NULL) != 0)
    fails++;
  longname[200] = 'a';
  longname[201] = '\0';
  if (doradma_name_validate (longname, NULL) != -EINVAL)
    fails++;
  t_log ("%zu bad names refused by reader, writer and channel_wait",
      sizeof bad / sizeof bad[0] + 1);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

int
main (int argc, char **argv)
{
  int ret = T_EXIT_FAIL, leftovers;

  if (argc != 2) {
    fprintf (stderr, "usage: %s other-user|names\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (50);
  dir = t_shm_dir_new (NULL, "perms");
  if (dir == NULL)
    return T_EXIT_FAIL;
  if (strcmp (argv[1], "other-user") == 0)
    ret = test_other_user ();
  else if (strcmp (argv[1], "names") == 0)
    ret = test_names ();
  leftovers = t_shm_dir_remove (dir);
  if (leftovers > 0 && ret == T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  return ret;
}
