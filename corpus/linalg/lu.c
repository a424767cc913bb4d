/* lift-bench: -DN=1600 */
/*
 * lu.c - in-place LU decomposition without pivoting (Doolittle,
 * row-by-row), on a diagonally dominant matrix.
 * Style: PolyBench-like VLA kernel, loop variables at the top.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 80
#endif

static void init_array(int n, double A[n][n])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i + 2 * j) % n) / n;
        A[i][i] += (double)n; /* strictly diagonally dominant */
    }
}

static void kernel_lu(int n, double A[n][n])
{
    int i, j, k;

    for (i = 0; i < n; i++) {
        /* row i of L (strictly below the diagonal) */
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[k][j];
            A[i][j] /= A[j][j];
        }
        /* row i of U (diagonal and right of it) */
        for (j = i; j < n; j++) {
            for (k = 0; k < i; k++)
                A[i][j] -= A[i][k] * A[k][j];
        }
    }
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    if (!A)
        return 1;

    init_array(N, A);
    kernel_lu(N, A);

    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %.10e\n", "lu_A", s);

    free(A);
    return 0;
}
