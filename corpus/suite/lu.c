/* lift-bench: -DN=1000 */
/* lift-bench large: -DN=1600 */
/*
 * lu.c - LU decomposition without pivoting, in place (Doolittle: unit lower L, upper U).
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
    /* symmetric, strictly diagonally dominant with a positive diagonal: positive definite */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = i == j ? (double)n : (double)((i + j) % 7 + 1) / 8.0;
}

static void kernel_lu(int n, double A[n][n])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        for (j = i; j < n; j++)
            for (k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
    }
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
    kernel_lu(N, A);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("lu_A", N, N, A);
    free(A);
    return 0;
}
