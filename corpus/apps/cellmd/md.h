/* md.h - the state of a cellmd run.  Positions, velocities and forces are flat arrays of
 * 3 * natoms doubles (x, y, z of atom i at 3i, 3i+1, 3i+2). */
#ifndef CELLMD_MD_H
#define CELLMD_MD_H

#include "hand_omp.h"

typedef struct {
    int natoms;
    double box;     /* periodic cube side */
    double cutoff;
    double dt;
    double *x, *v, *f;
} System;

/* Atoms of cell c are atoms[start[c] .. start[c + 1] - 1], in increasing atom index. */
typedef struct {
    int ncell;      /* cells per side */
    double size;    /* cell side (>= cutoff) */
    int *start;     /* ncell^3 + 1 */
    int *atoms;     /* natoms */
    int *cell_of;   /* natoms */
} CellList;

/* setup.c */
System *system_new(int unit_cells, double density, double temperature);
void system_free(System *s);

/* cells.c */
CellList *cells_new(const System *s);
void cells_free(CellList *cl);
void cells_bin(const System *s, CellList *cl);

/* force.c */
double compute_forces(System *s, const CellList *cl);

/* integrate.c */
void half_kick(System *s);
void drift(System *s);
double kinetic_energy(const System *s);

#endif
