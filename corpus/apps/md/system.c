/* system.c - a simple cubic lattice, jiggled and given velocities by a 64-bit LCG. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "system.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Knuth's MMIX LCG; the top 53 bits give a double in [0, 1). */
static double lcg_uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

System *system_new(int lattice, double density, double cutoff, double dt)
{
    System *s = xmalloc(sizeof *s);
    int n = lattice * lattice * lattice;
    double a = cbrt(1.0 / density);
    s->n = n;
    s->box = a * lattice;
    s->cutoff = cutoff;
    s->dt = dt;
    s->x = xmalloc(sizeof(double) * 3 * (size_t)n);
    s->v = xmalloc(sizeof(double) * 3 * (size_t)n);
    s->f = xmalloc(sizeof(double) * 3 * (size_t)n);
    s->epot = xmalloc(sizeof(double) * (size_t)n);
    uint64_t seed = 20261121ULL;
    int p = 0;
    for (int i = 0; i < lattice; i++)
        for (int j = 0; j < lattice; j++)
            for (int k = 0; k < lattice; k++) {
                s->x[3 * p + 0] = a * (i + 0.5) + 0.1 * a * (lcg_uniform(&seed) - 0.5);
                s->x[3 * p + 1] = a * (j + 0.5) + 0.1 * a * (lcg_uniform(&seed) - 0.5);
                s->x[3 * p + 2] = a * (k + 0.5) + 0.1 * a * (lcg_uniform(&seed) - 0.5);
                for (int d = 0; d < 3; d++)
                    s->v[3 * p + d] = lcg_uniform(&seed) - 0.5;
                p++;
            }
    int nc = (int)(s->box / cutoff);
    if (nc < 3) {
        fprintf(stderr, "box too small for the cutoff: use a larger lattice\n");
        exit(2);
    }
    int cells = nc * nc * nc;
    s->cells.ncell = nc;
    s->cells.cell = xmalloc(sizeof(int) * (size_t)n);
    s->cells.count = xmalloc(sizeof(int) * (size_t)cells);
    s->cells.start = xmalloc(sizeof(int) * (size_t)(cells + 1));
    s->cells.sorted = xmalloc(sizeof(int) * (size_t)n);
    return s;
}

void system_free(System *s)
{
    free(s->x);
    free(s->v);
    free(s->f);
    free(s->epot);
    free(s->cells.cell);
    free(s->cells.count);
    free(s->cells.start);
    free(s->cells.sorted);
    free(s);
}

double kinetic_energy(int n, const double *v)
{
    double e = 0.0;
    for (int i = 0; i < 3 * n; i++)
        e += 0.5 * v[i] * v[i];
    return e;
}
