/* lift-bench: -DN=1300 */
/* lift-bench large: -DN=2800 */
/*
 * gesummv.c - sum of two matrix-vector products: y = alpha*A*x + beta*B*x.
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

static void init_array(int n, double A[n][n], double B[n][n], double x[n])
{
    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % n) / n;
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * j + 1) % n) / n;
            B[i][j] = (double)((i * j + 2) % n) / n;
        }
    }
}

static void kernel_gesummv(int n, double alpha, double beta, double A[n][n], double B[n][n],
                           double tmp[n], double x[n], double y[n])
{
    int i, j;
#pragma scop
    for (i = 0; i < n; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (j = 0; j < n; j++) {
            tmp[i] = A[i][j] * x[j] + tmp[i];
            y[i] = B[i][j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double (*B)[N] = malloc(sizeof(double[N][N]));
    double *tmp = malloc(sizeof(double[N])), *x = malloc(sizeof(double[N])), *y = malloc(sizeof(double[N]));
    if (!A || !B || !tmp || !x || !y) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, B, x);
    double t0 = now();
    kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("gesummv_y", N, y);
    free(A);
    free(B);
    free(tmp);
    free(x);
    free(y);
    return 0;
}
