/* The doradma command: one file per subcommand, this header and
 * channels.c (finding objects in the shm directory), describe.c (the
 * words and JSON members shared by list, show and watch). Every read goes
 * through lib/doradma/inspect.h: the tool never joins a channel. */
#ifndef DORADMA_TOOL_H
#define DORADMA_TOOL_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include <doradma/inspect.h>

/* Exit codes (docs/cli.md). */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_NOT_FOUND 1
#define TOOL_EXIT_USAGE 2
#define TOOL_EXIT_INVALID 3

/* Parses the subcommand's options (--help included) with GOptionContext and
 * the common --shm-dir option. Returns TRUE, or FALSE after printing the
 * error (exit with TOOL_EXIT_USAGE). */
gboolean tool_parse (const char *command, const char *parameters,
    const char *summary, GOptionEntry * entries, int *argc, char ***argv);
/* The shm directory in use (--shm-dir, else DORADMA_SHM_DIR, else /dev/shm). */
const char *tool_shm_dir (void);

/* What the shm directory holds, sorted by name. */
struct tool_entry {
  char *name;                   /* directory entry */
  char channel[DORADMA_NAME_MAX + 1];
  enum doradma_object_kind kind;
  guint64 size;
};
GPtrArray *tool_scan (GError ** error);        /* of struct tool_entry */
/* Channels with a data object, and control objects without one. */
gboolean tool_has_data (GPtrArray * entries, const char *channel);

/* doradma_inspect_channel in the tool's shm directory, then every text
 * taken from the segment made printable (no terminal escapes). */
int tool_inspect (const char *channel, struct doradma_inspect *in);
void tool_sanitize (struct doradma_inspect *in);
void tool_printable (char *s);

/* Channel facts in words and in JSON, shared by list, show and watch. */
const char *tool_caps_now (const struct doradma_inspect *in);
char *tool_bytes (guint64 bytes);      /* "8.0 MiB" */
char *tool_duration (guint64 ns);      /* "12.3 ms", "-" for TIME_NONE */
const char *tool_reader_state (guint32 state);
guint64 tool_now_mono (void);
/* JSON object of `v`: {"rc", "errno", "field", "message"} or {"rc":0}. */
void tool_json_verdict (JsonBuilder * b, const char *member,
    const struct doradma_inspect_verdict *v);
/* The summary members list and show share (name, status, writer, caps,
 * slots, readers, frames). */
void tool_json_summary (JsonBuilder * b, const struct doradma_inspect *in);
/* Prints a JSON root to stdout, pretty. */
void tool_json_print (JsonBuilder * b);
/* "field: message" of the first error, or NULL. */
const char *tool_error_text (const struct doradma_inspect *in);

int tool_list (int argc, char **argv);
int tool_show (int argc, char **argv);
int tool_watch (int argc, char **argv);
int tool_clean (int argc, char **argv);

#endif
