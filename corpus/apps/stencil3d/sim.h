/* sim.h - the state of a stencil3d run: two grids of nx * ny * nz doubles, point (x, y, z) at
 * x + y * nx + z * nx * ny, the outer layer held at 0. */
#ifndef STENCIL3D_SIM_H
#define STENCIL3D_SIM_H

#include "hand_omp.h"

typedef struct {
    int nx, ny, nz;
    double alpha;   /* diffusion number, at most 1/6 */
    double *u;      /* the current grid */
    double *unew;   /* the next one */
    double *sx, *sy, *sz;  /* the eigenmode's factors along each axis */
} Sim;

/* sim.c */
Sim *sim_new(int nx, int ny, int nz, double alpha);
void sim_free(Sim *sim);
void sim_init(Sim *sim);
double decay_factor(const Sim *sim);
double max_deviation(const Sim *sim, double amplitude);

/* stencil.c */
void step(Sim *sim);
double total_heat(const Sim *sim);

#endif
