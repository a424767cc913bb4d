/* lift-bench: -DN=1600 -DM=1400 */
/*
 * syrk.c - symmetric rank-k update, lower triangle only:
 *   C = alpha * A * A^T + beta * C
 * Style: PolyBench-like VLA kernel, k loop outside the j loop so the
 * k loop accumulates into a whole row section of C.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 70
#endif
#ifndef M
#define M 60
#endif

static void init_array(int n, int m, double C[n][n], double A[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            A[i][j] = (double)((i * j + 1) % n) / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double C[n][n], double A[n][m])
{
    int i, j, k;

    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (k = 0; k < m; k++) {
            for (j = 0; j <= i; j++)
                C[i][j] += alpha * A[i][k] * A[j][k];
        }
    }
}

int main(void)
{
    double (*C)[N] = malloc(sizeof(double[N][N]));
    double (*A)[M] = malloc(sizeof(double[N][M]));
    if (!A || !C)
        return 1;

    init_array(N, M, C, A);
    kernel_syrk(N, M, 1.5, 1.2, C, A);

    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %.10e\n", "syrk_C", s);

    free(A);
    free(C);
    return 0;
}
