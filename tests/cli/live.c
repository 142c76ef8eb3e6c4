/* Description: the doradma command on live channels made by the lib, one
 * case per argument, each in a private shm directory:
 *   channels     a lossless-style ring with three readers (two back-pressure,
 *                one holding a lease each) and a latest ring: list/show
 *                --json report writer pid and liveness, slots, caps, frames,
 *                every reader's mode, consumed lag and leases, lease bits
 *                per slot; list --interval gives a rate only where frames flow
 *   killed       a writer killed with SIGKILL: status stale, pid named;
 *                clean removes both objects and says so; a live channel is
 *                left alone by clean and clean --all
 *   superseded   a replaced segment (kept reachable under another name while
 *                its writer lives): status superseded, final_seq; its
 *                successor continues the sequence; clean removes the old one
 *                only once its writer closed
 *   usage        exit codes 1 (not found) and 2 (bad usage), --help */
#include "cli-test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS 1000000ll

static int
exists (const char *channel, const char *suffix)
{
  char path[4096];
  struct stat st;

  snprintf (path, sizeof path, "%s/doradma.%s%s", cli_dir, channel, suffix);
  return lstat (path, &st) == 0;
}

static JsonNode *
show_json (const char *channel, int want_code)
{
  char *out = NULL;
  int code = cli_run (&out, "show", "--json", channel, NULL);
  JsonNode *root;

  if (code != want_code) {
    t_log ("show --json %s: exit %d, want %d\n%s", channel, code, want_code,
        out ? out : "");
    g_free (out);
    return NULL;
  }
  root = cli_parse (out);
  g_free (out);
  return root;
}

static JsonNode *
list_json (const char *extra)
{
  char *out = NULL;
  int code = extra ? cli_run (&out, "list", "--json", "--interval", extra,
      NULL) : cli_run (&out, "list", "--json", NULL);
  JsonNode *root;

  if (code != 0) {
    t_log ("list --json: exit %d", code);
    g_free (out);
    return NULL;
  }
  root = cli_parse (out);
  g_free (out);
  return root;
}

/* ------------------------------------------------------------------------ */

struct pump
{
  struct doradma_writer *w;
  int stop;
  int published;
};

static void *
pump_frames (void *arg)
{
  struct pump *p = arg;

  while (!__atomic_load_n (&p->stop, __ATOMIC_ACQUIRE)) {
    if (t_publish (p->w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) == 0)
      p->published++;
    g_usleep (10000);
  }
  return NULL;
}

static int
test_channels (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_writer *wa = NULL, *wb = NULL;
  struct doradma_reader *bp = NULL, *bp2 = NULL, *nobp = NULL;
  struct doradma_reader_stats st_bp, st_bp2, st_nobp;
  struct doradma_frame f1, f5, f;
  struct doradma_diag diag;
  char cha[64], chb[64], caps_a[256];
  JsonNode *root = NULL, *list = NULL, *e, *s;
  struct pump pump = { 0 };
  struct doradma_shm_ctl *ctl = NULL, *before = NULL;
  pthread_t th;
  int fails = 0, i;
  char *out = NULL;

  t_channel (cha, sizeof cha, "cli-a");
  t_channel (chb, sizeof chb, "cli-b");
  /* Six slots for five frames: every frame stays readable. */
  t_writer_config (&wc, cha, cli_dir, 6, 64 * 1024);
  g_strlcpy (caps_a, wc.caps, sizeof caps_a);
  T_RC (doradma_writer_create (&wc, &wa, &diag), 0, "writer a");
  t_reader_config (&rc, cha, cli_dir, 1);
  T_RC (doradma_reader_open (&rc, &bp, &diag), 0, "reader bp");
  T_RC (doradma_reader_open (&rc, &bp2, &diag), 0, "reader bp2");
  t_reader_config (&rc, cha, cli_dir, 0);
  T_RC (doradma_reader_open (&rc, &nobp, &diag), 0, "reader nobp");
  for (i = 0; i < 5; i++)
    T_RC (t_publish (wa, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
        "publish a");
  /* bp holds frame 1; bp2 reads and releases all five; nobp holds 5. */
  T_RC (doradma_reader_next (bp, DORADMA_READ_NEXT, 0, &f1, &diag), 0, "bp");
  for (i = 0; i < 5; i++) {
    T_RC (doradma_reader_next (bp2, DORADMA_READ_NEXT, 0, &f, &diag), 0, "bp2");
    doradma_reader_release (bp2, f.slot);
  }
  T_RC (doradma_reader_next (nobp, DORADMA_READ_LATEST, 0, &f5, &diag), 0,
      "nobp");
  T_CHECK (f1.info.seq == 1 && f5.info.seq == 5, "seqs %llu %llu",
      (unsigned long long) f1.info.seq, (unsigned long long) f5.info.seq);
  doradma_reader_get_stats (bp, &st_bp);
  doradma_reader_get_stats (bp2, &st_bp2);
  doradma_reader_get_stats (nobp, &st_nobp);

  t_writer_config (&wc, chb, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &wb, &diag), 0, "writer b");
  for (i = 0; i < 3; i++)
    T_RC (t_publish (wb, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
        "publish b");

  /* The control object as the readers left it: the tool must not join,
   * lease or bump anything in it. */
  ctl = t_ctl_map (cli_dir, cha);
  T_CHECK (ctl != NULL, "map ctl");
  before = g_malloc (sizeof *ctl);
  memcpy (before, ctl, sizeof *ctl);

  root = show_json (cha, 0);
  T_CHECK (root != NULL, "show a");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "status"), "live") == 0,
      "status %s", cli_str (root, "status"));
  T_EXPECT (fails, cli_bool (root, "valid"), "valid");
  T_EXPECT (fails, cli_int (root, "writer.pid", -1) == getpid (), "pid");
  T_EXPECT (fails, cli_bool (root, "writer.alive"), "writer alive");
  T_EXPECT (fails, cli_int (root, "slots.count", -1) == 6, "slot count");
  T_EXPECT (fails, cli_int (root, "slots.stride", -1) ==
      (gint64) doradma_writer_slot_stride (wa), "stride");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "caps"), caps_a) == 0,
      "caps %s", cli_str (root, "caps"));
  T_EXPECT (fails, cli_int (root, "newest_seq", -1) == 5, "newest");
  T_EXPECT (fails, cli_int (root, "frames_published", -1) == 5, "frames");
  T_EXPECT (fails, cli_int (root, "readers", -1) == 3, "readers %lld",
      (long long) cli_int (root, "readers", -1));
  T_EXPECT (fails, cli_bool (root, "segment.valid")
      && cli_bool (root, "ctl.validation.valid"), "parts valid");

  e = cli_find (root, "reader_entries", "index", NULL, st_bp.entry);
  T_EXPECT (fails, e && cli_bool (e, "alive") && cli_bool (e, "backpressure")
      && cli_int (e, "consumed_seq", -1) == 1 && cli_int (e, "lag", -1) == 4
      && cli_int (e, "leases", -1) == 1 && cli_int (e, "pid", -1) == getpid ()
      && g_strcmp0 (cli_str (e, "entry_state"), "active") == 0,
      "reader bp (entry %u)", st_bp.entry);
  T_EXPECT (fails, e && cli_int (e, "lost", -1) == 0,
      "bp lost nothing: six slots hold all five frames");
  e = cli_find (root, "reader_entries", "index", NULL, st_bp2.entry);
  T_EXPECT (fails, e && cli_bool (e, "backpressure")
      && cli_int (e, "consumed_seq", -1) == 5 && cli_int (e, "lag", -1) == 0
      && cli_int (e, "leases", -1) == 0, "reader bp2 (entry %u)", st_bp2.entry);
  e = cli_find (root, "reader_entries", "index", NULL, st_nobp.entry);
  T_EXPECT (fails, e && !cli_bool (e, "backpressure")
      && cli_get (e, "lag") && JSON_NODE_HOLDS_NULL (cli_get (e, "lag"))
      && cli_int (e, "leases", -1) == 1, "reader nobp (entry %u)",
      st_nobp.entry);

  /* The slots the two leases pin carry exactly those bits and frames. */
  s = cli_find (root, "slot_records", "index", NULL, f1.slot);
  {
    char want[24];
    snprintf (want, sizeof want, "0x%016llx", 1ull << st_bp.entry);
    T_EXPECT (fails, s && cli_int (s, "seq", -1) == 1
        && g_strcmp0 (cli_str (s, "lease_bits"), want) == 0
        && cli_bool (s, "validation.valid")
        && cli_int (s, "payload_bytes", -1) == 4096
        && cli_int (s, "width", -1) == 4096, "slot %u of frame 1: lease %s",
        f1.slot, s ? cli_str (s, "lease_bits") : "-");
  }
  s = cli_find (root, "slot_records", "index", NULL, f5.slot);
  T_EXPECT (fails, s && cli_int (s, "seq", -1) == 5
      && g_strcmp0 (cli_str (s, "state"), "frame") == 0, "slot of frame 5");
  json_node_unref (root);
  root = NULL;

  /* Text form: same facts, exit 0. */
  T_EXPECT (fails, cli_run (&out, "show", cha, NULL) == 0 && out
      && strstr (out, "status live") && strstr (out, "  next  "), "show text");
  g_free (out);
  out = NULL;

  T_EXPECT (fails, cli_run (NULL, "watch", "--iterations", "2", "--interval",
          "0.1", cha, NULL) == 0, "watch --iterations 2");
  T_EXPECT (fails, cli_run (NULL, "list", "--json", NULL) == 0, "list");
  T_EXPECT (fails, memcmp (before, ctl, sizeof *ctl) == 0,
      "list/show/watch changed the control object (joined, leased or bumped)");
  g_free (before);
  t_ctl_unmap (ctl);

  /* list: both channels; a rate only where frames flow. */
  pump.w = wa;
  doradma_reader_release (bp, f1.slot);
  doradma_reader_release (nobp, f5.slot);
  pthread_create (&th, NULL, pump_frames, &pump);
  g_usleep (100000);
  list = list_json ("0.5");
  __atomic_store_n (&pump.stop, 1, __ATOMIC_RELEASE);
  pthread_join (th, NULL);
  T_CHECK (list != NULL, "list");
  e = cli_find (list, "channels", "name", cha, 0);
  T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "status"), "live") == 0
      && cli_get (e, "rate") && json_node_get_double (cli_get (e, "rate")) > 5
      && json_node_get_double (cli_get (e, "rate")) < 150, "rate of a: %g",
      e && cli_get (e, "rate") ? json_node_get_double (cli_get (e, "rate")) :
      -1);
  e = cli_find (list, "channels", "name", chb, 0);
  T_EXPECT (fails, e && cli_int (e, "newest_seq", -1) == 3
      && cli_int (e, "slots.count", -1) == 2 && cli_int (e, "readers", -1) == 0
      && cli_get (e, "rate") && json_node_get_double (cli_get (e, "rate")) == 0,
      "b in list");
  T_EXPECT (fails, cli_run (&out, "list", NULL) == 0 && out && strstr (out, cha)
      && strstr (out, chb), "list text");
  /* the text says the live writer is alive, on the channel's own line */
  {
    const char *l = out ? strstr (out, cha) : NULL;
    const char *eol = l ? strchr (l, '\n') : NULL;
    gchar *line = l ? g_strndup (l, eol ? (gsize) (eol - l) : strlen (l)) :
        NULL;

    T_EXPECT (fails, line && strstr (line, "alive") && !strstr (line, "dead"),
        "list text for a live writer: %s", line ? line : "(none)");
    g_free (line);
  }
  g_free (out);

  json_node_unref (list);

  /* A back-pressure reader behind a latest writer on two slots: of five
   * frames after what it consumed, three are overwritten: lost. */
  {
    struct doradma_writer *wc_ = NULL;
    struct doradma_reader *slow = NULL;
    struct doradma_reader_stats st;
    char chc[64];

    t_channel (chc, sizeof chc, "cli-c");
    t_writer_config (&wc, chc, cli_dir, 2, 4096);
    T_RC (doradma_writer_create (&wc, &wc_, &diag), 0, "writer c");
    t_reader_config (&rc, chc, cli_dir, 1);
    T_RC (doradma_reader_open (&rc, &slow, &diag), 0, "reader c");
    for (i = 0; i < 5; i++)
      T_RC (t_publish (wc_, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
          "publish c");
    doradma_reader_get_stats (slow, &st);
    root = show_json (chc, 0);
    e = root ? cli_find (root, "reader_entries", "index", NULL, st.entry) :
        NULL;
    T_EXPECT (fails, e && cli_int (e, "consumed_seq", -1) == 0
        && cli_int (e, "lag", -1) == 5 && cli_int (e, "lost", -1) == 3,
        "slow reader: lag %lld lost %lld", e ? (long long) cli_int (e, "lag",
            -1) : -1, e ? (long long) cli_int (e, "lost", -1) : -1);
    if (root)
      json_node_unref (root);
    root = NULL;
    doradma_reader_close (slow);
    doradma_writer_close (wc_);
  }

  /* EOS is a status of its own; a dora pool is listed with its size. */
  doradma_writer_eos (wb);
  {
    char pool[4096];
    GError *gerr = NULL;
    JsonNode *o;

    snprintf (pool, sizeof pool, "%s/dora_pool_cli_test", cli_dir);
    T_CHECK (g_file_set_contents (pool, "0123456789", 10, &gerr), "pool");
    list = list_json (NULL);
    T_CHECK (list != NULL, "list");
    e = cli_find (list, "channels", "name", chb, 0);
    T_EXPECT (fails, e && g_strcmp0 (cli_str (e, "status"), "eos") == 0,
        "b at eos");
    {
      /* EOS after frame 3: the ring says its last frame is 3 */
      JsonNode *sb = show_json (chb, 0);

      T_EXPECT (fails, sb && cli_int (sb, "rcb.final_seq", -1) == 3,
          "b's final_seq %lld", sb ? (long long) cli_int (sb, "rcb.final_seq",
              -1) : -1);
      if (sb)
        json_node_unref (sb);
    }
    o = cli_find (list, "others", "name", "dora_pool_cli_test", 0);
    T_EXPECT (fails, o && g_strcmp0 (cli_str (o, "kind"), "dora-pool") == 0
        && cli_int (o, "size", -1) == 10, "dora pool listed");
    json_node_unref (list);
    unlink (pool);
  }
  doradma_reader_close (bp);
  doradma_reader_close (bp2);
  doradma_reader_close (nobp);
  doradma_writer_close (wa);
  doradma_writer_close (wb);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (root)
    json_node_unref (root);
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static int
killed_child (void *arg)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w;
  struct doradma_diag diag;
  int *pipefd = arg, i;
  char ch[64];

  read (pipefd[0], ch, sizeof ch);
  t_writer_config (&wc, ch, cli_dir, 3, 4096);
  if (doradma_writer_create (&wc, &w, &diag) != 0)
    return 1;
  for (i = 0; i < 3; i++)
    t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL);
  write (pipefd[1], "k", 1);
  for (;;)
    pause ();
}

static int
test_killed (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *live = NULL;
  struct doradma_diag diag;
  char chk[64], chl[64], c, *out = NULL;
  int to_child[2], from_child[2], fails = 0, args[2];
  JsonNode *root;
  pid_t pid;

  t_channel (chk, sizeof chk, "cli-killed");
  t_channel (chl, sizeof chl, "cli-live");
  T_CHECK (pipe (to_child) == 0 && pipe (from_child) == 0, "pipe");
  args[0] = to_child[0];
  args[1] = from_child[1];
  pid = t_fork (killed_child, args);
  write (to_child[1], chk, sizeof chk);
  T_CHECK (read (from_child[0], &c, 1) == 1, "child ready");
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);

  t_writer_config (&wc, chl, cli_dir, 2, 4096);
  T_RC (doradma_writer_create (&wc, &live, &diag), 0, "live writer");

  root = show_json (chk, 0);
  T_CHECK (root != NULL, "show killed");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "status"), "stale") == 0,
      "status %s", cli_str (root, "status"));
  T_EXPECT (fails, cli_int (root, "writer.pid", -1) == pid, "pid");
  T_EXPECT (fails, !cli_bool (root, "writer.alive"), "writer dead");
  T_EXPECT (fails, cli_int (root, "frames_published", -1) == 3, "frames");
  json_node_unref (root);

  /* A live channel is left alone, named (exit 4) or with --all (0). */
  T_EXPECT (fails, cli_run (&out, "clean", chl, NULL) == 4 && out
      && strstr (out, "live writer"), "clean live: %s", out);
  g_free (out);
  T_EXPECT (fails, exists (chl, "") && exists (chl, "~ctl"), "live kept");

  T_EXPECT (fails, cli_run (&out, "clean", chk, NULL) == 0 && out
      && strstr (out, "removed doradma.") && strstr (out, "~ctl"),
      "clean killed: %s", out);
  g_free (out);
  T_EXPECT (fails, !exists (chk, "") && !exists (chk, "~ctl"), "killed gone");
  T_EXPECT (fails, cli_run (NULL, "clean", chk, NULL) == 1, "clean again: 1");

  T_EXPECT (fails, cli_run (&out, "clean", "--all", NULL) == 0, "clean --all");
  g_free (out);
  T_EXPECT (fails, exists (chl, "") && exists (chl, "~ctl"), "live kept");
  T_RC (t_publish (live, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
      "live writer still publishes");

  /* A control object whose data object is gone (a writer killed between
   * the two unlinks of its close) and a leftover name of a replace cut
   * short, next to a stale channel: listed, then removed by clean. */
  {
    char cho[64], path[4096], left[4096];
    JsonNode *l, *o;
    int fd;

    t_channel (cho, sizeof cho, "cli-orphan");
    pid = t_fork (killed_child, args);
    write (to_child[1], cho, sizeof cho);
    T_CHECK (read (from_child[0], &c, 1) == 1, "child ready");
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
    snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, cho);
    T_CHECK (unlink (path) == 0, "unlink data");
    pid = t_fork (killed_child, args);
    write (to_child[1], chk, sizeof chk);
    T_CHECK (read (from_child[0], &c, 1) == 1, "child ready");
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
    snprintf (left, sizeof left, "%s/doradma.%s~new.%d.1234abcd", cli_dir, chk,
        (int) pid);
    fd = open (left, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    T_CHECK (fd >= 0, "leftover");
    close (fd);

    T_EXPECT (fails, cli_run (&out, "list", "--json", NULL) == 0, "list");
    l = cli_parse (out);
    g_free (out);
    snprintf (path, sizeof path, "doradma.%s~ctl", cho);
    o = l ? cli_find (l, "others", "name", path, 0) : NULL;
    T_EXPECT (fails, o && g_strcmp0 (cli_str (o, "kind"), "orphan-control")
        == 0 && cli_int (o, "size", 0) >= (gint64) sizeof (struct
            doradma_shm_ctl), "orphan listed");
    o = l ? cli_find (l, "others", "name", strrchr (left, '/') + 1, 0) : NULL;
    T_EXPECT (fails, o && g_strcmp0 (cli_str (o, "kind"), "leftover") == 0,
        "leftover listed");
    if (l)
      json_node_unref (l);
    T_EXPECT (fails, cli_run (&out, "watch", "--iterations", "1", NULL) == 0
        && out && strstr (out, chk) && strstr (out, chl), "watch of all");
    g_free (out);
    T_EXPECT (fails, cli_run (&out, "clean", "--all", NULL) == 0 && out
        && strstr (out, "removed 1 leftover name"), "clean --all: %s", out);
    g_free (out);
    T_EXPECT (fails, !exists (cho, "~ctl") && !exists (chk, "")
        && !exists (chk, "~ctl") && access (left, F_OK) != 0
        && exists (chl, "") && exists (chl, "~ctl"),
        "orphan, stale channel and leftover gone, live channel kept");
  }
  doradma_writer_close (live);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

/* ------------------------------------------------------------------------ */

static int
link_fd (int fd, const char *channel, const char *suffix)
{
  char proc[64], path[4096];

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  snprintf (path, sizeof path, "%s/doradma.%s%s", cli_dir, channel, suffix);
  return linkat (AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}

static int
test_superseded (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *old = NULL, *succ = NULL;
  struct doradma_diag diag;
  char ch[64], old_ch[80], path[4096], *out = NULL;
  int fd_data, fd_ctl, i, fails = 0;
  JsonNode *root;

  t_channel (ch, sizeof ch, "cli-sup");
  snprintf (old_ch, sizeof old_ch, "%s-old", ch);
  t_writer_config (&wc, ch, cli_dir, 2, 16384);
  T_RC (doradma_writer_create (&wc, &old, &diag), 0, "writer");
  for (i = 0; i < 3; i++)
    T_RC (t_publish (old, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
        "publish");
  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, ch);
  fd_data = open (path, O_RDONLY | O_CLOEXEC);
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, ch);
  fd_ctl = open (path, O_RDONLY | O_CLOEXEC);
  T_CHECK (fd_data >= 0 && fd_ctl >= 0, "open old objects");
  /* A second name for the old objects, so they stay reachable once the
   * successor takes the channel's names. */
  T_CHECK (link_fd (fd_data, old_ch, "") == 0 && link_fd (fd_ctl, old_ch,
          "~ctl") == 0, "link old: %s", strerror (errno));
  t_writer_config (&wc, ch, cli_dir, 3, 65536);
  T_RC (doradma_writer_replace (old, &wc, &succ, &diag), 0, "replace");
  T_RC (t_publish_as (succ, DORADMA_POLICY_LATEST, 0, 4096, 4, NULL), 0,
      "publish on the successor");

  root = show_json (old_ch, 0);
  T_CHECK (root != NULL, "show old");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "status"), "superseded") == 0,
      "status %s", cli_str (root, "status"));
  T_EXPECT (fails, cli_bool (root, "writer.alive"), "old writer alive");
  T_EXPECT (fails, cli_int (root, "rcb.final_seq", -1) == 3, "final_seq");
  T_EXPECT (fails, cli_int (root, "newest_seq", -1) == 3, "newest");
  T_EXPECT (fails, cli_bool (root, "ctl.validation.valid"), "old ctl valid");
  json_node_unref (root);

  root = show_json (ch, 0);
  T_CHECK (root != NULL, "show successor");
  T_EXPECT (fails, g_strcmp0 (cli_str (root, "status"), "live") == 0
      && cli_int (root, "first_seq", -1) == 4
      && cli_int (root, "newest_seq", -1) == 4
      && cli_int (root, "frames_published", -1) == 1
      && cli_int (root, "slots.count", -1) == 3, "successor");
  json_node_unref (root);

  /* Its writer still holds the old lock: clean leaves it. */
  T_EXPECT (fails, cli_run (NULL, "clean", old_ch, NULL) == 4
      && exists (old_ch, ""), "old kept while its writer lives");
  doradma_writer_close (old);
  root = show_json (old_ch, 0);
  T_EXPECT (fails, root && g_strcmp0 (cli_str (root, "status"), "stale") == 0,
      "old is stale once closed");
  if (root)
    json_node_unref (root);
  T_EXPECT (fails, cli_run (&out, "clean", "--all", NULL) == 0
      && !exists (old_ch, "") && !exists (old_ch, "~ctl")
      && exists (ch, "") && exists (ch, "~ctl"), "clean --all: %s", out);
  g_free (out);
  close (fd_data);
  close (fd_ctl);
  doradma_writer_close (succ);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

/* Exit codes: 0 ok, 1 not found, 2 bad usage; --help per command. */
static int
test_usage (void)
{
  const char *tool = getenv ("DORADMA_TOOL");
  char *out = NULL;
  int fails = 0, status = 0;
  const char *commands[] = { "list", "show", "watch", "clean" };
  char *argv[4];
  size_t i;

  T_EXPECT (fails, cli_run (NULL, "show", NULL) == 2, "show without channel");
  T_EXPECT (fails, cli_run (NULL, "show", "a/b", NULL) == 2, "bad name");
  T_EXPECT (fails, cli_run (NULL, "show", "--frob", "x", NULL) == 2,
      "unknown option");
  T_EXPECT (fails, cli_run (NULL, "list", "extra", NULL) == 2, "list arg");
  T_EXPECT (fails, cli_run (NULL, "clean", NULL) == 2, "clean without target");
  T_EXPECT (fails, cli_run (NULL, "clean", "--all", "x", NULL) == 2,
      "clean with both");
  T_EXPECT (fails, cli_run (NULL, "watch", "--interval", "0", NULL) == 2,
      "watch interval 0");
  T_EXPECT (fails, cli_run (NULL, "frob", NULL) == 2, "unknown command");
  T_EXPECT (fails, cli_run (NULL, "show", "nosuch", NULL) == 1, "not found");
  T_EXPECT (fails, cli_run (NULL, "clean", "nosuch", NULL) == 1,
      "clean not found");
  T_EXPECT (fails, cli_run (&out, "list", NULL) == 0 && out
      && strstr (out, "CHANNEL"), "empty list");
  g_free (out);
  for (i = 0; i < G_N_ELEMENTS (commands); i++) {
    /* the usage line puts options after the command, as they must be
     * (review round 4, R4-C2: it read "doradma [OPTION?] show") */
    char *usage = g_strdup_printf ("\n  doradma %s [OPTION", commands[i]);

    argv[0] = (char *) tool;
    argv[1] = (char *) commands[i];
    argv[2] = (char *) "--help";
    argv[3] = NULL;
    out = NULL;
    T_EXPECT (fails, g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL,
            NULL, &out, NULL, &status, NULL) && WIFEXITED (status)
        && WEXITSTATUS (status) == 0 && out && strstr (out, usage)
        && strstr (out, "--shm-dir"), "%s --help: %s", commands[i],
        out ? out : "(nothing)");
    g_free (usage);
    g_free (out);
  }
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}

int
main (int argc, char **argv)
{
  int ret;

  if (argc != 2) {
    fprintf (stderr, "usage: %s channels|killed|superseded|usage\n", argv[0]);
    return T_EXIT_FAIL;
  }
  t_watchdog (100);
  cli_dir = t_shm_dir_new (NULL, "cli");
  if (strcmp (argv[1], "channels") == 0)
    ret = test_channels ();
  else if (strcmp (argv[1], "killed") == 0)
    ret = test_killed ();
  else if (strcmp (argv[1], "superseded") == 0)
    ret = test_superseded ();
  else if (strcmp (argv[1], "usage") == 0)
    ret = test_usage ();
  else
    ret = T_EXIT_FAIL;
  t_shm_dir_remove (cli_dir);
  return ret;
}
