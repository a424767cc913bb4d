/* lift-bench: -DN=5000 -DM=5000 -DREPS=10 */
/*
 * sum2d.c - row sums, column sums and the grand total of a matrix.
 * Style: PolyBench-like VLA kernels; column sums walk the matrix
 * column by column.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 50
#endif
#ifndef M
#define M 40
#endif
#ifndef REPS
#define REPS 2
#endif

static double kernel_rowsum(int n, int m, double a[n][m], double row[n])
{
    double total = 0.0;
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += a[i][j];
        row[i] = s;
        total += s;
    }
    return total;
}

static void kernel_colsum(int n, int m, double a[n][m], double col[m])
{
    for (int j = 0; j < m; j++) {
        col[j] = 0.0;
        for (int i = 0; i < n; i++)
            col[j] += a[i][j];
    }
}

int main(void)
{
    double (*a)[M] = malloc(sizeof(double[N][M]));
    double *row = malloc(N * sizeof(double));
    double *col = malloc(M * sizeof(double));
    if (!a || !row || !col)
        return 1;

    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
            a[i][j] = (double)((i + 2 * j) % 19) / 19.0 - 0.25;

    double total = 0.0;
    for (int r = 0; r < REPS; r++) {
        total += kernel_rowsum(N, M, a, row);
        kernel_colsum(N, M, a, col);
        a[r % N][r % M] += 1.0;
    }

    double sr = 0.0, sc = 0.0;
    for (int i = 0; i < N; i++)
        sr += row[i] * (1 + i % 7);
    for (int j = 0; j < M; j++)
        sc += col[j] * (1 + j % 7);
    printf("%s: %.10e\n", "sum2d_total", total);
    printf("%s: %.10e\n", "sum2d_rows", sr);
    printf("%s: %.10e\n", "sum2d_cols", sc);

    free(a);
    free(row);
    free(col);
    return 0;
}
