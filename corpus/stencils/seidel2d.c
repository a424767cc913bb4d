/* lift-bench: -DN=1500 -DTSTEPS=40 */
/*
 * seidel2d.c - in-place 9-point Gauss-Seidel sweeps.  Every update
 * reads values already updated in the same sweep, so no loop of the
 * nest is parallel as written.
 * Style: PolyBench-like VLA kernel.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 50
#endif
#ifndef TSTEPS
#define TSTEPS 8
#endif

static void init_array(int n, double A[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i * i + 2 * j * j + 5 * i * j) % 97) / 97.0;
}

static void kernel_seidel2d(int tsteps, int n, double A[n][n])
{
    for (int t = 0; t < tsteps; t++)
        for (int i = 1; i <= n - 2; i++)
            for (int j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    if (!A)
        return 1;

    init_array(N, A);
    kernel_seidel2d(TSTEPS, N, A);

    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %.10e\n", "seidel2d_A", s);

    free(A);
    return 0;
}
