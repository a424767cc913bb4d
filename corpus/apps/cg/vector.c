/* vector.c - dense vector kernels. Arguments may alias as far as the compiler
 * knows: callers pass distinct vectors, which lift checks at run time. */
#include "vector.h"

double dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* y = y + a x */
void axpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* y = x + a y */
void xpay(int n, const double *x, double a, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] = x[i] + a * y[i];
}

void fill(int n, double value, double *x)
{
    for (int i = 0; i < n; i++)
        x[i] = value;
}

void copy(int n, const double *src, double *dst)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}
