/* lift-bench: -DM=500 -DN=600 */
/* lift-bench large: -DM=1000 -DN=1200 */
/*
 * syr2k.c - symmetric rank-2k update of the lower triangle: C = alpha*(A*B^T + B*A^T) + beta*C.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef M
#define M 40
#endif
#ifndef N
#define N 48
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

static void init_array(int n, int m, double C[n][n], double A[n][m], double B[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            A[i][j] = (double)((i * j + 1) % n) / n;
            B[i][j] = (double)((i * j + 2) % m) / m;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = (double)((i * j + 3) % n) / m;
}

static void kernel_syr2k(int n, int m, double alpha, double beta, double C[n][n], double A[n][m],
                         double B[n][m])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (k = 0; k < m; k++)
            for (j = 0; j <= i; j++)
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }
#pragma endscop
}

int main(void)
{
    double (*C)[N] = malloc(sizeof(double[N][N]));
    double (*A)[M] = malloc(sizeof(double[N][M]));
    double (*B)[M] = malloc(sizeof(double[N][M]));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, M, C, A, B);
    double t0 = now();
    kernel_syr2k(N, M, 1.5, 1.2, C, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("syr2k_C", N, N, C);
    free(A);
    free(B);
    free(C);
    return 0;
}
