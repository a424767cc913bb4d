/* cg.c - conjugate gradients: r = b - A x, p = r, then max_iter steps of
 * alpha = rr / (p . Ap), x += alpha p, r -= alpha Ap, p = r + beta p. */
#include <math.h>
#include <stdlib.h>

#include "cg.h"
#include "vector.h"

CgStats cg_solve(const Csr *a, const double *b, double *x, int max_iter, double tol)
{
    int n = a->nrows;
    double *r = malloc(sizeof(double) * (size_t)n);
    double *p = malloc(sizeof(double) * (size_t)n);
    double *ap = malloc(sizeof(double) * (size_t)n);
    CgStats st = {0, 0.0, 0.0};
    if (!r || !p || !ap) {
        free(r);
        free(p);
        free(ap);
        st.iterations = -1;
        return st;
    }
    spmv(a, x, ap);
    copy(n, b, r);
    axpy(n, -1.0, ap, r);
    copy(n, r, p);
    double rr = dot(n, r, r);
    st.initial_residual = sqrt(rr);
    int it = 0;
    while (it < max_iter && sqrt(rr) > tol * st.initial_residual) {
        spmv(a, p, ap);
        double alpha = rr / dot(n, p, ap);
        axpy(n, alpha, p, x);
        axpy(n, -alpha, ap, r);
        double rr_new = dot(n, r, r);
        xpay(n, r, rr_new / rr, p);
        rr = rr_new;
        it++;
    }
    st.iterations = it;
    st.final_residual = sqrt(rr);
    free(r);
    free(p);
    free(ap);
    return st;
}
