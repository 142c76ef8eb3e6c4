/* Description: what the doradma command says of the words and numbers it
 * is given (review round 4, R4-C2), each case in a private shm directory:
 *   names    a bad channel name is refused by show, watch and clean
 *            (exit 2) naming its fault in characters, not bytes: the
 *            first character not allowed (its place and code point), the
 *            length of a long name; bytes that are not UTF-8 counted as
 *            bytes; nothing of the name printed raw (no escape).
 *   numbers  `list --interval -1` is refused naming --interval (it was a
 *            silent "unset"), `watch --iterations -1` naming --iterations;
 *            watch --help says what --iterations 0 means (until q).
 *   json     clean --json and watch --json: clean's document names what it
 *            removed (a dead writer's channel: its pid, data and control)
 *            and what it left (a live one), with the counts; watch prints
 *            one document a refresh, one a line, with list's channel
 *            members; a missing channel leaves stdout empty (exit 1). */
#include "cli-test.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

/* `command a b` (b may be NULL) is refused (exit 2) with a stderr that
 * has `want` in it and no ESC byte */
static int
refused (const char *want, const char *command, const char *a, const char *b)
{
  char *err = NULL;
  int code = cli_run_err (NULL, &err, command, a, b, NULL);
  int ok = code == 2 && err && strstr (err, want) && !strchr (err, '\033');

  if (!ok)
    t_log ("%s %s: exit %d, wanted 2 and \"%s\" in: %s", command, a, code,
        want, err ? err : "(nothing)");
  g_free (err);
  return ok;
}

static int
test_names (void)
{
  const char *commands[] = { "show", "watch", "clean" };
  char *long_ascii = g_strnfill (250, 'a');
  GString *long_utf8 = g_string_new (NULL);
  int fails = 0;
  size_t i;

  for (i = 0; i < 101; i++)
    g_string_append (long_utf8, "\xc3\xa9");    /* é: 2 bytes */
  for (i = 0; i < G_N_ELEMENTS (commands); i++) {
    const char *c = commands[i];

    /* é is the 4th character (bytes 4 and 5): named as the 4th */
    T_EXPECT (fails, refused ("its character 4, '\xc3\xa9' (U+00E9), is not "
            "allowed", c, "caf\xc3\xa9-x", NULL), "%s café-x", c);
    /* 日 (3 bytes): the character, not its first byte */
    T_EXPECT (fails, refused ("its character 1, '\xe6\x97\xa5' (U+65E5)", c,
            "\xe6\x97\xa5-x", NULL), "%s 日-x", c);
    /* 101 characters (202 bytes): their first is at fault, not a length
     * in bytes */
    T_EXPECT (fails, refused ("its character 1, '\xc3\xa9'", c,
            long_utf8->str, NULL), "%s é x 101", c);
    T_EXPECT (fails, refused ("it has 250 characters, at most 200", c,
            long_ascii, NULL), "%s a x 250", c);
    /* not UTF-8: counted, and said, in bytes; printed escaped */
    T_EXPECT (fails, refused ("its byte 3 (0xff) is not UTF-8", c, "ab\xff",
            NULL), "%s ab\\xff", c);
    T_EXPECT (fails, refused ("its character 3, '\\u001b' (U+001B)", c,
            "ab\033[2J", NULL), "%s ab ESC", c);
    /* what counts nothing stays in the lib's words */
    T_EXPECT (fails, refused ("starts with '.'", c, ".x", NULL), "%s .x", c);
  }
  g_string_free (long_utf8, TRUE);
  g_free (long_ascii);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

static int
test_numbers (void)
{
  char *out = NULL;
  int fails = 0;

  T_EXPECT (fails, refused ("--interval must be 0..3600 seconds", "list",
          "--interval", "-1"), "list --interval -1");
  T_EXPECT (fails, refused ("--interval", "list", "--interval", "soon"),
      "list --interval soon");
  T_EXPECT (fails, refused ("--iterations must be 0 (until q or Ctrl-C) or "
          "more", "watch", "--iterations", "-1"), "watch --iterations -1");
  T_EXPECT (fails, refused ("--interval must be 0.05..3600 seconds", "watch",
          "--interval", "-1"), "watch --interval -1");
  /* what is taken still is */
  T_EXPECT (fails, cli_run (NULL, "list", "--interval", "0", NULL) == 0,
      "list --interval 0");
  T_EXPECT (fails, cli_run (NULL, "watch", "--iterations", "1", "--interval",
          "0.05", NULL) == 0, "watch --iterations 1");
  T_EXPECT (fails, cli_run (&out, "watch", "--help", NULL) == 0 && out
      && strstr (out, "(default 0: until q or Ctrl-C)"), "watch --help: %s",
      out ? out : "(nothing)");
  g_free (out);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

static int
test_json (void)
{
  char dead[64], live[64], *out = NULL, **lines = NULL;
  pid_t dead_pid, live_pid;
  JsonNode *root = NULL, *e;
  int fails = 0, code;
  guint i, n = 0;

  t_channel (dead, sizeof dead, "cli-json-dead");
  t_channel (live, sizeof live, "cli-json-live");
  dead_pid = t_fork_live_writer (dead, cli_dir);
  T_CHECK (dead_pid > 0, "dead writer");
  kill (dead_pid, SIGKILL);
  waitpid (dead_pid, NULL, 0);
  live_pid = t_fork_live_writer (live, cli_dir);
  T_CHECK (live_pid > 0, "live writer");

  /* watch: one document a refresh, each on its line */
  code = cli_run (&out, "watch", "--json", "--iterations", "2", "--interval",
      "0.05", live, NULL);
  if (out)
    lines = g_strsplit (g_strchomp (out), "\n", -1);
  for (i = 0; lines && lines[i]; i++, n++) {
    root = cli_parse (lines[i]);
    e = root ? cli_find (root, "channels", "name", live, 0) : NULL;
    T_EXPECT (fails, e && cli_int (root, "schema", -1) == 1
        && cli_int (e, "writer.pid", -1) == live_pid
        && g_strcmp0 (cli_str (e, "status"), "live") == 0,
        "watch --json line %u: %s", i, lines[i]);
    if (root)
      json_node_unref (root);
  }
  T_EXPECT (fails, code == 0 && n == 2, "watch --json: exit %d, %u lines:\n%s",
      code, n, out);
  g_strfreev (lines);
  g_free (out);
  code = cli_run (&out, "watch", "--json", "--iterations", "1", "nosuch", NULL);
  T_EXPECT (fails, code == 1 && out && out[0] == '\0',
      "watch --json of a missing channel: exit %d, stdout %s", code, out);
  g_free (out);

  /* clean of the live one alone: left, exit 4 */
  code = cli_run (&out, "clean", "--json", live, NULL);
  root = out ? cli_parse (out) : NULL;
  e = root ? cli_find (root, "channels", "name", live, 0) : NULL;
  T_EXPECT (fails, code == 4 && e && cli_int (root, "schema", -1) == 1
      && g_strcmp0 (cli_str (e, "outcome"), "live") == 0
      && cli_str (e, "reason") && strstr (cli_str (e, "reason"), "live")
      && !cli_bool (e, "removed.data")
      && cli_int (root, "objects_removed", -1) == 0,
      "clean --json live: exit %d\n%s", code, out);
  if (root)
    json_node_unref (root);
  g_free (out);

  /* clean --all: the dead one removed (its pid), the live one left */
  code = cli_run (&out, "clean", "--json", "--all", NULL);
  root = out ? cli_parse (out) : NULL;
  e = root ? cli_find (root, "channels", "name", dead, 0) : NULL;
  T_EXPECT (fails, code == 0 && e
      && g_strcmp0 (cli_str (e, "outcome"), "removed") == 0
      && cli_int (e, "writer_pid", -1) == dead_pid
      && cli_bool (e, "removed.data") && cli_bool (e, "removed.control")
      && cli_int (root, "objects_removed", -1) == 2
      && cli_int (root, "channels_cleaned", -1) == 1
      && cli_int (root, "left_alone", -1) == 0, "clean --json --all: exit "
      "%d\n%s", code, out);
  e = root ? cli_find (root, "channels", "name", live, 0) : NULL;
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "outcome"), "live") == 0,
      "clean --json --all, the live one:\n%s", out);
  if (root)
    json_node_unref (root);
  g_free (out);

  kill (live_pid, SIGKILL);
  waitpid (live_pid, NULL, 0);
  t_unlink_channel (cli_dir, live);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s names|numbers|json\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (100);
  cli_dir = t_shm_dir_new (NULL, "cli-options");
  if (strcmp (argv[1], "names") == 0)
    ret = test_names ();
  else if (strcmp (argv[1], "numbers") == 0)
    ret = test_numbers ();
  else if (strcmp (argv[1], "json") == 0)
    ret = test_json ();
  else
    ret = T_EXIT_FAIL;
  t_shm_dir_remove (cli_dir);
  return ret;
}
