/* Description: reader states and counts as the doradma command reports
 * them (review R3 CLI findings 1, 6, 7), one case per argument:
 *   lib       a latest writer on 8 slots and four readers made to behave
 *             deterministically: `keep` takes every frame, `skip` (a `next`
 *             reader) takes one of every nine and is lapped, `stall` joined
 *             and takes none, `dead` (a killed child) pins two slots.
 *             show --json names them keeping-up / skipping / stalled / dead
 *             with delivered and skipped counts the test counted itself;
 *             list shows the dead reader's pinned slots in text and JSON;
 *             watch writes the same words and, not on a terminal, no
 *             escape codes; the first refresh shows no rate ("-").
 *   elements  the review's case through gst-launch: a producer at 30 fps
 *             and a `next` consumer slowed to 20 fps (identity sleep-time):
 *             watch (text) and show --json name it skipping, with about a
 *             third of the frames skipped. */
#include "cli-test.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOTS 8
#define LAP 9                   /* frames published per read of `skip` */

struct pump
{
  struct doradma_writer *w;
  struct doradma_reader *keep, *skip;
  int stop;
  guint64 keep_got, skip_got, skip_skipped;
  int failed;
};

static void *
pump_frames (void *arg)
{
  struct pump *p = arg;
  struct doradma_diag diag;
  struct doradma_frame f;
  int i;

  while (!__atomic_load_n (&p->stop, __ATOMIC_ACQUIRE)) {
    for (i = 0; i < LAP; i++) {
      if (t_publish (p->w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) != 0
          || doradma_reader_next (p->keep, DORADMA_READ_NEXT, 0, &f,
              &diag) != 0) {
        p->failed = 1;
        return NULL;
      }
      doradma_reader_release (p->keep, f.slot);
      __atomic_add_fetch (&p->keep_got, 1, __ATOMIC_RELAXED);
    }
    if (doradma_reader_next (p->skip, DORADMA_READ_NEXT, 0, &f, &diag) != 0) {
      p->failed = 1;
      return NULL;
    }
    doradma_reader_release (p->skip, f.slot);
    __atomic_add_fetch (&p->skip_got, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch (&p->skip_skipped, f.skipped, __ATOMIC_RELAXED);
    g_usleep (5000);
  }
  return NULL;
}

/* A reader in a child that takes two leases and waits to be killed. */
static int
pinning_child (void *arg)
{
  int *fds = arg;
  struct doradma_reader_config rc;
  struct doradma_reader *r;
  struct doradma_diag diag;
  struct doradma_frame f;
  char ch[64];
  int i;

  if (read (fds[0], ch, sizeof ch) != sizeof ch)
    return 1;
  t_reader_config (&rc, ch, cli_dir, 0);
  if (doradma_reader_open (&rc, &r, &diag) != 0 || write (fds[1], "j", 1) != 1)
    return 1;
  for (i = 0; i < 2; i++)
    if (doradma_reader_next (r, DORADMA_READ_NEXT, 5 * 1000000000ll, &f,
            &diag) != 0)
      return 1;
  if (write (fds[1], &r, 1) != 1)
    return 1;
  for (;;)
    pause ();
}

static int
test_lib (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *w = NULL;
  struct doradma_reader *stall = NULL;
  struct doradma_reader_stats st_keep, st_skip, st_stall;
  struct doradma_diag diag;
  struct pump pump = { 0 };
  char ch[64], *out = NULL, c;
  JsonNode *root = NULL, *e;
  int fds_to[2], fds_from[2], args[2], fails = 0, i;
  pthread_t th;
  pid_t child;
  guint64 keep_got, skip_got, skip_skipped;

  t_channel (ch, sizeof ch, "cli-states");
  t_writer_config (&wc, ch, cli_dir, SLOTS, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, "writer");
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
      "first frame");
  t_reader_config (&rc, ch, cli_dir, 1);
  T_RC (doradma_reader_open (&rc, &pump.keep, &diag), 0, "keep");
  T_RC (doradma_reader_open (&rc, &pump.skip, &diag), 0, "skip");
  t_reader_config (&rc, ch, cli_dir, 0);
  T_RC (doradma_reader_open (&rc, &stall, &diag), 0, "stall");
  /* The dead reader: two leases, then SIGKILL. Last, or a joiner would
   * take its entry over (its lock is free). */
  T_CHECK (pipe (fds_to) == 0 && pipe (fds_from) == 0, "pipe");
  args[0] = fds_to[0];
  args[1] = fds_from[1];
  child = t_fork (pinning_child, args);
  T_CHECK (write (fds_to[1], ch, sizeof ch) == sizeof ch, "child channel");
  /* Joined, then two frames for it: it holds both (and the other readers,
   * eight slots, are not lapped). */
  T_CHECK (read (fds_from[0], &c, 1) == 1, "the child joined");
  for (i = 0; i < 2; i++)
    T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
        "frame for the child");
  T_CHECK (read (fds_from[0], &c, 1) == 1, "the child took two leases");
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);

  doradma_reader_get_stats (pump.keep, &st_keep);
  doradma_reader_get_stats (pump.skip, &st_skip);
  doradma_reader_get_stats (stall, &st_stall);

  pump.w = w;
  pthread_create (&th, NULL, pump_frames, &pump);
  /* Frames wait for `stall` over a second: stalled. */
  g_usleep (1300000);
  T_CHECK (cli_run (&out, "show", "--json", "--interval", "0.3", ch,
          NULL) == 0, "show --json");
  root = cli_parse (out);
  g_free (out);
  out = NULL;
  T_CHECK (root != NULL, "show JSON");
  T_EXPECT (fails, cli_int (root, "schema", -1) == 1, "schema member");

  e = cli_find (root, "reader_entries", "index", NULL, st_keep.entry);
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "state"), "keeping-up") == 0
      && cli_int (e, "frames.skipped", -1) == 0
      && cli_int (e, "frames.delivered", -1) > 0
      && g_strcmp0 (cli_str (e, "mode"), "next") == 0,
      "keep: %s delivered %lld", e ? cli_str (e, "state") : "-",
      e ? (long long) cli_int (e, "frames.delivered", -1) : -1);
  e = cli_find (root, "reader_entries", "index", NULL, st_skip.entry);
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "state"), "skipping") == 0
      && cli_int (e, "frames.skipped", 0) > 0
      && cli_get (e, "frames.skipped_per_s")
      && json_node_get_double (cli_get (e, "frames.skipped_per_s")) > 0,
      "skip: %s skipped %lld", e ? cli_str (e, "state") : "-",
      e ? (long long) cli_int (e, "frames.skipped", -1) : -1);
  e = cli_find (root, "reader_entries", "index", NULL, st_stall.entry);
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "state"), "stalled") == 0
      && cli_int (e, "frames.delivered", -1) == 0
      && g_strcmp0 (cli_str (e, "mode"), "latest") == 0,
      "stall: %s", e ? cli_str (e, "state") : "-");
  e = cli_find (root, "reader_entries", "index", NULL, 0);
  T_EXPECT (fails, root && cli_int (root, "reader_states.dead", -1) == 1
      && cli_int (root, "reader_states.keeping-up", -1) == 1
      && cli_int (root, "reader_states.skipping", -1) == 1
      && cli_int (root, "reader_states.stalled", -1) == 1
      && cli_int (root, "slots_pinned_by_dead_readers", -1) == 2,
      "tally: dead %lld pinned %lld", (long long) cli_int (root,
          "reader_states.dead", -1), (long long) cli_int (root,
          "slots_pinned_by_dead_readers", -1));
  json_node_unref (root);
  root = NULL;

  /* list: the dead reader and its pinned slots, text and JSON. */
  T_EXPECT (fails, cli_run (&out, "list", "--interval", "0.3", NULL) == 0
      && out && strstr (out, "1 dead (pinning 2 slots)")
      && strstr (out, "1 skipping") && strstr (out, "1 stalled"),
      "list text:\n%s", out);
  g_free (out);
  out = NULL;
  T_EXPECT (fails, cli_run (&out, "list", "--json", NULL) == 0, "list json");
  root = cli_parse (out);
  g_free (out);
  out = NULL;
  e = root ? cli_find (root, "channels", "name", ch, 0) : NULL;
  T_EXPECT (fails, root && cli_int (root, "schema", -1) == 1 && e
      && cli_int (e, "slots_pinned_by_dead_readers", -1) == 2
      && cli_int (e, "reader_states.dead", -1) == 1, "list JSON");
  {
    JsonNode *k = e ? cli_find (e, "reader_entries", "index", NULL,
        st_keep.entry) : NULL;
    T_EXPECT (fails, k && g_strcmp0 (cli_str (k, "state"), "keeping-up") == 0
        && cli_int (k, "frames.delivered", -1) > 0
        && g_strcmp0 (cli_str (k, "mode"), "next") == 0,
        "list JSON: the keeping reader's entry");
  }
  if (root)
    json_node_unref (root);
  root = NULL;

  /* watch, stdout a pipe: the same words, no terminal escapes, and no
   * rate on the first refresh. */
  T_EXPECT (fails, cli_run (&out, "watch", "--interval", "0.3",
          "--iterations", "2", ch, NULL) == 0 && out, "watch");
  T_EXPECT (fails, out && strchr (out, '\033') == NULL,
      "watch wrote escape codes to a pipe");
  T_EXPECT (fails, out && strstr (out, "frames/s -")
      && strstr (out, "skipping") && strstr (out, "stalled")
      && strstr (out, "dead") && strstr (out, "keeping-up"),
      "watch text:\n%s", out);
  g_free (out);

  __atomic_store_n (&pump.stop, 1, __ATOMIC_RELEASE);
  pthread_join (th, NULL);
  T_EXPECT (fails, !pump.failed, "pump");
  keep_got = pump.keep_got;
  skip_got = pump.skip_got;
  skip_skipped = pump.skip_skipped;

  /* One look after the pump stopped: the counts are the readers' own. */
  T_CHECK (cli_run (&out, "show", "--json", "--interval", "0", ch, NULL) == 0,
      "show once");
  root = cli_parse (out);
  g_free (out);
  T_CHECK (root != NULL, "show JSON");
  e = cli_find (root, "reader_entries", "index", NULL, st_keep.entry);
  T_EXPECT (fails, e && cli_int (e, "frames.delivered", -1) ==
      (gint64) keep_got && cli_int (e, "frames.skipped", -1) == 0,
      "keep delivered %lld, counted %llu", e ? (long long) cli_int (e,
          "frames.delivered", -1) : -1, (unsigned long long) keep_got);
  e = cli_find (root, "reader_entries", "index", NULL, st_skip.entry);
  T_EXPECT (fails, e && cli_int (e, "frames.delivered", -1) ==
      (gint64) skip_got && cli_int (e, "frames.skipped", -1) ==
      (gint64) skip_skipped && skip_skipped > 0,
      "skip delivered %lld skipped %lld, counted %llu %llu",
      e ? (long long) cli_int (e, "frames.delivered", -1) : -1,
      e ? (long long) cli_int (e, "frames.skipped", -1) : -1,
      (unsigned long long) skip_got, (unsigned long long) skip_skipped);
  T_EXPECT (fails, e && cli_get (e, "frames.delivered_per_s")
      && JSON_NODE_HOLDS_NULL (cli_get (e, "frames.delivered_per_s")),
      "one look: no rate");
  json_node_unref (root);

  doradma_reader_close (pump.keep);
  doradma_reader_close (pump.skip);
  doradma_reader_close (stall);
  doradma_writer_close (w);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (root)
    json_node_unref (root);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static char **envp;


/* The slow reader's row of a watch refresh: "  <entry> <pid> ...". */
static const char *
watch_row (const char *text, gint64 pid)
{
  char key[32];
  const char *last = NULL, *p = text;

  snprintf (key, sizeof key, " %lld ", (long long) pid);
  while ((p = strstr (p, key)) != NULL) {
    last = p;
    p++;
  }
  return last;
}

static int
test_elements (void)
{
  char ch[64], *pipe_text, *out = NULL;
  GPid prod, slow = 0, fast = 0;
  JsonNode *root = NULL, *e;
  gint64 slow_pid = -1;
  double skipped_share = -1;
  const char *row;
  int fails = 0, i;

  envp = g_environ_setenv (g_get_environ (), "DORADMA_SHM_DIR", cli_dir, TRUE);
  t_channel (ch, sizeof ch, "el-slow");
  pipe_text = g_strdup_printf ("videotestsrc is-live=true ! video/x-raw,"
      "format=NV12,width=320,height=240,framerate=30/1 ! doradmasink "
      "channel=%s slots=8", ch);
  prod = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("doradmasrc channel=%s read-mode=next ! "
      "identity sleep-time=50000 ! fakesink sync=false", ch);
  slow = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  pipe_text = g_strdup_printf ("doradmasrc channel=%s read-mode=next ! "
      "fakesink sync=false", ch);
  fast = cli_launch (envp, pipe_text);
  g_free (pipe_text);
  T_CHECK (prod > 0 && slow > 0 && fast > 0, "gst-launch-1.0 started");

  /* Both readers joined and frames flow (up to 30 s on a busy machine). */
  for (i = 0; i < 300 && root == NULL; i++) {
    if (cli_run (&out, "show", "--json", "--interval", "0", ch, NULL) == 0)
      root = cli_parse (out);
    g_free (out);
    out = NULL;
    if (root && (cli_int (root, "readers", -1) != 2
            || cli_int (root, "newest_seq", 0) < 30)) {
      json_node_unref (root);
      root = NULL;
    }
    if (root == NULL)
      g_usleep (100000);
  }
  T_CHECK (root != NULL, "channel with two readers");
  json_node_unref (root);
  root = NULL;

  T_CHECK (cli_run (&out, "show", "--json", "--interval", "2", ch, NULL) == 0,
      "show --json --interval 2");
  root = cli_parse (out);
  g_free (out);
  out = NULL;
  T_CHECK (root != NULL, "show JSON");
  e = cli_find (root, "reader_entries", "pid", NULL, slow);
  if (e && cli_get (e, "frames.skipped_per_s")
      && cli_get (e, "frames.published_per_s")
      && json_node_get_double (cli_get (e, "frames.published_per_s")) > 0)
    skipped_share = json_node_get_double (cli_get (e, "frames.skipped_per_s"))
        / json_node_get_double (cli_get (e, "frames.published_per_s"));
  /* 20 of 30 frames/s: a third skipped; wide bounds for a busy machine. */
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "state"), "skipping") == 0
      && skipped_share > 0.15 && skipped_share < 0.6,
      "slow reader in JSON: %s, skipped share %.2f", e ? cli_str (e,
          "state") : "-", skipped_share);
  /* The fast one takes (nearly) every frame: on a loaded machine it may
   * miss one now and then, never a third. */
  e = cli_find (root, "reader_entries", "pid", NULL, fast);
  T_EXPECT (fails, e && (g_strcmp0 (cli_str (e, "state"), "keeping-up") == 0
          || (g_strcmp0 (cli_str (e, "state"), "skipping") == 0
              && json_node_get_double (cli_get (e, "frames.skipped_per_s")) <
              0.1 * json_node_get_double (cli_get (e,
                      "frames.published_per_s")))), "fast reader: %s",
      e ? cli_str (e, "state") : "-");
  json_node_unref (root);
  root = NULL;
  slow_pid = slow;

  T_CHECK (cli_run (&out, "watch", "--interval", "2", "--iterations", "2", ch,
          NULL) == 0 && out, "watch");
  row = watch_row (out, slow_pid);
  T_EXPECT (fails, row && strstr (row, "skipping")
      && strchr (row, '\n') > strstr (row, "skipping"),
      "slow reader in watch:\n%s", out);
  g_free (out);

  cli_stop (slow);
  cli_stop (fast);
  cli_stop (prod);
  /* The producer died with its objects: remove them through the tool. */
  cli_run (NULL, "clean", "--all", NULL);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  cli_stop (slow);
  cli_stop (fast);
  cli_stop (prod);
  cli_run (NULL, "clean", "--all", NULL);
  return T_EXIT_FAIL;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s lib|elements\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (110);
  cli_dir = t_shm_dir_new (NULL, "cli-states");
  if (strcmp (argv[1], "lib") == 0)
    ret = test_lib ();
  else if (strcmp (argv[1], "elements") == 0)
    ret = test_elements ();
  else
    ret = T_EXIT_FAIL;
  t_shm_dir_remove (cli_dir);
  return ret;
}
