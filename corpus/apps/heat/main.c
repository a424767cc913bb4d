/* main.c - the heat mini-application: set up two grids, solve, print checksums.
 *
 * usage: heat [N [MAX_ITER]]   (an N x N interior; defaults below)
 */
#include <stdio.h>
#include <stdlib.h>

#include "grid.h"
#include "solver.h"

#ifndef N
#define N 256
#endif
#ifndef MAX_ITER
#define MAX_ITER 500
#endif

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : N;
    int max_iter = argc > 2 ? atoi(argv[2]) : MAX_ITER;
    if (n < 1 || max_iter < 1) {
        fprintf(stderr, "usage: %s [N [MAX_ITER]]\n", argv[0]);
        return 2;
    }
    Grid *a = grid_new(n, n);
    Grid *b = grid_new(n, n);
    grid_init(a);
    grid_copy(b, a);
    double residual = 0.0;
    int iterations = solve(a, b, 0.2, 1e-6, max_iter, &residual);
    printf("iterations: %d\n", iterations);
    printf("residual: %.10e\n", residual);
    printf("heat: %.10e\n", grid_checksum(a));
    grid_free(a);
    grid_free(b);
    return 0;
}
