/* integrate.h - velocity Verlet time steps. */
#ifndef MD_INTEGRATE_H
#define MD_INTEGRATE_H

#include "system.h"

double run(System *s, int steps, double *ekin);

#endif
