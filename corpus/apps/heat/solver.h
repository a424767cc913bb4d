/* solver.h - Jacobi iteration for the steady-state heat equation on a Grid. */
#ifndef HEAT_SOLVER_H
#define HEAT_SOLVER_H

#include "grid.h"

void jacobi_sweep(int nx, int ny, double alpha, const double u[restrict nx + 2][ny + 2],
                  double v[restrict nx + 2][ny + 2]);
double max_change(int nx, int ny, const double u[nx + 2][ny + 2], const double v[nx + 2][ny + 2]);
int solve(Grid *a, Grid *b, double alpha, double tol, int max_iter, double *residual);

#endif
