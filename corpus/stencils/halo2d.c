/* lift-bench: -DNX=1500 -DNY=1200 -DITERS=60 */
/*
 * halo2d.c - explicit 2-D diffusion on a grid padded with one ghost cell on each side.
 * Style: application code: a struct of sizes and malloc'd buffers, a row stride of
 * `nx + 2` through an IDX macro and a `const int` leading dimension, periodic halo
 * updates, a residual reduction, buffers swapped each step, a while loop to convergence.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef NX
#define NX 50
#endif
#ifndef NY
#define NY 40
#endif
#ifndef ITERS
#define ITERS 30
#endif

#define IDX(g, i, j) ((i) * ((g)->nx + 2) + (j))

typedef struct {
    int nx, ny;      /* interior cells; the buffers hold (ny + 2) rows of (nx + 2) */
    double *u, *unew;
    double alpha;
} Grid;

static void kernel_halo(Grid *g)
{
    int nx = g->nx, ny = g->ny;
    double *u = g->u;
    /* periodic in x: the ghost columns copy the opposite interior columns */
    for (int i = 1; i <= ny; i++) {
        u[i * (nx + 2) + 0] = u[i * (nx + 2) + nx];
        u[i * (nx + 2) + nx + 1] = u[i * (nx + 2) + 1];
    }
    /* fixed in y: the ghost rows mirror the first and last interior rows */
    for (int j = 0; j < nx + 2; j++) {
        u[j] = u[(nx + 2) + j];
        u[(ny + 1) * (nx + 2) + j] = u[ny * (nx + 2) + j];
    }
}

static double kernel_step(Grid *g)
{
    const int ld = g->nx + 2;
    int nx = g->nx, ny = g->ny;
    const double *u = g->u;
    double *v = g->unew;
    double a = g->alpha, change = 0.0;
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++) {
            double lap = u[(i - 1) * ld + j] + u[(i + 1) * ld + j] + u[i * ld + j - 1] + u[i * ld + j + 1]
                         - 4.0 * u[i * ld + j];
            v[i * ld + j] = u[i * ld + j] + a * lap;
            change += fabs(a * lap);
        }
    return change;
}

static double kernel_energy(const Grid *g)
{
    double e = 0.0;
    for (int i = 1; i <= g->ny; i++)
        for (int j = 1; j <= g->nx; j++)
            e += g->u[IDX(g, i, j)] * g->u[IDX(g, i, j)];
    return e;
}

int main(void)
{
    Grid g;
    g.nx = NX;
    g.ny = NY;
    g.alpha = 0.2;
    size_t cells = (size_t)(NX + 2) * (NY + 2);
    g.u = malloc(cells * sizeof(double));
    g.unew = malloc(cells * sizeof(double));
    if (!g.u || !g.unew) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int i = 0; i < NY + 2; i++)
        for (int j = 0; j < NX + 2; j++) {
            g.u[IDX(&g, i, j)] = (double)((i * 7 + j * 13) % 17) / 16.0;
            g.unew[IDX(&g, i, j)] = 0.0;
        }
    int iter = 0;
    double change = 1.0;
    while (iter < ITERS && change > 1e-9) {
        kernel_halo(&g);
        change = kernel_step(&g);
        double *t = g.u;
        g.u = g.unew;
        g.unew = t;
        iter++;
    }
    printf("iterations: %d\n", iter);
    printf("change: %.6e\n", change);
    printf("energy: %.10e\n", kernel_energy(&g));
    double s = 0.0;
    for (int i = 1; i <= NY; i++)
        for (int j = 1; j <= NX; j++)
            s += g.u[IDX(&g, i, j)] * (1 + (i + 3 * j) % 5);
    printf("checksum: %.10e\n", s);
    free(g.u);
    free(g.unew);
    return 0;
}
