/* lift-bench: -DN=1400 -DM=1200 */
/*
 * correlation.c - Pearson correlation matrix of M variables over N
 * samples.
 * Style: malloc'd linearized arrays (data[i*m+j]), restrict pointers,
 * sqrt from <math.h>, an epsilon guard for constant columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef N
#define N 80
#endif
#ifndef M
#define M 60
#endif

#define EPS 0.1

static void kernel_correlation(int m, int n, double *restrict data,
                               double *restrict corr, double *restrict mean,
                               double *restrict stddev)
{
    const double float_n = (double)n;

    /* column means */
    for (int j = 0; j < m; j++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += data[i * m + j];
        mean[j] = s / float_n;
    }

    /* column standard deviations */
    for (int j = 0; j < m; j++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            double d = data[i * m + j] - mean[j];
            s += d * d;
        }
        s = sqrt(s / float_n);
        stddev[j] = s <= EPS ? 1.0 : s;
    }

    /* center and reduce */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrt(float_n) * stddev[j]);

    /* correlation matrix (upper triangle, mirrored) */
    for (int i = 0; i < m - 1; i++) {
        corr[i * m + i] = 1.0;
        for (int j = i + 1; j < m; j++) {
            double c = 0.0;
            for (int k = 0; k < n; k++)
                c += data[k * m + i] * data[k * m + j];
            corr[i * m + j] = c;
            corr[j * m + i] = c;
        }
    }
    corr[(m - 1) * m + (m - 1)] = 1.0;
}

int main(void)
{
    const int n = N, m = M;
    double *data = malloc((size_t)n * m * sizeof(double));
    double *corr = malloc((size_t)m * m * sizeof(double));
    double *mean = malloc(m * sizeof(double));
    double *stddev = malloc(m * sizeof(double));
    if (!data || !corr || !mean || !stddev)
        return 1;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] = (double)(i * j) / m + i + (double)((i * 3 + j * 5) % 11);

    kernel_correlation(m, n, data, corr, mean, stddev);

    double s = 0.0, sm = 0.0, sd = 0.0;
    for (int i = 0; i < m; i++) {
        sm += mean[i] * (1 + i % 7);
        sd += stddev[i] * (1 + i % 7);
        for (int j = 0; j < m; j++)
            s += corr[i * m + j] * (1 + (i * m + j) % 7);
    }
    printf("%s: %.10e\n", "correlation_corr", s);
    printf("%s: %.10e\n", "correlation_mean", sm);
    printf("%s: %.10e\n", "correlation_stddev", sd);

    free(data);
    free(corr);
    free(mean);
    free(stddev);
    return 0;
}
