/* lift-bench: -DNPTS=200000 -DK=16 -DDIM=8 -DMAXIT=60 */
/*
 * kmeans.c - Lloyd's k-means clustering of deterministic points.
 * Iterates (assignment step, update step) until no point changes its
 * cluster or MAXIT iterations are done.
 * Style: malloc'd linearized points x[i*dim+d], a struct holding the
 * problem, helper functions, a while loop.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NPTS
#define NPTS 2000
#endif
#ifndef K
#define K 5
#endif
#ifndef DIM
#define DIM 3
#endif
#ifndef MAXIT
#define MAXIT 30
#endif

typedef struct {
    int npts, k, dim;
    double *x;      /* npts * dim */
    double *cent;   /* k * dim */
    double *sums;   /* k * dim scratch */
    long *count;    /* k scratch */
    int *assign;    /* npts */
} kmeans_t;

static inline double sq(double v)
{
    return v * v;
}

/* assign every point to its nearest centroid; returns how many changed */
static long kernel_assign(kmeans_t *km)
{
    const int npts = km->npts, k = km->k, dim = km->dim;
    long changed = 0;
    for (int i = 0; i < npts; i++) {
        int best = 0;
        double bestd = 1e300;
        for (int c = 0; c < k; c++) {
            double dist = 0.0;
            for (int d = 0; d < dim; d++)
                dist += sq(km->x[i * dim + d] - km->cent[c * dim + d]);
            if (dist < bestd) {
                bestd = dist;
                best = c;
            }
        }
        if (km->assign[i] != best) {
            km->assign[i] = best;
            changed++;
        }
    }
    return changed;
}

/* recompute the centroids as the mean of their points */
static void kernel_update(kmeans_t *km)
{
    const int npts = km->npts, k = km->k, dim = km->dim;
    for (int t = 0; t < k * dim; t++)
        km->sums[t] = 0.0;
    for (int c = 0; c < k; c++)
        km->count[c] = 0;
    for (int i = 0; i < npts; i++) {
        int c = km->assign[i];
        km->count[c]++;
        for (int d = 0; d < dim; d++)
            km->sums[c * dim + d] += km->x[i * dim + d];
    }
    for (int c = 0; c < k; c++)
        if (km->count[c] > 0)
            for (int d = 0; d < dim; d++)
                km->cent[c * dim + d] = km->sums[c * dim + d] / km->count[c];
}

static int kmeans_init(kmeans_t *km, int npts, int k, int dim)
{
    km->npts = npts;
    km->k = k;
    km->dim = dim;
    km->x = malloc((size_t)npts * dim * sizeof(double));
    km->cent = malloc((size_t)k * dim * sizeof(double));
    km->sums = malloc((size_t)k * dim * sizeof(double));
    km->count = malloc((size_t)k * sizeof(long));
    km->assign = malloc((size_t)npts * sizeof(int));
    if (!km->x || !km->cent || !km->sums || !km->count || !km->assign)
        return -1;
    for (int i = 0; i < npts; i++) {
        /* scrambled, roughly uniform coordinates in [0, 4): no obvious
           clusters, so Lloyd's iteration needs many sweeps to settle */
        for (int d = 0; d < dim; d++)
            km->x[i * dim + d] = 4.0 * (double)(((long)i * 7919 + (long)d * 104729
                                                 + (long)i * i % 65537) % 10007) / 10007.0;
        km->assign[i] = -1;
    }
    /* initial centroids: points 0, 7, 14, ... */
    for (int c = 0; c < k; c++)
        for (int d = 0; d < dim; d++)
            km->cent[c * dim + d] = km->x[(c * 7 % npts) * dim + d];
    return 0;
}

static void kmeans_free(kmeans_t *km)
{
    free(km->x);
    free(km->cent);
    free(km->sums);
    free(km->count);
    free(km->assign);
}

int main(void)
{
    kmeans_t km;
    if (kmeans_init(&km, NPTS, K, DIM) != 0)
        return 1;

    int it = 0;
    long changed = 1;
    while (changed > 0 && it < MAXIT) {
        changed = kernel_assign(&km);
        kernel_update(&km);
        it++;
    }

    double sc = 0.0;
    for (int t = 0; t < K * DIM; t++)
        sc += km.cent[t] * (1 + t % 7);
    long sa = 0;
    for (int i = 0; i < NPTS; i++)
        sa += (long)km.assign[i] * (1 + i % 7);
    printf("%s: %ld\n", "kmeans_iterations", (long)it);
    printf("%s: %ld\n", "kmeans_changed", changed);
    printf("%s: %.10e\n", "kmeans_centroids", sc);
    printf("%s: %ld\n", "kmeans_assign", sa);

    kmeans_free(&km);
    return 0;
}
