/* lift-bench: -DN=60 -DTSTEPS=250 */
/* lift-bench large: -DN=120 -DTSTEPS=500 */
/*
 * heat_3d.c - 7-point heat equation stencil in 3-D, two arrays alternating each time step.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 14
#endif
#ifndef TSTEPS
#define TSTEPS 6
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dump3(const char *name, int n, double X[n][n][n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                s += X[i][j][k] * (1 + ((i * n + j) * n + k) % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                printf("%.10e\n", X[i][j][k]);
#endif
}

static void init_array(int n, double A[n][n][n], double B[n][n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                A[i][j][k] = B[i][j][k] = (double)((i * j + k * (n - k)) % n) * 10 / n;
}

static void kernel_heat_3d(int tsteps, int n, double A[n][n][n], double B[n][n][n])
{
    int t, i, j, k;
#pragma scop
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                                 + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                                 + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                                 + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                                 + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N][N] = malloc(sizeof(double[N][N][N]));
    double (*B)[N][N] = malloc(sizeof(double[N][N][N]));
    if (!A || !B) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, B);
    double t0 = now();
    kernel_heat_3d(TSTEPS, N, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump3("heat_3d_A", N, A);
    free(A);
    free(B);
    return 0;
}
