/* Description: the doradma command on hostile and corrupt segments (the
 * threat model's crafted objects, built here from docs/format.md over a
 * template a real writer made). For each: `show --json` exits 3, names the
 * part and the field the lib's validator names (the same field
 * doradma_reader_open reports, which the test asks the lib for), and the
 * text form and `list` do not crash. Objects that are not regular files (a
 * FIFO, a symbolic link, a directory) are refused without blocking. 300
 * randomly damaged segments each get exit 0 or 3 and one JSON document. */
#include "cli-test.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct cli_image tmpl;

static struct doradma_shm_header *
hdr (struct cli_image *c)
{
  return (struct doradma_shm_header *) c->data;
}

static struct doradma_shm_rcb *
rcb (struct cli_image *c)
{
  return (struct doradma_shm_rcb *) (c->data + c->rcb_offset);
}

static struct cli_image
dup_image (void)
{
  struct cli_image c = tmpl;

  c.data = g_malloc (tmpl.len);
  memcpy (c.data, tmpl.data, tmpl.len);
  c.ctl = g_malloc (tmpl.ctl_len);
  memcpy (c.ctl, tmpl.ctl, tmpl.ctl_len);
  return c;
}

/* Replaces `from` by `to` in the JSON, same json_len (trailing spaces
 * absorb growth). */
static int
json_replace (struct cli_image *c, const char *from, const char *to)
{
  char *json = (char *) c->data + DORADMA_HEADER_SIZE;
  size_t jl = hdr (c)->json_len, fl = strlen (from), tl = strlen (to);
  char *copy = g_strndup (json, jl), *p = strstr (copy, from);
  size_t pre;

  if (p == NULL || tl > fl + 64) {
    g_free (copy);
    return -1;
  }
  pre = p - copy;
  memset (json, ' ', jl);
  memcpy (json, copy, pre);
  memcpy (json + pre, to, tl);
  memcpy (json + pre + tl, copy + pre + fl, jl - pre - fl - (tl > fl ?
          tl - fl : 0));
  g_free (copy);
  return 0;
}

/* What the lib itself says about this image (the expected field). */
static const char *
lib_field (struct cli_image *c, const char *channel)
{
  struct doradma_reader_config rc;
  struct doradma_reader *r = NULL;
  static struct doradma_diag diag;

  memset (&diag, 0, sizeof diag);
  t_reader_config (&rc, channel, cli_dir, 0);
  if (doradma_reader_open (&rc, &r, &diag) == 0) {
    doradma_reader_close (r);
    return NULL;
  }
  return diag.field;
}

/* Installs the image, runs show --json and show, checks the verdict at
 * `part` (a JSON path to a verdict object) names `field`. */
static int
expect (struct cli_image *c, const char *what, const char *part,
    const char *field)
{
  char ch[64], *out = NULL, *text = NULL;
  const char *lib;
  JsonNode *root;
  int code, tcode, ok;
  char valid_path[128], field_path[128];

  t_channel (ch, sizeof ch, "hostile");
  if (cli_install (c, ch) != 0)
    return -1;
  lib = lib_field (c, ch);
  code = cli_run (&out, "show", "--json", ch, NULL);
  tcode = cli_run (&text, "show", ch, NULL);
  root = cli_parse (out);
  snprintf (valid_path, sizeof valid_path, "%s.valid", part);
  snprintf (field_path, sizeof field_path, "%s.field", part);
  ok = code == 3 && tcode == 3 && root != NULL
      && !cli_bool (root, valid_path) && !cli_bool (root, "valid")
      && g_strcmp0 (cli_str (root, field_path), field) == 0
      && (lib == NULL || strncmp (part, "segment", 7) != 0
      || g_strcmp0 (lib, field) == 0);
  if (!ok)
    t_log ("%s: exit %d/%d, %s = %s (want %s; the reader says %s)\n%s", what,
        code, tcode, field_path, root ? cli_str (root, field_path) : "-",
        field, lib ? lib : "(opens)", out ? out : "");
  else
    t_log ("%s: exit 3, %s %s", what, field_path, field);
  if (root)
    json_node_unref (root);
  g_free (out);
  g_free (text);
  return ok ? 0 : -1;
}

#define EXPECT(c, what, part, field) do { \
    if (expect ((c), (what), (part), (field)) != 0) \
      fails++; \
  } while (0)

#define CASE(c) for (struct cli_image c = dup_image (), *once_ = &c; once_; \
      cli_image_free (&c), once_ = NULL)

static int
crafted (void)
{
  int fails = 0;

  CASE (c) {
    memcpy (hdr (&c)->magic, "DORADMB", 8);
    EXPECT (&c, "bad magic", "segment", "header.magic");
  }
  CASE (c) {
    hdr (&c)->data_offset = UINT64_MAX - 100;
    EXPECT (&c, "data_offset near 2^64", "segment", "header.data_offset");
  }
  CASE (c) {
    hdr (&c)->json_len = 1ull << 62;
    EXPECT (&c, "json_len 2^62", "segment", "header.json_len");
  }
  CASE (c) {
    hdr (&c)->ipc_flag = 7;
    EXPECT (&c, "ipc_flag 7", "segment", "header.ipc_flag");
  }
  CASE (c) {
    hdr (&c)->dora_gen = 2;
    EXPECT (&c, "dora_gen even", "segment", "header.dora_gen");
  }
  CASE (c) {
    c.len = 200;
    EXPECT (&c, "shorter than the header", "segment", "object.size");
  }
  CASE (c) {
    c.len = 0;
    EXPECT (&c, "empty object", "segment", "object.size");
  }
  CASE (c) {
    c.len = hdr (&c)->data_offset + 4096;
    EXPECT (&c, "RCB cut off", "segment", "rcb");
  }
  CASE (c) {
    /* R4-4: grown past its layout (a reader refuses it; show said ok) */
    c.data = g_realloc (c.data, c.len + 4096);
    memset (c.data + c.len, 0, 4096);
    c.len += 4096;
    EXPECT (&c, "grown by 4 KiB", "segment", "object.size");
  }
  CASE (c) {
    /* grown and a bad RCB: the reader checks the size first, so its field
     * is object.size; show named rcb.slot_count (R4-4, field for field) */
    c.data = g_realloc (c.data, c.len + 4096);
    memset (c.data + c.len, 0, 4096);
    c.len += 4096;
    rcb (&c)->slot_count = 65;
    EXPECT (&c, "grown by 4 KiB, 65 slots", "segment", "object.size");
  }
  CASE (c) {
    rcb (&c)->slot_count = 65;
    EXPECT (&c, "65 slots", "segment", "rcb.slot_count");
  }
  CASE (c) {
    rcb (&c)->slot_stride = 1ull << 40;
    EXPECT (&c, "slot area past the object", "segment", "rcb.slot_stride");
  }
  CASE (c) {
    rcb (&c)->slot_count = 64;
    rcb (&c)->slot_stride = 1ull << 60;
    EXPECT (&c, "slot area overflowing u64", "segment", "rcb.slot_stride");
  }
  CASE (c) {
    rcb (&c)->magic = 0;
    EXPECT (&c, "rcb magic", "segment", "rcb.magic");
  }
  CASE (c) {
    rcb (&c)->layout_version = 2;
    EXPECT (&c, "layout version 2", "segment", "rcb.layout_version");
  }
  CASE (c) {
    rcb (&c)->incompat_flags = 1ull << 17;
    EXPECT (&c, "unknown incompat bit", "segment", "rcb.incompat_flags");
  }
  CASE (c) {
    if (json_replace (&c, "\"slots\":2", "\"slots\":\"2\"") == 0)
      EXPECT (&c, "json slots a string", "segment", "json.doradma.slots");
    else
      fails++;
  }
  CASE (c) {
    if (json_replace (&c, "\"doradma\":", "\"doradmX\":") == 0)
      EXPECT (&c, "no doradma object", "segment", "json.doradma");
    else
      fails++;
  }
  CASE (c) {
    if (json_replace (&c, "\"caps\":\"video/x-raw",
            "\"caps\":\"video/x-raw(memory:NVMM)") == 0)
      EXPECT (&c, "caps with memory:NVMM", "segment", "caps.features");
    else
      fails++;
  }
  CASE (c) {
    if (json_replace (&c, "\"caps\":\"video/x-raw",
            "\"caps\":\"video/x-raw\\u001b[2J") == 0)
      EXPECT (&c, "caps with a terminal escape", "segment", "caps");
    else
      fails++;
  }
  CASE (c) {
    memset (c.data + DORADMA_HEADER_SIZE, '[', hdr (&c)->json_len);
    EXPECT (&c, "json of nested arrays", "segment", "json");
  }

  /* Valid segment, one bad part. */
  CASE (c) {
    ((struct doradma_shm_ctl *) c.ctl)->token ^= 1;
    EXPECT (&c, "ctl of another segment", "ctl.validation", "ctl.token");
  }
  CASE (c) {
    ((struct doradma_shm_ctl *) c.ctl)->magic = 0;
    EXPECT (&c, "ctl magic", "ctl.validation", "ctl.magic");
  }
  CASE (c) {
    c.ctl_len = 100;
    EXPECT (&c, "ctl truncated", "ctl.validation", "ctl.size");
  }
  return fails;
}

/* A record or caps entry that fails while everything else is valid: the
 * verdict sits on that slot or entry. */
static int
records (void)
{
  char ch[64], *out = NULL;
  JsonNode *root, *s;
  int fails = 0, code;
  struct cli_image c = dup_image ();
  uint32_t i, bad = 0;

  for (i = 0; i < 2; i++)
    if (rcb (&c)->slots[i].seq != 0)
      bad = i;
  rcb (&c)->slots[bad].planes[0].row_bytes =
      rcb (&c)->slots[bad].planes[0].stride + 1;
  memcpy (rcb (&c)->caps[1].caps, "video/x-raw(memory:DMABuf)", 27);
  t_channel (ch, sizeof ch, "records");
  if (cli_install (&c, ch) != 0)
    return 1;
  code = cli_run (&out, "show", "--json", ch, NULL);
  root = cli_parse (out);
  s = root ? cli_find (root, "slot_records", "index", NULL, bad) : NULL;
  T_EXPECT (fails, code == 3 && root && cli_bool (root, "segment.valid")
      && s && !cli_bool (s, "validation.valid")
      && g_strcmp0 (cli_str (s, "validation.field"), "slot.planes.row_bytes")
      == 0, "slot %u verdict (exit %d)\n%s", bad, code, out);
  s = root ? cli_find (root, "caps_table", "index", NULL, 1) : NULL;
  T_EXPECT (fails, s && !cli_bool (s, "validation.valid")
      && g_strcmp0 (cli_str (s, "validation.field"), "caps.features") == 0,
      "caps entry 1 verdict");
  if (root)
    json_node_unref (root);
  g_free (out);
  cli_image_free (&c);
  return fails;
}

/* Names that are not regular files: refused at once, never opened for
 * reading (a FIFO would block a plain open), never followed. */
static int
not_files (void)
{
  char ch[64], path[4096], *out = NULL;
  JsonNode *root;
  int fails = 0, i;
  const char *what[] = { "fifo", "symlink", "directory" };

  for (i = 0; i < 3; i++) {
    t_channel (ch, sizeof ch, what[i]);
    snprintf (path, sizeof path, "%s/doradma.%s", cli_dir, ch);
    if (i == 0)
      mkfifo (path, 0600);
    else if (i == 1)
      symlink ("/etc/passwd", path);
    else
      mkdir (path, 0700);
    T_EXPECT (fails, cli_run (&out, "show", "--json", ch, NULL) == 3,
        "%s: exit 3", what[i]);
    root = cli_parse (out);
    T_EXPECT (fails, root && !cli_bool (root, "object.validation.valid")
        && g_strcmp0 (cli_str (root, "object.validation.field"),
            "object.type") == 0, "%s: object.type\n%s", what[i], out);
    /* Nothing behind the name was read: no part is reported, valid or not
     * (review R3 CLI finding 2); what lstat says is. */
    T_EXPECT (fails, root && cli_get (root, "segment") == NULL
        && cli_get (root, "ctl") == NULL && cli_get (root, "caps_table") ==
        NULL && cli_get (root, "reader_entries") == NULL
        && g_strcmp0 (cli_str (root, "object.type"), i == 0 ? "fifo" : i == 1
            ? "symbolic link" : "directory") == 0
        && cli_get (root, "writer.alive")
        && JSON_NODE_HOLDS_NULL (cli_get (root, "writer.alive")),
        "%s: only the object reported\n%s", what[i], out);
    if (root)
      json_node_unref (root);
    g_free (out);
    /* Not a doradma object: left alone (exit 5), even with --force. */
    T_EXPECT (fails, cli_run (NULL, "clean", ch, NULL) == 5, "%s: clean",
        what[i]);
    T_EXPECT (fails, cli_run (NULL, "clean", "--force", ch, NULL) == 5,
        "%s: clean --force", what[i]);
    if (i == 2)
      rmdir (path);
    else
      unlink (path);
  }
  /* A FIFO under the control object's name of a valid data object. */
  {
    struct cli_image c = dup_image ();

    c.ctl_len = 0;
    t_channel (ch, sizeof ch, "ctl-fifo");
    if (cli_install (&c, ch) == 0) {
      snprintf (path, sizeof path, "%s/doradma.%s~ctl", cli_dir, ch);
      mkfifo (path, 0600);
      T_EXPECT (fails, cli_run (&out, "show", "--json", ch, NULL) == 3,
          "ctl fifo: exit 3");
      root = cli_parse (out);
      T_EXPECT (fails, root && cli_bool (root, "segment.valid")
          && g_strcmp0 (cli_str (root, "ctl.object.field"), "object.type")
          == 0, "ctl fifo: ctl.object.field\n%s", out);
      if (root)
        json_node_unref (root);
      g_free (out);
      unlink (path);
    } else {
      fails++;
    }
    cli_image_free (&c);
  }
  return fails;
}

/* Random damage (fixed seed): bytes of the header, JSON, RCB and control
 * object overwritten, or the object cut short. The tool must answer every
 * one with exit 0 or 3 and one JSON document, and never die of a signal. */
static int
random_damage (int rounds)
{
  GRand *rand = g_rand_new_with_seed (20261201);
  int fails = 0, i;

  for (i = 0; i < rounds && fails < 5; i++) {
    struct cli_image c = dup_image ();
    char ch[64], *out = NULL;
    JsonNode *root;
    int code, tcode, n, k;

    n = g_rand_int_range (rand, 1, 4);
    for (k = 0; k < n; k++) {
      uint64_t where;
      int part = g_rand_int_range (rand, 0, 5);
      if (part == 0)
        where = g_rand_int_range (rand, 0, DORADMA_HEADER_SIZE);
      else if (part == 1)
        where = g_rand_int_range (rand, DORADMA_HEADER_SIZE, 1024);
      else if (part == 2)
        where = c.rcb_offset + g_rand_int_range (rand, 0,
            sizeof (struct doradma_shm_rcb));
      else
        where = c.len;          /* the control object, below */
      if (where < c.len) {
        c.data[where] = (uint8_t) g_rand_int (rand);
      } else {
        where = g_rand_int_range (rand, 0, c.ctl_len);
        c.ctl[where] = (uint8_t) g_rand_int (rand);
      }
    }
    if (g_rand_int_range (rand, 0, 10) == 0)
      c.len = g_rand_int_range (rand, 0, c.len);
    t_channel (ch, sizeof ch, "damage");
    if (cli_install (&c, ch) != 0) {
      cli_image_free (&c);
      return fails + 1;
    }
    code = cli_run (&out, "show", "--json", ch, NULL);
    tcode = cli_run (NULL, "show", ch, NULL);
    root = cli_parse (out);
    T_EXPECT (fails, (code == 0 || code == 3) && (tcode == 0 || tcode == 3)
        && root && cli_get (root, "valid") && (code == 0) == cli_bool (root,
            "valid"), "damage %d: exit %d / %d", i, code, tcode);
    if (root)
      json_node_unref (root);
    g_free (out);
    cli_image_free (&c);
  }
  g_rand_free (rand);
  t_log ("%d randomly damaged segments: %s", i, fails ? "FAILED" : "all "
      "answered with exit 0 or 3 and JSON");
  return fails;
}

int
main (void)
{
  char *out = NULL;
  int fails = 0, code;

  t_watchdog (110);
  cli_dir = t_shm_dir_new (NULL, "cli-hostile");
  if (cli_template (&tmpl, 2, 4 * 4096) != 0)
    return T_EXIT_FAIL;
  fails += crafted ();
  fails += records ();
  fails += not_files ();
  fails += random_damage (300);
  /* Everything above at once (what is left in the directory): list and
   * list --json survive it; the hostile ones are listed as invalid. */
  {
    struct cli_image c = dup_image ();
    char ch[64];

    hdr (&c)->json_len = 1ull << 62;
    t_channel (ch, sizeof ch, "in-list");
    cli_install (&c, ch);
    cli_image_free (&c);
    code = cli_run (&out, "list", "--json", NULL);
    {
      JsonNode *root = cli_parse (out);
      JsonNode *e = root ? cli_find (root, "channels", "name", ch, 0) : NULL;
      T_EXPECT (fails, code == 0 && e && !cli_bool (e, "valid")
          && g_strcmp0 (cli_str (e, "status"), "invalid") == 0
          && g_strcmp0 (cli_str (e, "error.field"), "header.json_len") == 0,
          "list --json over hostile objects (exit %d)", code);
      if (root)
        json_node_unref (root);
    }
    g_free (out);
    T_EXPECT (fails, cli_run (NULL, "list", NULL) == 0, "list text");
  }
  /* No writer holds any of them, but they are not doradma segments:
   * clean --all leaves them (exit 5, each named), --force removes them. */
  code = cli_run (&out, "clean", "--all", NULL);
  T_EXPECT (fails, code == 5 && out && strstr (out, "not a doradma segment")
      && t_leftovers (cli_dir, NULL) > 0,
      "clean --all of hostile objects: exit %d\n%s", code, out);
  g_free (out);
  out = NULL;
  code = cli_run (&out, "clean", "--all", "--force", NULL);
  T_EXPECT (fails, code == 0 && out && strstr (out, "not a doradma segment, "
          "--force") && t_leftovers (cli_dir, NULL) == 0,
      "clean --all --force of hostile objects: exit %d\n%s", code, out);
  g_free (out);
  cli_image_free (&tmpl);
  t_shm_dir_remove (cli_dir);
  return fails ? T_EXIT_FAIL : T_EXIT_PASS;
}
