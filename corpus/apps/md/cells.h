/* cells.h - binning particles into cells of at least the cutoff's size. */
#ifndef MD_CELLS_H
#define MD_CELLS_H

#include "system.h"

void cells_build(System *s);

#endif
