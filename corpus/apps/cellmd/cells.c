/* cells.c - the cell list, rebuilt every step by a counting sort of the atoms by cell (stable:
 * each cell lists its atoms in increasing index, which the force loop relies on). */
#include <stdio.h>
#include <stdlib.h>

#include "md.h"

CellList *cells_new(const System *s)
{
    CellList *cl = malloc(sizeof *cl);
    if (!cl)
        return NULL;
    cl->ncell = (int)(s->box / s->cutoff);
    if (cl->ncell < 3) {
        fprintf(stderr, "cellmd: the box holds fewer than 3 cells per side\n");
        exit(2);
    }
    cl->size = s->box / cl->ncell;
    int ncells = cl->ncell * cl->ncell * cl->ncell;
    cl->start = malloc(sizeof(int) * (size_t)(ncells + 1));
    cl->atoms = malloc(sizeof(int) * (size_t)s->natoms);
    cl->cell_of = malloc(sizeof(int) * (size_t)s->natoms);
    if (!cl->start || !cl->atoms || !cl->cell_of) {
        cells_free(cl);
        return NULL;
    }
    return cl;
}

void cells_free(CellList *cl)
{
    if (!cl)
        return;
    free(cl->start);
    free(cl->atoms);
    free(cl->cell_of);
    free(cl);
}

static int coordinate_cell(double x, double size, int ncell)
{
    int c = (int)(x / size);
    return c < 0 ? 0 : c >= ncell ? ncell - 1 : c;
}

void cells_bin(const System *s, CellList *cl)
{
    int nc = cl->ncell;
    int ncells = nc * nc * nc;
    OMP(omp parallel for)
    for (int i = 0; i < s->natoms; i++) {
        int cx = coordinate_cell(s->x[3 * i + 0], cl->size, nc);
        int cy = coordinate_cell(s->x[3 * i + 1], cl->size, nc);
        int cz = coordinate_cell(s->x[3 * i + 2], cl->size, nc);
        cl->cell_of[i] = cx + nc * (cy + nc * cz);
    }
    for (int c = 0; c <= ncells; c++)
        cl->start[c] = 0;
    for (int i = 0; i < s->natoms; i++)
        cl->start[cl->cell_of[i] + 1]++;
    for (int c = 0; c < ncells; c++)
        cl->start[c + 1] += cl->start[c];
    /* fill: start[c] runs ahead through cell c, then is restored from its neighbour */
    for (int i = 0; i < s->natoms; i++)
        cl->atoms[cl->start[cl->cell_of[i]]++] = i;
    for (int c = ncells; c > 0; c--)
        cl->start[c] = cl->start[c - 1];
    cl->start[0] = 0;
}
