/* What a name in the shm directory is, in the two vocabularies that talk
 * about it: the word of `doradma show --json` ("fifo", docs/cli.md) and the
 * phrase of a refusal ("a FIFO", lib/door.c). One table, so the two never
 * disagree on what a mode is. */
#ifndef DORADMA_FILE_TYPE_H
#define DORADMA_FILE_TYPE_H

#include <sys/stat.h>

struct doradma_file_type
{
  const char *word;
  const char *phrase;
};

const struct doradma_file_type *doradma_file_type (mode_t mode);

#endif
