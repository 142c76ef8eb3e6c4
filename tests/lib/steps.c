/* Description: the steps and children of a test, reported on its deadline
 * (steps.h). The report runs in a signal handler: write(2), kill(2) and
 * hand-made decimal numbers only.
 */
#include "steps.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CHILDREN 64

static char current_step[256] = "start";
static volatile pid_t waiting;
static unsigned deadline_seconds;
static struct
{
  volatile pid_t pid;
  char what[120];
} children[MAX_CHILDREN];

static void
expired (int sig)
{
  (void) sig;
  t_deadline_report (deadline_seconds);
  _exit (1);
}

void
t_deadline_arm (unsigned seconds)
{
  const char *scale = getenv ("DORADMA_TEST_TIME_SCALE");
  unsigned k = scale != NULL && atoi (scale) > 0 ? (unsigned) atoi (scale) : 1;

  setvbuf (stdout, NULL, _IOLBF, 0);
  deadline_seconds = seconds * k;
  signal (SIGALRM, expired);
  alarm (deadline_seconds);
}

void
t_step (const char *fmt, ...)
{
  char buf[sizeof current_step];
  va_list ap;

  va_start (ap, fmt);
  vsnprintf (buf, sizeof buf, fmt, ap);
  va_end (ap);
  /* the handler may read it half-written: it only prints it */
  memcpy (current_step, buf, sizeof buf);
  fprintf (stderr, "[%d] step: %s\n", (int) getpid (), buf);
}

void
t_child_add (pid_t pid, const char *what)
{
  int i;

  for (i = 0; i < MAX_CHILDREN; i++)
    if (children[i].pid == 0 || children[i].pid == pid) {
      snprintf (children[i].what, sizeof children[i].what, "%s", what);
      children[i].pid = pid;
      return;
    }
}

void
t_child_gone (pid_t pid)
{
  int i;

  for (i = 0; i < MAX_CHILDREN; i++)
    if (children[i].pid == pid)
      children[i].pid = 0;
}

void
t_waiting_for (pid_t pid)
{
  waiting = pid;
}

static void
put (const char *s)
{
  if (write (2, s, strlen (s)) < 0) {
  }
}

static void
put_num (long v)
{
  char buf[24];
  int i = sizeof buf - 1;

  buf[i] = '\0';
  do {
    buf[--i] = '0' + v % 10;
    v /= 10;
  } while (v > 0 && i > 0);
  put (buf + i);
}

static const char *
what_of (pid_t pid)
{
  int i;

  for (i = 0; i < MAX_CHILDREN; i++)
    if (children[i].pid == pid)
      return children[i].what;
  return "(not recorded)";
}

/* A recorded pid may have been reaped by a plain waitpid and reused since:
 * only a process whose parent is this one is reported and killed. */
static int
is_our_child (pid_t pid)
{
  char path[40] = "/proc/", buf[512];
  char digits[24];
  int i = sizeof digits - 1, fd, n, ppid = 0;
  long v = pid;
  char *p;

  digits[i] = '\0';
  do {
    digits[--i] = '0' + v % 10;
    v /= 10;
  } while (v > 0 && i > 0);
  strcat (path, digits + i);
  strcat (path, "/stat");
  fd = open (path, O_RDONLY);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  p = strrchr (buf, ')');       /* "pid (comm) S ppid ..." */
  if (p == NULL || strlen (p) < 5)
    return 0;
  for (p += 4; *p >= '0' && *p <= '9'; p++)
    ppid = ppid * 10 + (*p - '0');
  return ppid == getpid ();
}

void
t_deadline_report (unsigned seconds)
{
  pid_t w = waiting;
  int i;

  put ("DEADLINE: ");
  put_num (seconds);
  put (" s passed at step: ");
  put (current_step);
  put ("\n");
  if (w > 0) {
    put ("  waiting for child ");
    put_num (w);
    put (": ");
    put (what_of (w));
    put ("\n");
  }
  for (i = 0; i < MAX_CHILDREN; i++) {
    pid_t pid = children[i].pid;

    if (pid > 0 && is_our_child (pid)) {
      put ("  alive, killed: ");
      put_num (pid);
      put (": ");
      put (children[i].what);
      put ("\n");
      kill (pid, SIGKILL);
    }
  }
}
