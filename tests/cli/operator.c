/* Description: what the doradma command tells an operator when a channel
 * cannot be read or should not be removed (review R3 CLI findings 2-5, 7,
 * 8), one case per argument, each in a private shm directory:
 *   access   root's live channel seen by uid 65534: list, list --json and
 *            show call it `unreadable`, the writer's liveness null (not
 *            false), show exits 1 and reports the owner from lstat and no
 *            part it did not read; clean leaves it (exit 5). Skipped
 *            unless run as root.
 *   clean    a garbage file under a channel name is left alone (exit 5,
 *            "not a doradma segment") unless --force; a stale channel of
 *            another user is left alone (exit 5) unless --force; a live
 *            one always (exit 4), another user's too (its live writer
 *            named, no --force hint); a FIFO under a control object's
 *            name is named as itself; a dead doradma channel is removed
 *            (exit 0); show of junk names no writer ("writer  none");
 *            clean --all counts an orphan control object as one object
 *            removed, no channel cleaned.
 *   usage    --version, schema in every JSON document, watch of a missing
 *            channel exits 1, --interval nan is refused. */
#include "cli-test.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static int
exists (const char *name)
{
  char path[4096];
  struct stat st;

  snprintf (path, sizeof path, "%s/%s", cli_dir, name);
  return lstat (path, &st) == 0;
}

static void
become_nobody (gpointer unused)
{
  if (setgid (NOBODY) != 0 || setuid (NOBODY) != 0)
    _exit (126);
}

/* cli_run as uid 65534. */
static int
run_as_nobody (char **out, const char *command, const char *a1, const char *a2)
{
  const char *argv[] = { getenv ("DORADMA_TOOL"), command, "--shm-dir",
    cli_dir, a1, a2, NULL
  };
  int status = 0;

  *out = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT,
          become_nobody, NULL, out, NULL, &status, NULL))
    return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static int
test_access (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  char ch[64], name[80], *out = NULL, *line;
  JsonNode *root = NULL, *e;
  int fails = 0, code;

  if (getuid () != 0) {
    t_log ("needs root, to look at root's channel as uid %d", NOBODY);
    return T_EXIT_SKIP;
  }
  T_CHECK (chmod (cli_dir, 0755) == 0, "directory readable by others");
  t_channel (ch, sizeof ch, "cli-root");
  t_writer_config (&wc, ch, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, "root's writer");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
      "publish");

  code = run_as_nobody (&out, "list", NULL, NULL);
  line = out ? strstr (out, ch) : NULL;
  T_EXPECT (fails, code == 0 && line && g_str_has_prefix (line + strlen (ch) +
          strspn (line + strlen (ch), " "), "unreadable"),
      "list text: exit %d\n%s", code, out);
  g_free (out);

  code = run_as_nobody (&out, "list", "--json", NULL);
  root = cli_parse (out);
  g_free (out);
  e = root ? cli_find (root, "channels", "name", ch, 0) : NULL;
  T_EXPECT (fails, code == 0 && e
      && g_strcmp0 (cli_str (e, "status"), "unreadable") == 0
      && cli_get (e, "writer.alive")
      && JSON_NODE_HOLDS_NULL (cli_get (e, "writer.alive")),
      "list --json: status %s", e ? cli_str (e, "status") : "-");
  if (root)
    json_node_unref (root);

  code = run_as_nobody (&out, "show", "--json", ch);
  root = cli_parse (out);
  T_EXPECT (fails, code == 1 && root
      && g_strcmp0 (cli_str (root, "status"), "unreadable") == 0
      && cli_get (root, "writer.alive")
      && JSON_NODE_HOLDS_NULL (cli_get (root, "writer.alive"))
      && cli_int (root, "object.uid", -1) == 0
      && cli_int (root, "object.mode", -1) == 0600
      && g_strcmp0 (cli_str (root, "object.type"), "regular file") == 0
      && cli_get (root, "segment") == NULL && cli_get (root, "ctl") == NULL
      && cli_get (root, "caps_table") == NULL,
      "show --json as another user: exit %d\n%s", code, out);
  g_free (out);
  if (root)
    json_node_unref (root);

  code = run_as_nobody (&out, "clean", ch, NULL);
  snprintf (name, sizeof name, "doradma.%s", ch);
  T_EXPECT (fails, code == 5 && exists (name), "clean as another user: "
      "exit %d\n%s", code, out);
  g_free (out);
  doradma_writer_close (w);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (w)
    doradma_writer_close (w);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static pid_t
stale_channel (char *ch, size_t len, const char *tag)
{
  pid_t pid;

  t_channel (ch, len, tag);
  pid = t_fork_live_writer (ch, cli_dir);
  if (pid > 0) {
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
  }
  return pid;
}

static int
test_clean (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *live = NULL, *live_other = NULL;
  struct doradma_diag diag;
  char garbage[64], other[64], dead[64], fifo[64], chl[64], name[128];
  char path[4096], *out = NULL;
  guint8 junk[65536];
  int fails = 0, code;
  guint i;

  /* 64 KiB of junk under a channel name: not a doradma segment. */
  t_channel (garbage, sizeof garbage, "cli-junk");
  for (i = 0; i < sizeof junk; i++)
    junk[i] = (guint8) g_random_int ();
  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, garbage);
  T_CHECK (g_file_set_contents (path, (char *) junk, sizeof junk, NULL),
      "junk");
  snprintf (name, sizeof name, "doradma.%s", garbage);
  code = cli_run (&out, "clean", garbage, NULL);
  T_EXPECT (fails, code == 5 && out && strstr (out, "not a doradma segment")
      && !strstr (out, "removed doradma") && exists (name),
      "junk left alone: exit %d\n%s", code, out);
  g_free (out);
  /* show names no writer it never read (R4-C1: was "pid 0 dead") */
  code = cli_run (&out, "show", garbage, NULL);
  T_EXPECT (fails, code == 3 && out && strstr (out, "writer  none")
      && !strstr (out, "pid 0"), "show of junk: no writer pid: exit %d\n%s",
      code, out);
  g_free (out);
  code = cli_run (&out, "clean", "--force", garbage, NULL);
  T_EXPECT (fails, code == 0 && out && strstr (out, "not a doradma segment, "
          "--force") && !strstr (out, "writer pid") && !exists (name),
      "junk removed with --force: exit %d\n%s", code, out);
  g_free (out);

  /* A dead writer's channel is ours: removed, exit 0. */
  T_CHECK (stale_channel (dead, sizeof dead, "cli-dead") > 0, "dead writer");
  code = cli_run (&out, "clean", dead, NULL);
  snprintf (name, sizeof name, "doradma.%s", dead);
  T_EXPECT (fails, code == 0 && out && strstr (out, "dead)")
      && !exists (name), "dead channel removed: exit %d\n%s", code, out);
  g_free (out);

  /* Another user's stale channel: left (5) unless --force. */
  if (getuid () == 0) {
    T_CHECK (stale_channel (other, sizeof other, "cli-other") > 0, "other");
    snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, other);
    T_CHECK (chown (path, NOBODY, NOBODY) == 0, "chown data");
    snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, other);
    T_CHECK (chown (path, NOBODY, NOBODY) == 0, "chown ctl");
    snprintf (name, sizeof name, "doradma.%s", other);
    code = cli_run (&out, "clean", other, NULL);
    T_EXPECT (fails, code == 5 && out && strstr (out, "uid 65534")
        && strstr (out, "--force") && exists (name),
        "other user's channel left: exit %d\n%s", code, out);
    g_free (out);
    code = cli_run (&out, "clean", "--force", other, NULL);
    T_EXPECT (fails, code == 0 && !exists (name),
        "other user's channel removed with --force: exit %d\n%s", code, out);
    g_free (out);
  }

  /* A live writer: left alone, exit 4, even with --force. */
  t_channel (chl, sizeof chl, "cli-live");
  t_writer_config (&wc, chl, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &live, &diag), 0, "live writer");
  snprintf (name, sizeof name, "doradma.%s", chl);
  T_EXPECT (fails, cli_run (NULL, "clean", chl, NULL) == 4 && exists (name),
      "live: exit 4");
  T_EXPECT (fails, cli_run (NULL, "clean", "--force", chl, NULL) == 4
      && exists (name), "live with --force: exit 4");
  /* Another user's live channel: its live writer is the answer (exit 4),
   * not ownership with a --force hint that would not remove it (R4-C1) */
  if (getuid () == 0) {
    t_channel (other, sizeof other, "cli-livenob");
    t_writer_config (&wc, other, cli_dir, 2, 4096);
    T_RC (doradma_writer_create (&wc, &live_other, &diag), 0, "live other");
    snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, other);
    T_CHECK (chown (path, NOBODY, NOBODY) == 0, "chown live data");
    snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, other);
    T_CHECK (chown (path, NOBODY, NOBODY) == 0, "chown live ctl");
    snprintf (name, sizeof name, "doradma.%s", other);
    code = cli_run (&out, "clean", other, NULL);
    T_EXPECT (fails, code == 4 && out && strstr (out, "live writer")
        && !strstr (out, "--force") && exists (name),
        "other user's live channel: exit %d\n%s", code, out);
    g_free (out);
  }

  /* A FIFO under a control object's name, no data object: list and clean
   * name it as it is, and say clean leaves it. */
  t_channel (fifo, sizeof fifo, "cli-fifoctl");
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, fifo);
  T_CHECK (mkfifo (path, 0600) == 0, "fifo");
  snprintf (name, sizeof name, "doradma.%s~ctl", fifo);
  T_EXPECT (fails, cli_run (&out, "list", NULL) == 0 && out
      && strstr (out, name) && strstr (out, "not a regular file"),
      "list of a FIFO control object:\n%s", out);
  g_free (out);
  /* clean's word is the door's (lib/door.c): it names what squats. */
  code = cli_run (&out, "clean", "--all", NULL);
  T_EXPECT (fails, code == 5 && out && strstr (out, name)
      && strstr (out, "is a FIFO") && exists (name)
      && strstr (out, "0 objects removed, 0 channels cleaned"),
      "clean --all with a FIFO control object: exit %d\n%s", code, out);
  g_free (out);
  unlink (path);
  /* An orphan control object (its data object gone): one object removed,
   * no channel cleaned (R4-C1: was "1 channel cleaned") */
  T_CHECK (stale_channel (dead, sizeof dead, "cli-orphan") > 0, "orphan");
  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, dead);
  T_CHECK (unlink (path) == 0, "unlink the orphan's data object");
  snprintf (name, sizeof name, "doradma.%s~ctl", dead);
  code = cli_run (&out, "clean", "--all", NULL);
  T_EXPECT (fails, code == 0 && out && strstr (out, "1 object removed, "
          "0 channels cleaned") && !exists (name),
      "clean --all next to live channels, an orphan control object: exit "
      "%d\n%s", code, out);
  g_free (out);
  doradma_writer_close (live);
  if (live_other)
    doradma_writer_close (live_other);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (live)
    doradma_writer_close (live);
  if (live_other)
    doradma_writer_close (live_other);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static int
test_usage (void)
{
  const char *argv[] = { getenv ("DORADMA_TOOL"), "--version", NULL };
  char *out = NULL, want[64];
  JsonNode *root;
  int fails = 0, status = 0;

  snprintf (want, sizeof want, "doradma %s (JSON schema 1)", DORADMA_VERSION);
  T_EXPECT (fails, g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT,
          NULL, NULL, &out, NULL, &status, NULL) && WIFEXITED (status)
      && WEXITSTATUS (status) == 0 && out && strstr (out, want),
      "--version: %s", out);
  g_free (out);

  T_EXPECT (fails, cli_run (&out, "list", "--json", NULL) == 0, "list");
  root = cli_parse (out);
  T_EXPECT (fails, root && cli_int (root, "schema", -1) == 1
      && g_strcmp0 (cli_str (root, "tool_version"), DORADMA_VERSION) == 0,
      "list --json schema:\n%s", out);
  if (root)
    json_node_unref (root);
  g_free (out);

  T_EXPECT (fails, cli_run (NULL, "watch", "--iterations", "1", "nosuch",
          NULL) == 1, "watch of a missing channel: exit 1");
  T_EXPECT (fails, cli_run (NULL, "list", "--interval", "nan", NULL) == 2,
      "list --interval nan: exit 2");
  T_EXPECT (fails, cli_run (NULL, "show", "--interval", "nan", "x",
          NULL) == 2, "show --interval nan: exit 2");
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s access|clean|usage\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (100);
  cli_dir = t_shm_dir_new (NULL, "cli-operator");
  if (strcmp (argv[1], "access") == 0)
    ret = test_access ();
  else if (strcmp (argv[1], "clean") == 0)
    ret = test_clean ();
  else if (strcmp (argv[1], "usage") == 0)
    ret = test_usage ();
  else
    ret = T_EXIT_FAIL;
  t_shm_dir_remove (cli_dir);
  return ret;
}
