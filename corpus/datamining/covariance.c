/* lift-bench: -DN=1200 -DM=900 */
/*
 * covariance.c - covariance matrix of M variables over N samples.
 * Style: PolyBench-like VLA kernel with loop variables at the top;
 * only the upper triangle is computed and mirrored.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 80
#endif
#ifndef M
#define M 60
#endif

static void init_array(int m, int n, double data[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i][j] = ((double)i * j) / m + (double)((i + j) % 5) / 5.0;
}

static void kernel_covariance(int m, int n, double float_n, double data[n][m],
                              double cov[m][m], double mean[m])
{
    int i, j, k;

    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            data[i][j] -= mean[j];

    for (i = 0; i < m; i++)
        for (j = i; j < m; j++) {
            cov[i][j] = 0.0;
            for (k = 0; k < n; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= (float_n - 1.0);
            cov[j][i] = cov[i][j];
        }
}

int main(void)
{
    double (*data)[M] = malloc(sizeof(double[N][M]));
    double (*cov)[M] = malloc(sizeof(double[M][M]));
    double *mean = malloc(M * sizeof(double));
    if (!data || !cov || !mean)
        return 1;

    init_array(M, N, data);
    kernel_covariance(M, N, (double)N, data, cov, mean);

    double s = 0.0, sm = 0.0;
    for (int i = 0; i < M; i++) {
        sm += mean[i] * (1 + i % 7);
        for (int j = 0; j < M; j++)
            s += cov[i][j] * (1 + (i * M + j) % 7);
    }
    printf("%s: %.10e\n", "covariance_cov", s);
    printf("%s: %.10e\n", "covariance_mean", sm);

    free(data);
    free(cov);
    free(mean);
    return 0;
}
