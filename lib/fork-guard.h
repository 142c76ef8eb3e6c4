/* Private: what a child forked without exec must drop. A child shares our
 * open file descriptions, through the fds and through shared mappings, and
 * an OFD lock goes only with the last reference: a writer's data lock or a
 * reader's entry lock would outlive our death in a child that keeps
 * running. Each writer and reader registers a guard; in the child, every
 * guard's `child` hook swaps its fds for /dev/null and its shared mappings
 * for private copies (fork_guard_detach), so the locks stay ours alone. */
#ifndef DORADMA_FORK_GUARD_H
#define DORADMA_FORK_GUARD_H

#include <stdbool.h>
#include <stddef.h>

struct fork_guard
{
  void (*child) (struct fork_guard * g);
  struct fork_guard *next;
};

/* Registers g (its `child` set); safe from any thread. */
void fork_guard_add (struct fork_guard *g);
/* Unregisters g; before its fds are closed. A g never added is a no-op. */
void fork_guard_remove (struct fork_guard *g);

/* For `child` hooks: points `fd` at /dev/null and replaces the shared
 * mapping [map, map + len) (map may be NULL) by private memory: a copy of
 * its bytes with keep_bytes (small objects), zeros without. */
void fork_guard_detach (int fd, void *map, size_t len, bool keep_bytes);

#endif
