/* lift-bench: -DN=4000 -DM=4000 -DREPS=40 */
/*
 * bicg.c - BiCG sub-kernel:  s = A^T * r,  q = A * p
 * Style: malloc'd linearized n x m matrix, restrict pointers.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 90
#endif
#ifndef M
#define M 70
#endif
#ifndef REPS
#define REPS 2
#endif

#define IDX(i, j, m) ((size_t)(i) * (m) + (j))

static void kernel_bicg(int n, int m, const double *restrict A,
                        double *restrict s, double *restrict q,
                        const double *restrict p, const double *restrict r)
{
    for (int j = 0; j < m; j++)
        s[j] = 0.0;
    for (int i = 0; i < n; i++) {
        q[i] = 0.0;
        for (int j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[IDX(i, j, m)];
            q[i] = q[i] + A[IDX(i, j, m)] * p[j];
        }
    }
}

int main(void)
{
    const int n = N, m = M;
    double *A = malloc(IDX(n, 0, m) * sizeof(double));
    double *s = malloc(m * sizeof(double));
    double *q = malloc(n * sizeof(double));
    double *p = malloc(m * sizeof(double));
    double *r = malloc(n * sizeof(double));
    if (!A || !s || !q || !p || !r)
        return 1;

    for (int j = 0; j < m; j++)
        p[j] = (double)(j % m) / m;
    for (int i = 0; i < n; i++) {
        r[i] = (double)(i % n) / n;
        for (int j = 0; j < m; j++)
            A[IDX(i, j, m)] = (double)(i * (j + 1) % n) / n;
    }

    for (int rep = 0; rep < REPS; rep++) {
        kernel_bicg(n, m, A, s, q, p, r);
        p[rep % m] += 0.25;
    }

    double cs = 0.0, cq = 0.0;
    for (int j = 0; j < m; j++)
        cs += s[j] * (1 + j % 7);
    for (int i = 0; i < n; i++)
        cq += q[i] * (1 + i % 7);
    printf("%s: %.10e\n", "bicg_s", cs);
    printf("%s: %.10e\n", "bicg_q", cq);

    free(A);
    free(s);
    free(q);
    free(p);
    free(r);
    return 0;
}
