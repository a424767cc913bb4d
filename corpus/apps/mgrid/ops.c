/* ops.c - the multigrid operators on one level.  Row kernels take the rows above, at and
 * below; the grid transfers go through a scratch row (h->row) that each output row first
 * fills (the pass across rows) and then reads (the pass along the row). */
#include "mg.h"

#define OMEGA 0.8

static void jacobi_row(int n, double h2, const double *up, const double *mid, const double *down,
                       const double *f, double *out)
{
    for (int j = 1; j < n - 1; j++) {
        double gs = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1] + h2 * f[j]);
        out[j] = (1.0 - OMEGA) * mid[j] + OMEGA * gs;
    }
}

static void residual_row(int n, double inv_h2, const double *up, const double *mid,
                         const double *down, const double *f, double *out)
{
    for (int j = 1; j < n - 1; j++)
        out[j] = f[j] - inv_h2 * (4.0 * mid[j] - up[j] - down[j] - mid[j - 1] - mid[j + 1]);
}

void zero(int n, double *a)
{
    OMP(omp parallel for)
    for (int k = 0; k < n * n; k++)
        a[k] = 0.0;
}

/* weighted Jacobi: u -> r -> u per pair of sweeps (the buffers swap roles) */
void smooth(Hierarchy *h, int l, int sweeps)
{
    int *size = h->size;
    int n = size[l];
    double h2 = 1.0 / ((double)(n - 1) * (n - 1));
    for (int s = 0; s < sweeps; s++) {
        double *u = h->u[l], *out = h->r[l], *f = h->f[l];
        OMP(omp parallel for)
        for (int i = 1; i <= size[l] - 2; i++)
            jacobi_row(n, h2, &u[(i - 1) * n], &u[i * n], &u[(i + 1) * n], &f[i * n], &out[i * n]);
        h->r[l] = u;
        h->u[l] = out;
    }
}

void residual(Hierarchy *h, int l)
{
    int *size = h->size;
    int n = size[l];
    double inv_h2 = (double)(n - 1) * (n - 1);
    double *u = h->u[l], *f = h->f[l], *r = h->r[l];
    OMP(omp parallel for)
    for (int i = 1; i <= size[l] - 2; i++)
        residual_row(n, inv_h2, &u[(i - 1) * n], &u[i * n], &u[(i + 1) * n], &f[i * n], &r[i * n]);
}

/* this thread's scratch row (there is one per thread in the hand-parallelized build) */
static double *scratch_row(const Hierarchy *h)
{
    return h->row + (long)OMP_THREAD() * h->size[0];
}

/* full weighting of level l's residual into level l + 1's right-hand side */
void restrict_residual(Hierarchy *h, int l)
{
    int *size = h->size;
    int nf = size[l], nc = size[l + 1];
    const double *r = h->r[l];
    double *fc = h->f[l + 1];
    OMP(omp parallel)
    {
        double *row = scratch_row(h);
        OMP(omp for)
        for (int ic = 1; ic <= size[l + 1] - 2; ic++) {
            int i = 2 * ic;
            for (int j = 0; j < nf; j++)
                row[j] = 0.25 * r[(i - 1) * nf + j] + 0.5 * r[i * nf + j] + 0.25 * r[(i + 1) * nf + j];
            for (int jc = 1; jc < nc - 1; jc++)
                fc[ic * nc + jc] = 0.25 * row[2 * jc - 1] + 0.5 * row[2 * jc] + 0.25 * row[2 * jc + 1];
        }
    }
}

/* level l's u += the bilinear interpolation of level l + 1's correction; the scratch row
 * holds the coarse row interpolated to fine row i (the mean of the two around it when i is odd) */
void prolongate_add(Hierarchy *h, int l)
{
    int *size = h->size;
    int nf = size[l], nc = size[l + 1];
    const double *uc = h->u[l + 1];
    double *u = h->u[l];
    OMP(omp parallel)
    {
        double *row = scratch_row(h);
        OMP(omp for)
        for (int i = 1; i <= size[l] - 2; i++) {
            int below = i / 2, above = (i + 1) / 2;
            for (int jc = 0; jc < nc; jc++)
                row[jc] = 0.5 * (uc[below * nc + jc] + uc[above * nc + jc]);
            for (int j = 1; j < nf - 1; j++)
                u[i * nf + j] += 0.5 * (row[j / 2] + row[(j + 1) / 2]);
        }
    }
}
