/* setup.c - atoms on an fcc lattice, random velocities with zero total momentum scaled to
 * the temperature. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "md.h"

static double uniform(unsigned long long *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) / 9007199254740992.0;
}

System *system_new(int unit_cells, double density, double temperature)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    System *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    double lattice = cbrt(4.0 / density);
    s->natoms = 4 * unit_cells * unit_cells * unit_cells;
    s->box = lattice * unit_cells;
    s->cutoff = 2.5;
    s->dt = 0.004;
    s->x = malloc(sizeof(double) * 3 * (size_t)s->natoms);
    s->v = malloc(sizeof(double) * 3 * (size_t)s->natoms);
    s->f = malloc(sizeof(double) * 3 * (size_t)s->natoms);
    if (!s->x || !s->v || !s->f) {
        system_free(s);
        return NULL;
    }
    int n = 0;
    for (int k = 0; k < unit_cells; k++)
        for (int j = 0; j < unit_cells; j++)
            for (int i = 0; i < unit_cells; i++)
                for (int b = 0; b < 4; b++) {
                    s->x[3 * n + 0] = (i + basis[b][0]) * lattice;
                    s->x[3 * n + 1] = (j + basis[b][1]) * lattice;
                    s->x[3 * n + 2] = (k + basis[b][2]) * lattice;
                    n++;
                }

    unsigned long long state = 20241124ULL;
    double p[3] = {0, 0, 0};
    for (int i = 0; i < 3 * s->natoms; i++) {
        s->v[i] = uniform(&state) - 0.5;
        p[i % 3] += s->v[i];
    }
    double ekin = 0.0;
    for (int i = 0; i < 3 * s->natoms; i++) {
        s->v[i] -= p[i % 3] / s->natoms;
        ekin += 0.5 * s->v[i] * s->v[i];
    }
    double scale = sqrt(1.5 * s->natoms * temperature / ekin);
    for (int i = 0; i < 3 * s->natoms; i++)
        s->v[i] *= scale;
    return s;
}

void system_free(System *s)
{
    if (!s)
        return;
    free(s->x);
    free(s->v);
    free(s->f);
    free(s);
}
