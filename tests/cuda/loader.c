/* Description: the CUDA loader. No link-time libcuda/libcudart (checked in
 * /proc/self/maps before loading); a missing driver library gives -ENOENT
 * naming it, cached for later calls, and every entry point fails the same
 * way; concurrent first loads agree; with a GPU, the driver is dlopen'ed,
 * device 0 opens once per process (refcounted) and a bad ordinal is -ENODEV.
 * Passes on machines with and without a GPU: the error path is the
 * behaviour under test there. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda-test.h"

static int
maps_contain (const char *needle)
{
  FILE *f = fopen ("/proc/self/maps", "r");
  char line[512];
  int found = 0;

  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    if (strstr (line, needle))
      found = 1;
  fclose (f);
  return found;
}

static int thread_ret[8];

static void *
load_thread (void *arg)
{
  int *r = arg;

  *r = doradma_cuda_load (NULL);
  return NULL;
}

/* Child: the driver library missing. */
static int
missing_library (void)
{
  struct doradma_diag d = { 0 }, d2 = { 0 };
  struct doradma_cuda_device *dev = NULL;
  int ret;

  setenv ("DORADMA_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  ret = doradma_cuda_load (&d);
  if (!doradma_cuda_built_with_support ()) {
    T_CHECK (ret == -ENOSYS && strstr (d.msg, "built without CUDA support"),
        "no-CUDA build: load gave %d '%s'", ret, d.msg);
    return T_EXIT_PASS;
  }
  T_CHECK (ret == -ENOENT, "load with a missing library gave %d", ret);
  T_CHECK (strstr (d.msg, "/nonexistent/libcuda.so.1") != NULL,
      "message does not name the library: '%s'", d.msg);
  T_CHECK (d.field && strcmp (d.field, "dlopen") == 0, "field '%s'",
      d.field ? d.field : "(null)");
  ret = doradma_cuda_device_open (0, &dev, &d2);
  T_CHECK (ret == -ENOENT && dev == NULL && strcmp (d.msg, d2.msg) == 0,
      "device_open after a failed load gave %d '%s'", ret, d2.msg);
  printf ("missing library: %s\n", d.msg);
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}

int
main (void)
{
  struct doradma_diag d = { 0 };
  struct doradma_cuda_device *dev = NULL, *dev2 = NULL, *bad = NULL;
  pthread_t th[8];
  int ret, st, i;

  T_CHECK (maps_contain ("libcuda") == 0 && maps_contain ("libcudart") == 0,
      "libcuda or libcudart is mapped before doradma_cuda_load(): a link-time "
      "dependency crept in");

  st = t_run_child (missing_library, "missing-library");
  T_CHECK (st == T_EXIT_PASS, "missing-library child failed (%d)", st);

  for (i = 0; i < 8; i++)
    T_CHECK (pthread_create (&th[i], NULL, load_thread, &thread_ret[i]) == 0,
        "pthread_create");
  for (i = 0; i < 8; i++)
    pthread_join (th[i], NULL);
  ret = doradma_cuda_load (&d);
  for (i = 0; i < 8; i++)
    T_CHECK (thread_ret[i] == ret, "thread %d loaded with %d, main with %d",
        i, thread_ret[i], ret);
  T_CHECK (ret == doradma_cuda_load (NULL), "second load differs");

  if (ret == -ENOSYS) {
    T_CHECK (strstr (d.msg, "built without CUDA support") != NULL, "'%s'",
        d.msg);
    T_CHECK (doradma_cuda_device_open (0, &dev, NULL) == -ENOSYS, "open");
    printf ("no-CUDA build, every call fails: %s\n", d.msg);
    return T_EXIT_PASS;
  }
  if (ret == -ENOENT || ret == -ENODEV) {
    T_CHECK (strstr (d.msg, ret == -ENOENT ? "libcuda.so.1" : "device")
        != NULL, "message '%s' does not name what is missing", d.msg);
    T_CHECK (doradma_cuda_device_open (0, &dev, NULL) == ret, "open");
    printf ("no GPU here; load fails as it should: %s\n", d.msg);
    return T_EXIT_PASS;
  }
  T_CHECK (ret == 0, "load failed: %d %s", ret, d.msg);

  /* Loaded at run time, not linked: now libcuda is there, libcudart not. */
  T_CHECK (maps_contain ("libcuda.so") == 1, "libcuda not mapped after load");
  T_CHECK (maps_contain ("libcudart") == 0, "libcudart mapped");
  T_CHECK (doradma_cuda_device_open (0, &dev, &d) == 0, "open: %s", d.msg);
  T_CHECK (doradma_cuda_device_open (0, &dev2, &d) == 0 && dev2 == dev,
      "second open of ordinal 0 gave another object");
  ret = doradma_cuda_device_open (999, &bad, &d);
  T_CHECK (ret == -ENODEV && bad == NULL && strstr (d.msg, "999"),
      "ordinal 999 gave %d '%s'", ret, d.msg);
  t_print_device (dev);
  T_CHECK (doradma_cuda_device_get_context (dev) != NULL, "no context");
  doradma_cuda_device_unref (dev2);
  doradma_cuda_device_unref (dev);
  printf ("PASS\n");
  return T_EXIT_PASS;
err:
  return T_EXIT_FAIL;
}
