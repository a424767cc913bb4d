/* sim.c - grids, the initial eigenmode sin(pi x/(nx-1)) sin(pi y/(ny-1)) sin(pi z/(nz-1)) and
 * its exact discrete evolution: every step multiplies it by the same factor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

#define PI 3.14159265358979323846

static double *axis_mode(int n)
{
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s)
        return NULL;
    for (int i = 0; i < n; i++)
        s[i] = sin(PI * i / (n - 1));
    s[0] = s[n - 1] = 0.0;
    return s;
}

Sim *sim_new(int nx, int ny, int nz, double alpha)
{
    Sim *sim = malloc(sizeof *sim);
    if (!sim)
        return NULL;
    size_t points = (size_t)nx * ny * nz;
    sim->nx = nx;
    sim->ny = ny;
    sim->nz = nz;
    sim->alpha = alpha;
    sim->u = malloc(sizeof(double) * points);
    sim->unew = malloc(sizeof(double) * points);
    sim->sx = axis_mode(nx);
    sim->sy = axis_mode(ny);
    sim->sz = axis_mode(nz);
    if (!sim->u || !sim->unew || !sim->sx || !sim->sy || !sim->sz) {
        sim_free(sim);
        return NULL;
    }
    return sim;
}

void sim_free(Sim *sim)
{
    free(sim->u);
    free(sim->unew);
    free(sim->sx);
    free(sim->sy);
    free(sim->sz);
    free(sim);
}

/* both grids: the boundary of unew is never written by a step */
void sim_init(Sim *sim)
{
    OMP(omp parallel for)
    for (int z = 0; z < sim->nz; z++) {
        for (int y = 0; y < sim->ny; y++) {
            for (int x = 0; x < sim->nx; x++) {
                int c = x + y * sim->nx + z * sim->nx * sim->ny;
                sim->u[c] = sim->sx[x] * sim->sy[y] * sim->sz[z];
                sim->unew[c] = 0.0;
            }
        }
    }
}

/* 1 - alpha * (sum over the axes of 2 - 2 cos(pi / (n - 1))) */
double decay_factor(const Sim *sim)
{
    double lambda = (2.0 - 2.0 * cos(PI / (sim->nx - 1))) + (2.0 - 2.0 * cos(PI / (sim->ny - 1)))
                    + (2.0 - 2.0 * cos(PI / (sim->nz - 1)));
    return 1.0 - sim->alpha * lambda;
}

/* max |u - amplitude * mode| */
double max_deviation(const Sim *sim, double amplitude)
{
    double dev = 0.0;
    OMP(omp parallel for reduction(max:dev))
    for (int z = 0; z < sim->nz; z++) {
        for (int y = 0; y < sim->ny; y++) {
            for (int x = 0; x < sim->nx; x++) {
                int c = x + y * sim->nx + z * sim->nx * sim->ny;
                double d = fabs(sim->u[c] - amplitude * sim->sx[x] * sim->sy[y] * sim->sz[z]);
                if (d > dev)
                    dev = d;
            }
        }
    }
    return dev;
}
