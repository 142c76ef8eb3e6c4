/* allowed-peers' list (gst/net/gstdoradmanetallow.c), without a network:
 * addresses and prefixes of both families, spaces and empty entries, an
 * IPv4 peer as a "::" listener sees it (::ffff:a.b.c.d), the empty list
 * (anyone), and malformed entries refused naming the property and the
 * entry. net-allow (netns.sh) runs the elements between namespaces. */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "gstdoradmanetallow.h"

static struct sockaddr_storage
sa (const gchar * text)
{
  struct sockaddr_storage ss;

  memset (&ss, 0, sizeof (ss));
  if (strchr (text, ':')) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;

    s6->sin6_family = AF_INET6;
    g_assert_cmpint (inet_pton (AF_INET6, text, &s6->sin6_addr), ==, 1);
  } else {
    struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;

    s4->sin_family = AF_INET;
    g_assert_cmpint (inet_pton (AF_INET, text, &s4->sin_addr), ==, 1);
  }
  return ss;
}

static gboolean
allowed (GPtrArray * allow, const gchar * text, const gchar * expect_text)
{
  struct sockaddr_storage ss = sa (text);
  gchar *named = NULL;
  gboolean ok;

  ok = gst_doradma_net_allow_check (allow, (struct sockaddr *) &ss, &named);
  g_assert_cmpstr (named, ==, expect_text ? expect_text : text);
  g_free (named);
  return ok;
}

static void
test_matches (void)
{
  GError *err = NULL;
  GPtrArray *allow = gst_doradma_net_allow_parse (" 10.1.2.3 ,,"
      "192.168.0.0/16 , fd00::/8, 2001:db8::7", "allowed-peers", &err);

  g_assert_no_error (err);
  g_assert_nonnull (allow);
  g_assert_cmpuint (allow->len, ==, 4);
  g_assert_true (allowed (allow, "10.1.2.3", NULL));
  g_assert_false (allowed (allow, "10.1.2.4", NULL));
  g_assert_true (allowed (allow, "192.168.77.1", NULL));
  g_assert_false (allowed (allow, "192.169.0.1", NULL));
  g_assert_true (allowed (allow, "fd12::1", NULL));
  g_assert_false (allowed (allow, "fe80::1", NULL));
  g_assert_true (allowed (allow, "2001:db8::7", NULL));
  g_assert_false (allowed (allow, "2001:db8::8", NULL));
  /* an IPv4 peer of a listener on "::" is matched (and named) as IPv4 */
  g_assert_true (allowed (allow, "::ffff:10.1.2.3", "10.1.2.3"));
  g_assert_false (allowed (allow, "::ffff:10.9.9.9", "10.9.9.9"));
  g_ptr_array_unref (allow);
}

static void
test_empty_is_anyone (void)
{
  GError *err = NULL;

  g_assert_null (gst_doradma_net_allow_parse (NULL, "allowed-peers", &err));
  g_assert_null (gst_doradma_net_allow_parse ("", "allowed-peers", &err));
  g_assert_null (gst_doradma_net_allow_parse (" , ", "allowed-peers", &err));
  g_assert_no_error (err);
  g_assert_true (allowed (NULL, "203.0.113.5", NULL));
  g_assert_true (allowed (NULL, "2001:db8::1", NULL));
}

static void
test_malformed (void)
{
  const gchar *bad[] = { "10.0.0.300", "10.0.0.0/33", "fd00::/129",
    "example.com", "10.0.0.1/8x"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    GError *err = NULL;
    gchar *list = g_strdup_printf ("10.0.0.1, %s", bad[i]);
    gchar *want = g_strdup_printf ("allowed-peers: \"%s\" is not", bad[i]);

    g_assert_null (gst_doradma_net_allow_parse (list, "allowed-peers", &err));
    g_assert_nonnull (err);
    if (!g_str_has_prefix (err->message, want))
      g_error ("%s: message \"%s\"", bad[i], err->message);
    g_clear_error (&err);
    g_free (want);
    g_free (list);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/net/allow/matches", test_matches);
  g_test_add_func ("/net/allow/empty-is-anyone", test_empty_is_anyone);
  g_test_add_func ("/net/allow/malformed", test_malformed);
  return g_test_run ();
}
