/* lift-bench: -DN=200 -DTSTEPS=60 */
/*
 * heat3d.c - explicit heat equation in 3D (7-point stencil), two
 * global arrays updated alternately (A -> B, B -> A) per time step.
 * Style: global fixed-size 3D arrays, macros for the coefficient.
 */
#include <stdio.h>

#ifndef N
#define N 24
#endif
#ifndef TSTEPS
#define TSTEPS 10
#endif

#define COEF 0.125

static double A[N][N][N];
static double B[N][N][N];

static void init(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                A[i][j][k] = B[i][j][k] = (double)((i * j + 2 * j * k + 3 * k * i) % N) * 10 / N;
}

static void kernel_heat3d(int tsteps)
{
    for (int t = 1; t <= tsteps; t++) {
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                for (int k = 1; k < N - 1; k++)
                    B[i][j][k] = A[i][j][k]
                        + COEF * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                        + COEF * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                        + COEF * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]);
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                for (int k = 1; k < N - 1; k++)
                    A[i][j][k] = B[i][j][k]
                        + COEF * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                        + COEF * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                        + COEF * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]);
    }
}

int main(void)
{
    init();
    kernel_heat3d(TSTEPS);

    double s = 0.0;
    long idx = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++, idx++)
                s += A[i][j][k] * (1 + idx % 7);
    printf("%s: %.10e\n", "heat3d_A", s);
    return 0;
}
