/* lift-bench: -DN=2000 */
/* lift-bench large: -DN=4000 */
/*
 * durbin.c - Levinson-Durbin recursion: solves the Yule-Walker equations of the
 *         symmetric Toeplitz system with first row (1, r[0], r[1], ...) for y.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 60
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dump1(const char *name, int n, double x[n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * (1 + i % 7);
    printf("%s: %.10e\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        printf("%.10e\n", x[i]);
#endif
}

static void init_array(int n, double r[n])
{
    /* off-diagonal sums below 1: the Toeplitz matrix is positive definite, |alpha| < 1 */
    for (int i = 0; i < n; i++)
        r[i] = 0.3 / ((i + 1.0) * (i + 1.0)) * (i % 2 ? -1.0 : 1.0);
}

static void kernel_durbin(int n, double r[n], double y[n], double z[n])
{
    int i, k;
    double alpha, beta, sum;
#pragma scop
    y[0] = -r[0];
    beta = 1.0;
    alpha = -r[0];
    for (k = 1; k < n; k++) {
        beta = (1.0 - alpha * alpha) * beta;
        sum = 0.0;
        for (i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
#pragma endscop
}

int main(void)
{
    double *r = malloc(sizeof(double[N])), *y = malloc(sizeof(double[N])), *z = malloc(sizeof(double[N]));
    if (!r || !y || !z) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, r);
    double t0 = now();
    kernel_durbin(N, r, y, z);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("durbin_y", N, y);
    free(r);
    free(y);
    free(z);
    return 0;
}
