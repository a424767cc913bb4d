/* cells.c - a counting sort of the particles by cell: count (a histogram), prefix sum,
 * scatter. Only the binning is parallel work; the scan and the scatter are sequential. */
#include "cells.h"

static int coord_cell(double x, double inv_width, int nc)
{
    int c = (int)(x * inv_width);
    if (c < 0)
        c = 0;
    if (c >= nc)
        c = nc - 1;
    return c;
}

static void bin(int n, int nc, double inv_width, const double *x, int *cell)
{
    for (int i = 0; i < n; i++)
        cell[i] = (coord_cell(x[3 * i], inv_width, nc) * nc + coord_cell(x[3 * i + 1], inv_width, nc)) * nc
                  + coord_cell(x[3 * i + 2], inv_width, nc);
}

static void histogram(int n, int cells, const int *cell, int *count)
{
    for (int c = 0; c < cells; c++)
        count[c] = 0;
    for (int i = 0; i < n; i++)
        count[cell[i]]++;
}

static void scan(int cells, const int *count, int *start)
{
    start[0] = 0;
    for (int c = 0; c < cells; c++)
        start[c + 1] = start[c] + count[c];
}

/* sorted[start[c] ...] = the particles of cell c, in index order; count is used up */
static void scatter(int n, int cells, const int *cell, const int *start, int *count, int *sorted)
{
    for (int c = 0; c < cells; c++)
        count[c] = start[c];
    for (int i = 0; i < n; i++) {
        int c = cell[i];
        sorted[count[c]] = i;
        count[c]++;
    }
}

void cells_build(System *s)
{
    CellList *cl = &s->cells;
    int nc = cl->ncell;
    int cells = nc * nc * nc;
    bin(s->n, nc, nc / s->box, s->x, cl->cell);
    histogram(s->n, cells, cl->cell, cl->count);
    scan(cells, cl->count, cl->start);
    scatter(s->n, cells, cl->cell, cl->start, cl->count, cl->sorted);
}
