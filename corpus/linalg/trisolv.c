/* lift-bench: -DN=4000 -DREPS=100 */
/*
 * trisolv.c - forward substitution  L x = b  for a lower-triangular,
 * diagonally dominant L, solved for REPS right-hand sides.
 * Style: malloc'd linearized matrix, restrict pointers, scalar
 * accumulator for the inner product.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100
#endif
#ifndef REPS
#define REPS 3
#endif

static void kernel_trisolv(int n, const double *restrict L,
                           double *restrict x, const double *restrict b)
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int j = 0; j < i; j++)
            s -= L[(size_t)i * n + j] * x[j];
        x[i] = s / L[(size_t)i * n + i];
    }
}

int main(void)
{
    const int n = N;
    double *L = malloc((size_t)n * n * sizeof *L);
    double *x = malloc((size_t)n * sizeof *x);
    double *b = malloc((size_t)n * sizeof *b);
    if (!L || !x || !b)
        return 1;

    /* off-diagonal entries in [0, 1/n), so every row sum is < 1 < L[i][i] */
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            L[(size_t)i * n + j] = j < i ? (double)((i + j) % n) / ((double)n * n) : 0.0;
        L[(size_t)i * n + i] = 2.0;
        b[i] = (double)(i % 13) / 13.0;
    }

    double total = 0.0;
    for (int r = 0; r < REPS; r++) {
        kernel_trisolv(n, L, x, b);
        for (int i = 0; i < n; i++)
            b[i] = 0.5 * b[i] + 0.25 * x[i] + (double)(i % 13) / 26.0;
        total += x[n - 1];
    }

    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 7);
    printf("%s: %.10e\n", "trisolv_x", s);
    printf("%s: %.10e\n", "trisolv_last", total);

    free(L);
    free(x);
    free(b);
    return 0;
}
