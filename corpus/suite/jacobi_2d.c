/* lift-bench: -DN=650 -DTSTEPS=250 */
/* lift-bench large: -DN=1300 -DTSTEPS=500 */
/*
 * jacobi_2d.c - 5-point Jacobi stencil in 2-D, two arrays alternating each time step.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 40
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

static void dump2(const char *name, int n, int m, double X[n][m])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += X[i][j] * (1 + (i * m + j) % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            printf("%.10e\n", X[i][j]);
#endif
}

static void init_array(int n, double A[n][n], double B[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * (j + 2) + 2) % n) / n;
            B[i][j] = (double)((i * (j + 3) + 3) % n) / n;
        }
}

static void kernel_jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n])
{
    int t, i, j;
#pragma scop
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1] + A[i + 1][j] + A[i - 1][j]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j]);
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double (*B)[N] = malloc(sizeof(double[N][N]));
    if (!A || !B) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, B);
    double t0 = now();
    kernel_jacobi_2d(TSTEPS, N, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("jacobi_2d_A", N, N, A);
    free(A);
    free(B);
    return 0;
}
