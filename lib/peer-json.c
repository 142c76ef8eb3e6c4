/* The one parser for peer JSON; the rules are in peer-json.h. */
#include "peer-json.h"

#include <errno.h>
#include <string.h>

#include <glib.h>

#include "segment-desc.h"       /* diag_set */

/* Rule 3. Grammar (what follows what) is json-glib's job; tokens are
 * ours. */
static int
json_bad (struct doradma_diag *diag, size_t at, const char *what)
{
  return diag_set (diag, -EBADMSG, "json",
      "invalid metadata json: not strict RFC 8259: %s at byte %zu", what, at);
}

/* Scans a string whose opening quote is at s[*i]; leaves *i on the
 * closing quote. */
static int
json_scan_string (const char *s, size_t len, size_t *i,
    struct doradma_diag *diag)
{
  size_t k;

  for (k = *i + 1; k < len; k++) {
    unsigned char c = (unsigned char) s[k];

    if (c == '"') {
      *i = k;
      return 0;
    }
    if (c < 0x20)
      return json_bad (diag, k, "control character in a string");
    if (c != '\\')
      continue;
    if (++k >= len)
      break;
    switch (s[k]) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        break;
      case 'u':
        if (k + 4 >= len || !g_ascii_isxdigit (s[k + 1]) ||
            !g_ascii_isxdigit (s[k + 2]) || !g_ascii_isxdigit (s[k + 3]) ||
            !g_ascii_isxdigit (s[k + 4]))
          return json_bad (diag, k, "bad \\u escape");
        k += 4;
        break;
      default:
        return json_bad (diag, k, "bad escape");
    }
  }
  return json_bad (diag, *i, "unterminated string");
}

static size_t
digit_run (const char *s, size_t len, size_t k)
{
  size_t n = 0;

  while (k + n < len && g_ascii_isdigit (s[k + n]))
    n++;
  return n;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? starting at s[*i]; leaves *i
 * on its last byte. */
static int
json_scan_number (const char *s, size_t len, size_t *i,
    struct doradma_diag *diag)
{
  size_t k = *i, n;

  if (s[k] == '-')
    k++;
  n = digit_run (s, len, k);
  if (n == 0 || (s[k] == '0' && n > 1))
    return json_bad (diag, k, "malformed number");
  if (n > PEER_JSON_DIGITS_MAX)
    return diag_set (diag, -EBADMSG, "json",
        "invalid metadata json: number at byte %zu has more than %d digits",
        k, PEER_JSON_DIGITS_MAX);
  k += n;
  if (k < len && s[k] == '.') {
    n = digit_run (s, len, ++k);
    if (n == 0 || n > PEER_JSON_DIGITS_MAX)
      return json_bad (diag, k, "malformed fraction");
    k += n;
  }
  if (k < len && (s[k] == 'e' || s[k] == 'E')) {
    if (++k < len && (s[k] == '+' || s[k] == '-'))
      k++;
    n = digit_run (s, len, k);
    if (n == 0 || n > PEER_JSON_DIGITS_MAX)
      return json_bad (diag, k, "malformed exponent");
    k += n;
  }
  /* A number ends at a delimiter: "0x10" is not 0 then x10. */
  if (k < len && (g_ascii_isalnum (s[k]) || s[k] == '.' || s[k] == '_'))
    return json_bad (diag, k, "malformed number");
  *i = k - 1;
  return 0;
}

int
peer_json_scan (const char *s, size_t len, struct doradma_diag *diag)
{
  /* Open brackets, innermost last: '{' or '['. */
  char stack[PEER_JSON_DEPTH_MAX];
  int depth = 0, ret;
  size_t i;

  for (i = 0; i < len; i++) {
    char c = s[i];

    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case ':':
      case ',':
        break;
      case '{':
      case '[':
        if (depth == PEER_JSON_DEPTH_MAX)
          return diag_set (diag, -EBADMSG, "json",
              "invalid metadata json: nesting deeper than %d at byte %zu",
              PEER_JSON_DEPTH_MAX, i);
        stack[depth++] = c;
        break;
      case '}':
      case ']':
        if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '['))
          return json_bad (diag, i, "unmatched bracket");
        depth--;
        break;
      case '"':
        if ((ret = json_scan_string (s, len, &i, diag)) < 0)
          return ret;
        break;
      case 't':
      case 'f':
      case 'n':{
        const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
        size_t n = strlen (lit);

        if (len - i < n || memcmp (s + i, lit, n) != 0 ||
            (len - i > n && g_ascii_isalnum (s[i + n])))
          return json_bad (diag, i, "bare identifier");
        i += n - 1;
        break;
      }
      default:
        if (c == '-' || g_ascii_isdigit (c)) {
          if ((ret = json_scan_number (s, len, &i, diag)) < 0)
            return ret;
          break;
        }
        if (c == '/')
          return json_bad (diag, i, "comment");
        if (c == '\'')
          return json_bad (diag, i, "single quote");
        return json_bad (diag, i, "unexpected character");
    }
  }
  if (depth != 0)
    return json_bad (diag, len, "unclosed bracket");
  return 0;
}


JsonNode *
peer_json_parse (const char *bytes, size_t len,
    const struct peer_json_limits *limits, struct doradma_diag *diag)
{
  JsonParser *parser = NULL;
  JsonNode *root = NULL;
  GError *err = NULL;
  char *copy, *nul;

  if (len > limits->max_len) {
    diag_set (diag, -EBADMSG, limits->len_field,
        "%s: metadata json of %zu bytes, the limit is %zu",
        limits->len_field, len, limits->max_len);
    return NULL;
  }
  if (len == 0) {
    diag_set (diag, -EBADMSG, "json", "invalid metadata json: empty");
    return NULL;
  }
  /* The one read of the shared bytes; everything below uses the copy. */
  copy = g_malloc (len + 1);
  memcpy (copy, bytes, len);
  copy[len] = '\0';

  if ((nul = memchr (copy, '\0', len)) != NULL)
    diag_set (diag, -EBADMSG, "json", "metadata json holds a NUL byte at "
        "byte %zu (JSON text has none)", (size_t) (nul - copy));
  else if (!g_utf8_validate (copy, len, NULL))
    diag_set (diag, -EBADMSG, "json", "metadata json is not valid utf-8");
  else if (peer_json_scan (copy, len, diag) == 0) {
    parser = json_parser_new ();
    if (json_parser_load_from_data (parser, copy, len, &err))
      root = json_parser_steal_root (parser);
    else {
      diag_set (diag, -EBADMSG, "json", "invalid metadata json: %s",
          err->message);
      g_error_free (err);
    }
    if (root == NULL && err == NULL)
      diag_set (diag, -EBADMSG, "json", "invalid metadata json: empty");
  }
  if (parser)
    g_object_unref (parser);
  g_free (copy);
  return root;
}
