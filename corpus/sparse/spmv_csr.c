/* lift-bench: -DN=2000000 -DREPS=30 */
/*
 * spmv_csr.c - sparse matrix-vector product y = A*x with A stored in
 * compressed sparse row (CSR) format: rowptr / col / val.
 * The matrix is built deterministically: row i has a diagonal entry
 * and 1 + i % 6 off-diagonal entries at scattered columns.
 * Style: a struct for the CSR matrix, malloc'd arrays.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef REPS
#define REPS 3
#endif

typedef struct {
    int n;       /* rows = columns */
    int nnz;
    int *rowptr; /* n + 1 entries */
    int *col;    /* nnz entries */
    double *val; /* nnz entries */
} csr_t;

static int row_length(int i)
{
    return 2 + i % 6;
}

static int csr_build(csr_t *A, int n)
{
    A->n = n;
    A->rowptr = malloc((size_t)(n + 1) * sizeof(int));
    if (!A->rowptr)
        return -1;
    A->rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        A->rowptr[i + 1] = A->rowptr[i] + row_length(i);
    A->nnz = A->rowptr[n];
    A->col = malloc((size_t)A->nnz * sizeof(int));
    A->val = malloc((size_t)A->nnz * sizeof(double));
    if (!A->col || !A->val)
        return -1;
    for (int i = 0; i < n; i++) {
        int p = A->rowptr[i];
        A->col[p] = i;
        A->val[p] = 4.0;
        for (int k = 1; k < row_length(i); k++) {
            A->col[p + k] = (int)(((long)i * 7 + (long)k * 104729) % n);
            A->val[p + k] = -1.0 / (1.0 + k + i % 3);
        }
    }
    return 0;
}

static void csr_free(csr_t *A)
{
    free(A->rowptr);
    free(A->col);
    free(A->val);
}

static void kernel_spmv(int n, const int *rowptr, const int *col,
                        const double *val, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++)
            s += val[p] * x[col[p]];
        y[i] = s;
    }
}

int main(void)
{
    const int n = N;
    csr_t A;
    if (csr_build(&A, n) != 0)
        return 1;
    double *x = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));
    if (!x || !y)
        return 1;

    for (int i = 0; i < n; i++)
        x[i] = 1.0 + (double)(i % 10) / 10.0;

    double trace = 0.0;
    for (int r = 0; r < REPS; r++) {
        kernel_spmv(n, A.rowptr, A.col, A.val, x, y);
        trace += y[r % n];
        x[r % n] += 0.5;
    }

    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += y[i] * (1 + i % 7);
    printf("%s: %.10e\n", "spmv_y", s);
    printf("%s: %.10e\n", "spmv_trace", trace);
    printf("%s: %ld\n", "spmv_nnz", (long)A.nnz);

    csr_free(&A);
    free(x);
    free(y);
    return 0;
}
