/* The checks of the C tests of tests/dora: EXPECT records a failure in
 * `failed` (each test file defines it) and goes on. */
#ifndef DORADMA_POOL_TEST_H
#define DORADMA_POOL_TEST_H

#include <stdio.h>

#define EXPECT(cond, ...) do { \
    if (!(cond)) { \
      fprintf (stderr, "%s:%d: CHECK FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf (stderr, __VA_ARGS__); \
      fputc ('\n', stderr); \
      failed++; \
    } \
  } while (0)

#endif
