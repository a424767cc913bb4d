/* lift-bench: -DN=400 -DTSTEPS=120 */
/* lift-bench large: -DN=700 -DTSTEPS=250 */
/*
 * adi.c - alternating direction implicit solver of 2-D heat diffusion: each time
 *         step solves a tridiagonal system along every column, then along every row
 *         (Thomas algorithm: forward elimination into p, q, then back substitution).
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
#ifndef TSTEPS
#define TSTEPS 8
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

static void init_array(int n, double u[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            u[i][j] = (double)(i + n - j) / n;
}

static void kernel_adi(int tsteps, int n, double u[n][n], double v[n][n], double p[n][n], double q[n][n])
{
    int t, i, j;
    double dx = 1.0 / n, dy = 1.0 / n, dt = 1.0 / tsteps;
    double mx = 2.0 * dt / (dx * dx) / 2.0, my = 1.0 * dt / (dy * dy) / 2.0;
    double a = -mx / 2.0, b = 1.0 + mx, c = a;
    double d = -my / 2.0, e = 1.0 + my, f = d;
#pragma scop
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++) {
            v[0][i] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = v[0][i];
            for (j = 1; j < n - 1; j++) {
                p[i][j] = -c / (a * p[i][j - 1] + b);
                q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1] - a * q[i][j - 1])
                          / (a * p[i][j - 1] + b);
            }
            v[n - 1][i] = 1.0;
            for (j = n - 2; j >= 1; j--)
                v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
        }
        for (i = 1; i < n - 1; i++) {
            u[i][0] = 1.0;
            p[i][0] = 0.0;
            q[i][0] = u[i][0];
            for (j = 1; j < n - 1; j++) {
                p[i][j] = -f / (d * p[i][j - 1] + e);
                q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j] - d * q[i][j - 1])
                          / (d * p[i][j - 1] + e);
            }
            u[i][n - 1] = 1.0;
            for (j = n - 2; j >= 1; j--)
                u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
        }
    }
#pragma endscop
}

int main(void)
{
    double (*u)[N] = malloc(sizeof(double[N][N]));
    double (*v)[N] = calloc(N, sizeof(double[N]));
    double (*p)[N] = calloc(N, sizeof(double[N]));
    double (*q)[N] = calloc(N, sizeof(double[N]));
    if (!u || !v || !p || !q) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, u);
    double t0 = now();
    kernel_adi(TSTEPS, N, u, v, p, q);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump2("adi_u", N, N, u);
    free(u);
    free(v);
    free(p);
    free(q);
    return 0;
}
