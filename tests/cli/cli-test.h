/* Description: helpers of the doradma command's tests (suite "cli"): run
 * the tool ($DORADMA_TOOL) on a private shm directory, parse its --json
 * output with json-glib, look members up by path. Expected values always
 * come from what the test itself created, never from the tool. */
#ifndef DORADMA_CLI_TEST_H
#define DORADMA_CLI_TEST_H

#include "helpers.h"

#include <glib.h>
#include <json-glib/json-glib.h>

/* The private shm directory every run uses (--shm-dir). */
extern char *cli_dir;

/* Runs `doradma <command> --shm-dir <cli_dir> args...` (NULL-terminated).
 * Returns the exit code (128 + signal when killed, -1 when it could not
 * run); *out (if not NULL) gets stdout (g_free). stderr goes to the log. */
int cli_run (char **out, const char *command, ...) G_GNUC_NULL_TERMINATED;
/* cli_run, and *err (if not NULL) gets stderr (g_free). */
int cli_run_err (char **out, char **err, const char *command, ...)
    G_GNUC_NULL_TERMINATED;

/* gst-launch-1.0 -q PIPELINE in the background with environment envp
 * (stdout to /dev/null); its pid, 0 (logged) when it could not start.
 * cli_stop kills it (SIGKILL) and reaps it; 0 is ignored. */
GPid cli_launch (char **envp, const char *pipeline);
void cli_stop (GPid pid);

/* Parses JSON text; NULL (logged) when it is not one JSON object. */
JsonNode *cli_parse (const char *text);
/* Member at a dotted path ("writer.pid"), NULL if absent. */
JsonNode *cli_get (JsonNode * root, const char *path);
gint64 cli_int (JsonNode * root, const char *path, gint64 absent);
const char *cli_str (JsonNode * root, const char *path);
gboolean cli_bool (JsonNode * root, const char *path);
/* The element of array `array_path` whose member `key` is the string `val`
 * or the integer `ival` (val NULL). */
JsonNode *cli_find (JsonNode * root, const char *array_path, const char *key,
    const char *val, gint64 ival);

/* Copies of both objects of a channel: a template for hostile variants. */
struct cli_image {
  uint8_t *data;
  size_t len;
  uint8_t *ctl;
  size_t ctl_len;
  uint64_t rcb_offset;
};
/* A writer creates `channel` in cli_dir (slots x slot_size), publishes one
 * frame, the objects are copied, the writer closes. Returns 0 or -1. */
int cli_template (struct cli_image *im, uint32_t slots, uint64_t slot_size);
/* Writes an image as channel `channel` (ctl skipped when ctl_len is 0). */
int cli_install (const struct cli_image *im, const char *channel);
void cli_image_free (struct cli_image *im);

#endif
