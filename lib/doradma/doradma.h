/* doradma — umbrella header of libdoradma. */
#ifndef DORADMA_H
#define DORADMA_H

#define DORADMA_VERSION_MAJOR 0
#define DORADMA_VERSION_MINOR 1
#define DORADMA_VERSION_MICRO 0

#include <doradma/layout.h>
#include <doradma/ring.h>

#endif /* DORADMA_H */
