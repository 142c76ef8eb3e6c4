/* Helpers of the doradma command's tests; see cli-test.h. */
#include "cli-test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *cli_dir;

static int
cli_run_v (char **out, char **errout, const char *command, va_list ap)
{
  const char *tool = getenv ("DORADMA_TOOL");
  GPtrArray *argv = g_ptr_array_new ();
  GError *err = NULL;
  char *sout = NULL, *serr = NULL;
  const char *a;
  int status = 0, code;

  if (tool == NULL) {
    t_log ("DORADMA_TOOL is not set (run through meson test)");
    return -1;
  }
  g_ptr_array_add (argv, (char *) tool);
  g_ptr_array_add (argv, (char *) command);
  g_ptr_array_add (argv, (char *) "--shm-dir");
  g_ptr_array_add (argv, cli_dir);
  while ((a = va_arg (ap, const char *)) != NULL)
      g_ptr_array_add (argv, (char *) a);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL,
          NULL, &sout, &serr, &status, &err)) {
    t_log ("cannot run %s: %s", tool, err->message);
    g_error_free (err);
    g_ptr_array_free (argv, TRUE);
    return -1;
  }
  g_ptr_array_free (argv, TRUE);
  if (serr && serr[0])
    fprintf (stderr, "[doradma %s stderr] %s", command, serr);
  if (errout)
    *errout = serr;
  else
    g_free (serr);
  code = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
  if (out)
    *out = sout;
  else
    g_free (sout);
  return code;
}

int
cli_run (char **out, const char *command, ...)
{
  va_list ap;
  int code;

  va_start (ap, command);
  code = cli_run_v (out, NULL, command, ap);
  va_end (ap);
  return code;
}

int
cli_run_err (char **out, char **err, const char *command, ...)
{
  va_list ap;
  int code;

  va_start (ap, command);
  code = cli_run_v (out, err, command, ap);
  va_end (ap);
  return code;
}

GPid
cli_launch (char **envp, const char *pipeline)
{
  GError *err = NULL;
  char **argv = NULL;
  char *cmd = g_strdup_printf ("gst-launch-1.0 -q %s", pipeline);
  GPid pid = 0;

  g_shell_parse_argv (cmd, NULL, &argv, NULL);
  if (!g_spawn_async (NULL, argv, envp, G_SPAWN_SEARCH_PATH |
          G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
          &pid, &err)) {
    t_log ("%s: %s", cmd, err->message);
    g_error_free (err);
  }
  g_strfreev (argv);
  g_free (cmd);
  return pid;
}

void
cli_stop (GPid pid)
{
  if (pid > 0) {
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
  }
}

JsonNode *
cli_parse (const char *text)
{
  JsonParser *p = json_parser_new ();
  GError *err = NULL;
  JsonNode *root = NULL;

  if (text == NULL || !json_parser_load_from_data (p, text, -1, &err)) {
    t_log ("not JSON: %s\n%s", err ? err->message : "no output",
        text ? text : "");
    g_clear_error (&err);
  } else if (json_parser_get_root (p) == NULL
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (p))) {
    t_log ("JSON root is not an object");
  } else {
    root = json_node_copy (json_parser_get_root (p));
  }
  g_object_unref (p);
  return root;
}

JsonNode *
cli_get (JsonNode * root, const char *path)
{
  char **parts = g_strsplit (path, ".", -1);
  JsonNode *n = root;
  int i;

  for (i = 0; parts[i] && n; i++) {
    if (!JSON_NODE_HOLDS_OBJECT (n)) {
      n = NULL;
      break;
    }
    n = json_object_get_member (json_node_get_object (n), parts[i]);
  }
  g_strfreev (parts);
  return n;
}

gint64
cli_int (JsonNode * root, const char *path, gint64 absent)
{
  JsonNode *n = cli_get (root, path);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_INT64)
    return absent;
  return json_node_get_int (n);
}

const char *
cli_str (JsonNode * root, const char *path)
{
  JsonNode *n = cli_get (root, path);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (n);
}

gboolean
cli_bool (JsonNode * root, const char *path)
{
  JsonNode *n = cli_get (root, path);

  return n != NULL && JSON_NODE_HOLDS_VALUE (n)
      && json_node_get_value_type (n) == G_TYPE_BOOLEAN
      && json_node_get_boolean (n);
}

JsonNode *
cli_find (JsonNode * root, const char *array_path, const char *key,
    const char *val, gint64 ival)
{
  JsonNode *a = cli_get (root, array_path);
  JsonArray *arr;
  guint i;

  if (a == NULL || !JSON_NODE_HOLDS_ARRAY (a))
    return NULL;
  arr = json_node_get_array (a);
  for (i = 0; i < json_array_get_length (arr); i++) {
    JsonNode *e = json_array_get_element (arr, i);
    if (val ? g_strcmp0 (cli_str (e, key), val) == 0 :
        cli_int (e, key, -1) == ival)
      return e;
  }
  return NULL;
}

static int
slurp (const char *path, uint8_t ** buf, size_t *len)
{
  GError *err = NULL;
  gsize n;

  if (!g_file_get_contents (path, (char **) buf, &n, &err)) {
    t_log ("%s", err->message);
    g_error_free (err);
    return -1;
  }
  *len = n;
  return 0;
}

int
cli_template (struct cli_image *im, uint32_t slots, uint64_t slot_size)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag;
  char ch[64], path[4096];
  int ret = -1;

  memset (im, 0, sizeof *im);
  t_channel (ch, sizeof ch, "tmpl");
  t_writer_config (&wc, ch, cli_dir, slots, slot_size);
  if (doradma_writer_create (&wc, &w, &diag) != 0) {
    t_log ("writer_create: %s", diag.msg);
    return -1;
  }
  if (t_publish (w, DORADMA_POLICY_LATEST, 0, slot_size, NULL, NULL) != 0)
    goto out;
  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, ch);
  if (slurp (path, &im->data, &im->len) != 0)
    goto out;
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, ch);
  if (slurp (path, &im->ctl, &im->ctl_len) != 0)
    goto out;
  im->rcb_offset = ((struct doradma_shm_header *) im->data)->data_offset +
      slots * doradma_writer_slot_stride (w);
  ret = 0;
out:
  doradma_writer_close (w);
  return ret;
}

static int
write_all (const char *path, const uint8_t * buf, size_t len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

  if (fd < 0 || write (fd, buf, len) != (ssize_t) len) {
    t_log ("write %s: %s", path, strerror (errno));
    if (fd >= 0)
      close (fd);
    return -1;
  }
  close (fd);
  return 0;
}

int
cli_install (const struct cli_image *im, const char *channel)
{
  char path[4096];

  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, channel);
  if (write_all (path, im->data, im->len) != 0)
    return -1;
  if (im->ctl_len == 0)
    return 0;
  snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, channel);
  return write_all (path, im->ctl, im->ctl_len);
}

void
cli_image_free (struct cli_image *im)
{
  g_free (im->data);
  g_free (im->ctl);
  memset (im, 0, sizeof *im);
}
