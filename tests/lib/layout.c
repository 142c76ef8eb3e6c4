/* Description: the format at run time. Every offset, size and constant of
 * lib/doradma/layout.h is checked against the numbers the format defines,
 * and every table row of docs/format.md (under its "<!-- struct T -->"
 * marker) must match the compiled offsetof/sizeof, and every field must be
 * documented. Usage: layout docs/format.md (meson passes the path; without
 * it, or when it cannot be read, the test fails). */
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "image-helper.h"

/* Failed checks (T_EXPECT*); main exits 1 if any. */
static int failures;

struct field
{
  const char *type, *name;
  size_t offset, size;
  int seen;
};

#define F(T, f) { #T, #f, offsetof (struct T, f), \
    sizeof (((struct T *) 0)->f), 0 }

/* *INDENT-OFF* */
static struct field fields[] = {
  F (doradma_shm_header, magic), F (doradma_shm_header, json_len),
  F (doradma_shm_header, data_offset), F (doradma_shm_header, ipc_flag),
  F (doradma_shm_header, ipc_handle), F (doradma_shm_header, dora_gen),
  F (doradma_shm_header, dora_slot_gen),

  F (doradma_shm_rcb, magic), F (doradma_shm_rcb, layout_version),
  F (doradma_shm_rcb, page_size), F (doradma_shm_rcb, compat_flags),
  F (doradma_shm_rcb, incompat_flags), F (doradma_shm_rcb, slot_count),
  F (doradma_shm_rcb, writer_pid), F (doradma_shm_rcb, slot_stride),
  F (doradma_shm_rcb, slots_offset), F (doradma_shm_rcb, ctl_token),
  F (doradma_shm_rcb, state), F (doradma_shm_rcb, caps_epoch),
  F (doradma_shm_rcb, newest), F (doradma_shm_rcb, final_seq),
  F (doradma_shm_rcb, latency), F (doradma_shm_rcb, writer_start),
  F (doradma_shm_rcb, first_seq), F (doradma_shm_rcb, stopped),
  F (doradma_shm_rcb, reserved1),
  F (doradma_shm_rcb, caps), F (doradma_shm_rcb, slot_seq),
  F (doradma_shm_rcb, slots),

  F (doradma_shm_slot, gen), F (doradma_shm_slot, seq),
  F (doradma_shm_slot, caps_epoch), F (doradma_shm_slot, n_planes),
  F (doradma_shm_slot, width), F (doradma_shm_slot, height),
  F (doradma_shm_slot, planes), F (doradma_shm_slot, crop_x),
  F (doradma_shm_slot, crop_y), F (doradma_shm_slot, crop_width),
  F (doradma_shm_slot, crop_height), F (doradma_shm_slot, pts),
  F (doradma_shm_slot, dts), F (doradma_shm_slot, duration),
  F (doradma_shm_slot, offset), F (doradma_shm_slot, offset_end),
  F (doradma_shm_slot, flags), F (doradma_shm_slot, video_flags),
  F (doradma_shm_slot, payload_bytes), F (doradma_shm_slot, publish_time),
  F (doradma_shm_slot, mono_pts), F (doradma_shm_slot, reserved),

  F (doradma_shm_plane, offset), F (doradma_shm_plane, stride),
  F (doradma_shm_plane, rows), F (doradma_shm_plane, row_bytes),
  F (doradma_shm_plane, reserved),

  F (doradma_shm_caps, gen), F (doradma_shm_caps, epoch),
  F (doradma_shm_caps, length), F (doradma_shm_caps, reserved),
  F (doradma_shm_caps, caps),

  F (doradma_shm_ctl, magic), F (doradma_shm_ctl, layout_version),
  F (doradma_shm_ctl, slot_count), F (doradma_shm_ctl, token),
  F (doradma_shm_ctl, reserved0), F (doradma_shm_ctl, notify),
  F (doradma_shm_ctl, pad1), F (doradma_shm_ctl, space),
  F (doradma_shm_ctl, pad2), F (doradma_shm_ctl, active),
  F (doradma_shm_ctl, pad3), F (doradma_shm_ctl, lease),
  F (doradma_shm_ctl, readers),

  F (doradma_shm_lease, readers), F (doradma_shm_lease, pad),

  F (doradma_shm_reader, state), F (doradma_shm_reader, flags),
  F (doradma_shm_reader, token), F (doradma_shm_reader, consumed_seq),
  F (doradma_shm_reader, pid), F (doradma_shm_reader, reserved0),
  F (doradma_shm_reader, delivered), F (doradma_shm_reader, skipped),
  F (doradma_shm_reader, last_seq), F (doradma_shm_reader, last_time),
};
/* *INDENT-ON* */

/* The numbers of the format, written out independently of the headers. */
static const struct
{
  const char *type, *name;
  size_t offset, size;
} expected[] = {
  {"doradma_shm_header", "magic", 0x00, 8},
  {"doradma_shm_header", "json_len", 0x08, 8},
  {"doradma_shm_header", "data_offset", 0x10, 8},
  {"doradma_shm_header", "ipc_flag", 0x18, 8},
  {"doradma_shm_header", "ipc_handle", 0x20, 64},
  {"doradma_shm_header", "dora_gen", 0x60, 8},
  {"doradma_shm_header", "dora_slot_gen", 0x68, 152},
  {"doradma_shm_rcb", "state", 0x40, 4},
  {"doradma_shm_rcb", "newest", 0x48, 8},
  {"doradma_shm_rcb", "caps", 0x80, 4096},
  {"doradma_shm_rcb", "slot_seq", 0x1080, 512},
  {"doradma_shm_rcb", "slots", 0x1280, 16384},
  {"doradma_shm_slot", "gen", 0x00, 8},
  {"doradma_shm_slot", "planes", 0x20, 96},
  {"doradma_shm_slot", "payload_bytes", 0xc0, 8},
  {"doradma_shm_slot", "mono_pts", 0xd0, 8},
  {"doradma_shm_caps", "caps", 0x40, 960},
  {"doradma_shm_ctl", "notify", 0x40, 4},
  {"doradma_shm_ctl", "space", 0x80, 4},
  {"doradma_shm_ctl", "active", 0xc0, 8},
  {"doradma_shm_ctl", "lease", 0x100, 4096},
  {"doradma_shm_ctl", "readers", 0x1100, 4096},
  {"doradma_shm_reader", "consumed_seq", 0x10, 8},
};

static struct field *
find_field (const char *type, const char *name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (fields); i++)
    if (strcmp (fields[i].type, type) == 0
        && strcmp (fields[i].name, name) == 0)
      return &fields[i];
  return NULL;
}

static void
test_code (void)
{
  guint i;

  T_EXPECT (failures, sizeof (struct doradma_shm_header) == 256, "%s",
      __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_plane) == 24, "%s", __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_slot) == 256, "%s", __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_caps) == 1024, "%s", __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_rcb) == 0x5280, "%s",
      __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_lease) == 64, "%s", __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_reader) == 64, "%s", __func__);
  T_EXPECT (failures, sizeof (struct doradma_shm_ctl) == 0x2100, "%s",
      __func__);

  for (i = 0; i < G_N_ELEMENTS (expected); i++) {
    struct field *f = find_field (expected[i].type, expected[i].name);

    if (f == NULL) {
      T_EXPECT (failures, f != NULL, "%s.%s not in the field table",
          expected[i].type, expected[i].name);
      continue;
    }
    if (f->offset != expected[i].offset || f->size != expected[i].size) {
      fprintf (stderr, "%s.%s at 0x%zx size %zu, format says 0x%zx size %zu\n",
          f->type, f->name, f->offset, f->size, expected[i].offset,
          expected[i].size);
      failures++;
    }
  }

  /* Lines written by different processes start on 64-byte boundaries. */
  T_EXPECT (failures, offsetof (struct doradma_shm_rcb, state) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_rcb, caps) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_rcb, slot_seq) % 64 == 0,
      "%s", __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_rcb, slots) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_ctl, notify) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_ctl, space) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_ctl, active) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_ctl, lease) % 64 == 0, "%s",
      __func__);
  T_EXPECT (failures, offsetof (struct doradma_shm_ctl, readers) % 64 == 0,
      "%s", __func__);

  /* Constants. */
  T_EXPECT (failures, memcmp (DORADMA_MAGIC, "DORADMA\0", 8) == 0, "%s",
      __func__);
  T_EXPECT (failures, sizeof (DORADMA_MAGIC) == 8, "%s", __func__);
  T_EXPECT (failures, DORADMA_LAYOUT_VERSION == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_HEADER_SIZE == 256, "%s", __func__);
  T_EXPECT (failures, DORADMA_METADATA_ALIGN == 256, "%s", __func__);
  T_EXPECT (failures, DORADMA_JSON_MAX == 65536, "%s", __func__);
  T_EXPECT (failures, DORADMA_IPC_HANDLE_LEN == 64, "%s", __func__);
  T_EXPECT (failures, DORADMA_DORA_GEN_ODD == 1, "%s", __func__);
  /* In memory (little-endian) the magics read "RDMARCB1" / "RDMACTL1"
   * (layout.h's comments say "DRMA..."; the values are what counts). */
  T_EXPECT (failures, DORADMA_RCB_MAGIC == 0x31424352414d4452ull, "%s",
      __func__);
  T_EXPECT (failures, DORADMA_CTL_MAGIC == 0x314c5443414d4452ull, "%s",
      __func__);
  T_EXPECT (failures, memcmp (&(uint64_t) {
          DORADMA_RCB_MAGIC}
          , "RDMARCB1", 8) == 0, "%s", __func__);
  T_EXPECT (failures, memcmp (&(uint64_t) {
          DORADMA_CTL_MAGIC}
          , "RDMACTL1", 8) == 0, "%s", __func__);
  T_EXPECT (failures, DORADMA_MAX_SLOTS == 64, "%s", __func__);
  T_EXPECT (failures, DORADMA_MAX_READERS == 64, "%s", __func__);
  T_EXPECT (failures, DORADMA_MAX_PLANES == 4, "%s", __func__);
  T_EXPECT (failures, DORADMA_CAPS_ENTRIES == 4, "%s", __func__);
  T_EXPECT (failures, DORADMA_CAPS_MAX == 960, "%s", __func__);
  T_EXPECT (failures, DORADMA_COMPAT_KNOWN == 0, "%s", __func__);
  T_EXPECT (failures, DORADMA_INCOMPAT_DEVICE_SLOTS == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_INCOMPAT_KNOWN == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_STATE_LIVE == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_STATE_EOS == 2, "%s", __func__);
  T_EXPECT (failures, DORADMA_STATE_SUPERSEDED == 3, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_FREE == 0, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_RESERVED == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_ACTIVE == 2, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_EVICTED == 3, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_STOPPED == 4, "%s", __func__);
  T_EXPECT (failures, DORADMA_READER_BACKPRESSURE == 1, "%s", __func__);
  T_EXPECT (failures, DORADMA_TIME_NONE == UINT64_MAX, "%s", __func__);
  T_EXPECT (failures, DORADMA_NEWEST_PACK (5, 3) == ((5ull << 8) | 3), "%s",
      __func__);
  T_EXPECT (failures, DORADMA_NEWEST_SEQ (DORADMA_NEWEST_PACK (123456789, 63))
      == 123456789, "%s", __func__);
  T_EXPECT (failures, DORADMA_NEWEST_SLOT (DORADMA_NEWEST_PACK (123456789,
              63)) == 63, "%s", __func__);
  T_EXPECT (failures, sizeof (((struct doradma_shm_rcb *) 0)->slots)
      / sizeof (struct doradma_shm_slot) == DORADMA_MAX_SLOTS, "%s", __func__);
  T_EXPECT (failures, sizeof (((struct doradma_shm_rcb *) 0)->caps)
      / sizeof (struct doradma_shm_caps) == DORADMA_CAPS_ENTRIES, "%s",
      __func__);
  T_EXPECT (failures, sizeof (((struct doradma_shm_ctl *) 0)->readers)
      / sizeof (struct doradma_shm_reader) == DORADMA_MAX_READERS, "%s",
      __func__);
  T_EXPECT (failures, sizeof (((struct doradma_shm_caps *) 0)->caps)
      == DORADMA_CAPS_MAX, "%s", __func__);
}

static void
test_docs (const char *path)
{
  gchar *text;
  gchar **lines;
  const char *type = NULL;
  guint i, rows = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL)) {
    fprintf (stderr, "cannot read %s\n", path);
    failures++;
    return;
  }
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    char name[64];
    gchar **cols;
    struct field *f;
    size_t off, size;

    if (sscanf (lines[i], "<!-- struct %63s -->", name) == 1) {
      type = g_intern_string (name);
      continue;
    }
    if (type == NULL || !g_str_has_prefix (lines[i], "| 0x"))
      continue;
    cols = g_strsplit (lines[i], "|", -1);
    if (g_strv_length (cols) < 6) {
      g_strfreev (cols);
      continue;
    }
    off = strtoull (g_strstrip (cols[1]), NULL, 16);
    size = strtoull (g_strstrip (cols[2]), NULL, 10);
    f = find_field (type, g_strstrip (cols[4]));
    rows++;
    if (f == NULL) {
      fprintf (stderr, "%s: %s.%s is documented but not in layout.h\n", path,
          type, cols[4]);
      failures++;
    } else {
      f->seen = 1;
      if (f->offset != off || f->size != size) {
        fprintf (stderr, "%s: %s.%s documented at 0x%zx size %zu, layout.h "
            "has 0x%zx size %zu\n", path, type, f->name, off, size,
            f->offset, f->size);
        failures++;
      }
    }
    g_strfreev (cols);
  }
  for (i = 0; i < G_N_ELEMENTS (fields); i++)
    if (!fields[i].seen) {
      fprintf (stderr, "%s: %s.%s is not documented\n", path, fields[i].type,
          fields[i].name);
      failures++;
    }
  T_EXPECT (failures, rows == G_N_ELEMENTS (fields), "%s", __func__);
  g_strfreev (lines);
  g_free (text);
}

int
main (int argc, char **argv)
{
  test_code ();
  if (argc != 2) {
    /* The documentation is half of the specification: never skip it. */
    fprintf (stderr, "usage: layout docs/format.md (meson passes the path)\n");
    return T_EXIT_FAIL;
  }
  test_docs (argv[1]);
  return failures ? T_EXIT_FAIL : T_EXIT_PASS;
}
