/* cg.h - unpreconditioned conjugate gradients. */
#ifndef CG_CG_H
#define CG_CG_H

#include "csr.h"

typedef struct {
    int iterations;
    double initial_residual;
    double final_residual;
} CgStats;

CgStats cg_solve(const Csr *a, const double *b, double *x, int max_iter, double tol);

#endif
