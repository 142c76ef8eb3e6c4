/* The security settings doradmanetsink and doradmanetsrc share
 * (gst/net/gstdoradmanetsecurity.c), without a network: the three
 * GParamSpecs of each side, and start()'s check: encrypt without a
 * key-file, a malformed allowed-peers and an unusable key file each
 * refused with the element's error naming the setting (and nothing kept),
 * a key file and an allow-list taken. net-auth, net-crypt and net-allow
 * (netns.sh) run the elements themselves. */
#include <string.h>

#include <glib/gstdio.h>

#include "gstdoradmanetsecurity.h"

enum
{ P_KEY_FILE = 1, P_ENCRYPT, P_ALLOWED_PEERS, N_P };

static void
check_specs (gboolean sender, const gchar * other)
{
  GParamSpec *p[N_P] = { NULL };
  guint i;

  gst_doradma_net_security_param_specs (p, P_KEY_FILE, P_ENCRYPT,
      P_ALLOWED_PEERS, sender);
  g_assert_null (p[0]);
  g_assert_cmpstr (g_param_spec_get_name (p[P_KEY_FILE]), ==, "key-file");
  g_assert_cmpstr (g_param_spec_get_name (p[P_ENCRYPT]), ==, "encrypt");
  g_assert_cmpstr (g_param_spec_get_name (p[P_ALLOWED_PEERS]), ==,
      "allowed-peers");
  g_assert_true (G_IS_PARAM_SPEC_STRING (p[P_KEY_FILE]));
  g_assert_true (G_IS_PARAM_SPEC_BOOLEAN (p[P_ENCRYPT]));
  g_assert_true (G_IS_PARAM_SPEC_STRING (p[P_ALLOWED_PEERS]));
  g_assert_false (G_PARAM_SPEC_BOOLEAN (p[P_ENCRYPT])->default_value);
  g_assert_null (G_PARAM_SPEC_STRING (p[P_KEY_FILE])->default_value);
  g_assert_null (G_PARAM_SPEC_STRING (p[P_ALLOWED_PEERS])->default_value);
  /* each blurb speaks of the other side, never of this one */
  for (i = P_KEY_FILE; i < N_P; i++) {
    const gchar *blurb = g_param_spec_get_blurb (p[i]);

    g_assert_true ((p[i]->flags & G_PARAM_READWRITE) == G_PARAM_READWRITE);
    if (strstr (blurb, other) == NULL)
      g_error ("%s's blurb \"%s\" does not name the %s",
          g_param_spec_get_name (p[i]), blurb, other);
    g_param_spec_unref (g_param_spec_ref_sink (p[i]));
  }
}

static void
test_param_specs (void)
{
  check_specs (TRUE, "receiver");
  check_specs (FALSE, "sender");
}

/* start's check on a pipeline (its bus gets the error); the error message
 * returned (to be freed) or NULL, its debug text in *debug */
static gchar *
start (gboolean sender, gboolean encrypt, const gchar * key_file,
    const gchar * allowed, gboolean expect, GPtrArray ** allow,
    GBytes ** key, gchar ** debug)
{
  GstElement *pipeline = gst_pipeline_new (NULL);
  GstBus *bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  GstMessage *msg;
  GError *err = NULL;
  gchar *text = NULL;

  *allow = GINT_TO_POINTER (1);
  *key = GINT_TO_POINTER (1);
  g_assert_cmpint (gst_doradma_net_security_start (pipeline, sender,
          encrypt, key_file, allowed, allow, key), ==, expect);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  if (expect) {
    g_assert_null (msg);
  } else {
    g_assert_nonnull (msg);
    g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ERROR);
    gst_message_parse_error (msg, &err, debug);
    g_assert_error (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
    text = g_strdup (err->message);
    g_clear_error (&err);
    gst_message_unref (msg);
    /* a refused start keeps nothing */
    g_assert_null (*allow);
    g_assert_null (*key);
  }
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return text;
}

static void
test_encrypt_needs_key_file (void)
{
  GPtrArray *allow;
  GBytes *key;
  gchar *debug = NULL, *text;

  text = start (TRUE, TRUE, NULL, "10.0.0.1", FALSE, &allow, &key, &debug);
  g_assert_cmpstr (text, ==,
      "encrypt=true needs key-file: the keys are derived from it");
  g_assert_nonnull (strstr (debug, "the same key as the receiver's"));
  g_free (debug);
  g_free (text);
  text = start (FALSE, TRUE, "", NULL, FALSE, &allow, &key, &debug);
  g_assert_nonnull (strstr (text, "encrypt=true needs key-file"));
  g_assert_nonnull (strstr (debug, "the same key as the sender's"));
  g_free (debug);
  g_free (text);
}

static void
test_bad_allowed_peers (void)
{
  GPtrArray *allow;
  GBytes *key;
  gchar *debug = NULL;
  gchar *text = start (FALSE, FALSE, NULL, "10.0.0.1, example.com", FALSE,
      &allow, &key, &debug);

  g_assert_true (g_str_has_prefix (text,
          "allowed-peers: \"example.com\" is not"));
  g_free (debug);
  g_free (text);
}

static gchar *
write_key (const gchar * dir, const gchar * name, gsize len, gint mode)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *data = g_malloc (len);

  memset (data, 'k', len);
  g_assert_true (g_file_set_contents (path, data, len, NULL));
  g_assert_cmpint (g_chmod (path, mode), ==, 0);
  g_free (data);
  return path;
}

static void
test_key_file (void)
{
  gchar *dir = g_dir_make_tmp ("doradma-net-security-XXXXXX", NULL);
  gchar *good = write_key (dir, "good", 32, 0600);
  gchar *open = write_key (dir, "open", 32, 0644);
  gchar *missing = g_build_filename (dir, "missing", NULL);
  GPtrArray *allow;
  GBytes *key;
  gchar *debug = NULL, *text;

  /* taken: the key's bytes and the list */
  g_assert_null (start (TRUE, TRUE, good, "10.0.0.0/8, fd00::1", TRUE,
          &allow, &key, &debug));
  g_assert_nonnull (allow);
  g_assert_cmpuint (allow->len, ==, 2);
  g_assert_nonnull (key);
  g_assert_cmpuint (g_bytes_get_size (key), ==, 32);
  g_ptr_array_unref (allow);
  g_bytes_unref (key);
  /* none of them: anyone, unauthenticated (the caller warns) */
  g_assert_null (start (FALSE, FALSE, NULL, NULL, TRUE, &allow, &key, &debug));
  g_assert_null (allow);
  g_assert_null (key);
  /* an unusable key file is refused naming it, the parsed list dropped */
  text = start (TRUE, FALSE, open, "10.0.0.1", FALSE, &allow, &key, &debug);
  g_assert_nonnull (strstr (text, open));
  g_free (debug);
  g_free (text);
  text = start (FALSE, TRUE, missing, "10.0.0.1", FALSE, &allow, &key, &debug);
  g_assert_nonnull (strstr (text, missing));
  g_free (debug);
  g_free (text);

  g_assert_cmpint (g_unlink (good), ==, 0);
  g_assert_cmpint (g_unlink (open), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (missing);
  g_free (open);
  g_free (good);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net/security/param-specs", test_param_specs);
  g_test_add_func ("/net/security/encrypt-needs-key-file",
      test_encrypt_needs_key_file);
  g_test_add_func ("/net/security/bad-allowed-peers", test_bad_allowed_peers);
  g_test_add_func ("/net/security/key-file", test_key_file);
  return g_test_run ();
}
