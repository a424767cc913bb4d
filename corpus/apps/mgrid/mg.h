/* mg.h - the grid hierarchy of mgrid.  Level 0 is the finest; level l has size[l] points per
 * side (boundaries included, held at 0), stored row by row: point (i, j) at [i * size[l] + j]. */
#ifndef MGRID_MG_H
#define MGRID_MG_H

#include "hand_omp.h"

#define MAX_LEVELS 16

typedef struct {
    int levels;
    int size[MAX_LEVELS];
    double *u[MAX_LEVELS];   /* solution (finest) or correction (coarser) */
    double *f[MAX_LEVELS];   /* right-hand side */
    double *r[MAX_LEVELS];   /* residual; also the smoother's second buffer */
    double *row;             /* scratch row of the finest size for the transfers */
} Hierarchy;

/* grid.c */
Hierarchy *hierarchy_new(int log2n);
void hierarchy_free(Hierarchy *h);
void set_problem(Hierarchy *h);
double norm2(int n, const double *a);
double max_error(const Hierarchy *h);

/* ops.c */
void smooth(Hierarchy *h, int l, int sweeps);
void residual(Hierarchy *h, int l);
void restrict_residual(Hierarchy *h, int l);
void prolongate_add(Hierarchy *h, int l);
void zero(int n, double *a);

/* vcycle.c */
void vcycle(Hierarchy *h, int l);

#endif
