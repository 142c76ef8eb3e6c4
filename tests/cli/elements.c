/* Description: the doradma command on channels made by the elements
 * (gst-launch-1.0 doradmasink / doradmasrc): a lossless sink with a `next`
 * and a `latest` reader, and a latest sink with one reader. list/show
 * --json report the producer's pid, caps, slots, the two readers' pids and
 * modes, frames increasing; after kill -9 of a producer its channel is
 * stale and clean --all removes exactly it. */
#include "cli-test.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char **envp;


/* show --json until `readers` readers are there (up to 20 s). */
static JsonNode *
wait_show (const char *ch, gint64 readers)
{
  int i;

  for (i = 0; i < 200; i++) {
    char *out = NULL;
    JsonNode *root = NULL;

    if (cli_run (&out, "show", "--json", ch, NULL) == 0)
      root = cli_parse (out);
    g_free (out);
    if (root && cli_int (root, "readers", -1) == readers
        && cli_int (root, "newest_seq", 0) > 0)
      return root;
    if (root)
      json_node_unref (root);
    g_usleep (100000);
  }
  t_log ("%s: never saw %lld readers", ch, (long long) readers);
  return NULL;
}

int
main (void)
{
  char lossless[64], latest[64], *pipe_text, *out = NULL;
  GPid prod1, prod2, next_c, latest_c, c3;
  JsonNode *root = NULL, *e;
  gint64 first;
  int fails = 0;

  t_watchdog (110);
  cli_dir = t_shm_dir_new (NULL, "cli-elements");
  envp = g_environ_setenv (g_get_environ (), "DORADMA_SHM_DIR", cli_dir, TRUE);
  t_channel (lossless, sizeof lossless, "el-lossless");
  t_channel (latest, sizeof latest, "el-latest");

  pipe_text = g_strdup_printf ("videotestsrc is-live=true ! video/x-raw,"
      "format=NV12,width=320,height=240,framerate=30/1 ! doradmasink "
      "channel=%s slots=6 mode=lossless", lossless);
  prod1 = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("videotestsrc is-live=true ! video/x-raw,"
      "format=GRAY8,width=64,height=48,framerate=30/1 ! doradmasink "
      "channel=%s slots=3 mode=latest", latest);
  prod2 = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("doradmasrc channel=%s read-mode=next ! "
      "fakesink", lossless);
  next_c = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("doradmasrc channel=%s read-mode=latest ! "
      "fakesink", lossless);
  latest_c = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("doradmasrc channel=%s read-mode=latest ! "
      "fakesink", latest);
  c3 = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  T_CHECK (prod1 > 0 && prod2 > 0 && next_c > 0 && latest_c > 0 && c3 > 0,
      "gst-launch-1.0 started");

  root = wait_show (lossless, 2);
  T_CHECK (root != NULL, "lossless channel with two readers");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "status"), "live") == 0
      && cli_int (root, "writer.pid", -1) == prod1
      && cli_bool (root, "writer.alive")
      && cli_int (root, "slots.count", -1) == 6
      && strstr (cli_str (root, "caps"), "format=(string)NV12")
      && strstr (cli_str (root, "caps"), "width=(int)320"), "lossless facts");
  e = cli_find (root, "reader_entries", "pid", NULL, next_c);
  T_EXPECT (fails, e && cli_bool (e, "backpressure") && cli_bool (e, "alive")
      && cli_int (e, "lag", -1) >= 0 && cli_int (e, "lag", -1) <= 6,
      "next reader (pid %d): lag %lld", (int) next_c,
      e ? (long long) cli_int (e, "lag", -1) : -1);
  e = cli_find (root, "reader_entries", "pid", NULL, latest_c);
  T_EXPECT (fails, e && !cli_bool (e, "backpressure") && cli_bool (e, "alive"),
      "latest reader (pid %d)", (int) latest_c);
  first = cli_int (root, "newest_seq", 0);
  json_node_unref (root);
  root = wait_show (latest, 1);
  T_CHECK (root != NULL, "latest channel with its reader");
  T_EXPECT (fails, cli_int (root, "writer.pid", -1) == prod2
      && cli_int (root, "slots.count", -1) == 3
      && strstr (cli_str (root, "caps"), "GRAY8"), "latest facts");
  json_node_unref (root);
  g_usleep (500000);
  root = wait_show (lossless, 2);
  T_EXPECT (fails, root && cli_int (root, "newest_seq", 0) > first,
      "frames flow (%lld then %lld)", (long long) first,
      root ? (long long) cli_int (root, "newest_seq", 0) : -1);
  if (root)
    json_node_unref (root);

  /* kill -9 the lossless producer: stale, and clean --all takes only it. */
  cli_stop (prod1);
  prod1 = 0;
  cli_run (&out, "show", "--json", lossless, NULL);
  root = cli_parse (out);
  g_free (out);
  T_EXPECT (fails, root && g_strcmp0 (cli_str (root, "status"), "stale") == 0
      && !cli_bool (root, "writer.alive"), "killed producer: stale");
  if (root)
    json_node_unref (root);
  {
    char *gone = g_strdup_printf ("removed doradma.%s ", lossless);
    char *kept = g_strdup_printf ("removed doradma.%s ", latest);
    T_EXPECT (fails, cli_run (&out, "clean", "--all", NULL) == 0 && out
        && strstr (out, gone) && !strstr (out, kept), "clean --all: %s", out);
    g_free (gone);
    g_free (kept);
    g_free (out);
  }
  T_EXPECT (fails, cli_run (NULL, "show", lossless, NULL) == 1,
      "lossless channel removed");
  T_EXPECT (fails, cli_run (NULL, "show", latest, NULL) == 0,
      "latest channel untouched");

  cli_stop (next_c);
  cli_stop (latest_c);
  cli_stop (c3);
  cli_stop (prod2);
  cli_run (NULL, "clean", "--all", NULL);
  g_strfreev (envp);
  t_shm_dir_remove (cli_dir);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  cli_stop (prod1);
  cli_stop (prod2);
  cli_stop (next_c);
  cli_stop (latest_c);
  cli_stop (c3);
  t_shm_dir_remove (cli_dir);
  return T_EXIT_FAIL;
}
