/* Description: lib/dora-pool.c's reader against pools a hostile local
 * process plants (findings N1-N3 of reviews/round3/lib-and-dora-pools.md):
 * - N1: a pool whose JSON is 1,000,000 '[' (or 3,000 on a 256 KiB stack) is
 *   refused with "nesting deeper than 32", never a crash; nesting of 32 is
 *   accepted and 33 refused; JSON of DORADMA_POOL_JSON_MAX bytes is read
 *   and one byte more refused;
 * - N2: a FIFO at the pool name is refused at once, naming it; a pool
 *   owned by another uid is refused unless that uid is allowed; a pool
 *   writable by others is refused;
 * - N3: doradma_pool_reader_copy of 0 bytes is -EINVAL, not SIGFPE;
 * - F1 (round 4): a pool half-made by its creator is -EAGAIN, not refused;
 * - F7 (round 4): doradma_pool_reader_copy_rects copies the planes of a
 *   packed frame into a padded layout in one generation bracket, and
 *   doradma_pool_rects_check refuses rects past the payload or the
 *   destination, or whose sums would wrap.
 * Hostile opens run in a child: a crash or a hang is a failure, not the
 * end of the test.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include <doradma/dora-pool.h>

#include "pool-test.h"

static int failed;
static char dir[] = "/dev/shm/dora-poolrd-XXXXXX";

static void
put64 (uint8_t * p, uint64_t v)
{
  int i;

  for (i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

/* Writes a pool with `json` (json_len bytes) and a 64-byte payload, gen 2,
 * mode 0600 (then `mode`). */
static void
plant (const char *name, const char *json, size_t json_len, mode_t mode)
{
  uint64_t off = doradma_pool_data_offset_for (json_len);
  size_t len = off + 64;
  uint8_t *seg = calloc (1, len);
  char path[512];
  int fd;

  memcpy (seg, "DORADMA", 8);
  put64 (seg + 8, json_len);
  put64 (seg + 16, off);
  put64 (seg + 96, 2);
  memcpy (seg + 256, json, json_len);
  snprintf (path, sizeof path, "%s/%s", dir, name);
  unlink (path);
  fd = open (path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 || write (fd, seg, len) != (ssize_t) len)
    perror ("plant");
  fchmod (fd, mode);
  close (fd);
  free (seg);
}

struct open_job
{
  const char *name;
  int64_t allowed_uid;
  int ret;
  struct doradma_diag diag;
};

static void *
open_thread (void *arg)
{
  struct open_job *j = arg;
  struct doradma_pool_reader *r = NULL;

  j->ret = doradma_pool_reader_open (dir, j->name, j->allowed_uid, &r,
      &j->diag);
  doradma_pool_reader_close (r);
  return NULL;
}

/* Opens `name` in a child, on a thread with a `stack_kib` stack, within
 * 5 s. Returns the open's result; -1000 - signal when the child died, -2000
 * when it hung. The diag comes back through a pipe. */
static int
open_in_child (const char *name, int64_t allowed_uid, size_t stack_kib,
    struct doradma_diag *diag)
{
  int pfd[2], st = 0, i;
  pid_t pid;
  ssize_t n;

  memset (diag, 0, sizeof *diag);
  if (pipe (pfd) != 0)
    return -3000;
  pid = fork ();
  if (pid == 0) {
    struct open_job j = { name, allowed_uid, 0, {0} };
    pthread_attr_t a;
    pthread_t t;

    close (pfd[0]);
    pthread_attr_init (&a);
    pthread_attr_setstacksize (&a, stack_kib * 1024);
    pthread_create (&t, &a, open_thread, &j);
    pthread_join (t, NULL);
    if (write (pfd[1], &j.ret, sizeof j.ret) < 0 ||
        write (pfd[1], j.diag.msg, sizeof j.diag.msg) < 0)
      _exit (2);
    _exit (0);
  }
  close (pfd[1]);
  for (i = 0; i < 500; i++) {
    struct timespec ms = { 0, 10000000 };

    if (waitpid (pid, &st, WNOHANG) == pid)
      break;
    nanosleep (&ms, NULL);
  }
  if (i == 500) {
    kill (pid, SIGKILL);
    waitpid (pid, &st, 0);
    close (pfd[0]);
    return -2000;
  }
  if (WIFSIGNALED (st)) {
    close (pfd[0]);
    return -1000 - WTERMSIG (st);
  }
  i = -3000;
  n = read (pfd[0], &i, sizeof i);
  if (n == sizeof i && read (pfd[0], diag->msg, sizeof diag->msg) < 0)
    diag->msg[0] = '\0';
  close (pfd[0]);
  return i;
}

/* {"size":64,"dtype":"uint8","x": + depth-1 arrays + }: `depth` levels. */
static char *
nested_pool_json (int depth, size_t *len)
{
  GString *s = g_string_new ("{\"size\":64,\"dtype\":\"uint8\",\"x\":");
  int i;

  for (i = 1; i < depth; i++)
    g_string_append_c (s, '[');
  for (i = 1; i < depth; i++)
    g_string_append_c (s, ']');
  if (depth == 1)
    g_string_append (s, "0");
  g_string_append_c (s, '}');
  *len = s->len;
  return g_string_free (s, FALSE);
}

static void
test_depth (void)
{
  struct doradma_diag diag;
  size_t len;
  char *json, *brackets;
  int ret;

  /* N1: far past any bound, on the default stack and on 256 KiB. */
  brackets = malloc (1000000);
  memset (brackets, '[', 1000000);
  plant ("dora_pool_df_node_deep", brackets, 1000000, 0600);
  ret = open_in_child ("dora_pool_df_node_deep", -1, 8192, &diag);
  EXPECT (ret == -EBADMSG, "1,000,000 x '[': %d (%s)", ret, diag.msg);
  plant ("dora_pool_df_node_deep", brackets, 3000, 0600);
  ret = open_in_child ("dora_pool_df_node_deep", -1, 256, &diag);
  EXPECT (ret == -EBADMSG && strstr (diag.msg, "nesting deeper than 32"),
      "3,000 x '[' on a 256 KiB stack: %d (%s)", ret, diag.msg);
  free (brackets);

  /* F9: a NUL in the JSON is named with its offset, not as bad UTF-8 (a
   * fresh pool's JSON may hold NULs while its creator writes it: "not
   * complete yet", -EAGAIN, F1) */
  json = g_strdup ("{\"size\":16,\"dtype\":\"uint8\"}");
  json[5] = '\0';
  plant ("dora_pool_df_node_nul", json, strlen ("{\"size\":16,\"dtype\":"
          "\"uint8\"}"), 0600);
  g_free (json);
  ret = open_in_child ("dora_pool_df_node_nul", -1, 256, &diag);
  EXPECT ((ret == -EBADMSG || ret == -EAGAIN)
      && strstr (diag.msg, "NUL byte at byte 5"),
      "a NUL at byte 5: %d (%s)", ret, diag.msg);

  /* The boundary: 32 levels are accepted, 33 refused. */
  json = nested_pool_json (32, &len);
  plant ("dora_pool_df_node_d32", json, len, 0600);
  g_free (json);
  ret = open_in_child ("dora_pool_df_node_d32", -1, 256, &diag);
  EXPECT (ret == 0, "32 levels: %d (%s)", ret, diag.msg);
  json = nested_pool_json (33, &len);
  plant ("dora_pool_df_node_d33", json, len, 0600);
  g_free (json);
  ret = open_in_child ("dora_pool_df_node_d33", -1, 256, &diag);
  EXPECT (ret == -EBADMSG && strstr (diag.msg, "nesting deeper than 32"),
      "33 levels: %d (%s)", ret, diag.msg);

  /* The length bound: whitespace pads a valid JSON to the limit, then one
   * byte past it. */
  json = g_malloc (DORADMA_POOL_JSON_MAX + 1);
  memset (json, ' ', DORADMA_POOL_JSON_MAX + 1);
  memcpy (json, "{\"size\":64,\"dtype\":\"uint8\"}", 27);
  plant ("dora_pool_df_node_len", json, DORADMA_POOL_JSON_MAX, 0600);
  ret = open_in_child ("dora_pool_df_node_len", -1, 256, &diag);
  EXPECT (ret == 0, "%u bytes of JSON: %d (%s)", DORADMA_POOL_JSON_MAX, ret,
      diag.msg);
  plant ("dora_pool_df_node_len", json, DORADMA_POOL_JSON_MAX + 1, 0600);
  ret = open_in_child ("dora_pool_df_node_len", -1, 256, &diag);
  EXPECT (ret == -EBADMSG && strstr (diag.msg, "longer than"),
      "%u bytes of JSON: %d (%s)", DORADMA_POOL_JSON_MAX + 1, ret, diag.msg);
  g_free (json);
}

static void
test_door (void)
{
  static const char js[] = "{\"size\":64,\"dtype\":\"uint8\"}";
  struct doradma_diag diag;
  char path[512];
  int ret;

  /* N2: a FIFO squats the name. */
  snprintf (path, sizeof path, "%s/dora_pool_df_node_fifo", dir);
  EXPECT (mkfifo (path, 0600) == 0, "mkfifo");
  ret = open_in_child ("dora_pool_df_node_fifo", -1, 8192, &diag);
  EXPECT (ret == -EBADMSG && strstr (diag.msg, "a FIFO"), "FIFO: %d (%s)",
      ret, diag.msg);
  unlink (path);

  /* Writable by others: anyone may rewrite it under us. */
  plant ("dora_pool_df_node_ow", js, sizeof js - 1, 0666);
  ret = open_in_child ("dora_pool_df_node_ow", -1, 8192, &diag);
  EXPECT (ret == -EACCES && strstr (diag.msg, "writable by others"),
      "mode 0666: %d (%s)", ret, diag.msg);

  /* Another owner: refused unless allowed (needs root to chown). */
  plant ("dora_pool_df_node_other", js, sizeof js - 1, 0644);
  snprintf (path, sizeof path, "%s/dora_pool_df_node_other", dir);
  if (geteuid () == 0 && chown (path, 65534, 65534) == 0) {
    ret = open_in_child ("dora_pool_df_node_other", -1, 8192, &diag);
    EXPECT (ret == -EPERM && strstr (diag.msg, "uid 65534"),
        "owned by 65534: %d (%s)", ret, diag.msg);
    ret = open_in_child ("dora_pool_df_node_other", 65534, 8192, &diag);
    EXPECT (ret == 0, "owned by 65534, allowed: %d (%s)", ret, diag.msg);
  } else
    printf ("owner rule across uids: skipped (not root)\n");
}

/* N3: zero bytes (zero pitch) is a refusal, not a division by zero. */
static void
test_copy_zero (void)
{
  static const char js[] = "{\"size\":64,\"dtype\":\"uint8\"}";
  struct doradma_pool_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  int st = 0;
  pid_t pid;

  plant ("dora_pool_df_node_zero", js, sizeof js - 1, 0600);
  EXPECT (doradma_pool_reader_open (dir, "dora_pool_df_node_zero", -1, &r,
          &diag) == 0, "open: %s", diag.msg);
  if (r == NULL)
    return;
  pid = fork ();
  if (pid == 0) {
    uint8_t buf[1];
    uint64_t g;

    _exit (doradma_pool_reader_copy (r, buf, 0, UINT64_MAX, &g,
            NULL) == -EINVAL ? 0 : 1);
  }
  waitpid (pid, &st, 0);
  EXPECT (WIFEXITED (st) && WEXITSTATUS (st) == 0,
      "copy of 0 bytes: %s %d", WIFSIGNALED (st) ? "signal" : "exit",
      WIFSIGNALED (st) ? WTERMSIG (st) : WEXITSTATUS (st));
  doradma_pool_reader_close (r);
}

/* F7 (round 4): two planes of a packed 64-byte payload (8 rows of 5, then
 * 4 rows of 6 from byte 40) into rows 8 apart: every byte where it belongs,
 * the bytes between untouched; then the bounds. */
static void
test_copy_rects (void)
{
  static const char js[] = "{\"size\":64,\"dtype\":\"uint8\"}";
  const struct doradma_pool_rect planes[2] = {
    {.src_offset = 0,.src_pitch = 5,.dst_offset = 0,.dst_pitch = 8,
        .row_bytes = 5,.rows = 8},
    {.src_offset = 40,.src_pitch = 6,.dst_offset = 64,.dst_pitch = 8,
        .row_bytes = 6,.rows = 4},
  };
  struct doradma_pool_rect bad;
  struct doradma_pool_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  uint64_t off = doradma_pool_data_offset_for (sizeof js - 1), g = 0;
  uint8_t payload[64], dst[96], want[96];
  char path[512];
  int fd, i, ret;

  plant ("dora_pool_df_node_rects", js, sizeof js - 1, 0600);
  for (i = 0; i < 64; i++)
    payload[i] = (uint8_t) (i + 1);
  snprintf (path, sizeof path, "%s/dora_pool_df_node_rects", dir);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  EXPECT (fd >= 0 && pwrite (fd, payload, 64, (off_t) off) == 64,
      "payload of %s", path);
  if (fd >= 0)
    close (fd);
  EXPECT (doradma_pool_reader_open (dir, "dora_pool_df_node_rects", -1, &r,
          &diag) == 0, "open: %s", diag.msg);
  if (r == NULL)
    return;
  memset (dst, 0xee, sizeof dst);
  memset (want, 0xee, sizeof want);
  for (i = 0; i < 8; i++)
    memcpy (want + i * 8, payload + i * 5, 5);
  for (i = 0; i < 4; i++)
    memcpy (want + 64 + i * 8, payload + 40 + i * 6, 6);
  ret = doradma_pool_reader_copy_rects (r, dst, sizeof dst, planes, 2,
      UINT64_MAX, &g, &diag);
  EXPECT (ret == 0 && g == 2, "copy_rects: %d (%s), gen %" PRIu64, ret,
      diag.msg, g);
  EXPECT (memcmp (dst, want, sizeof dst) == 0, "copy_rects: bytes placed");
  /* the same generation again: nothing new */
  EXPECT (doradma_pool_reader_copy_rects (r, dst, sizeof dst, planes, 2, 2,
          &g, NULL) == -EAGAIN, "copy_rects of the last generation");

  /* the bounds: one byte past the payload, past the destination, sums
   * that would wrap, rows wider than their pitch, nothing at all */
  EXPECT (doradma_pool_rects_check (planes, 2, 64, 96, NULL) == 0,
      "the planes fit");
  bad = planes[1];
  bad.src_offset = 41;
  ret = doradma_pool_rects_check (&bad, 1, 64, 96, &diag);
  EXPECT (ret == -EINVAL && strstr (diag.msg, "64-byte payload"),
      "a plane one byte past the payload: %d (%s)", ret, diag.msg);
  EXPECT (doradma_pool_reader_copy_rects (r, dst, sizeof dst, &bad, 1,
          UINT64_MAX, &g, NULL) == -EINVAL, "copy_rects past the payload");
  /* the second plane's last byte is byte 93 (64 + 3 * 8 + 6 - 1) */
  EXPECT (doradma_pool_rects_check (planes, 2, 64, 94, NULL) == 0,
      "the planes fit a destination that ends at their last byte");
  EXPECT (doradma_pool_rects_check (planes, 2, 64, 93, &diag) == -EINVAL &&
      strstr (diag.msg, "93-byte destination"),
      "a plane one byte past the destination (%s)", diag.msg);
  bad = planes[1];
  bad.src_offset = UINT64_MAX - 2;
  EXPECT (doradma_pool_rects_check (&bad, 1, 64, 96, NULL) == -EINVAL,
      "a source offset that wraps");
  bad = planes[1];
  bad.dst_offset = SIZE_MAX - 2;
  EXPECT (doradma_pool_rects_check (&bad, 1, 64, SIZE_MAX, NULL) == -EINVAL,
      "a destination offset that wraps");
  bad = planes[0];
  bad.rows = SIZE_MAX;
  EXPECT (doradma_pool_rects_check (&bad, 1, 64, SIZE_MAX, NULL) == -EINVAL,
      "rows that wrap");
  bad = planes[0];
  bad.row_bytes = 6;
  EXPECT (doradma_pool_rects_check (&bad, 1, 64, 96, NULL) == -EINVAL,
      "rows wider than their source pitch");
  bad = planes[0];
  bad.dst_pitch = 4;
  EXPECT (doradma_pool_rects_check (&bad, 1, 64, 96, NULL) == -EINVAL,
      "rows wider than their destination pitch");
  EXPECT (doradma_pool_rects_check (planes, 0, 64, 96, NULL) == -EINVAL,
      "no rect");
  doradma_pool_reader_close (r);
}

/* F1 (round 4): a pool that dora's crate is still creating, seen at each
 * step of its creation (shm_open O_EXCL, ftruncate, then the magic,
 * json_len, data_offset and the JSON into zero-filled memory): every step
 * but the last is -EAGAIN "not complete yet", not a refusal (before: bad
 * magic / too small, -EBADMSG); the finished pool opens. A planted pool
 * that is complete but wrong stays -EBADMSG. */
static void
test_half_made (void)
{
  static const char js[] = "{\"size\":64,\"dtype\":\"uint8\"}";
  static const char *name = "dora_pool_df_node_half";
  struct doradma_pool_reader *r = NULL;
  struct doradma_diag diag = { 0 };
  uint64_t off = doradma_pool_data_offset_for (sizeof js - 1);
  size_t half = (sizeof js - 1) / 2;
  uint8_t *seg = NULL;
  char path[512];
  int fd, ret, step;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  fd = open (path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  EXPECT (fd >= 0, "create %s", path);
  if (fd < 0)
    return;
  for (step = 0; step < 6; step++) {
    switch (step) {
      case 1:
        EXPECT (ftruncate (fd, off + 64) == 0, "ftruncate");
        seg = calloc (1, off + 64);
        break;
      case 2:
        memcpy (seg, "DORADMA", 8);
        break;
      case 3:
        put64 (seg + 8, sizeof js - 1);
        break;
      case 4:
        put64 (seg + 16, off);
        memcpy (seg + 256, js, half);
        break;
      case 5:
        memcpy (seg + 256 + half, js + half, sizeof js - 1 - half);
        break;
    }
    if (seg != NULL)
      EXPECT (pwrite (fd, seg, off + 64, 0) == (ssize_t) (off + 64), "write");
    ret = doradma_pool_reader_open (dir, name, -1, &r, &diag);
    if (step < 5)
      EXPECT (ret == -EAGAIN && strstr (diag.msg, "not complete yet"),
          "half-made, step %d: %d (%s)", step, ret, diag.msg);
    else
      EXPECT (ret == 0, "complete: %d (%s)", ret, diag.msg);
    doradma_pool_reader_close (r);
    r = NULL;
  }
  /* complete but wrong: no waiting for it */
  memcpy (seg, "XORADMA", 8);
  EXPECT (pwrite (fd, seg, off + 64, 0) == (ssize_t) (off + 64), "write");
  ret = doradma_pool_reader_open (dir, name, -1, &r, &diag);
  EXPECT (ret == -EBADMSG && strstr (diag.msg, "bad magic"),
      "bad magic: %d (%s)", ret, diag.msg);
  doradma_pool_reader_close (r);
  close (fd);
  free (seg);
}

int
main (void)
{
  char cmd[600];

  if (mkdtemp (dir) == NULL)
    return 1;
  test_depth ();
  test_door ();
  test_copy_zero ();
  test_copy_rects ();
  test_half_made ();
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    failed++;
  if (failed)
    fprintf (stderr, "%d checks failed\n", failed);
  else
    printf ("all checks passed\n");
  return failed ? 1 : 0;
}
