/* Private: the two shm objects of a channel — names, creation (O_TMPFILE,
 * posix_fallocate, fchmod, link); opening an existing one is door.h's. */
#ifndef DORADMA_SEGMENT_H
#define DORADMA_SEGMENT_H

#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "segment-desc.h"

#define DORADMA_API __attribute__ ((visibility ("default")))

struct segment_paths
{
  char dir[PATH_MAX];
  char data[PATH_MAX];          /* <dir>/doradma.<channel> */
  char ctl[PATH_MAX];           /* <dir>/doradma.<channel>~ctl */
  char label[DORADMA_NAME_MAX + 16];    /* "doradma.<channel>" for messages */
};

/* Validates the name (before any system call) and builds the paths. */
int segment_paths_init (struct segment_paths *p, const char *shm_dir,
    const char *channel, struct doradma_diag *diag);

/* Creates an unnamed object of `size` bytes in `dir` (O_TMPFILE), reserves
 * its pages (posix_fallocate: ENOSPC now, not SIGBUS later), sets `mode`
 * (fchmod: shm_open's mode would be masked by umask) and maps it RW,
 * prefaulted. Returns 0, -ENOSPC (diag names the free space), -errno. */
int segment_object_create (const char *dir, const char *label, uint64_t size,
    uint32_t mode, int *fd, void **map, struct doradma_diag *diag);

/* Gives the unnamed object `fd` the name `path`. Returns 0 or -EEXIST. */
int segment_object_link (int fd, const char *path);

/* Gives the object `fd` (unnamed, or named: a second link) the temporary
 * name path~new.<pid>.<random> in `tmp` (SEGMENT_TEMP_MAX bytes), which
 * segment_remove_leftovers removes if we die before it goes. Returns 0 or
 * -errno. */
#define SEGMENT_TEMP_MAX (PATH_MAX + 48)
int segment_object_link_temp (int fd, const char *path, char *tmp, size_t len);

/* Gives it the name `path`, replacing what is there (link to a temporary
 * name outside the channel namespace, then rename). Only call while holding
 * the writer lock of the inode currently at `path`. */
int segment_object_link_replace (int fd, const char *path);

/* Removes temporary names of this channel that a writer killed between
 * segment_object_link_replace's link and rename left behind. Only call while
 * holding the writer lock of the channel's current data object: only that
 * holder ever makes such names, so every one found belongs to a dead one. */
void segment_remove_leftovers (const struct segment_paths *p);

/* Opening and mapping an existing object a peer may have named: door.h. */

/* Validates the header and the JSON of the data object `fd` (fstat `st`)
 * from a pread copy, before anything is mapped: the object must have
 * exactly the size the layout they describe needs, which is then the one
 * length door_map may map. Returns 0 or -EBADMSG / -EPROTONOSUPPORT. */
int segment_size_check (int fd, const struct stat *st, const char *label,
    struct doradma_diag *diag);

/* Does `path` still name the inode of `st`? */
int segment_path_is (const char *path, const struct stat *st);

uint64_t page_size (void);

static inline uint64_t
round_up (uint64_t v, uint64_t to)
{
  return (v + to - 1) / to * to;
}

#endif
