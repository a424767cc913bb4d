/* lift-bench: -DM=500 -DN=600 */
/* lift-bench large: -DM=1000 -DN=1200 */
/*
 * trmm.c - triangular matrix product B = alpha * A^T * B in place, A (M x M) unit
 *         lower triangular (its diagonal is taken as 1 and its upper triangle never read).
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

static void init_array(int m, int n, double A[m][m], double B[m][n])
{
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < i; j++)
            A[i][j] = (double)((i + j) % m) / m;
        A[i][i] = 1.0;
        for (int j = 0; j < n; j++)
            B[i][j] = (double)((n + (i - j)) % n) / n;
    }
}

static void kernel_trmm(int m, int n, double alpha, double A[m][m], double B[m][n])
{
    int i, j, k;
#pragma scop
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            for (k = i + 1; k < m; k++)
                B[i][j] += A[k][i] * B[k][j];
            B[i][j] = alpha * B[i][j];
        }
#pragma endscop
}

int main(void)
{
    double (*A)[M] = calloc(M, sizeof(double[M]));
    double (*B)[N] = malloc(sizeof(double[M][N]));
    if (!A || !B) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, A, B);
    double t0 = now();
    kernel_trmm(M, N, 1.5, A, B);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("trmm_B", M, N, B);
    free(A);
    free(B);
    return 0;
}
