/* integrate.c - velocity Verlet (unit masses) with periodic wrapping of positions. */
#include "md.h"

void half_kick(System *s)
{
    double h = 0.5 * s->dt;
    OMP(omp parallel for)
    for (int i = 0; i < 3 * s->natoms; i++)
        s->v[i] += h * s->f[i];
}

void drift(System *s)
{
    OMP(omp parallel for)
    for (int i = 0; i < 3 * s->natoms; i++) {
        double x = s->x[i] + s->dt * s->v[i];
        if (x >= s->box)
            x -= s->box;
        else if (x < 0.0)
            x += s->box;
        s->x[i] = x;
    }
}

double kinetic_energy(const System *s)
{
    double sum = 0.0;
    OMP(omp parallel for reduction(+:sum))
    for (int i = 0; i < 3 * s->natoms; i++)
        sum += s->v[i] * s->v[i];
    return 0.5 * sum;
}
