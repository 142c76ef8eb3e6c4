/* The table behind doradma/file-type.h. */
#include "doradma/file-type.h"

#include <stddef.h>

static const struct
{
  mode_t type;
  struct doradma_file_type name;
} file_types[] = {
  {S_IFREG, {"regular file", "a regular file"}},
  {S_IFDIR, {"directory", "a directory"}},
  {S_IFLNK, {"symbolic link", "a symbolic link"}},
  {S_IFIFO, {"fifo", "a FIFO"}},
  {S_IFSOCK, {"socket", "a socket"}},
  {S_IFCHR, {"device", "a character device"}},
  {S_IFBLK, {"device", "a block device"}},
};

static const struct doradma_file_type other = { "other", "not a regular file" };

const struct doradma_file_type *
doradma_file_type (mode_t mode)
{
  for (size_t i = 0; i < sizeof file_types / sizeof file_types[0]; i++)
    if ((mode & S_IFMT) == file_types[i].type)
      return &file_types[i].name;
  return &other;
}
