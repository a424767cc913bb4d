/* lift-bench: -DM=1900 -DN=2100 */
/* lift-bench large: -DM=3800 -DN=4200 */
/*
 * bicg.c - the two matrix-vector products of BiCG: s = A^T * r and q = A * p.
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef M
#define M 50
#endif
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

static void init_array(int m, int n, double A[n][m], double r[n], double p[m])
{
    for (int i = 0; i < m; i++)
        p[i] = (double)(i % m) / m;
    for (int i = 0; i < n; i++) {
        r[i] = (double)(i % n) / n;
        for (int j = 0; j < m; j++)
            A[i][j] = (double)(i * (j + 1) % n) / n;
    }
}

static void kernel_bicg(int m, int n, double A[n][m], double s[m], double q[n], double p[m], double r[n])
{
    int i, j;
#pragma scop
    for (i = 0; i < m; i++)
        s[i] = 0.0;
    for (i = 0; i < n; i++) {
        q[i] = 0.0;
        for (j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[i][j];
            q[i] = q[i] + A[i][j] * p[j];
        }
    }
#pragma endscop
}

int main(void)
{
    double (*A)[M] = malloc(sizeof(double[N][M]));
    double *s = malloc(sizeof(double[M])), *q = malloc(sizeof(double[N]));
    double *p = malloc(sizeof(double[M])), *r = malloc(sizeof(double[N]));
    if (!A || !s || !q || !p || !r) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(M, N, A, r, p);
    double t0 = now();
    kernel_bicg(M, N, A, s, q, p, r);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dump1("bicg_s", M, s);
    dump1("bicg_q", N, q);
    free(A);
    free(s);
    free(q);
    free(p);
    free(r);
    return 0;
}
