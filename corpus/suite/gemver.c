/* lift-bench: -DN=2000 */
/* lift-bench large: -DN=4000 */
/*
 * gemver.c - vector multiplications and matrix additions:
 *         A += u1*v1^T + u2*v2^T;  x += beta*A^T*y + z;  w += alpha*A*x.
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

static void init_array(int n, double A[n][n], double u1[n], double v1[n], double u2[n], double v2[n],
                       double w[n], double x[n], double y[n], double z[n])
{
    for (int i = 0; i < n; i++) {
        u1[i] = i;
        u2[i] = (i + 1) / (double)n / 2.0;
        v1[i] = (i + 1) / (double)n / 4.0;
        v2[i] = (i + 1) / (double)n / 6.0;
        y[i] = (i + 1) / (double)n / 8.0;
        z[i] = (i + 1) / (double)n / 9.0;
        x[i] = 0.0;
        w[i] = 0.0;
        for (int j = 0; j < n; j++)
            A[i][j] = (double)(i * j % n) / n;
    }
}

static void kernel_gemver(int n, double alpha, double beta, double A[n][n], double u1[n], double v1[n],
                          double u2[n], double v2[n], double w[n], double x[n], double y[n], double z[n])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];
    for (i = 0; i < n; i++)
        x[i] = x[i] + z[i];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double *u1 = malloc(sizeof(double[N])), *v1 = malloc(sizeof(double[N]));
    double *u2 = malloc(sizeof(double[N])), *v2 = malloc(sizeof(double[N]));
    double *w = malloc(sizeof(double[N])), *x = malloc(sizeof(double[N]));
    double *y = malloc(sizeof(double[N])), *z = malloc(sizeof(double[N]));
    if (!A || !u1 || !v1 || !u2 || !v2 || !w || !x || !y || !z) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, u1, v1, u2, v2, w, x, y, z);
    double t0 = now();
    kernel_gemver(N, 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("gemver_w", N, w);
    dump1("gemver_x", N, x);
    free(A);
    free(u1);
    free(v1);
    free(u2);
    free(v2);
    free(w);
    free(x);
    free(y);
    free(z);
    return 0;
}
