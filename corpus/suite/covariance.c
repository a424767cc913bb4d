/* lift-bench: -DM=600 -DN=700 */
/* lift-bench large: -DM=1200 -DN=1400 */
/*
 * covariance.c - covariance matrix of M variables over N observations
 *         (data is N x M; the columns are centred in place).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
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
            data[i][j] = (double)(i * j % m) / m + (double)(i % 5) / 10.0;
}

static void kernel_covariance(int m, int n, double data[n][m], double cov[m][m], double mean[m])
{
    int i, j, k;
    double float_n = (double)n;
#pragma scop
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
            cov[i][j] /= float_n - 1.0;
            cov[j][i] = cov[i][j];
        }
#pragma endscop
}

int main(void)
{
    double (*data)[M] = malloc(sizeof(double[N][M]));
    double (*cov)[M] = malloc(sizeof(double[M][M]));
    double *mean = malloc(sizeof(double[M]));
    if (!data || !cov || !mean) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, data);
    double t0 = now();
    kernel_covariance(M, N, data, cov, mean);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("covariance_cov", M, M, cov);
    free(data);
    free(cov);
    free(mean);
    return 0;
}
