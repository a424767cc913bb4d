/* grid.h - a 2D grid of doubles with a one-cell halo, stored row by row in one malloc'd block. */
#ifndef HEAT_GRID_H
#define HEAT_GRID_H

typedef struct {
    int nx, ny;      /* interior points; the stored array is (nx + 2) x (ny + 2) */
    double *u;
} Grid;

/* The grid's block as a 2D array, so kernels can index it u[i][j], 0 <= i <= nx + 1, 0 <= j <= ny + 1. */
#define ROWS(g) ((double (*)[(g)->ny + 2])(g)->u)
#define CROWS(g) ((const double (*)[(g)->ny + 2])(g)->u)

Grid *grid_new(int nx, int ny);
void grid_free(Grid *g);
void grid_init(Grid *g);
void grid_copy(Grid *dst, const Grid *src);
double grid_checksum(const Grid *g);

#endif
