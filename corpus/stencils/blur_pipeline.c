/* lift-bench: -DN=2000 -DREPS=40 */
/*
 * blur_pipeline.c - a two-stage image pipeline: a horizontal 3-tap blur into a
 * temporary, then a point-wise tone curve of the temporary into the output,
 * which feeds the next round. The temporary only carries each pixel from one
 * stage to the next: once the stages are fused, it can become a scalar.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 300
#endif
#ifndef REPS
#define REPS 4
#endif

static double img[N][N], out[N][N];

static void pipeline(int n, int reps) {
    double *tmp = (double *)malloc((size_t)n * n * sizeof(double));
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++)
            for (int j = 1; j < n - 1; j++)
                tmp[i * n + j] = (img[i][j - 1] + 2.0 * img[i][j] + img[i][j + 1]) * 0.25;
        for (int i = 0; i < n; i++)
            for (int j = 1; j < n - 1; j++)
                out[i][j] = tmp[i * n + j] / (1.0 + tmp[i * n + j]) + 0.5 * tmp[i * n + j];
        for (int i = 0; i < n; i++)
            for (int j = 1; j < n - 1; j++)
                img[i][j] = out[i][j] * 0.9 + 0.1 * (i % 5);
    }
    free(tmp);
}

int main(void) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            img[i][j] = (double)((i * 7 + j * 3) % 17) / 17.0;
    pipeline(N, REPS);
    double sum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            sum += out[i][j] * (1 + (i + j) % 3);
    printf("checksum %.10e\n", sum);
    return 0;
}
