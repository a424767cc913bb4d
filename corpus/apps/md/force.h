/* force.h - Lennard-Jones forces (epsilon = sigma = 1) with a cutoff. */
#ifndef MD_FORCE_H
#define MD_FORCE_H

#include "system.h"

double compute_forces(System *s);

#endif
