/* lift-bench: -DN=2000 -DM=2000 -DREPS=15 */
/* Matrices as arrays of row pointers, the way Numerical Recipes-style and many C codes hold
 * them: `double **a` from one block with a pointer per row, or row by row, and each row walked
 * through a local pointer, `double *r = a[i];`. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 300
#endif
#ifndef M
#define M 200
#endif
#ifndef REPS
#define REPS 3
#endif

/* One block of n*m values and n pointers into it. */
static double **matrix(int n, int m)
{
    double **a = malloc(n * sizeof *a);
    double *block = malloc((size_t)n * m * sizeof *block);
    if (!a || !block)
        exit(1);
    for (int i = 0; i < n; i++)
        a[i] = block + (size_t)i * m;
    return a;
}

static void free_matrix(double **a)
{
    free(a[0]);
    free(a);
}

/* Each row allocated on its own. */
static double **ragged(int n, int m)
{
    double **a = malloc(n * sizeof *a);
    if (!a)
        exit(1);
    for (int i = 0; i < n; i++)
        if (!(a[i] = malloc(m * sizeof **a)))
            exit(1);
    return a;
}

static void free_ragged(double **a, int n)
{
    for (int i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

static void kernel_fill(int n, int m, double **a)
{
    for (int i = 0; i < n; i++) {
        double *r = a[i];
        for (int j = 0; j < m; j++)
            r[j] = (double)((i * 7 + j * 3) % 17) / 17.0;
    }
}

static void kernel_scale_rows(int n, int m, double **a, const double *d)
{
    for (int i = 0; i < n; i++) {
        double *r = a[i];
        for (int j = 0; j < m; j++)
            r[j] *= d[i];
    }
}

static void kernel_matvec(int n, int m, double **a, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        const double *r = a[i];
        double s = 0.0;
        for (int j = 0; j < m; j++)
            s += r[j] * x[j];
        y[i] = s;
    }
}

static void kernel_add(int n, int m, double **b, double **a, double alpha)
{
    for (int i = 0; i < n; i++) {
        double *dst = b[i];
        const double *src = a[i];
        for (int j = 0; j < m; j++)
            dst[j] += alpha * src[j];
    }
}

/* Each row's running sum: a recurrence along the row, parallel over the rows only. */
static void kernel_prefix(int n, int m, double **a)
{
    for (int i = 0; i < n; i++) {
        double *r = a[i];
        for (int j = 1; j < m; j++)
            r[j] += r[j - 1];
    }
}

static double checksum(int n, int m, double **a)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += a[i][j] * (1 + (i * m + j) % 7);
    return s;
}

int main(void)
{
    double **a = matrix(N, M), **b = ragged(N, M);
    double *d = malloc(N * sizeof *d), *x = malloc(M * sizeof *x), *y = malloc(N * sizeof *y);
    if (!d || !x || !y)
        return 1;
    for (int i = 0; i < N; i++)
        d[i] = 0.5 + (double)(i % 5) / 10.0;
    for (int j = 0; j < M; j++)
        x[j] = (double)(j % 9) / 9.0;
    kernel_fill(N, M, a);
    kernel_fill(N, M, b);
    double sy = 0.0;
    for (int r = 0; r < REPS; r++) {
        kernel_scale_rows(N, M, a, d);
        kernel_matvec(N, M, a, x, y);
        kernel_add(N, M, b, a, 0.25);
        for (int i = 0; i < N; i++)
            sy += y[i] * (1 + i % 3);
    }
    kernel_prefix(N, M, b);
    /* Rows that overlap (every pointer of a window into one row): the run-time test fails. */
    double **window = malloc(N * sizeof *window);
    if (!window)
        return 1;
    for (int i = 0; i < N; i++)
        window[i] = a[0] + i % 4;
    kernel_scale_rows(N, M - 4, window, d);
    printf("a: %.10e\n", checksum(N, M, a));
    printf("b: %.10e\n", checksum(N, M, b));
    printf("y: %.10e\n", sy);
    free(window);
    free(d);
    free(x);
    free(y);
    free_matrix(a);
    free_ragged(b, N);
    return 0;
}
