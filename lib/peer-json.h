/* Private: THE PARSER for JSON a peer wrote (a ring's metadata, a dora
 * pool's, whatever the CLI reads of them). Every such text goes through
 * peer_json_parse and nothing else in lib/ hands peer bytes to json-glib
 * (docs/threat-model.md, "The parser"):
 *
 *   1. one copy of the shared bytes, bounded by the format's own limit,
 *      before anything looks at them (no double fetch);
 *   2. no NUL, valid UTF-8;
 *   3. a strict RFC 8259 token scan: no comments, single quotes, hex or
 *      bare identifiers (json-glib accepts them, and they could hide
 *      brackets from a count), brackets matched and nested at most
 *      PEER_JSON_DEPTH_MAX deep (json-glib recurses once per level: 32
 *      levels are accepted, 33 refused), digit runs no longer than a u64;
 *   4. only then json-glib, on the private copy. */
#ifndef DORADMA_PEER_JSON_H
#define DORADMA_PEER_JSON_H

#include <stddef.h>

#include <json-glib/json-glib.h>

#include <doradma/ring.h>       /* struct doradma_diag */

#define PEER_JSON_DEPTH_MAX 32
/* Longer digit runs cannot be a u64; json-glib would wrap them silently. */
#define PEER_JSON_DIGITS_MAX 19

struct peer_json_limits
{
  size_t max_len;               /* the format's bound on the text */
  const char *len_field;        /* diag field naming that length */
};

/* Parses `len` bytes at `bytes` (shared memory that may change under us)
 * by rules 1-4. Returns the root node (json_node_unref it) or NULL with
 * diag (-EBADMSG: field `limits->len_field` for the length, else "json";
 * messages contain "utf-8", "invalid metadata json", "nesting deeper"). */
JsonNode *peer_json_parse (const char *bytes, size_t len,
    const struct peer_json_limits *limits, struct doradma_diag *diag);

/* Rule 3 alone, on private text: 0 or -EBADMSG with diag. */
int peer_json_scan (const char *s, size_t len, struct doradma_diag *diag);

#endif
