/* Description: doradmasrc spin-time at the element (issue 14).
 *  - a consumer with spin-time=10 s gets a frame published while it polls
 *    without sleeping (stats: spins 1, sleeps 0) and pushes it;
 *  - it stops polling at once on a flush / state change: PLAYING -> NULL
 *    while it polls for the next frame returns in well under the spin;
 *  - spin-time 0 (the default) sleeps: the same wait counts a sleep.
 * The writer is the lib itself, in this process.
 */
#include <gst/gst.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"

#define MS G_GUINT64_CONSTANT (1000000)

static guint64
stat_u64 (GstElement * src, const gchar * field)
{
  GstStructure *st;
  guint64 v = G_MAXUINT64;

  g_object_get (src, "stats", &st, NULL);
  gst_structure_get_uint64 (st, field, &v);
  gst_structure_free (st);
  return v;
}

static GstPadProbeReturn
count_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

static int
scenario (const char *dir, guint64 spin_ns, guint64 want_spins,
    guint64 min_sleeps, guint64 max_sleeps)
{
  struct doradma_writer *w = NULL;
  GstElement *pipe = NULL, *src;
  GstPad *pad;
  char ch[64], *desc;
  gint pushed = 0;
  guint64 t0, took, spins, sleeps;
  int res = -1, i;

  t_channel (ch, sizeof ch, "els");
  T_RC (t_open_pair (dir, ch, 4, 4096, 0, &w, NULL), 0, "writer");
  desc = g_strdup_printf ("doradmasrc name=src channel=%s spin-time=%"
      G_GUINT64_FORMAT " ! fakesink sync=false", ch, spin_ns);
  pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  T_CHECK (pipe != NULL, "pipeline");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  pad = gst_element_get_static_pad (src, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers, &pushed,
      NULL);
  gst_object_unref (pad);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  usleep (300000);              /* joined, waiting for the first frame */
  T_RC (t_publish (w, DORADMA_POLICY_LATEST, 0, 4096, NULL, NULL), 0, "pub");
  for (i = 0; i < 200 && !g_atomic_int_get (&pushed); i++)
    usleep (10000);
  T_CHECK (g_atomic_int_get (&pushed) == 1, "%d buffers pushed, want 1",
      g_atomic_int_get (&pushed));
  spins = stat_u64 (src, "spins");
  sleeps = stat_u64 (src, "sleeps");
  t_log ("spin-time %" G_GUINT64_FORMAT " ms: spins %" G_GUINT64_FORMAT
      " sleeps %" G_GUINT64_FORMAT, spin_ns / MS, spins, sleeps);
  T_CHECK (spins == want_spins && sleeps >= min_sleeps &&
      sleeps <= max_sleeps, "spins %" G_GUINT64_FORMAT " sleeps %"
      G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
      "..%" G_GUINT64_FORMAT, spins, sleeps, want_spins, min_sleeps,
      max_sleeps);
  usleep (100000);              /* polling (or asleep) for the next frame */
  t0 = t_now_ns ();
  gst_element_set_state (pipe, GST_STATE_NULL);
  took = t_now_ns () - t0;
  t_log ("PLAYING -> NULL while waiting: %.1f ms", took / 1e6);
  T_CHECK (took < 1000 * MS, "stopping took %.0f ms", took / 1e6);
  gst_object_unref (src);
  res = 0;
err:
  if (pipe) {
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
  doradma_writer_close (w);
  return res;
}

int
main (int argc, char **argv)
{
  char *dir;
  int ret = T_EXIT_FAIL;

  t_watchdog (60);
  gst_init (&argc, &argv);
  if (gst_element_factory_find ("doradmasrc") == NULL) {
    t_log ("doradmasrc not found");
    return T_EXIT_FAIL;
  }
  dir = t_shm_dir_new (NULL, "elspin");
  if (dir == NULL)
    return T_EXIT_FAIL;
  g_setenv ("DORADMA_SHM_DIR", dir, TRUE);
  /* the wait for frame 2 is under way when the stats are read: polling
   * (not counted yet) with spin-time, asleep (counted) without */
  T_RC (scenario (dir, 10000 * MS, 1, 0, 0), 0, "spin-time 10 s");
  T_RC (scenario (dir, 0, 0, 1, 2), 0, "spin-time 0");
  ret = T_EXIT_PASS;
err:
  if (t_shm_dir_remove (dir) != 0)
    ret = T_EXIT_FAIL;
  return ret;
}
