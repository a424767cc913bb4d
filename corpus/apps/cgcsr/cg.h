/* cg.h - the conjugate gradient solver. */
#ifndef CGCSR_CG_H
#define CGCSR_CG_H

#include "sparse.h"

typedef struct {
    int iterations;
    double initial_norm;
    double final_norm;
} CgResult;

CgResult cg(const CsrMatrix *a, const double *b, double *x, int max_iter, double tolerance);

#endif
