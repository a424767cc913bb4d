/* grid.c - allocation, initial and boundary values, checksum. */
#include <stdio.h>
#include <stdlib.h>

#include "grid.h"

Grid *grid_new(int nx, int ny)
{
    Grid *g = malloc(sizeof *g);
    if (!g) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    g->nx = nx;
    g->ny = ny;
    g->u = malloc(sizeof(double) * (size_t)(nx + 2) * (size_t)(ny + 2));
    if (!g->u) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return g;
}

void grid_free(Grid *g)
{
    free(g->u);
    free(g);
}

/* Interior: a bumpy start; boundary: a hot top edge, a warm ramp on the left, cold elsewhere. */
static void fill(int nx, int ny, double u[nx + 2][ny + 2])
{
    for (int i = 0; i <= nx + 1; i++)
        for (int j = 0; j <= ny + 1; j++)
            u[i][j] = (double)((i * j) % 17) / 17.0;
    for (int j = 0; j <= ny + 1; j++) {
        u[0][j] = 100.0;
        u[nx + 1][j] = 0.0;
    }
    for (int i = 1; i <= nx; i++) {
        u[i][0] = 50.0 * (double)i / (double)nx;
        u[i][ny + 1] = 0.0;
    }
}

void grid_init(Grid *g)
{
    fill(g->nx, g->ny, ROWS(g));
}

static void copy(int n, double *restrict dst, const double *restrict src)
{
    for (int k = 0; k < n; k++)
        dst[k] = src[k];
}

void grid_copy(Grid *dst, const Grid *src)
{
    copy((src->nx + 2) * (src->ny + 2), dst->u, src->u);
}

/* sum of u[i][j] * (1 + (i + j) % 7): every element counts, with a weight that depends on its place */
static double weighted_sum(int nx, int ny, const double u[nx + 2][ny + 2])
{
    double s = 0.0;
    for (int i = 0; i <= nx + 1; i++)
        for (int j = 0; j <= ny + 1; j++)
            s += u[i][j] * (double)(1 + (i + j) % 7);
    return s;
}

double grid_checksum(const Grid *g)
{
    return weighted_sum(g->nx, g->ny, CROWS(g));
}
