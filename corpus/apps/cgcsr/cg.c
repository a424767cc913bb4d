/* cg.c - unpreconditioned conjugate gradients, x updated in place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blas.h"
#include "cg.h"

CgResult cg(const CsrMatrix *a, const double *b, double *x, int max_iter, double tolerance)
{
    int n = a->nrows;
    CgResult res = {0, 0.0, 0.0};
    double *r = malloc(sizeof(double) * (size_t)n);
    double *p = malloc(sizeof(double) * (size_t)n);
    double *ap = malloc(sizeof(double) * (size_t)n);
    if (!r || !p || !ap) {
        fprintf(stderr, "cgcsr: out of memory\n");
        exit(1);
    }
    spmv(a, x, ap);
    axpby(n, 1.0, b, -1.0, ap, r);      /* r = b - A x */
    axpby(n, 1.0, r, 0.0, r, p);        /* p = r */
    double rtr = dot(n, r, r);
    res.initial_norm = sqrt(rtr);
    int k = 0;
    while (k < max_iter && sqrt(rtr) > tolerance * res.initial_norm) {
        spmv(a, p, ap);
        double alpha = rtr / dot(n, p, ap);
        axpby(n, 1.0, x, alpha, p, x);   /* x += alpha p */
        axpby(n, 1.0, r, -alpha, ap, r); /* r -= alpha A p */
        double rtr_new = dot(n, r, r);
        axpby(n, 1.0, r, rtr_new / rtr, p, p); /* p = r + beta p */
        rtr = rtr_new;
        k++;
    }
    res.iterations = k;
    res.final_norm = sqrt(rtr);
    free(r);
    free(p);
    free(ap);
    return res;
}
