/* Description: `doradma clean` judges the control name and the leftover
 * names by the door's rules, as it judges the data name (review round 4,
 * R4-6). Once, with the dead writer's lock held, clean unlinked whatever
 * sat at doradma.<ch>~ctl (another user's file as root, --force or not),
 * left a directory there while reporting success (exit 0), and its
 * leftover sweep (also the writer's, at create) unlinked every
 * doradma.<ch>~new.* / ~ctl~new.* name whoever owned it. One case per
 * argument, each in a private shm directory:
 *   squat   a directory, a FIFO or a symbolic link at ~ctl, of a stale
 *           channel and of an orphan (no data object): clean and
 *           clean --force exit 5 naming the name and what it is, nothing
 *           is removed, the link's target neither; clean --all says the
 *           same. Leftover names that are not regular files (a directory,
 *           a link) stay, for clean and for a writer created over the
 *           stale channel; our own regular leftovers go.
 *   owner   (root only, else skipped with exit 77) uid 65534's file at
 *           ~ctl, of a stale channel of ours and of an orphan: exit 5
 *           naming uid 65534 and --force, nothing removed; --force
 *           removes it. uid 65534's leftover names stay, for clean and for
 *           a writer created over the channel. */
#include "cli-test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static char *
path_of (const char *ch, const char *suffix)
{
  return g_strdup_printf ("%s/doradma.%s%s", cli_dir, ch, suffix);
}

static int
exists (const char *path)
{
  struct stat st;

  return lstat (path, &st) == 0;
}

/* A writer killed without closing: both names stay, its lock is free. */
static int
stale_channel (char *ch, size_t len, const char *tag)
{
  pid_t pid;

  t_channel (ch, len, tag);
  pid = t_fork_live_writer (ch, cli_dir);
  if (pid <= 0)
    return -1;
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  return 0;
}

/* A regular file of ours outside any channel's names: a link's target. */
static char *
victim_new (void)
{
  char *path = g_strdup_printf ("%s/victim", cli_dir);

  if (!g_file_set_contents (path, "keep me", -1, NULL)) {
    g_free (path);
    return NULL;
  }
  return path;
}

enum squat
{ SQUAT_DIR, SQUAT_FIFO, SQUAT_LINK };

static const char *const squat_phrase[] =
    { "a directory", "a FIFO", "a symbolic link" };

static int
plant (enum squat kind, const char *path, const char *victim)
{
  switch (kind) {
    case SQUAT_DIR:
      return mkdir (path, 0700);
    case SQUAT_FIFO:
      return mkfifo (path, 0600);
    case SQUAT_LINK:
      return symlink (victim, path);
  }
  return -1;
}

static void
unplant (const char *path)
{
  if (rmdir (path) != 0)
    unlink (path);
}

/* clean CH (with --force when `force`) must leave `ctl` (what squats it)
 * and `data` as they are, exit 5 and name the squatted name. */
static int
expect_left (const char *ch, gboolean force, const char *ctl,
    const char *data, const char *phrase, const char *victim)
{
  char *out = NULL, *name = g_strdup_printf ("doradma.%s~ctl", ch);
  int fails = 0, code;

  code = force ? cli_run (&out, "clean", "--force", ch, NULL) :
      cli_run (&out, "clean", ch, NULL);
  T_EXPECT (fails, code == 5 && out && strstr (out, name)
      && strstr (out, phrase) && exists (ctl)
      && (data == NULL || exists (data)) && exists (victim),
      "clean%s with %s at %s%s: exit %d (want 5, %s named, nothing "
      "removed)\n%s", force ? " --force" : "", phrase, name, data ? "" :
      " (no data object)", code, phrase, out);
  t_log ("clean%s, %s at ~ctl%s: exit %d: %s", force ? " --force" : "",
      phrase, data ? "" : " (orphan)", code, out);
  g_free (out);
  g_free (name);
  return fails;
}

static int
test_squat (void)
{
  char ch[64], *ctl = NULL, *data = NULL, *victim = victim_new (), *out = NULL;
  char *lo_ours = NULL, *lo_dir = NULL, *lo_link = NULL;
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  int fails = 0, code, k, pass;

  T_CHECK (victim != NULL, "victim file");
  for (k = SQUAT_DIR; k <= SQUAT_LINK; k++) {
    T_CHECK (stale_channel (ch, sizeof ch, "clsq") == 0, "stale channel");
    ctl = path_of (ch, "~ctl");
    data = path_of (ch, "");
    T_CHECK (unlink (ctl) == 0 && plant (k, ctl, victim) == 0, "plant %s",
        squat_phrase[k]);
    for (pass = 0; pass < 2; pass++)
      fails += expect_left (ch, pass == 1, ctl, data, squat_phrase[k], victim);
    if (k == SQUAT_DIR) {
      code = cli_run (&out, "clean", "--all", NULL);
      T_EXPECT (fails, code == 5 && out && strstr (out, ch)
          && strstr (out, "a directory") && strstr (out, "0 objects removed")
          && exists (ctl) && exists (data),
          "clean --all with a directory at ~ctl: exit %d\n%s", code, out);
      g_free (out);
      out = NULL;
    }
    /* the data object gone: an orphan control name, the same verdict */
    T_CHECK (unlink (data) == 0, "unlink the data object");
    for (pass = 0; pass < 2; pass++)
      fails += expect_left (ch, pass == 1, ctl, NULL, squat_phrase[k], victim);
    unplant (ctl);
    g_clear_pointer (&ctl, g_free);
    g_clear_pointer (&data, g_free);
  }

  /* Leftover names: only regular files of ours are removed. */
  T_CHECK (stale_channel (ch, sizeof ch, "cllo") == 0, "stale channel");
  lo_ours = path_of (ch, "~new.1.aa");
  lo_dir = path_of (ch, "~new.2.bb");
  lo_link = path_of (ch, "~ctl~new.3.cc");
  T_CHECK (g_file_set_contents (lo_ours, "", 0, NULL), "our leftover");
  T_CHECK (mkdir (lo_dir, 0700) == 0, "a directory leftover");
  T_CHECK (symlink (victim, lo_link) == 0, "a link leftover");
  code = cli_run (&out, "clean", ch, NULL);
  T_EXPECT (fails, code == 0 && out && strstr (out, "removed 1 leftover name ")
      && !exists (lo_ours) && exists (lo_dir) && exists (lo_link)
      && exists (victim), "clean with leftovers: exit %d (want 0, our "
      "leftover removed, the directory and the link left)\n%s", code, out);
  g_free (out);
  out = NULL;
  rmdir (lo_dir);
  unlink (lo_link);

  /* The writer's own sweep at create, over a stale channel. */
  T_CHECK (stale_channel (ch, sizeof ch, "clwr") == 0, "stale channel");
  g_free (lo_ours);
  g_free (lo_dir);
  g_free (lo_link);
  lo_ours = path_of (ch, "~ctl~new.1.aa");
  lo_dir = path_of (ch, "~new.2.bb");
  lo_link = path_of (ch, "~new.3.cc");
  T_CHECK (g_file_set_contents (lo_ours, "", 0, NULL), "our leftover");
  T_CHECK (mkdir (lo_dir, 0700) == 0, "a directory leftover");
  T_CHECK (symlink (victim, lo_link) == 0, "a link leftover");
  t_writer_config (&wc, ch, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_EXPECT (fails, !exists (lo_ours) && exists (lo_dir) && exists (lo_link)
      && exists (victim), "writer create over a stale channel: our leftover "
      "%s, the directory %s, the link %s", exists (lo_ours) ? "stayed" :
      "removed", exists (lo_dir) ? "stayed" : "removed", exists (lo_link) ?
      "stayed" : "removed");
  doradma_writer_close (w);
  w = NULL;
  rmdir (lo_dir);
  unlink (lo_link);
  g_free (lo_ours);
  g_free (lo_dir);
  g_free (lo_link);
  g_free (victim);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (w)
    doradma_writer_close (w);
  if (ctl)
    unplant (ctl);              /* a directory the shm dir's removal skips */
  if (lo_dir)
    rmdir (lo_dir);
  g_free (ctl);
  g_free (data);
  g_free (lo_ours);
  g_free (lo_dir);
  g_free (lo_link);
  g_free (victim);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static int
test_owner (void)
{
  char ch[64], *ctl = NULL, *data = NULL, *out = NULL, *lo_ours = NULL;
  char *lo_other = NULL, *lo_other_ctl = NULL;
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  int fails = 0, code, orphan;

  if (getuid () != 0) {
    t_log ("needs root, to give planted files to uid %d (chown)", NOBODY);
    return T_EXIT_SKIP;
  }
  /* uid 65534's ~ctl: of a stale channel of ours, then of an orphan */
  for (orphan = 0; orphan < 2; orphan++) {
    T_CHECK (stale_channel (ch, sizeof ch, "clow") == 0, "stale channel");
    ctl = path_of (ch, "~ctl");
    data = path_of (ch, "");
    T_CHECK (chown (ctl, NOBODY, NOBODY) == 0, "chown ~ctl");
    if (orphan)
      T_CHECK (unlink (data) == 0, "unlink the data object");
    code = cli_run (&out, "clean", ch, NULL);
    t_log ("clean, uid %d's ~ctl%s: exit %d: %s", NOBODY, orphan ?
        " (orphan)" : "", code, out);
    T_EXPECT (fails, code == 5 && out && strstr (out, "~ctl")
        && strstr (out, "(uid 65534)") && strstr (out, "--force")
        && exists (ctl) && (orphan || exists (data)),
        "clean with uid 65534's ~ctl%s: exit %d (want 5, the owner named, "
        "nothing removed)\n%s", orphan ? " (orphan)" : "", code, out);
    g_free (out);
    out = NULL;
    code = cli_run (&out, "clean", "--force", ch, NULL);
    T_EXPECT (fails, code == 0 && out && strstr (out, "~ctl")
        && !exists (ctl) && !exists (data),
        "clean --force with uid 65534's ~ctl%s: exit %d (want 0, removed)"
        "\n%s", orphan ? " (orphan)" : "", code, out);
    g_free (out);
    out = NULL;
    g_clear_pointer (&ctl, g_free);
    g_clear_pointer (&data, g_free);
  }

  /* uid 65534's leftover names stay, for clean and for a writer */
  T_CHECK (stale_channel (ch, sizeof ch, "clol") == 0, "stale channel");
  lo_ours = path_of (ch, "~new.1.aa");
  lo_other = path_of (ch, "~new.2.bb");
  lo_other_ctl = path_of (ch, "~ctl~new.3.cc");
  T_CHECK (g_file_set_contents (lo_ours, "", 0, NULL), "our leftover");
  T_CHECK (g_file_set_contents (lo_other, "", 0, NULL)
      && chown (lo_other, NOBODY, NOBODY) == 0, "uid 65534's leftover");
  T_CHECK (g_file_set_contents (lo_other_ctl, "", 0, NULL)
      && chown (lo_other_ctl, NOBODY, NOBODY) == 0, "uid 65534's leftover");
  code = cli_run (&out, "clean", ch, NULL);
  T_EXPECT (fails, code == 0 && !exists (lo_ours) && exists (lo_other)
      && exists (lo_other_ctl), "clean with uid 65534's leftovers: exit %d, "
      "ours %s, theirs %s/%s\n%s", code, exists (lo_ours) ? "stayed" :
      "removed", exists (lo_other) ? "stayed" : "removed",
      exists (lo_other_ctl) ? "stayed" : "removed", out);
  g_free (out);
  out = NULL;

  unlink (lo_other);
  unlink (lo_other_ctl);
  g_clear_pointer (&lo_other_ctl, g_free);
  g_free (lo_ours);
  g_free (lo_other);

  T_CHECK (stale_channel (ch, sizeof ch, "clow") == 0, "stale channel");
  lo_ours = path_of (ch, "~ctl~new.1.aa");
  lo_other = path_of (ch, "~new.4.dd");
  T_CHECK (g_file_set_contents (lo_ours, "", 0, NULL), "our leftover");
  T_CHECK (g_file_set_contents (lo_other, "", 0, NULL)
      && chown (lo_other, NOBODY, NOBODY) == 0, "uid 65534's leftover");
  t_writer_config (&wc, ch, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_EXPECT (fails, !exists (lo_ours) && exists (lo_other), "writer create "
      "over a stale channel: our leftover %s, uid 65534's %s",
      exists (lo_ours) ? "stayed" : "removed", exists (lo_other) ? "stayed" :
      "removed");
  doradma_writer_close (w);
  w = NULL;
  unlink (lo_ours);
  unlink (lo_other);
  g_free (lo_ours);
  g_free (lo_other);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (w)
    doradma_writer_close (w);
  g_free (ctl);
  g_free (data);
  g_free (lo_ours);
  g_free (lo_other);
  g_free (lo_other_ctl);
  return T_EXIT_FAIL;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s squat|owner\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (100);
  cli_dir = t_shm_dir_new (NULL, "cli-cleandoor");
  if (cli_dir == NULL)
    return T_EXIT_FAIL;
  if (strcmp (argv[1], "squat") == 0)
    ret = test_squat ();
  else if (strcmp (argv[1], "owner") == 0)
    ret = test_owner ();
  else
    ret = T_EXIT_FAIL;
  if (t_shm_dir_remove (cli_dir) != 0 && ret == T_EXIT_PASS)
    ret = T_EXIT_FAIL;
  return ret;
}
