/* lift-bench: -DN=800 -DMAXIT=300 */
/*
 * jacobi_conv.c - 2D Jacobi relaxation of a Laplace problem, run until the
 * largest change of a sweep falls below a tolerance (or MAXIT sweeps).
 * Style: malloc'd linearized grids, restrict pointer parameters, a while
 * loop whose condition reads a reduction computed by the sweep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef N
#define N 64
#endif
#ifndef MAXIT
#define MAXIT 500
#endif
#ifndef TOL
#define TOL 1e-3
#endif

static int kernel_jacobi_conv(int n, int maxit, double tol, double *restrict u,
                              double *restrict unew)
{
    double diff = 2.0 * tol;
    int it = 0;
    while (diff > tol && it < maxit) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                unew[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                          u[i * n + j - 1] + u[i * n + j + 1]);
        diff = 0.0;
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                diff = fmax(diff, fabs(unew[i * n + j] - u[i * n + j]));
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                u[i * n + j] = unew[i * n + j];
        it++;
    }
    return it;
}

int main(void)
{
    const int n = N;
    double *u = malloc((size_t)n * n * sizeof(double));
    double *unew = malloc((size_t)n * n * sizeof(double));
    if (!u || !unew)
        return 1;

    /* boundary: a hot top edge and a warm left edge; interior: zero */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = i == 0 ? 1.0 : j == 0 ? 0.5 : 0.0;
            u[i * n + j] = v;
            unew[i * n + j] = v;
        }

    int it = kernel_jacobi_conv(n, MAXIT, TOL, u, unew);

    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += u[i * n + j] * (1 + (i + 2 * j) % 7);
    printf("%s: %d\n", "jacobi_conv_iterations", it);
    printf("%s: %.10e\n", "jacobi_conv_u", s);

    free(u);
    free(unew);
    return 0;
}
