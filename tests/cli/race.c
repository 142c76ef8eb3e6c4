/* Description: doradma clean never removes a live channel. Each round a
 * writer starts (a child process, doradma_writer_create) on a channel left
 * stale by the previous round's kill -9, while `doradma clean` runs on the
 * same name. Both orders are forced: one round in four clean runs to its
 * end before the writer starts (it must remove the stale channel), one in
 * four the writer is live before clean starts (clean must leave it); the
 * other rounds start both together with varied delays. Whoever wins, once
 * both are done a started writer's objects are the ones at the names (same
 * inode, ctl valid), and it still publishes; then it is killed for the
 * next round. Finally clean --all
 * runs over and over next to a publishing writer, which keeps its names. */
#include "cli-test.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS_DEFAULT 100

enum order
{
  RACE,
  CLEAN_FIRST,                  /* clean ends before the writer starts */
  WRITER_FIRST,                 /* the writer is live before clean starts */
};

struct shared
{
  char channel[64];
  int go;                       /* start signal */
  int created;                  /* 1 created, -errno failed */
  int busy;                     /* -EBUSY answers seen before success */
  uint64_t ino;
  int published;
  char busy_msg[200];           /* the first -EBUSY's message */
};

static int
writer_child (void *arg)
{
  struct shared *sh = arg;
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  uint64_t start;
  int ret;
  struct stat st;

  while (!__atomic_load_n (&sh->go, __ATOMIC_ACQUIRE));
  t_writer_config (&wc, sh->channel, cli_dir, 2, 4096);
  start = t_now_ns ();
  /* -EBUSY while clean holds the stale object's lock for a moment. */
  while ((ret = doradma_writer_create (&wc, &w, &diag)) == -EBUSY
      && t_now_ns () - start < 2000000000ull) {
    if (sh->busy_msg[0] == '\0')
      g_strlcpy (sh->busy_msg, diag.msg, sizeof sh->busy_msg);
    sh->busy++;
    g_usleep (1000);
  }
  if (ret == 0 && fstat (doradma_writer_fd (w), &st) == 0)
    sh->ino = st.st_ino;
  __atomic_store_n (&sh->created, ret == 0 ? 1 : ret, __ATOMIC_RELEASE);
  if (ret < 0)
    return 1;
  for (;;) {
    if (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) == 0)
      __atomic_fetch_add (&sh->published, 1, __ATOMIC_RELAXED);
    g_usleep (2000);
  }
}

static int
ino_at (const char *channel, const char *suffix, uint64_t * ino)
{
  char path[4096];
  struct stat st;

  snprintf (path, sizeof path, "%s/doradma.%s%s", cli_dir, channel, suffix);
  if (stat (path, &st) != 0)
    return -errno;
  *ino = st.st_ino;
  return 0;
}

int
main (void)
{
  const char *env = getenv ("DORADMA_CLI_RACE_ROUNDS");
  int rounds = env ? atoi (env) : ROUNDS_DEFAULT;
  struct shared *sh = t_shared_alloc (sizeof *sh);
  const char *tool = getenv ("DORADMA_TOOL");
  int fails = 0, round, clean_first = 0, busy = 0, removed = 0, i;
  int forced[3] = { 0, 0, 0 };

  t_watchdog (230);
  cli_dir = t_shm_dir_new (NULL, "cli-race");
  t_channel (sh->channel, sizeof sh->channel, "race");

  for (round = 0; round < rounds && fails == 0; round++) {
    char *argv[] = { (char *) tool, (char *) "clean", (char *) "--shm-dir",
      cli_dir, sh->channel, NULL
    };
    GError *err = NULL;
    GPid clean_pid;
    int clean_out;
    pid_t w;
    int status, pub;
    uint64_t ino = 0, ctl_ino = 0;
    char *out = NULL;
    JsonNode *root;
    /* round 0 has no stale channel yet */
    enum order order = round % 4 == 1 ? CLEAN_FIRST
        : round % 4 == 2 ? WRITER_FIRST : RACE;
    int did_remove;

    sh->go = 0;
    sh->created = 0;
    sh->ino = 0;
    sh->published = 0;
    sh->busy = 0;
    w = t_fork (writer_child, sh);
    if (order == WRITER_FIRST) {
      __atomic_store_n (&sh->go, 1, __ATOMIC_RELEASE);
      for (i = 0; i < 30000 && !__atomic_load_n (&sh->created,
              __ATOMIC_ACQUIRE); i++)
        g_usleep (1000);
    }
    if (!g_spawn_async_with_pipes (NULL, argv, NULL,
            G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &clean_pid, NULL,
            &clean_out, NULL, &err)) {
      t_log ("spawn clean: %s", err->message);
      return T_EXIT_FAIL;
    }
    t_child_add (clean_pid, "doradma clean");
    t_step ("round %d (%s): writer %d, doradma clean %d", round,
        order == CLEAN_FIRST ? "clean first" : order == WRITER_FIRST ?
        "writer first" : "race", (int) w, (int) clean_pid);
    /* Racing rounds vary who starts first: clean needs a few ms to start
     * up, the writer under one; delays of 0..14 ms put either first on an
     * idle machine. */
    if (order == RACE) {
      g_usleep ((round % 8) * 2000);
      __atomic_store_n (&sh->go, 1, __ATOMIC_RELEASE);
    }
    t_waiting_for (clean_pid);
    waitpid (clean_pid, &status, 0);
    t_waiting_for (0);
    t_child_gone (clean_pid);
    if (order == CLEAN_FIRST)
      __atomic_store_n (&sh->go, 1, __ATOMIC_RELEASE);
    {
      char buf[4096];
      ssize_t n = read (clean_out, buf, sizeof buf - 1);
      buf[n > 0 ? n : 0] = '\0';
      did_remove = strstr (buf, "removed doradma.") != NULL;
      removed += did_remove;
      close (clean_out);
    }
    forced[order]++;
    T_EXPECT (fails, order != CLEAN_FIRST || did_remove, "round %d: clean "
        "ran alone on the stale channel and did not remove it", round);
    T_EXPECT (fails, order != WRITER_FIRST || !did_remove, "round %d: clean "
        "removed the channel of a live writer", round);
    /* 0 removed, 1 gone already, 4 the new writer was first. */
    T_EXPECT (fails, WIFEXITED (status) && (WEXITSTATUS (status) == 0
            || WEXITSTATUS (status) == 1 || WEXITSTATUS (status) == 4),
        "round %d: clean exit %d", round, status);
    for (i = 0; i < 3000 && !__atomic_load_n (&sh->created, __ATOMIC_ACQUIRE);
        i++)
      g_usleep (1000);
    T_EXPECT (fails, sh->created == 1, "round %d: writer create %s", round,
        t_errname (sh->created));
    busy += sh->busy;
    if (sh->busy)
      clean_first++;

    /* The started writer owns both names, after clean is done. */
    T_EXPECT (fails, ino_at (sh->channel, "", &ino) == 0 && ino == sh->ino,
        "round %d: data name is the live writer's (%llu vs %llu)", round,
        (unsigned long long) ino, (unsigned long long) sh->ino);
    T_EXPECT (fails, ino_at (sh->channel, "~ctl", &ctl_ino) == 0,
        "round %d: control object present", round);
    cli_run (&out, "show", "--json", sh->channel, NULL);
    root = cli_parse (out);
    T_EXPECT (fails, root && g_strcmp0 (cli_str (root, "status"), "live") == 0
        && cli_bool (root, "valid") && cli_int (root, "writer.pid", -1) == w,
        "round %d: live and valid\n%s", round, out);
    if (root)
      json_node_unref (root);
    g_free (out);
    /* It keeps publishing (up to 2 s: the machine is shared). */
    pub = __atomic_load_n (&sh->published, __ATOMIC_RELAXED);
    for (i = 0; i < 200 && __atomic_load_n (&sh->published,
            __ATOMIC_RELAXED) <= pub + 2; i++)
      g_usleep (10000);
    T_EXPECT (fails, __atomic_load_n (&sh->published, __ATOMIC_RELAXED) > pub,
        "round %d: the writer still publishes", round);
    /* Stale for the next round; reaped now, so that its lock is gone
     * before the next writer starts (else that writer sees it held). */
    kill (w, SIGKILL);
    waitpid (w, NULL, 0);
    t_child_gone (w);
  }
  t_log ("%d rounds (%d clean first, %d writer first, %d raced): clean "
      "removed the stale channel in %d; the writer met clean's lock in %d "
      "(-EBUSY %d times, then started%s%s)", round, forced[CLEAN_FIRST],
      forced[WRITER_FIRST], forced[RACE], removed, clean_first, busy,
      busy ? "; first: " : "", sh->busy_msg);

  /* clean --all next to a live, publishing writer. */
  if (fails == 0) {
    pid_t w;
    uint64_t ino = 0;

    sh->go = 1;
    sh->created = 0;
    w = t_fork (writer_child, sh);
    for (i = 0; i < 3000 && !__atomic_load_n (&sh->created, __ATOMIC_ACQUIRE);
        i++)
      g_usleep (1000);
    for (i = 0; i < 30; i++)
      T_EXPECT (fails, cli_run (NULL, "clean", "--all", NULL) == 0
          && ino_at (sh->channel, "", &ino) == 0 && ino == sh->ino
          && ino_at (sh->channel, "~ctl", &ino) == 0,
          "clean --all %d removed a live channel", i);
    kill (w, SIGKILL);
    waitpid (w, NULL, 0);
    T_EXPECT (fails, cli_run (NULL, "clean", "--all", NULL) == 0
        && ino_at (sh->channel, "", &ino) == -ENOENT
        && ino_at (sh->channel, "~ctl", &ino) == -ENOENT,
        "clean --all after the kill");
  }
  t_shm_dir_remove (cli_dir);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}
