/* lift-bench: -DM=500 -DN=600 */
/* lift-bench large: -DM=1000 -DN=1200 */
/*
 * symm.c - symmetric matrix product C = alpha*A*B + beta*C, where the symmetric
 *         A (M x M) is stored in its lower triangle only: A(i,k) is A[i][k] for k <= i
 *         and A[k][i] above the diagonal (the upper triangle holds garbage).
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

static void init_array(int m, int n, double C[m][n], double A[m][m], double B[m][n])
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            C[i][j] = (double)((i + j) % 100) / m;
            B[i][j] = (double)((n + i - j) % 100) / m;
        }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = j <= i ? (double)((i + j) % 100) / m : -999.0;
}

static void kernel_symm(int m, int n, double alpha, double beta, double C[m][n], double A[m][m],
                        double B[m][n])
{
    int i, j, k;
    double acc;
#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            acc = 0.0;
            for (k = 0; k <= i; k++)
                acc += A[i][k] * B[k][j];
            for (k = i + 1; k < m; k++)
                acc += A[k][i] * B[k][j];
            C[i][j] = beta * C[i][j] + alpha * acc;
        }
#pragma endscop
}

int main(void)
{
    double (*C)[N] = malloc(sizeof(double[M][N]));
    double (*A)[M] = malloc(sizeof(double[M][M]));
    double (*B)[N] = malloc(sizeof(double[M][N]));
    if (!A || !B || !C) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, C, A, B);
    double t0 = now();
    kernel_symm(M, N, 1.5, 1.2, C, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("symm_C", M, N, C);
    free(A);
    free(B);
    free(C);
    return 0;
}
