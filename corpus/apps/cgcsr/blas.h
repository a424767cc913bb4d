/* blas.h - the vector kernels of the solver. */
#ifndef CGCSR_BLAS_H
#define CGCSR_BLAS_H

double dot(int n, const double *x, const double *y);
void axpby(int n, double a, const double *x, double b, const double *y, double *out);
void fill(int n, double value, double *x);

#endif
