/* data.c - synthetic nuclear data: random grid points sorted by energy, and twelve
 * materials whose nuclide counts follow XSBench's (fuel has the most). */
#include <stdio.h>
#include <stdlib.h>

#include "rng.h"
#include "xs.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static int by_energy(const void *a, const void *b)
{
    double ea = ((const GridPoint *)a)->energy, eb = ((const GridPoint *)b)->energy;
    return (ea > eb) - (ea < eb);
}

static void fill_grids(int n_isotopes, int n_gridpoints, GridPoint *grids)
{
    uint64_t seed = 42ULL;
    for (int i = 0; i < n_isotopes * n_gridpoints; i++) {
        grids[i].energy = lcg_random_double(&seed);
        grids[i].total_xs = lcg_random_double(&seed);
        grids[i].elastic_xs = lcg_random_double(&seed);
        grids[i].absorption_xs = lcg_random_double(&seed);
        grids[i].fission_xs = lcg_random_double(&seed);
        grids[i].nu_fission_xs = lcg_random_double(&seed);
    }
    for (int i = 0; i < n_isotopes; i++)
        qsort(&grids[i * n_gridpoints], (size_t)n_gridpoints, sizeof(GridPoint), by_energy);
}

Problem *problem_new(int n_isotopes, int n_gridpoints)
{
    /* XSBench's "small" counts scaled to n_isotopes: fuel holds all of them */
    static const int share[N_MATERIALS] = {100, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    Problem *p = xmalloc(sizeof *p);
    p->n_isotopes = n_isotopes;
    p->n_gridpoints = n_gridpoints;
    p->max_nucs = n_isotopes;
    p->grids = xmalloc(sizeof(GridPoint) * (size_t)n_isotopes * (size_t)n_gridpoints);
    p->mats = xmalloc(sizeof(int) * N_MATERIALS * (size_t)n_isotopes);
    p->concs = xmalloc(sizeof(double) * N_MATERIALS * (size_t)n_isotopes);
    fill_grids(n_isotopes, n_gridpoints, p->grids);
    uint64_t seed = 7ULL;
    for (int m = 0; m < N_MATERIALS; m++) {
        int k = share[m] == 100 ? n_isotopes : 4 + (n_isotopes / 8) * (m % 3);
        if (k > n_isotopes)
            k = n_isotopes;
        p->num_nucs[m] = k;
        for (int j = 0; j < k; j++) {
            p->mats[m * n_isotopes + j] = (j * 7 + m * 13) % n_isotopes;
            p->concs[m * n_isotopes + j] = lcg_random_double(&seed);
        }
    }
    return p;
}

void problem_free(Problem *p)
{
    free(p->grids);
    free(p->mats);
    free(p->concs);
    free(p);
}
