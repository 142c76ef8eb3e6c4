/* Channel names and the shm directory. Names are checked before any system
 * call: a name is a file name component under the shm directory, so anything
 * that could climb out of it or alias an internal name (~ctl) is refused. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "segment-desc.h"

#define DORADMA_API __attribute__ ((visibility ("default")))

DORADMA_API int
doradma_name_validate (const char *channel, struct doradma_diag *diag)
{
  size_t len, i;

  if (channel == NULL || channel[0] == '\0')
    return diag_set (diag, -EINVAL, "name", "channel name is empty");
  len = strnlen (channel, DORADMA_NAME_MAX + 1);
  if (len > DORADMA_NAME_MAX)
    return diag_set (diag, -EINVAL, "name",
        "channel name is longer than %u bytes", DORADMA_NAME_MAX);
  if (channel[0] == '.')
    return diag_set (diag, -EINVAL, "name",
        "channel name \"%.*s\" starts with '.'", (int) len, channel);
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) channel[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
      return diag_set (diag, -EINVAL, "name",
          "channel name has byte 0x%02x at %zu; allowed: A-Z a-z 0-9 _ . -",
          c, i);
  }
  if (strstr (channel, "..") != NULL)
    return diag_set (diag, -EINVAL, "name",
        "channel name \"%s\" contains \"..\"", channel);
  return 0;
}

DORADMA_API const char *
doradma_shm_dir (const char *dir)
{
  const char *env;

  if (dir != NULL && dir[0] != '\0')
    return dir;
  env = getenv ("DORADMA_SHM_DIR");
  if (env != NULL && env[0] != '\0')
    return env;
  return "/dev/shm";
}
