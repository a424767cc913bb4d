/* lift-bench: -DN=1500 -DMAXIT=150 */
/*
 * heat2d_app.c - small 2D steady-state heat solver (Jacobi iteration)
 * on a square plate with fixed boundary temperatures.  Iterates until
 * the largest change drops below TOL or MAXIT iterations are done,
 * swapping the two grid buffers after every sweep.
 * Style: a struct holding a malloc'd grid indexed u[i*nx+j] and its
 * sizes, helper functions, a while loop, pointer swap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef N
#define N 48
#endif
#ifndef MAXIT
#define MAXIT 200
#endif
#ifndef TOL
#define TOL 1e-6
#endif

typedef struct {
    int nx, ny;  /* points per row, number of rows */
    double *u;   /* ny * nx values, row-major */
} grid_t;

typedef struct {
    double top, bottom, left, right; /* boundary temperatures */
    double tol;
    int maxit;
} params_t;

static int grid_alloc(grid_t *g, int nx, int ny)
{
    g->nx = nx;
    g->ny = ny;
    g->u = calloc((size_t)nx * ny, sizeof(double));
    return g->u ? 0 : -1;
}

static void grid_free(grid_t *g)
{
    free(g->u);
    g->u = NULL;
}

static void set_boundary(grid_t *g, const params_t *p)
{
    int nx = g->nx, ny = g->ny;
    for (int j = 0; j < nx; j++) {
        g->u[j] = p->top;
        g->u[(ny - 1) * nx + j] = p->bottom;
    }
    for (int i = 1; i < ny - 1; i++) {
        g->u[i * nx] = p->left;
        g->u[i * nx + nx - 1] = p->right;
    }
}

/* one Jacobi sweep: dst interior = average of the 4 neighbours in src */
static void kernel_sweep(const grid_t *src, grid_t *dst)
{
    const int nx = src->nx, ny = src->ny;
    const double *restrict a = src->u;
    double *restrict b = dst->u;
    for (int i = 1; i < ny - 1; i++)
        for (int j = 1; j < nx - 1; j++)
            b[i * nx + j] = 0.25 * (a[(i - 1) * nx + j] + a[(i + 1) * nx + j]
                                    + a[i * nx + j - 1] + a[i * nx + j + 1]);
}

/* largest absolute difference between two grids */
static double kernel_maxdiff(const grid_t *g, const grid_t *h)
{
    const int n = g->nx * g->ny;
    const double *a = g->u, *b = h->u;
    double diff = 0.0;
    for (int k = 0; k < n; k++) {
        double d = fabs(a[k] - b[k]);
        if (d > diff)
            diff = d;
    }
    return diff;
}

static double mean_temperature(const grid_t *g)
{
    double s = 0.0;
    for (int k = 0; k < g->nx * g->ny; k++)
        s += g->u[k];
    return s / (g->nx * g->ny);
}

static int solve(grid_t *cur, grid_t *next, const params_t *p, double *final_diff)
{
    int it = 0;
    double diff = 2.0 * p->tol + 1.0;
    while (it < p->maxit && diff > p->tol) {
        kernel_sweep(cur, next);
        diff = kernel_maxdiff(cur, next);
        grid_t tmp = *cur; /* swap buffers */
        *cur = *next;
        *next = tmp;
        it++;
    }
    *final_diff = diff;
    return it;
}

int main(void)
{
    params_t p = {1.0, 0.0, 0.5, 0.25, TOL, MAXIT};
    grid_t a, b;
    if (grid_alloc(&a, N, N) != 0 || grid_alloc(&b, N, N) != 0)
        return 1;

    /* deterministic initial guess in the interior */
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            a.u[i * N + j] = (double)((i * 3 + j * 5) % 10) / 10.0;
    set_boundary(&a, &p);
    set_boundary(&b, &p);

    double diff;
    int iters = solve(&a, &b, &p, &diff);

    double s = 0.0;
    for (int k = 0; k < N * N; k++)
        s += a.u[k] * (1 + k % 7);
    printf("%s: %ld\n", "heat2d_iterations", (long)iters);
    printf("%s: %.10e\n", "heat2d_diff", diff);
    printf("%s: %.10e\n", "heat2d_mean", mean_temperature(&a));
    printf("%s: %.10e\n", "heat2d_u", s);

    grid_free(&a);
    grid_free(&b);
    return 0;
}
