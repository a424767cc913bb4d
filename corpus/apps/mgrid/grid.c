/* grid.c - allocation of the hierarchy, the model problem and its norms.  The problem is
 * -lap u = 2 pi^2 sin(pi x) sin(pi y) on the unit square, whose solution sin(pi x) sin(pi y)
 * the discrete one approaches to O(h^2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mg.h"

#define PI 3.14159265358979323846

static double *zeroed(int n)
{
    double *a = calloc((size_t)n * (size_t)n, sizeof(double));
    if (!a) {
        fprintf(stderr, "mgrid: out of memory\n");
        exit(1);
    }
    return a;
}

Hierarchy *hierarchy_new(int log2n)
{
    Hierarchy *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    h->levels = log2n;  /* down to 3 x 3: one unknown */
    for (int l = 0; l < h->levels; l++) {
        h->size[l] = (1 << (log2n - l)) + 1;
        h->u[l] = zeroed(h->size[l]);
        h->f[l] = zeroed(h->size[l]);
        h->r[l] = zeroed(h->size[l]);
    }
    h->row = malloc(sizeof(double) * (size_t)h->size[0] * (size_t)OMP_THREADS());
    if (!h->row) {
        fprintf(stderr, "mgrid: out of memory\n");
        exit(1);
    }
    return h;
}

void hierarchy_free(Hierarchy *h)
{
    for (int l = 0; l < h->levels; l++) {
        free(h->u[l]);
        free(h->f[l]);
        free(h->r[l]);
    }
    free(h->row);
    free(h);
}

void set_problem(Hierarchy *h)
{
    int n = h->size[0];
    double hx = 1.0 / (n - 1);
    double *f = h->f[0];
    OMP(omp parallel for)
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            f[i * n + j] = 2.0 * PI * PI * sin(PI * i * hx) * sin(PI * j * hx);
}

double norm2(int n, const double *a)
{
    double sum = 0.0;
    OMP(omp parallel for reduction(+:sum))
    for (int k = 0; k < n * n; k++)
        sum += a[k] * a[k];
    return sqrt(sum / ((double)n * n));
}

double max_error(const Hierarchy *h)
{
    int n = h->size[0];
    double hx = 1.0 / (n - 1);
    const double *u = h->u[0];
    double err = 0.0;
    OMP(omp parallel for reduction(max:err))
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double d = fabs(u[i * n + j] - sin(PI * i * hx) * sin(PI * j * hx));
            if (d > err)
                err = d;
        }
    }
    return err;
}
