/* Description: doradma watch in a pseudo terminal (forkpty): while a lib
 * writer publishes to one reader, the view shows the channel, its frames/s
 * and the reader; 'q' quits it with exit 0, and so does Ctrl-C (the
 * terminal's ISIG is left on), within a refresh. */
#include "cli-test.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pump
{
  struct doradma_writer *w;
  struct doradma_reader *r;
  int stop;
};

static void *
pump_frames (void *arg)
{
  struct pump *p = arg;
  struct doradma_frame f;
  struct doradma_diag diag;

  while (!__atomic_load_n (&p->stop, __ATOMIC_ACQUIRE)) {
    if (t_publish (p->w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL) == 0
        && doradma_reader_next (p->r, DORADMA_READ_NEXT, 0, &f, &diag) == 0)
      doradma_reader_release (p->r, f.slot);
    g_usleep (10000);
  }
  return NULL;
}

/* Reads what the child writes for `ms` milliseconds into `acc`. */
static void
drain (int fd, GString * acc, int ms)
{
  guint64 end = t_now_ns () + (guint64) ms * 1000000;

  for (;;) {
    struct pollfd p = { fd, POLLIN, 0 };
    guint64 now = t_now_ns ();
    char buf[4096];
    ssize_t n;

    if (now >= end || poll (&p, 1, (int) ((end - now) / 1000000) + 1) <= 0)
      return;
    n = read (fd, buf, sizeof buf);
    if (n <= 0)
      return;
    g_string_append_len (acc, buf, n);
  }
}

/* Reads what the child writes into `acc` until it holds `needle`, for at
 * most `ms` milliseconds. */
static void
drain_until (int fd, GString * acc, const char *needle, int ms)
{
  guint64 end = t_now_ns () + (guint64) ms * 1000000;

  while (!strstr (acc->str, needle) && t_now_ns () < end)
    drain (fd, acc, 50);
}

/* Runs watch in a pty for a second and at least until its first screen
 * (its SIGINT handler is in place before it: a Ctrl-C sent earlier, on a
 * busy machine, killed it with 130), sends `key`, returns the exit code
 * (-1: still running 3 s later, then killed). */
static int
watch_and_quit (const char *channel, char key, GString * screen)
{
  const char *tool = getenv ("DORADMA_TOOL");
  int master, status, i;
  pid_t pid = forkpty (&master, NULL, NULL, NULL);

  if (pid == 0) {
    execl (tool, tool, "watch", "--shm-dir", cli_dir, "--interval", "0.2",
        channel, (char *) NULL);
    _exit (127);
  }
  if (pid < 0)
    return -2;
  drain (master, screen, 1000);
  drain_until (master, screen, "\033[H", 20000);
  if (write (master, &key, 1) != 1)
    t_log ("write to the pty: %s", strerror (errno));
  for (i = 0; i < 300; i++) {
    if (waitpid (pid, &status, WNOHANG) == pid) {
      drain (master, screen, 50);
      close (master);
      return WIFEXITED (status) ? WEXITSTATUS (status) : 128 +
          WTERMSIG (status);
    }
    /* Once the child closed the pty, reads fail at once: pace the loop. */
    drain (master, screen, 10);
    g_usleep (10000);
  }
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
  close (master);
  return -1;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_reader_config rc;
  struct doradma_diag diag;
  struct pump p = { 0 };
  GString *screen = g_string_new (NULL);
  char ch[64];
  pthread_t th;
  int fails = 0, code;

  t_watchdog (50);
  cli_dir = t_shm_dir_new (NULL, "cli-watch");
  t_channel (ch, sizeof ch, "watch");
  t_writer_config (&wc, ch, cli_dir, 4, 4096);
  T_RC (doradma_writer_create (&wc, &p.w, &diag), 0, "writer");
  t_reader_config (&rc, ch, cli_dir, 1);
  T_RC (doradma_reader_open (&rc, &p.r, &diag), 0, "reader");
  pthread_create (&th, NULL, pump_frames, &p);

  code = watch_and_quit (ch, 'q', screen);
  T_EXPECT (fails, code == 0, "q: exit %d", code);
  T_EXPECT (fails, strstr (screen->str, ch) && strstr (screen->str,
          "frames/s") && strstr (screen->str, "next")
      && strstr (screen->str, "\033[H"), "screen:\n%s", screen->str);
  /* Refreshes after the first show a rate: frames flow at up to 100/s. */
  {
    const char *at = screen->str;
    double best = 0;
    while ((at = strstr (at, "frames/s ")) != NULL) {
      double v = g_ascii_strtod (at + 9, NULL);
      best = v > best ? v : best;
      at += 9;
    }
    T_EXPECT (fails, best > 5 && best < 150, "best rate %g", best);
  }
  g_string_truncate (screen, 0);
  code = watch_and_quit (ch, 0x03, screen);     /* Ctrl-C */
  T_EXPECT (fails, code == 0, "Ctrl-C: exit %d", code);

  __atomic_store_n (&p.stop, 1, __ATOMIC_RELEASE);
  pthread_join (th, NULL);
  doradma_reader_close (p.r);
  doradma_writer_close (p.w);
  g_string_free (screen, TRUE);
  t_shm_dir_remove (cli_dir);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
