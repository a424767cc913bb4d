/* lift-bench: -DN=2000 */
/* lift-bench large: -DN=4000 */
/*
 * trisolv.c - forward substitution: solves L*x = b for a lower triangular L.
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

static void init_array(int n, double L[n][n], double b[n])
{
    for (int i = 0; i < n; i++) {
        b[i] = (double)i / n;
        for (int j = 0; j <= i; j++)
            L[i][j] = i == j ? 2.0 : (double)(i + n - j + 1) * 2.0 / (n * (double)n);
    }
}

static void kernel_trisolv(int n, double L[n][n], double x[n], double b[n])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++) {
        x[i] = b[i];
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
#pragma endscop
}

int main(void)
{
    double (*L)[N] = calloc(N, sizeof(double[N]));
    double *x = malloc(sizeof(double[N])), *b = malloc(sizeof(double[N]));
    if (!L || !x || !b) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, L, b);
    double t0 = now();
    kernel_trisolv(N, L, x, b);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("trisolv_x", N, x);
    free(L);
    free(x);
    free(b);
    return 0;
}
