/* sparse.c - assemble the 7-point finite-difference Laplacian of an nx x ny x nz grid
 * (Dirichlet boundaries folded in) and multiply with it. */
#include <stdio.h>
#include <stdlib.h>

#include "hand_omp.h"
#include "sparse.h"

CsrMatrix *poisson3d(int nx, int ny, int nz)
{
    CsrMatrix *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    a->nrows = nx * ny * nz;
    a->rowptr = malloc(sizeof(int) * (size_t)(a->nrows + 1));
    a->col = malloc(sizeof(int) * 7 * (size_t)a->nrows);
    a->val = malloc(sizeof(double) * 7 * (size_t)a->nrows);
    if (!a->rowptr || !a->col || !a->val) {
        csr_free(a);
        return NULL;
    }
    int k = 0;
    for (int z = 0; z < nz; z++) {
        for (int y = 0; y < ny; y++) {
            for (int x = 0; x < nx; x++) {
                int row = x + nx * (y + ny * z);
                a->rowptr[row] = k;
                /* neighbours in increasing column order, the diagonal in the middle */
                if (z > 0) { a->col[k] = row - nx * ny; a->val[k++] = -1.0; }
                if (y > 0) { a->col[k] = row - nx; a->val[k++] = -1.0; }
                if (x > 0) { a->col[k] = row - 1; a->val[k++] = -1.0; }
                a->col[k] = row;
                a->val[k++] = 6.0;
                if (x < nx - 1) { a->col[k] = row + 1; a->val[k++] = -1.0; }
                if (y < ny - 1) { a->col[k] = row + nx; a->val[k++] = -1.0; }
                if (z < nz - 1) { a->col[k] = row + nx * ny; a->val[k++] = -1.0; }
            }
        }
    }
    a->rowptr[a->nrows] = k;
    a->nnz = k;
    return a;
}

void csr_free(CsrMatrix *a)
{
    if (!a)
        return;
    free(a->rowptr);
    free(a->col);
    free(a->val);
    free(a);
}

/* y = A x */
void spmv(const CsrMatrix *a, const double *x, double *y)
{
    OMP(omp parallel for)
    for (int i = 0; i < a->nrows; i++) {
        double sum = 0.0;
        for (int k = a->rowptr[i]; k < a->rowptr[i + 1]; k++)
            sum += a->val[k] * x[a->col[k]];
        y[i] = sum;
    }
}
