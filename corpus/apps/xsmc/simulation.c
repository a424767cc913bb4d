/* simulation.c - the event loop: each lookup samples an energy and a material from its own
 * place in one random stream, computes the material's five macroscopic cross sections
 * (binary search on every nuclide's grid, interpolation, sum weighted by concentration) and
 * records which one is largest. */
#include <stdio.h>

#include "xsmc.h"

/* the 63-bit LCG of XSBench */
double lcg_random_double(uint64_t *seed)
{
    const uint64_t m = 9223372036854775808ULL; /* 2^63 */
    const uint64_t a = 2806196910506780709ULL;
    const uint64_t c = 1ULL;
    *seed = (a * (*seed) + c) % m;
    return (double)(*seed) / (double)m;
}

/* the seed n draws further on, in O(log n) (repeated squaring) */
uint64_t fast_forward_lcg(uint64_t seed, uint64_t n)
{
    const uint64_t m = 9223372036854775808ULL;
    uint64_t a = 2806196910506780709ULL;
    uint64_t c = 1ULL;
    uint64_t a_new = 1, c_new = 0;
    n = n % m;
    while (n > 0) {
        if (n & 1) {
            a_new *= a;
            c_new = c_new * a + c;
        }
        c *= (a + 1);
        a *= a;
        n >>= 1;
    }
    return (a_new * seed + c_new) % m;
}

/* index of the grid point at or below quarry (lowest interval at the ends) */
static long grid_search(long n, double quarry, const NuclideGridPoint *grid)
{
    long lower = 0, upper = n - 1;
    while (upper - lower > 1) {
        long mid = lower + (upper - lower) / 2;
        if (grid[mid].energy > quarry)
            upper = mid;
        else
            lower = mid;
    }
    return lower;
}

/* the same index by a linear scan: the verification's independent answer */
static long grid_scan(long n, double quarry, const NuclideGridPoint *grid)
{
    long idx = 0;
    while (idx + 2 < n && grid[idx + 1].energy <= quarry)
        idx++;
    return idx;
}

static void calculate_micro_xs(double p_energy, const NuclideGridPoint *low, double *xs_vector)
{
    const NuclideGridPoint *high = low + 1;
    double f = (high->energy - p_energy) / (high->energy - low->energy);
    xs_vector[0] = high->total_xs - f * (high->total_xs - low->total_xs);
    xs_vector[1] = high->elastic_xs - f * (high->elastic_xs - low->elastic_xs);
    xs_vector[2] = high->absorption_xs - f * (high->absorption_xs - low->absorption_xs);
    xs_vector[3] = high->fission_xs - f * (high->fission_xs - low->fission_xs);
    xs_vector[4] = high->nu_fission_xs - f * (high->nu_fission_xs - low->nu_fission_xs);
}

static void calculate_macro_xs(double p_energy, int mat, long n_gridpoints, const int *num_nucs,
                               const double *concs, const NuclideGridPoint *nuclide_grids,
                               const int *mats, int max_num_nucs, int linear, double *macro_xs_vector)
{
    double xs_vector[N_XS];
    for (int k = 0; k < N_XS; k++)
        macro_xs_vector[k] = 0;
    for (int j = 0; j < num_nucs[mat]; j++) {
        int p_nuc = mats[mat * max_num_nucs + j];
        double conc = concs[mat * max_num_nucs + j];
        const NuclideGridPoint *grid = &nuclide_grids[p_nuc * n_gridpoints];
        long idx = linear ? grid_scan(n_gridpoints, p_energy, grid)
                          : grid_search(n_gridpoints, p_energy, grid);
        calculate_micro_xs(p_energy, &grid[idx], xs_vector);
        for (int k = 0; k < N_XS; k++)
            macro_xs_vector[k] += xs_vector[k] * conc;
    }
}

/* XSBench's material distribution (fuel most often), by cumulative probability */
static int pick_mat(uint64_t *seed)
{
    static const double dist[N_MATS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
                                        0.066, 0.055, 0.008, 0.015, 0.025, 0.013};
    double roll = lcg_random_double(seed);
    double running = 0.0;
    for (int m = 0; m < N_MATS - 1; m++) {
        running += dist[m];
        if (roll < running)
            return m;
    }
    return N_MATS - 1;
}

/* 1 + the index of the largest of the five cross sections */
static unsigned long max_index(const double *xs)
{
    double max = -1.0;
    unsigned long idx = 0;
    for (int k = 0; k < N_XS; k++) {
        if (xs[k] > max) {
            max = xs[k];
            idx = (unsigned long)k + 1;
        }
    }
    return idx;
}

static unsigned long lookup(long i, Inputs in, SimulationData sd, int linear)
{
    double macro_xs_vector[N_XS];
    uint64_t seed = fast_forward_lcg(STARTING_SEED, 2 * (uint64_t)i);
    double p_energy = lcg_random_double(&seed);
    int mat = pick_mat(&seed);
    calculate_macro_xs(p_energy, mat, in.n_gridpoints, sd.num_nucs, sd.concs, sd.nuclide_grid,
                       sd.mats, sd.max_num_nucs, linear, macro_xs_vector);
    return max_index(macro_xs_vector);
}

unsigned long run_event_based_simulation(Inputs in, SimulationData sd)
{
    OMP(omp parallel for schedule(dynamic, 100))
    for (long i = 0; i < in.lookups; i++) {
        uint64_t seed = fast_forward_lcg(STARTING_SEED, 2 * (uint64_t)i);
        double p_energy = lcg_random_double(&seed);
        int mat = pick_mat(&seed);
        double macro_xs_vector[N_XS];
        calculate_macro_xs(p_energy, mat, in.n_gridpoints, sd.num_nucs, sd.concs, sd.nuclide_grid,
                           sd.mats, sd.max_num_nucs, 0, macro_xs_vector);
        sd.verification[i] = max_index(macro_xs_vector);
    }
    unsigned long hash = 0;
    OMP(omp parallel for reduction(+:hash))
    for (long i = 0; i < in.lookups; i++)
        hash += sd.verification[i];
    return hash;
}

/* Recompute every verify_every-th lookup with linear grid scans; 1 when all agree. */
int verify_sample(Inputs in, SimulationData sd)
{
    int bad = 0;
    for (long i = 0; i < in.lookups; i += in.verify_every)
        if (lookup(i, in, sd, 1) != sd.verification[i])
            bad++;
    if (bad)
        fprintf(stderr, "xsmc: %d sampled lookups disagree with the linear-search reference\n", bad);
    return bad == 0;
}
