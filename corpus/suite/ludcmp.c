/* lift-bench: -DN=1000 */
/* lift-bench large: -DN=1600 */
/*
 * ludcmp.c - solves A*x = b: LU decomposition without pivoting, then forward
 *         substitution (L*y = b) and back substitution (U*x = y).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 40
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

static void init_array(int n, double A[n][n], double b[n])
{
    for (int i = 0; i < n; i++) {
        b[i] = (i + 1) / (double)n / 2.0 + 4.0;
        for (int j = 0; j < n; j++)
            A[i][j] = i == j ? (double)n : (double)((i * 3 + j) % 5) / 5.0;
    }
}

static void kernel_ludcmp(int n, double A[n][n], double b[n], double x[n], double y[n])
{
    int i, j, k;
    double w;
#pragma scop
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            w = A[i][j];
            for (k = 0; k < j; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w / A[j][j];
        }
        for (j = i; j < n; j++) {
            w = A[i][j];
            for (k = 0; k < i; k++)
                w -= A[i][k] * A[k][j];
            A[i][j] = w;
        }
    }
    for (i = 0; i < n; i++) {
        w = b[i];
        for (j = 0; j < i; j++)
            w -= A[i][j] * y[j];
        y[i] = w;
    }
    for (i = n - 1; i >= 0; i--) {
        w = y[i];
        for (j = i + 1; j < n; j++)
            w -= A[i][j] * x[j];
        x[i] = w / A[i][i];
    }
#pragma endscop
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double *b = malloc(sizeof(double[N])), *x = malloc(sizeof(double[N])), *y = malloc(sizeof(double[N]));
    if (!A || !b || !x || !y) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, A, b);
    double t0 = now();
    kernel_ludcmp(N, A, b, x, y);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("ludcmp_x", N, x);
    dump2("ludcmp_A", N, N, A);
    free(A);
    free(b);
    free(x);
    free(y);
    return 0;
}
