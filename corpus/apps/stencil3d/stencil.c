/* stencil.c - one explicit diffusion step over the interior, then the grids swap. */
#include "sim.h"

void step(Sim *sim)
{
    const double *u = sim->u;
    double *unew = sim->unew;
    double a = sim->alpha;
    int nxy = sim->nx * sim->ny;
    OMP(omp parallel for)
    for (int z = 1; z < sim->nz - 1; z++) {
        for (int y = 1; y < sim->ny - 1; y++) {
            for (int x = 1; x < sim->nx - 1; x++) {
                int c = x + y * sim->nx + z * nxy;
                unew[c] = u[c] + a * (u[c - 1] + u[c + 1] + u[c - sim->nx] + u[c + sim->nx]
                                      + u[c - nxy] + u[c + nxy] - 6.0 * u[c]);
            }
        }
    }
    double *t = sim->u;
    sim->u = sim->unew;
    sim->unew = t;
}

double total_heat(const Sim *sim)
{
    double sum = 0.0;
    long points = (long)sim->nx * sim->ny * sim->nz;
    OMP(omp parallel for reduction(+:sum))
    for (long c = 0; c < points; c++)
        sum += sim->u[c];
    return sum;
}
