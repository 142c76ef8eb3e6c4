/* Private: THE DOOR. The one function in lib/ that opens an object whose
 * name a peer can plant in the shm directory: a ring's data object and its
 * ~ctl, a dora pool, whatever the CLI inspects or cleans. Every such open
 * goes through door_open and every mapping of one through door_map; the
 * rules live here and nowhere else (docs/threat-model.md, "The door"):
 *
 *   1. open with O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC: a FIFO squatting the name
 *      cannot block us, a symbolic link is not followed;
 *   2. fstat first, S_ISREG before anything else (a squatter's FIFO, socket
 *      or directory is named for what it is, with its owner);
 *   3. the owner rule: the object belongs to our uid, or to the one uid the
 *      caller allowed (a ring's allowed-uid, a dora pool's pool-owner);
 *      and nobody else may write it (no o+w bit);
 *   4. at least the size the caller needs to read its header;
 *   5. mapped only for a length the caller validated from its own copy of
 *      the header, never more than the object has, and prefaulted only when
 *      the object is fully backed (a sparse body costs its owner nothing,
 *      so it must cost us nothing either). */
#ifndef DORADMA_DOOR_H
#define DORADMA_DOOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <doradma/ring.h>       /* struct doradma_diag */

struct door_rule
{
  /* A second owner besides our uid; -1: none. */
  int64_t allowed_uid;
  /* Tools only: read-only inspection by pread copies (never mapped) may
   * look at any owner's object, and clean may remove its own o+w one. */
  bool any_owner;
  bool any_mode;
  /* Smallest size worth reading (the fixed header); smaller: -EBADMSG. */
  uint64_t min_size;
};

/* Opens `path` (flags: O_RDONLY or O_RDWR) by rules 1-4. `label` names the
 * object in messages. Returns 0 with *fd (O_NONBLOCK cleared again) and
 * *st, or: -ENOENT (diag field "channel"), -EBADMSG (field "object.type":
 * not a regular file, or a symbolic link; "object.size": too small),
 * -EPERM (field "owner": someone else's), -EACCES (field "owner": we may
 * not open it; field "mode": writable by others), other -errno. */
int door_open (const char *path, const char *label, int flags,
    const struct door_rule *rule, int *fd, struct stat *st,
    struct doradma_diag *diag);

/* Maps `len` bytes at offset 0 of an object door_open admitted (`st` its
 * fstat), MAP_SHARED with `prot`, into *map. `len` must come from the
 * caller's validated copy of the object's header; a len of 0 or beyond
 * st_size is refused. Prefaults (MAP_POPULATE) only when `prefault` and the
 * object's allocated blocks cover `len`. Returns 0, -EBADMSG (field
 * "object.size") or the mmap -errno, with diag. */
int door_map (int fd, const struct stat *st, uint64_t len, int prot,
    bool prefault, const char *label, void **map, struct doradma_diag *diag);

/* A name we failed to publish over (rename: `err`, positive): names what
 * is there and whose it is when someone else's object or a non-file holds
 * it (field `field`: "ctl" for the control name), else the plain error.
 * Returns -err with diag. */
int door_publish_failed (const char *path, const char *label, int err,
    const char *field, struct doradma_diag *diag);

#endif
