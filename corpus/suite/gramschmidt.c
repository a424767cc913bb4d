/* lift-bench: -DM=500 -DN=400 */
/* lift-bench large: -DM=1000 -DN=800 */
/*
 * gramschmidt.c - QR decomposition of A (M x N, M >= N) by modified Gram-Schmidt:
 *         A = Q*R, Q with orthonormal columns, R upper triangular; A is overwritten.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef M
#define M 48
#endif
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

static void init_array(int m, int n, double A[m][n], double Q[m][n], double R[n][n])
{
    /* a dominant diagonal keeps the columns independent */
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * j) % m) / m * 0.1 + (i == j ? 1.0 : 0.0);
            Q[i][j] = 0.0;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            R[i][j] = 0.0;
}

static void kernel_gramschmidt(int m, int n, double A[m][n], double R[n][n], double Q[m][n])
{
    int i, j, k;
    double nrm;
#pragma scop
    for (k = 0; k < n; k++) {
        nrm = 0.0;
        for (i = 0; i < m; i++)
            nrm += A[i][k] * A[i][k];
        R[k][k] = sqrt(nrm);
        for (i = 0; i < m; i++)
            Q[i][k] = A[i][k] / R[k][k];
        for (j = k + 1; j < n; j++) {
            R[k][j] = 0.0;
            for (i = 0; i < m; i++)
                R[k][j] += Q[i][k] * A[i][j];
            for (i = 0; i < m; i++)
                A[i][j] = A[i][j] - Q[i][k] * R[k][j];
        }
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[M][N]));
    double (*Q)[N] = malloc(sizeof(double[M][N]));
    double (*R)[N] = malloc(sizeof(double[N][N]));
    if (!A || !Q || !R) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, A, Q, R);
    double t0 = now();
    kernel_gramschmidt(M, N, A, R, Q);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("gramschmidt_R", N, N, R);
    dump2("gramschmidt_Q", M, N, Q);
    free(A);
    free(Q);
    free(R);
    return 0;
}
