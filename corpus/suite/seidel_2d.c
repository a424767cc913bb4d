/* lift-bench: -DN=1000 -DTSTEPS=100 */
/* lift-bench large: -DN=2000 -DTSTEPS=200 */
/*
 * seidel_2d.c - 9-point Gauss-Seidel sweeps in 2-D, updated in place.
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
#define TSTEPS 5
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

static void init_array(int n, double A[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i * (j + 2) + 2) % n) / n;
}

static void kernel_seidel_2d(int tsteps, int n, double A[n][n])
{
    int t, i, j;
#pragma scop
    for (t = 0; t <= tsteps - 1; t++)
        for (i = 1; i <= n - 2; i++)
            for (j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j]
                           + A[i][j + 1] + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    if (!A) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A);
    double t0 = now();
    kernel_seidel_2d(TSTEPS, N, A);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("seidel_2d_A", N, N, A);
    free(A);
    return 0;
}
