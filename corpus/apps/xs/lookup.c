/* lookup.c - the event-based lookup kernel. Each lookup samples an energy and a material,
 * then sums over the material's nuclides the concentration times the nuclide's cross
 * sections, interpolated between the two grid points around the energy (binary search).
 * The verification hash records which of the five cross sections came out largest. */
#include <stdlib.h>

#include "rng.h"
#include "xs.h"

/* the index of the last grid point with energy below e (0 or n - 2 at the ends) */
static long grid_search(long n, double e, const GridPoint *grid)
{
    long lo = 0, hi = n - 1;
    if (e <= grid[0].energy)
        return 0;
    if (e >= grid[hi].energy)
        return n - 2;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (grid[mid].energy > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

static void micro_xs(double e, int nuc, int n_gridpoints, const GridPoint *grids, double *xs)
{
    const GridPoint *g = &grids[(long)nuc * n_gridpoints];
    long idx = grid_search(n_gridpoints, e, g);
    double f = (g[idx + 1].energy - e) / (g[idx + 1].energy - g[idx].energy);
    xs[0] = g[idx + 1].total_xs - f * (g[idx + 1].total_xs - g[idx].total_xs);
    xs[1] = g[idx + 1].elastic_xs - f * (g[idx + 1].elastic_xs - g[idx].elastic_xs);
    xs[2] = g[idx + 1].absorption_xs - f * (g[idx + 1].absorption_xs - g[idx].absorption_xs);
    xs[3] = g[idx + 1].fission_xs - f * (g[idx + 1].fission_xs - g[idx].fission_xs);
    xs[4] = g[idx + 1].nu_fission_xs - f * (g[idx + 1].nu_fission_xs - g[idx].nu_fission_xs);
}

static void macro_xs(double e, int mat, int n_gridpoints, int max_nucs, const int *num_nucs, const int *mats,
                     const double *concs, const GridPoint *grids, double *xs)
{
    double micro[N_XS];
    for (int k = 0; k < N_XS; k++)
        xs[k] = 0.0;
    for (int j = 0; j < num_nucs[mat]; j++) {
        micro_xs(e, mats[mat * max_nucs + j], n_gridpoints, grids, micro);
        for (int k = 0; k < N_XS; k++)
            xs[k] += concs[mat * max_nucs + j] * micro[k];
    }
}

/* XSBench's material distribution: fuel is looked up most often */
static int pick_material(uint64_t *seed)
{
    static const double dist[N_MATERIALS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
                                             0.066, 0.055, 0.008, 0.015, 0.025, 0.013};
    double roll = lcg_random_double(seed);
    for (int m = 0; m < N_MATERIALS; m++) {
        double running = 0.0;
        for (int k = m; k > 0; k--)
            running += dist[k];
        if (roll < running)
            return m;
    }
    return 0;
}

/* The tables are only read, the verification array only written: restrict says they never
 * share memory, which no run-time check could tell from their unbounded (indirect) ranges. */
static void lookups_kernel(int lookups, int n_gridpoints, int max_nucs, const int *restrict num_nucs,
                           const int *restrict mats, const double *restrict concs,
                           const GridPoint *restrict grids, unsigned long *restrict verification)
{
    for (int i = 0; i < lookups; i++) {
        uint64_t seed = fast_forward_lcg(STARTING_SEED, 2 * (uint64_t)i);
        double e = lcg_random_double(&seed);
        int mat = pick_material(&seed);
        double xs[N_XS];
        macro_xs(e, mat, n_gridpoints, max_nucs, num_nucs, mats, concs, grids, xs);
        int best = 0;
        for (int k = 1; k < N_XS; k++)
            if (xs[k] > xs[best])
                best = k;
        verification[i] = (unsigned long)(best + 1) * (unsigned long)(mat + 1);
    }
}

static unsigned long hash(int n, const unsigned long *v)
{
    unsigned long h = 0;
    for (int i = 0; i < n; i++)
        h += v[i];
    return h;
}

unsigned long run_lookups(const Problem *p, int lookups)
{
    unsigned long *verification = malloc(sizeof(unsigned long) * (size_t)lookups);
    if (!verification)
        return 0;
    lookups_kernel(lookups, p->n_gridpoints, p->max_nucs, p->num_nucs, p->mats, p->concs, p->grids,
                   verification);
    unsigned long h = hash(lookups, verification);
    free(verification);
    return h;
}
