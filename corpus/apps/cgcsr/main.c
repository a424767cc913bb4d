/* main.c - cgcsr: solve A x = A 1 from x = 0 and check the solution against the ones it
 * should approach, and the recomputed residual against the solver's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas.h"
#include "cg.h"
#include "sparse.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 96;
    int max_iter = argc > 2 ? atoi(argv[2]) : 150;
    if (n < 2 || max_iter < 1) {
        fprintf(stderr, "usage: %s [N [ITERATIONS]]\n", argv[0]);
        return 2;
    }
    CsrMatrix *a = poisson3d(n, n, n);
    int rows = a ? a->nrows : 0;
    double *ones = malloc(sizeof(double) * (size_t)rows);
    double *b = malloc(sizeof(double) * (size_t)rows);
    double *x = malloc(sizeof(double) * (size_t)rows);
    double *check = malloc(sizeof(double) * (size_t)rows);
    if (!a || !ones || !b || !x || !check) {
        fprintf(stderr, "cgcsr: out of memory\n");
        return 1;
    }
    fill(rows, 1.0, ones);
    spmv(a, ones, b);
    fill(rows, 0.0, x);
    CgResult res = cg(a, b, x, max_iter, 1e-12);

    /* the true residual |b - A x| must match the recurrence's, and x must approach 1 */
    spmv(a, x, check);
    axpby(rows, 1.0, b, -1.0, check, check);
    double true_norm = sqrt(dot(rows, check, check));
    axpby(rows, 1.0, x, -1.0, ones, check);
    double error = sqrt(dot(rows, check, check) / rows);
    double reduction = res.final_norm / res.initial_norm;
    int ok = fabs(true_norm - res.final_norm) <= 1e-6 * res.initial_norm && error < 1.0;

    printf("rows: %d\n", rows);
    printf("nonzeros: %d\n", a->nnz);
    printf("iterations: %d\n", res.iterations);
    printf("residual_reduction: %.10e\n", reduction);
    printf("rms_error: %.10e\n", error);
    printf("verified: %d\n", ok);
    csr_free(a);
    free(ones);
    free(b);
    free(x);
    free(check);
    return ok ? 0 : 1;
}
