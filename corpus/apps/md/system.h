/* system.h - the particles of a periodic box: positions, velocities and forces stored as
 * x[3 * i + d] (d = 0, 1, 2), the cell list that finds neighbours, and the run parameters. */
#ifndef MD_SYSTEM_H
#define MD_SYSTEM_H

typedef struct {
    int ncell;      /* cells per box edge (at least 3) */
    int *cell;      /* the cell of each particle */
    int *count;     /* particles per cell */
    int *start;     /* ncell^3 + 1 offsets into sorted */
    int *sorted;    /* particle indices, grouped by cell */
} CellList;

typedef struct {
    int n;          /* particles */
    double box;     /* edge of the periodic cube */
    double cutoff;
    double dt;
    double *x, *v, *f;
    double *epot;   /* potential energy of each particle */
    CellList cells;
} System;

System *system_new(int lattice, double density, double cutoff, double dt);
void system_free(System *s);
double kinetic_energy(int n, const double *v);

#endif
