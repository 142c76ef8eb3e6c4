/* Fork guards; see fork-guard.h. */
#include "fork-guard.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t guards_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guards_once = PTHREAD_ONCE_INIT;
static struct fork_guard *guards;

/* Held across fork: no list half-changed in the child. */
static void
guards_prepare (void)
{
  pthread_mutex_lock (&guards_lock);
}

static void
guards_parent (void)
{
  pthread_mutex_unlock (&guards_lock);
}

static void
guards_child (void)
{
  struct fork_guard *g;

  for (g = guards; g != NULL; g = g->next)
    g->child (g);
  pthread_mutex_unlock (&guards_lock);
}

static void
guards_init (void)
{
  pthread_atfork (guards_prepare, guards_parent, guards_child);
}

void
fork_guard_add (struct fork_guard *g)
{
  pthread_once (&guards_once, guards_init);
  pthread_mutex_lock (&guards_lock);
  g->next = guards;
  guards = g;
  pthread_mutex_unlock (&guards_lock);
}

void
fork_guard_remove (struct fork_guard *g)
{
  struct fork_guard **p;

  pthread_mutex_lock (&guards_lock);
  for (p = &guards; *p != NULL; p = &(*p)->next)
    if (*p == g) {
      *p = g->next;
      break;
    }
  pthread_mutex_unlock (&guards_lock);
}

void
fork_guard_detach (int fd, void *map, size_t len, bool keep_bytes)
{
  int null = open ("/dev/null", O_RDONLY | O_CLOEXEC);

  if (fd >= 0 && null >= 0)
    dup3 (null, fd, O_CLOEXEC);
  if (null >= 0)
    close (null);
  if (map != NULL && !keep_bytes)
    mmap (map, len, PROT_READ | PROT_WRITE,
        MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  else if (map != NULL) {
    /* a private copy moved over the shared mapping in one step: the
     * child's memory stays readable and the same */
    void *copy = mmap (NULL, len, PROT_READ | PROT_WRITE,
        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (copy == MAP_FAILED)
      return;
    memcpy (copy, map, len);
    mremap (copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, map);
  }
}
