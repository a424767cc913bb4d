/* lift-bench: -DN=4000 -DREPS=20 */
/*
 * mvt.c - matrix-vector product and transpose:
 *   x1 = x1 + A * u1,   x2 = x2 + A^T * u2
 * Style: global fixed-size arrays, kernel uses the N macro directly.
 */
#include <stdio.h>

#ifndef N
#define N 120
#endif
#ifndef REPS
#define REPS 2
#endif

static double A[N][N];
static double x1[N], x2[N], u1[N], u2[N];

static void init(void)
{
    for (int i = 0; i < N; i++) {
        x1[i] = (double)(i % N) / N;
        x2[i] = (double)((i + 1) % N) / N;
        u1[i] = (double)((i + 3) % N) / N;
        u2[i] = (double)((i + 4) % N) / N;
        for (int j = 0; j < N; j++)
            A[i][j] = (double)(i * j % N) / N / N;
    }
}

static void kernel_mvt(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            x1[i] = x1[i] + A[i][j] * u1[j];

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            x2[i] = x2[i] + A[j][i] * u2[j];
}

int main(void)
{
    init();
    for (int r = 0; r < REPS; r++)
        kernel_mvt();

    double s1 = 0.0, s2 = 0.0;
    for (int i = 0; i < N; i++) {
        s1 += x1[i] * (1 + i % 7);
        s2 += x2[i] * (1 + i % 7);
    }
    printf("%s: %.10e\n", "mvt_x1", s1);
    printf("%s: %.10e\n", "mvt_x2", s2);
    return 0;
}
