/* lift-bench: -DM=4000 -DN=4000 -DREPS=30 */
/*
 * atax.c - y = A^T * (A * x)
 * Style: PolyBench-like VLA kernel and a DATA_TYPE typedef.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
#define M 76
#endif
#ifndef N
#define N 84
#endif
#ifndef REPS
#define REPS 2
#endif

typedef double DATA_TYPE;

static void init_array(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n])
{
    for (int j = 0; j < n; j++)
        x[j] = 1.0 + (DATA_TYPE)j / n;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (DATA_TYPE)((i + j) % n) / (5.0 * m);
}

static void kernel_atax(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n],
                        DATA_TYPE y[n], DATA_TYPE tmp[m])
{
    for (int j = 0; j < n; j++)
        y[j] = 0.0;
    for (int i = 0; i < m; i++) {
        tmp[i] = 0.0;
        for (int j = 0; j < n; j++)
            tmp[i] = tmp[i] + A[i][j] * x[j];
        for (int j = 0; j < n; j++)
            y[j] = y[j] + A[i][j] * tmp[i];
    }
}

int main(void)
{
    DATA_TYPE (*A)[N] = malloc(sizeof(DATA_TYPE[M][N]));
    DATA_TYPE *x = malloc(N * sizeof(DATA_TYPE));
    DATA_TYPE *y = malloc(N * sizeof(DATA_TYPE));
    DATA_TYPE *tmp = malloc(M * sizeof(DATA_TYPE));
    if (!A || !x || !y || !tmp)
        return 1;

    init_array(M, N, A, x);
    for (int r = 0; r < REPS; r++) {
        kernel_atax(M, N, A, x, y, tmp);
        x[r % N] += 0.5;
    }

    double s = 0.0, t = 0.0;
    for (int j = 0; j < N; j++)
        s += y[j] * (1 + j % 7);
    for (int i = 0; i < M; i++)
        t += tmp[i] * (1 + i % 7);
    printf("%s: %.10e\n", "atax_y", s);
    printf("%s: %.10e\n", "atax_tmp", t);

    free(A);
    free(x);
    free(y);
    free(tmp);
    return 0;
}
