/* solver.c - Jacobi sweeps until the largest change falls below a tolerance. */
#include <math.h>

#include "solver.h"

/* v = u + alpha * (discrete Laplacian of u), on the interior points */
void jacobi_sweep(int nx, int ny, double alpha, const double u[restrict nx + 2][ny + 2],
                  double v[restrict nx + 2][ny + 2])
{
    for (int i = 1; i <= nx; i++)
        for (int j = 1; j <= ny; j++)
            v[i][j] = u[i][j] + alpha * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4.0 * u[i][j]);
}

/* the largest |v - u| over the interior */
double max_change(int nx, int ny, const double u[nx + 2][ny + 2], const double v[nx + 2][ny + 2])
{
    double m = 0.0;
    for (int i = 1; i <= nx; i++)
        for (int j = 1; j <= ny; j++) {
            double d = fabs(v[i][j] - u[i][j]);
            if (d > m)
                m = d;
        }
    return m;
}

/* Iterate from a (a and b hold the same boundary values) until converged; the result ends in a. */
int solve(Grid *a, Grid *b, double alpha, double tol, int max_iter, double *residual)
{
    int it = 0;
    double change = tol + 1.0;
    while (change > tol && it < max_iter) {
        jacobi_sweep(a->nx, a->ny, alpha, CROWS(a), ROWS(b));
        change = max_change(a->nx, a->ny, CROWS(a), CROWS(b));
        Grid t = *a;   /* swap the buffers */
        *a = *b;
        *b = t;
        it++;
    }
    *residual = change;
    return it;
}
