/* main.c - the cg mini-application: solve A x = b for a 3D Poisson-like matrix.
 *
 * usage: cg [N [ITERATIONS]]   (an N x N x N grid; defaults below)
 *
 * The iteration count is fixed (the tolerance is far below what it reaches), as in
 * HPCG, so that runs with differently rounded dot products do the same work.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cg.h"
#include "csr.h"
#include "vector.h"

#ifndef N
#define N 80
#endif
#ifndef ITERATIONS
#define ITERATIONS 150
#endif

/* b = A * (1, 1, ..., 1) + a ramp, so the solution is smooth but not constant */
static void rhs(const Csr *a, double *b, double *tmp)
{
    int n = a->nrows;
    fill(n, 1.0, tmp);
    spmv(a, tmp, b);
    for (int i = 0; i < n; i++)
        b[i] += (double)(i % 97) / 97.0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int iters = argc > 2 ? atoi(argv[2]) : ITERATIONS;
    if (n < 2 || iters < 1) {
        fprintf(stderr, "usage: %s [N [ITERATIONS]]\n", argv[0]);
        return 2;
    }
    Csr *a = csr_poisson3d(n, n, n);
    double *b = malloc(sizeof(double) * (size_t)a->nrows);
    double *x = malloc(sizeof(double) * (size_t)a->nrows);
    if (!b || !x) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    rhs(a, b, x);
    fill(a->nrows, 0.0, x);
    CgStats st = cg_solve(a, b, x, iters, 1e-30);
    printf("rows: %d\n", a->nrows);
    printf("nonzeros: %d\n", a->nnz);
    printf("iterations: %d\n", st.iterations);
    printf("initial_residual: %.12e\n", st.initial_residual);
    printf("final_residual: %.12e\n", st.final_residual);
    printf("solution_sum: %.12e\n", dot(a->nrows, x, b));
    free(b);
    free(x);
    csr_free(a);
    return 0;
}
