/* Description: validating a segment is safe on a thread with a 256 KiB
 * stack (review #2). json-glib recurses once per nesting level, and
 * accepts comments and single-quoted strings in which a '"' once hid the
 * brackets from the depth count: "/\*"*\/" then 65 000 '[' overflowed 4 MiB
 * stacks. Each image is validated by doradma_segment_validate on such a
 * thread, in a child process so that a crash is reported, not suffered:
 * the hostile ones are refused (-EBADMSG, "json"), a valid one passes.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

#define STACK (256 * 1024)

struct job
{
  const uint8_t *image;
  size_t len;
  int ret;
  struct doradma_diag diag;
};

static void *
validate (void *arg)
{
  struct job *j = arg;

  j->ret = doradma_segment_validate (j->image, j->len, &j->diag);
  return NULL;
}

/* Returns the verdict, or a crash as -1000 - signal. */
static int
on_small_stack (const uint8_t * image, size_t len, struct doradma_diag *diag)
{
  int *shared = mmap (NULL, sizeof (int) + sizeof *diag,
      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t pid = fork ();
  int status = 0, ret;

  if (pid == 0) {
    struct job j = { image, len, 0, {0} };
    pthread_attr_t attr;
    pthread_t th;

    pthread_attr_init (&attr);
    pthread_attr_setstacksize (&attr, STACK);
    if (pthread_create (&th, &attr, validate, &j) != 0)
      _exit (3);
    pthread_join (th, NULL);
    shared[0] = j.ret;
    memcpy (shared + 1, &j.diag, sizeof j.diag);
    _exit (0);
  }
  waitpid (pid, &status, 0);
  if (WIFSIGNALED (status))
    ret = -1000 - WTERMSIG (status);
  else if (WEXITSTATUS (status) != 0)
    ret = -2000;
  else
    ret = shared[0];
  memcpy (diag, shared + 1, sizeof *diag);
  munmap (shared, sizeof (int) + sizeof *diag);
  return ret;
}

/* A data object whose JSON is `json` (json_len up to 64 KiB); validation
 * stops at the JSON, so nothing after it matters. */
static uint8_t *
image_with_json (const char *json, size_t *len)
{
  size_t n = strlen (json);
  size_t data_offset = (DORADMA_HEADER_SIZE + n + 4095) / 4096 * 4096;
  uint8_t *img = g_malloc0 (data_offset + 4096);
  struct doradma_shm_header *h = (struct doradma_shm_header *) img;

  memcpy (h->magic, DORADMA_MAGIC, 8);
  h->json_len = n;
  h->data_offset = data_offset;
  h->dora_gen = 1;
  memcpy (img + DORADMA_HEADER_SIZE, json, n);
  *len = data_offset + 4096;
  return img;
}

static void
expect_refused (const char *what, const char *prefix, char fill, size_t n)
{
  GString *json = g_string_new (prefix);
  struct doradma_diag diag = { 0 };
  uint8_t *img;
  size_t len;
  int ret;

  while (json->len < n)
    g_string_append_c (json, fill);
  img = image_with_json (json->str, &len);
  ret = on_small_stack (img, len, &diag);
  T_EXPECT (failures, ret > -1000, "%s: validation crashed (signal %d)",
      what, -1000 - ret);
  if (ret > -1000)
    T_EXPECT_DIAG (failures, ret, -EBADMSG, &diag, "json", what);
  g_free (img);
  g_string_free (json, TRUE);
}

int
main (void)
{
  struct doradma_diag diag = { 0 };
  struct image img;

  t_watchdog (50);              /* below meson's 60 s */
  expect_refused ("65000 x '['", "", '[', 65000);
  expect_refused ("comment hiding a quote, then 65000 x '['", "/*\"*/", '[',
      65000);
  expect_refused ("single quote hiding a quote, then 65000 x '['", "['\"',",
      '[', 65000);
  expect_refused ("65000 x '{\"a\":'", "", '{', 2);
  image_build_default (&img);
  T_EXPECT_DIAG (failures, on_small_stack (img.data, img.len, &diag), 0, &diag,
      NULL, "a valid image");
  image_free (&img);
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
