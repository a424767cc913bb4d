/* lift-bench: -DN=2000 */
/* lift-bench large: -DN=4000 */
/*
 * mvt.c - a matrix-vector product and a transposed one: x1 += A*y1, x2 += A^T*y2.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

static void init_array(int n, double x1[n], double x2[n], double y1[n], double y2[n], double A[n][n])
{
    for (int i = 0; i < n; i++) {
        x1[i] = (double)(i % n) / n;
        x2[i] = (double)((i + 1) % n) / n;
        y1[i] = (double)((i + 3) % n) / n;
        y2[i] = (double)((i + 4) % n) / n;
        for (int j = 0; j < n; j++)
            A[i][j] = (double)(i * j % n) / n;
    }
}

static void kernel_mvt(int n, double x1[n], double x2[n], double y1[n], double y2[n], double A[n][n])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x1[i] = x1[i] + A[i][j] * y1[j];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double *x1 = malloc(sizeof(double[N])), *x2 = malloc(sizeof(double[N]));
    double *y1 = malloc(sizeof(double[N])), *y2 = malloc(sizeof(double[N]));
    if (!A || !x1 || !x2 || !y1 || !y2) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, x1, x2, y1, y2, A);
    double t0 = now();
    kernel_mvt(N, x1, x2, y1, y2, A);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("mvt_x1", N, x1);
    dump1("mvt_x2", N, x2);
    free(A);
    free(x1);
    free(x2);
    free(y1);
    free(y2);
    return 0;
}
