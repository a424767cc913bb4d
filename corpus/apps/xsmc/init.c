/* init.c - synthetic nuclear data: random cross sections on a sorted random energy grid per
 * nuclide, and XSBench's twelve materials (fuel has the most nuclides). */
#include <stdio.h>
#include <stdlib.h>

#include "xsmc.h"

static int cmp_energy(const void *a, const void *b)
{
    double ea = ((const NuclideGridPoint *)a)->energy;
    double eb = ((const NuclideGridPoint *)b)->energy;
    return (ea > eb) - (ea < eb);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "xsmc: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

/* XSBench's nuclide counts per material for the "small" problem (68 isotopes); larger
 * isotope counts put the extra nuclides in the fuel. */
static void load_num_nucs(int n_isotopes, int *num_nucs)
{
    static const int small[N_MATS] = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};
    for (int m = 0; m < N_MATS; m++)
        num_nucs[m] = small[m];
    num_nucs[0] += n_isotopes - 68 > 0 ? n_isotopes - 68 : 0;
}

SimulationData grid_init(Inputs in)
{
    SimulationData sd;
    uint64_t seed = 42;
    long total = (long)in.n_isotopes * in.n_gridpoints;
    sd.nuclide_grid = xmalloc(sizeof(NuclideGridPoint) * (size_t)total);
    for (long i = 0; i < total; i++) {
        NuclideGridPoint *g = &sd.nuclide_grid[i];
        g->energy = lcg_random_double(&seed);
        g->total_xs = lcg_random_double(&seed);
        g->elastic_xs = lcg_random_double(&seed);
        g->absorption_xs = lcg_random_double(&seed);
        g->fission_xs = lcg_random_double(&seed);
        g->nu_fission_xs = lcg_random_double(&seed);
    }
    for (int n = 0; n < in.n_isotopes; n++)
        qsort(&sd.nuclide_grid[(long)n * in.n_gridpoints], (size_t)in.n_gridpoints,
              sizeof(NuclideGridPoint), cmp_energy);

    sd.num_nucs = xmalloc(sizeof(int) * N_MATS);
    load_num_nucs(in.n_isotopes, sd.num_nucs);
    sd.max_num_nucs = 0;
    for (int m = 0; m < N_MATS; m++)
        if (sd.num_nucs[m] > sd.max_num_nucs)
            sd.max_num_nucs = sd.num_nucs[m];
    sd.mats = xmalloc(sizeof(int) * N_MATS * (size_t)sd.max_num_nucs);
    sd.concs = xmalloc(sizeof(double) * N_MATS * (size_t)sd.max_num_nucs);
    for (int m = 0; m < N_MATS; m++) {
        for (int j = 0; j < sd.num_nucs[m]; j++) {
            /* fuel takes the first nuclides, the others a spread of the rest */
            sd.mats[m * sd.max_num_nucs + j] = m == 0 ? j : (j * 7 + m * 3) % in.n_isotopes;
            sd.concs[m * sd.max_num_nucs + j] = lcg_random_double(&seed);
        }
    }
    sd.verification = xmalloc(sizeof(unsigned long) * (size_t)in.lookups);
    return sd;
}

void free_simulation_data(SimulationData sd)
{
    free(sd.nuclide_grid);
    free(sd.num_nucs);
    free(sd.mats);
    free(sd.concs);
    free(sd.verification);
}
