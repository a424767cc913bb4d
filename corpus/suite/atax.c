/* lift-bench: -DM=1900 -DN=2100 */
/* lift-bench large: -DM=3800 -DN=4200 */
/*
 * atax.c - matrix transpose times matrix-vector product: y = A^T * (A * x).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef M
#define M 50
#endif
#ifndef N
#define N 60
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dump1(const char *name, int n, double x[n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        printf("%.10e\n", x[i]);
#endif
}

static void init_array(int m, int n, double A[m][n], double x[n])
{
    for (int i = 0; i < n; i++)
        x[i] = 1.0 + i / (double)n;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, double A[m][n], double x[n], double y[n], double tmp[m])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        y[i] = 0.0;
    for (i = 0; i < m; i++) {
        tmp[i] = 0.0;
        for (j = 0; j < n; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (j = 0; j < n; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[M][N]));
    double *x = malloc(sizeof(double[N])), *y = malloc(sizeof(double[N])), *tmp = malloc(sizeof(double[M]));
    if (!A || !x || !y || !tmp) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, A, x);
    double t0 = now();
    kernel_atax(M, N, A, x, y, tmp);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("atax_y", N, y);
    free(A);
    free(x);
    free(y);
    free(tmp);
    return 0;
}
