/* Description: the doradma command applies the reader's size rule to a
 * live channel (review round 4, R4-4). A live writer's data object is grown
 * by 4 KiB (ftruncate), as a peer with write access could: the lib's
 * doradma_reader_open refuses it (-EBADMSG, field object.size). Before,
 * `show` said `segment ...: ok` and exited 0 and `list` said `live`. Now
 * `show --json` names field object.size with the reader's own message,
 * status `invalid`, exit 3; the text form names the field and the reader's
 * words, exit 3; `list` and `list --json` say `invalid`. Put back to its
 * size, the channel is `live` and valid again (the rule, not the writer,
 * made the difference). */
#include "cli-test.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What doradma_reader_open says about the channel now: its return value,
 * and its diag in *diag. */
static int
reader_verdict (const char *ch, struct doradma_diag *diag)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  int ret;

  memset (diag, 0, sizeof *diag);
  t_reader_config (&rc, ch, cli_dir, 0);
  ret = doradma_reader_open (&rc, &r, diag);
  if (ret == 0)
    doradma_reader_close (r);
  return ret;
}

/* The status column of `ch`'s line in `doradma list`'s text. */
static char *
list_status (const char *ch)
{
  char *out = NULL, **lines, *status = NULL;
  int i;

  if (cli_run (&out, "list", "--interval", "0", NULL) != 0 || out == NULL) {
    g_free (out);
    return NULL;
  }
  lines = g_strsplit (out, "\n", -1);
  for (i = 0; lines[i] && status == NULL; i++) {
    char **cols = g_strsplit_set (lines[i], " ", -1);
    int c, n = 0;

    /* columns are padded with runs of spaces: skip the empty ones */
    for (c = 0; cols[c]; c++) {
      if (cols[c][0] == '\0')
        continue;
      if (n == 0 && strcmp (cols[c], ch) != 0)
        break;
      if (n == 1)
        status = g_strdup (cols[c]);
      n++;
    }
    g_strfreev (cols);
  }
  g_strfreev (lines);
  g_free (out);
  return status;
}

static int
check_grown (const char *ch, const struct doradma_diag *reader)
{
  char *out = NULL, *status;
  JsonNode *root, *e;
  int fails = 0, code;

  code = cli_run (&out, "show", "--json", ch, NULL);
  root = cli_parse (out);
  T_EXPECT (fails, code == 3 && root
      && g_strcmp0 (cli_str (root, "status"), "invalid") == 0
      && !cli_bool (root, "valid") && !cli_bool (root, "segment.valid")
      && g_strcmp0 (cli_str (root, "segment.field"), "object.size") == 0
      && g_strcmp0 (cli_str (root, "error.field"), "object.size") == 0
      && g_strcmp0 (cli_str (root, "segment.message"), reader->msg) == 0,
      "show --json of the grown object: exit %d, want 3, field object.size "
      "and the reader's words \"%s\":\n%s", code, reader->msg, out);
  if (root)
    json_node_unref (root);
  g_free (out);

  code = cli_run (&out, "show", "--interval", "0", ch, NULL);
  T_EXPECT (fails, code == 3 && out && strstr (out, reader->msg)
      && strstr (out, "object.size") && strstr (out, "status invalid")
      && !strstr (out, "RCB line 0, default caps): ok"),
      "show of the grown object: exit %d, want 3:\n%s", code, out);
  g_free (out);

  status = list_status (ch);
  T_EXPECT (fails, g_strcmp0 (status, "invalid") == 0,
      "list says %s, want invalid", status ? status : "(no line)");
  g_free (status);

  code = cli_run (&out, "list", "--json", "--interval", "0", NULL);
  root = cli_parse (out);
  e = root ? cli_find (root, "channels", "name", ch, 0) : NULL;
  T_EXPECT (fails, code == 0 && e
      && g_strcmp0 (cli_str (e, "status"), "invalid") == 0
      && !cli_bool (e, "valid")
      && g_strcmp0 (cli_str (e, "error.field"), "object.size") == 0,
      "list --json of the grown object: exit %d\n%s", code, out);
  if (root)
    json_node_unref (root);
  g_free (out);
  return fails;
}

int
main (void)
{
  struct doradma_writer_config wc;
  struct doradma_writer *w = NULL;
  struct doradma_diag diag, reader;
  char ch[64], path[4096], *status;
  struct stat st;
  int fd = -1, fails = 0, ret;

  t_watchdog (100);
  cli_dir = t_shm_dir_new (NULL, "cli-grown");
  if (cli_dir == NULL)
    return T_EXIT_FAIL;
  t_channel (ch, sizeof ch, "grown");
  t_writer_config (&wc, ch, cli_dir, 4, 4096);
  T_RC (doradma_writer_create (&wc, &w, &diag), 0, diag.msg);
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0,
      "publish");
  T_RC (reader_verdict (ch, &reader), 0, reader.msg);

  snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, ch);
  fd = open (path, O_RDWR | O_CLOEXEC);
  T_CHECK (fd >= 0 && fstat (fd, &st) == 0, "open %s: %s", path,
      g_strerror (errno));
  T_CHECK (ftruncate (fd, st.st_size + 4096) == 0, "grow: %s",
      g_strerror (errno));
  ret = reader_verdict (ch, &reader);
  t_log ("grown by 4 KiB: reader_open %s [%s] %s", t_errname (ret),
      reader.field ? reader.field : "-", reader.msg);
  T_CHECK (ret == -EBADMSG && g_strcmp0 (reader.field, "object.size") == 0,
      "the reader opened a grown object: the test no longer tests R4-4");
  fails += check_grown (ch, &reader);

  /* back to its size: live again, so the size alone made it invalid */
  T_CHECK (ftruncate (fd, st.st_size) == 0, "shrink back");
  T_RC (reader_verdict (ch, &reader), 0, reader.msg);
  T_EXPECT (fails, cli_run (NULL, "show", "--interval", "0", ch, NULL) == 0,
      "show of the restored object: exit 0");
  status = list_status (ch);
  T_EXPECT (fails, g_strcmp0 (status, "live") == 0,
      "list of the restored object says %s, want live", status);
  g_free (status);

  close (fd);
  doradma_writer_close (w);
  t_shm_dir_remove (cli_dir);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
err:
  if (fd >= 0)
    close (fd);
  if (w)
    doradma_writer_close (w);
  t_shm_dir_remove (cli_dir);
  return T_EXIT_FAIL;
}
