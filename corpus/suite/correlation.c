/* lift-bench: -DM=600 -DN=700 */
/* lift-bench large: -DM=1200 -DN=1400 */
/*
 * correlation.c - correlation matrix of M variables over N observations
 *         (data is N x M; columns are centred and scaled in place; a variable whose
 *         standard deviation is below eps is scaled by 1).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
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

static void init_array(int m, int n, double data[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i][j] = j == 0 ? 0.5 : (double)(i * j % m) / m + (double)(i % 3) / 7.0;  /* column 0 constant */
}

static void kernel_correlation(int m, int n, double data[n][m], double corr[m][m], double mean[m],
                               double stddev[m])
{
    int i, j, k;
    double float_n = (double)n, eps = 0.1;
#pragma scop
    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }
    for (j = 0; j < m; j++) {
        stddev[j] = 0.0;
        for (i = 0; i < n; i++)
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
        stddev[j] /= float_n;
        stddev[j] = sqrt(stddev[j]);
        stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            data[i][j] -= mean[j];
            data[i][j] /= sqrt(float_n) * stddev[j];
        }
    for (i = 0; i < m - 1; i++) {
        corr[i][i] = 1.0;
        for (j = i + 1; j < m; j++) {
            corr[i][j] = 0.0;
            for (k = 0; k < n; k++)
                corr[i][j] += data[k][i] * data[k][j];
            corr[j][i] = corr[i][j];
        }
    }
    corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

int main(void)
{
    double (*data)[M] = malloc(sizeof(double[N][M]));
    double (*corr)[M] = malloc(sizeof(double[M][M]));
    double *mean = malloc(sizeof(double[M])), *stddev = malloc(sizeof(double[M]));
    if (!data || !corr || !mean || !stddev) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, data);
    double t0 = now();
    kernel_correlation(M, N, data, corr, mean, stddev);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("correlation_corr", M, M, corr);
    free(data);
    free(corr);
    free(mean);
    free(stddev);
    return 0;
}
