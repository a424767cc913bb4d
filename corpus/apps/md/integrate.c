/* integrate.c - velocity Verlet: half kick, drift (wrapped into the box), new forces, half kick. */
#include "cells.h"
#include "force.h"
#include "integrate.h"

static void half_kick(int n, double h, const double *f, double *v)
{
    for (int i = 0; i < 3 * n; i++)
        v[i] += h * f[i];
}

static void drift(int n, double dt, double box, const double *v, double *x)
{
    for (int i = 0; i < 3 * n; i++) {
        double y = x[i] + dt * v[i];
        if (y >= box)
            y -= box;
        if (y < 0.0)
            y += box;
        x[i] = y;
    }
}

/* steps time steps; returns the potential energy at the end, the kinetic energy in *ekin */
double run(System *s, int steps, double *ekin)
{
    cells_build(s);
    double epot = compute_forces(s);
    for (int t = 0; t < steps; t++) {
        half_kick(s->n, 0.5 * s->dt, s->f, s->v);
        drift(s->n, s->dt, s->box, s->v, s->x);
        cells_build(s);
        epot = compute_forces(s);
        half_kick(s->n, 0.5 * s->dt, s->f, s->v);
    }
    *ekin = kinetic_energy(s->n, s->v);
    return epot;
}
