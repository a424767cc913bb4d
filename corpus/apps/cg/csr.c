/* csr.c - assembly of a 7-point 3D Poisson matrix with a diagonal shift, and y = A x. */
#include <stdio.h>
#include <stdlib.h>

#include "csr.h"

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

/* Row (i, j, k) couples to its six neighbours inside the box; the diagonal is
 * 6.5 minus a small position-dependent term, so the matrix is symmetric positive
 * definite but not a plain stencil. Rows at the boundary are shorter. */
Csr *csr_poisson3d(int nx, int ny, int nz)
{
    Csr *a = xmalloc(sizeof *a);
    int n = nx * ny * nz;
    a->nrows = n;
    a->rowptr = xmalloc(sizeof(int) * (size_t)(n + 1));
    a->col = xmalloc(sizeof(int) * (size_t)n * 7);
    a->val = xmalloc(sizeof(double) * (size_t)n * 7);
    int nnz = 0;
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            for (int k = 0; k < nz; k++) {
                int row = (i * ny + j) * nz + k;
                a->rowptr[row] = nnz;
                if (i > 0) { a->col[nnz] = row - ny * nz; a->val[nnz++] = -1.0; }
                if (j > 0) { a->col[nnz] = row - nz; a->val[nnz++] = -1.0; }
                if (k > 0) { a->col[nnz] = row - 1; a->val[nnz++] = -1.0; }
                a->col[nnz] = row;
                a->val[nnz++] = 6.5 - 0.25 * (double)((i + 2 * j + 3 * k) % 5) / 5.0;
                if (k < nz - 1) { a->col[nnz] = row + 1; a->val[nnz++] = -1.0; }
                if (j < ny - 1) { a->col[nnz] = row + nz; a->val[nnz++] = -1.0; }
                if (i < nx - 1) { a->col[nnz] = row + ny * nz; a->val[nnz++] = -1.0; }
            }
    a->rowptr[n] = nnz;
    a->nnz = nnz;
    return a;
}

void csr_free(Csr *a)
{
    free(a->rowptr);
    free(a->col);
    free(a->val);
    free(a);
}

/* y = A x: each row is a dot product over its own stored entries (a data-dependent range),
 * gathering x through the column indices. Rows only write their own y[i]. The matrix
 * arrays and x are never written here and share no memory with y (restrict says so). */
void spmv(const Csr *a, const double *restrict x, double *restrict y)
{
    const int *restrict rowptr = a->rowptr;
    const int *restrict col = a->col;
    const double *restrict val = a->val;
    int n = a->nrows;
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            sum += val[k] * x[col[k]];
        y[i] = sum;
    }
}
