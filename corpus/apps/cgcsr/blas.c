/* blas.c - level-1 kernels.  axpby's output may be one of its inputs (x = x + a p is
 * axpby(n, 1, x, a, p, x)): every element is read before it is written, in the same index. */
#include "blas.h"
#include "hand_omp.h"

double dot(int n, const double *x, const double *y)
{
    double sum = 0.0;
    OMP(omp parallel for reduction(+:sum))
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

/* out = a x + b y */
void axpby(int n, double a, const double *x, double b, const double *y, double *out)
{
    OMP(omp parallel for)
    for (int i = 0; i < n; i++)
        out[i] = a * x[i] + b * y[i];
}

void fill(int n, double value, double *x)
{
    OMP(omp parallel for)
    for (int i = 0; i < n; i++)
        x[i] = value;
}
