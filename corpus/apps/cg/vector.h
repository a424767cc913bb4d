/* vector.h - the dense vector kernels of CG (BLAS level 1). */
#ifndef CG_VECTOR_H
#define CG_VECTOR_H

double dot(int n, const double *x, const double *y);
void axpy(int n, double a, const double *x, double *y);
void xpay(int n, const double *x, double a, double *y);
void fill(int n, double value, double *x);
void copy(int n, const double *src, double *dst);

#endif
