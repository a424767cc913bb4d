/* lift-bench: -DN=4000 -DM=4000 -DREPS=60 */
/*
 * gemv.c - dense matrix-vector product  y = alpha*A*x + beta*y,
 * repeated REPS times.  Style: malloc'd row-major matrix indexed
 * A[i*m + j] and restrict-qualified pointer parameters.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 96
#endif
#ifndef M
#define M 80
#endif
#ifndef REPS
#define REPS 4
#endif

static void kernel_gemv(int n, int m, double alpha, double beta,
                        const double *restrict A, const double *restrict x,
                        double *restrict y)
{
    for (int i = 0; i < n; i++) {
        double t = 0.0;
        for (int j = 0; j < m; j++)
            t += A[i * m + j] * x[j];
        y[i] = alpha * t + beta * y[i];
    }
}

int main(void)
{
    const int n = N, m = M;
    double *A = malloc((size_t)n * m * sizeof *A);
    double *x = malloc((size_t)m * sizeof *x);
    double *y = malloc((size_t)n * sizeof *y);
    if (!A || !x || !y)
        return 1;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[(size_t)i * m + j] = (double)((i + 3 * j) % 17) / (17.0 * m);
    for (int j = 0; j < m; j++)
        x[j] = 1.0 + (double)(j % 5) / 5.0;
    for (int i = 0; i < n; i++)
        y[i] = (double)(i % 11) / 11.0;

    for (int r = 0; r < REPS; r++) {
        kernel_gemv(n, m, 0.75, 0.5, A, x, y);
        x[r % m] += 0.001; /* keep repetitions distinct */
    }

    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += y[i] * (1 + i % 7);
    printf("%s: %.10e\n", "gemv_y", s);

    free(A);
    free(x);
    free(y);
    return 0;
}
