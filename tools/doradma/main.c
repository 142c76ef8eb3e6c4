/* doradma: inspect doradma channels (list, show, watch) and remove the
 * objects of dead ones (clean). Read-only except clean. docs/cli.md. */
#include "tool.h"

#include <stdio.h>
#include <string.h>

static char *opt_shm_dir;

static const struct
{
  const char *name;
  int (*run) (int argc, char **argv);
  const char *what;
} commands[] = {
  {"list", tool_list, "every channel in the shm directory, one line each"},
  {"show", tool_show,
      "everything in one channel's segment, validated part by part"},
  {"watch", tool_watch,
      "a live view: frames/s, lag per reader, newest frame's age"},
  {"clean", tool_clean, "remove the objects of channels whose writer is dead"},
};

gboolean
tool_parse (const char *command, const char *parameters, const char *summary,
    GOptionEntry * entries, int *argc, char ***argv)
{
  GOptionEntry common[] = {
    {"shm-dir", 'd', 0, G_OPTION_ARG_FILENAME, &opt_shm_dir,
        "Shm directory (default: $DORADMA_SHM_DIR, else /dev/shm)", "DIR"},
    {NULL}
  };
  /* main() named the program "doradma COMMAND": the usage line reads
   * "doradma show [OPTION…] CHANNEL", options after the command */
  GOptionContext *ctx = g_option_context_new (parameters);
  GError *err = NULL;
  gboolean ok;

  g_option_context_set_summary (ctx, summary);
  g_option_context_add_main_entries (ctx, common, NULL);
  if (entries)
    g_option_context_add_main_entries (ctx, entries, NULL);
  ok = g_option_context_parse (ctx, argc, argv, &err);
  if (!ok) {
    fprintf (stderr, "doradma %s: %s (see doradma %s --help)\n", command,
        err->message, command);
    g_error_free (err);
  }
  g_option_context_free (ctx);
  return ok;
}

const char *
tool_shm_dir (void)
{
  return doradma_shm_dir (opt_shm_dir);
}

gboolean
tool_interval_ok (double seconds, double lo, double hi)
{
  return seconds >= lo && seconds <= hi;        /* false for NaN */
}

void
tool_not_found (const char *command, const char *channel)
{
  fprintf (stderr, "doradma %s: no channel \"%s\" in %s", command, channel,
      tool_shm_dir ());
  if (g_str_has_prefix (channel, "doradma.") && channel[8] != '\0')
    fprintf (stderr, " (did you mean \"%s\"? channel names come without "
        "the \"doradma.\" prefix)", channel + 8);
  fprintf (stderr, "\n");
}

/* `channel` for a message: printable characters as they are, the others
 * (and bytes that are not UTF-8) escaped, so no terminal escape gets out */
static GString *
name_text (const char *channel)
{
  GString *t = g_string_new (NULL);
  const char *p = channel;

  while (*p) {
    gunichar c = g_utf8_get_char_validated (p, -1);

    if (c == (gunichar) - 1 || c == (gunichar) - 2) {
      g_string_append_printf (t, "\\x%02x", (unsigned char) *p++);
      continue;
    }
    if (g_unichar_isprint (c))
      g_string_append_unichar (t, c);
    else
      g_string_append_printf (t, "\\u%04x", c);
    p = g_utf8_next_char (p);
  }
  return t;
}

/* Why doradma_name_validate refused `channel`, counting characters: the
 * first one it does not allow, or the length; NULL when the lib's words
 * count nothing (empty, a leading '.', ".."). */
static char *
name_fault (const char *channel)
{
  const char *p;
  glong at;

  for (p = channel, at = 1; *p; at++) {
    gunichar c = g_utf8_get_char_validated (p, -1);
    char buf[8] = { 0 }, *fault;
    GString *one;

    if (c == (gunichar) - 1 || c == (gunichar) - 2)
      return g_strdup_printf ("its byte %" G_GSIZE_FORMAT " (0x%02x) is not "
          "UTF-8; allowed: A-Z a-z 0-9 _ . -", (gsize) (p - channel) + 1,
          (unsigned char) *p);
    if (!(c < 0x80 && (g_ascii_isalnum (c) || c == '_' || c == '.'
                || c == '-'))) {
      g_unichar_to_utf8 (c, buf);
      one = name_text (buf);
      fault = g_strdup_printf ("its character %ld, '%s' (U+%04X), is not "
          "allowed; allowed: A-Z a-z 0-9 _ . -", at, one->str, c);
      g_string_free (one, TRUE);
      return fault;
    }
    p = g_utf8_next_char (p);
  }
  /* every character is one byte here */
  if (strlen (channel) > DORADMA_NAME_MAX)
    return g_strdup_printf ("it has %" G_GSIZE_FORMAT " characters, at most "
        "%u", strlen (channel), DORADMA_NAME_MAX);
  return NULL;
}

gboolean
tool_name_ok (const char *command, const char *channel)
{
  struct doradma_diag diag = { 0 };
  GString *name;
  char *fault;

  if (doradma_name_validate (channel, &diag) == 0)
    return TRUE;
  /* the lib counts bytes; a user counts characters (review R4-C2) */
  fault = name_fault (channel);
  if (fault == NULL) {
    fprintf (stderr, "doradma %s: %s\n", command, diag.msg);
    return FALSE;
  }
  name = name_text (channel);
  fprintf (stderr, "doradma %s: \"%s\" is not a channel name: %s\n", command,
      name->str, fault);
  g_string_free (name, TRUE);
  g_free (fault);
  return FALSE;
}

static void
usage (FILE * out)
{
  size_t i;

  fprintf (out, "Usage: doradma COMMAND [OPTIONS]\n\n"
      "Inspect doradma channels; never joins one as a reader.\n\nCommands:\n");
  for (i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-6s %s\n", commands[i].name, commands[i].what);
  fprintf (out, "\n'doradma COMMAND --help' describes a command's options.\n"
      "Exit codes: 0 ok, 1 channel not found or not readable, 2 bad usage,\n"
      "3 invalid segment, 4 clean left a live channel alone, 5 clean left\n"
      "something alone that is not provably a dead doradma channel of ours.\n"
      "Reference: docs/cli.md; 'doradma --version'.\n");
}

int
main (int argc, char **argv)
{
  size_t i;

  g_set_prgname ("doradma");
  if (argc < 2) {
    usage (stderr);
    return TOOL_EXIT_USAGE;
  }
  if (strcmp (argv[1], "--version") == 0 || strcmp (argv[1], "-V") == 0) {
    printf ("doradma %s (JSON schema %d)\n", DORADMA_TOOL_VERSION,
        TOOL_JSON_SCHEMA);
    return TOOL_EXIT_OK;
  }
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0) {
    usage (stdout);
    return TOOL_EXIT_OK;
  }
  for (i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0) {
      gchar *prgname = g_strdup_printf ("doradma %s", commands[i].name);

      g_set_prgname (prgname);
      g_free (prgname);
      return commands[i].run (argc - 1, argv + 1);
    }
  if (argv[1][0] == '-')
    fprintf (stderr, "doradma: options go after the command: doradma "
        "COMMAND %s ...\n\n", argv[1]);
  else
    fprintf (stderr, "doradma: unknown command \"%s\"\n\n", argv[1]);
  usage (stderr);
  return TOOL_EXIT_USAGE;
}
