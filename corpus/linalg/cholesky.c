/* lift-bench: -DN=2000 */
/*
 * cholesky.c - in-place Cholesky factorization A = L L^T of a
 * symmetric positive definite matrix (lower triangle overwritten).
 * Style: global fixed-size array, sqrt from <math.h>.
 */
#include <stdio.h>
#include <math.h>

#ifndef N
#define N 90
#endif

static double A[N][N];

/* symmetric, positive diagonal, strictly diagonally dominant => SPD */
static void init_spd(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int d = i > j ? i - j : j - i;
            A[i][j] = 1.0 / (1.0 + d);
        }
    for (int i = 0; i < N; i++)
        A[i][i] = 2.0 * N;
}

static void kernel_cholesky(void)
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        for (int k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
}

int main(void)
{
    init_spd();
    kernel_cholesky();

    /* lower triangle only: the upper part still holds the input */
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            s += A[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %.10e\n", "cholesky_L", s);
    return 0;
}
