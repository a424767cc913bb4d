/* lift-bench: -DN=2000 -DTSTEPS=100 */
/*
 * jacobi2d.c - 5-point Jacobi iteration in 2D with a copy-back step.
 * Style: PolyBench-like VLA kernel, loop variables at the top.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 60
#endif
#ifndef TSTEPS
#define TSTEPS 10
#endif

static void init_array(int n, double A[n][n], double B[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * i + 3 * j * j + i * j) % n) / n;
            B[i][j] = 0.0;
        }
}

static void kernel_jacobi2d(int tsteps, int n, double A[n][n], double B[n][n])
{
    int t, i, j;

    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1]
                                 + A[i + 1][j] + A[i - 1][j]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = B[i][j];
    }
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double (*B)[N] = malloc(sizeof(double[N][N]));
    if (!A || !B)
        return 1;

    init_array(N, A, B);
    kernel_jacobi2d(TSTEPS, N, A, B);

    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %.10e\n", "jacobi2d_A", s);

    free(A);
    free(B);
    return 0;
}
