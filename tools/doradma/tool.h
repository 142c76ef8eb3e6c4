/* The doradma command: one file per subcommand, this header and
 * channels.c (finding objects in the shm directory), describe.c (the
 * words and JSON members shared by list, show and watch). Every read goes
 * through lib/doradma/inspect.h: the tool never joins a channel. */
#ifndef DORADMA_TOOL_H
#define DORADMA_TOOL_H

#include <glib.h>
#include <json-glib/json-glib.h>

#include <doradma/inspect.h>

struct tool_look;

/* Exit codes (docs/cli.md). */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_NOT_FOUND 1
#define TOOL_EXIT_USAGE 2
#define TOOL_EXIT_INVALID 3
#define TOOL_EXIT_LIVE 4          /* clean: left alone, its writer is alive */
#define TOOL_EXIT_LEFT 5          /* clean: left alone, not provably ours and dead */

/* Version of the JSON documents' layout (member "schema", docs/cli.md):
 * raised when a member changes meaning or goes away. */
#define TOOL_JSON_SCHEMA 1

/* Parses the subcommand's options (--help included) with GOptionContext and
 * the common --shm-dir option. Returns TRUE, or FALSE after printing the
 * error (exit with TOOL_EXIT_USAGE). */
gboolean tool_parse (const char *command, const char *parameters,
    const char *summary, GOptionEntry * entries, int *argc, char ***argv);
/* A number of seconds in [lo, hi] (NaN is not). */
gboolean tool_interval_ok (double seconds, double lo, double hi);
/* "no channel X in DIR", with "did you mean Y" for a name as ls shows it. */
void tool_not_found (const char *command, const char *channel);
/* doradma_name_validate's verdict on `channel`; when it refuses, says
 * why on stderr, counting characters (not bytes), and returns FALSE (exit
 * with TOOL_EXIT_USAGE). */
gboolean tool_name_ok (const char *command, const char *channel);
/* The shm directory in use (--shm-dir, else DORADMA_SHM_DIR, else /dev/shm). */
const char *tool_shm_dir (void);

/* What the shm directory holds, sorted by name. */
struct tool_entry {
  char *name;                   /* directory entry */
  char channel[DORADMA_NAME_MAX + 1];
  enum doradma_object_kind kind;
  guint64 size;
  gboolean regular;             /* a regular file (lstat) */
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
 * slots, readers and their states, frames). prev: the previous look or
 * NULL. */
void tool_json_summary (JsonBuilder * b, const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now);
/* "unreadable" when the data object could not be opened for lack of
 * permission (liveness unknown), else doradma_inspect_status. */
const char *tool_status (const struct doradma_inspect *in);
/* The writer's liveness: 1, 0, or -1 when it cannot be known. */
int tool_writer_alive (const struct doradma_inspect *in);
/* Member `name`: the integer v. */
void tool_json_uint (JsonBuilder * b, const char *name, guint64 v);
/* Opens the root object with "schema" and "tool_version". */
void tool_json_begin (JsonBuilder * b);
/* Prints a JSON root to stdout, pretty. */
void tool_json_print (JsonBuilder * b);
/* Prints a JSON root to stdout on one line (watch: one per refresh). */
void tool_json_print_line (JsonBuilder * b);
/* A channel of list and watch: its summary and, when valid, its
 * reader_entries. */
void tool_json_channel (JsonBuilder * b, const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now);
/* "field: message" of the first error, or NULL. */
const char *tool_error_text (const struct doradma_inspect *in);

/* Reader states (docs/cli.md, "Reader states"), readers.c. */
enum tool_health {
  TOOL_KEEPING_UP,
  TOOL_SKIPPING,
  TOOL_STALLED,
  TOOL_DEAD,
  TOOL_UNKNOWN,
  TOOL_STOPPED,                 /* reads no more; views it holds pin slots */
  TOOL_N_HEALTH
};
const char *tool_health_name (enum tool_health h);
/* An entry worth showing: not FREE, or holding a lease or its lock. */
gboolean tool_reader_in_use (const struct doradma_inspect_reader *rd);

/* What a previous look saw, for rates over the time between two looks. */
struct tool_look {
  guint64 dev, ino, when, newest;
  guint64 token[DORADMA_MAX_READERS];
  guint64 delivered[DORADMA_MAX_READERS];
  guint64 skipped[DORADMA_MAX_READERS];
};
void tool_look_take (struct tool_look *look, const struct doradma_inspect *in,
    guint64 now);
/* The previous look was at the same object. */
gboolean tool_look_same (const struct tool_look *prev,
    const struct doradma_inspect *in);

/* One reader entry judged: counts since it joined (the entry's counters),
 * rates between the looks (< 0 without a previous look), its state. */
struct tool_reader_view {
  enum tool_health health;
  const char *why;
  gboolean counted;             /* the entry carries delivery counters */
  guint64 delivered, skipped, published, lag;
  double delivered_rate, skipped_rate, published_rate;
};
void tool_reader_view (const struct doradma_inspect *in, guint32 r,
    const struct tool_look *prev, guint64 now, struct tool_reader_view *v);
/* States of a channel's readers counted, and the slots dead and stopped
 * ones pin. */
struct tool_tally {
  guint32 count[TOOL_N_HEALTH];
  guint64 pinned_by_dead;       /* slot bits */
  guint64 pinned_by_stopped;    /* slot bits */
};
void tool_reader_tally (const struct doradma_inspect *in,
    const struct tool_look *prev, guint64 now, struct tool_tally *t);
guint32 tool_popcount (guint64 bits);
char *tool_tally_text (const struct tool_tally *t);    /* "1 skipping, ..." */
char *tool_rate_text (double rate);    /* "19.7", "-" */
void tool_json_reader_view (JsonBuilder * b, const struct tool_reader_view *v);
void tool_json_tally (JsonBuilder * b, const struct tool_tally *t);
/* "next" or "latest". */
const char *tool_reader_mode (const struct doradma_inspect_reader *rd);
/* "reader_entries": index, pid, mode, state, frames, leases per reader in
 * use (list's; show has every field of the entry). */
void tool_json_readers_brief (JsonBuilder * b,
    const struct doradma_inspect *in, const struct tool_look *prev,
    guint64 now);

/* Some reader entry's lock is held: its state needs a second look. */
gboolean tool_has_live_reader (const struct doradma_inspect *in);

int tool_list (int argc, char **argv);
int tool_show (int argc, char **argv);
int tool_watch (int argc, char **argv);
int tool_clean (int argc, char **argv);

#endif
