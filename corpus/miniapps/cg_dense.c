/* lift-bench: -DN=2500 -DNRHS=8 */
/*
 * cg_dense.c - conjugate gradient solver for a dense symmetric
 * positive definite system A x = b, run for NRHS right-hand sides.
 * Style: helper functions (dot, axpy, xpay, matvec) over malloc'd
 * vectors, a struct of solver parameters, a while loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef N
#define N 100
#endif
#ifndef NRHS
#define NRHS 2
#endif
#ifndef MAXIT
#define MAXIT 500
#endif
#ifndef TOL
#define TOL 1e-10
#endif

typedef struct {
    int n;
    int maxit;
    double tol;
} cg_params;

static double kernel_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* y = y + a*x */
static void kernel_axpy(int n, double a, const double *restrict x, double *restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* p = r + beta*p */
static void kernel_xpay(int n, const double *restrict r, double beta, double *restrict p)
{
    for (int i = 0; i < n; i++)
        p[i] = r[i] + beta * p[i];
}

/* y = A*x, A dense row-major n x n */
static void kernel_matvec(int n, const double *restrict A, const double *restrict x,
                          double *restrict y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += A[(size_t)i * n + j] * x[j];
        y[i] = s;
    }
}

/* returns the number of iterations; x holds the solution */
static int cg_solve(const cg_params *prm, const double *A, const double *b, double *x,
                    double *r, double *p, double *q)
{
    const int n = prm->n;
    for (int i = 0; i < n; i++) {
        x[i] = 0.0;
        r[i] = b[i];
        p[i] = b[i];
    }
    double rr = kernel_dot(n, r, r);
    const double stop = prm->tol * prm->tol * kernel_dot(n, b, b);
    int it = 0;
    while (it < prm->maxit && rr > stop) {
        kernel_matvec(n, A, p, q);
        double alpha = rr / kernel_dot(n, p, q);
        kernel_axpy(n, alpha, p, x);
        kernel_axpy(n, -alpha, q, r);
        double rr_new = kernel_dot(n, r, r);
        kernel_xpay(n, r, rr_new / rr, p);
        rr = rr_new;
        it++;
    }
    return it;
}

int main(void)
{
    cg_params prm = {N, MAXIT, TOL};
    const int n = prm.n;
    double *A = malloc((size_t)n * n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    double *x = malloc(n * sizeof(double));
    double *r = malloc(n * sizeof(double));
    double *p = malloc(n * sizeof(double));
    double *q = malloc(n * sizeof(double));
    if (!A || !b || !x || !r || !p || !q)
        return 1;

    /* SPD: symmetric, positive off-diagonals, diagonal = 1 + row sum of the
     off-diagonal entries (strictly diagonally dominant) */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[(size_t)i * n + j] = i == j ? 0.0 : 1.0 / (1.0 + abs(i - j));
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += A[(size_t)i * n + j];
        A[(size_t)i * n + i] = 1.0 + s;
    }

    long total_it = 0;
    double sx = 0.0, res = 0.0;
    for (int k = 0; k < NRHS; k++) {
        for (int i = 0; i < n; i++)
            b[i] = 1.0 + (double)((i * (k + 3)) % 17) / 17.0;
        total_it += cg_solve(&prm, A, b, x, r, p, q);
        for (int i = 0; i < n; i++)
            sx += x[i] * (1 + i % 7);
        kernel_matvec(n, A, x, q);
        for (int i = 0; i < n; i++)
            res = fmax(res, fabs(q[i] - b[i]));
    }

    printf("%s: %ld\n", "cg_iterations", total_it);
    printf("%s: %.10e\n", "cg_x", sx);
    printf("%s: %.10e\n", "cg_residual_ok", res < 1e-6 ? 1.0 : 0.0);

    free(A);
    free(b);
    free(x);
    free(r);
    free(p);
    free(q);
    return 0;
}
