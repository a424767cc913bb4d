/* main.c - mgrid: V-cycles from u = 0; checks that each cycle cuts the residual by a
 * multigrid factor and that the solution approaches the continuous one to O(h^2). */
#include <stdio.h>
#include <stdlib.h>

#include "mg.h"

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 11;
    int cycles = argc > 2 ? atoi(argv[2]) : 12;
    if (log2n < 2 || log2n >= MAX_LEVELS || cycles < 1) {
        fprintf(stderr, "usage: %s [LOG2N (2..%d) [CYCLES]]\n", argv[0], MAX_LEVELS - 1);
        return 2;
    }
    Hierarchy *h = hierarchy_new(log2n);
    if (!h) {
        fprintf(stderr, "mgrid: out of memory\n");
        return 1;
    }
    set_problem(h);
    int n = h->size[0];
    residual(h, 0);
    double r0 = norm2(n, h->r[0]);
    double r = r0, worst_factor = 0.0;
    for (int c = 0; c < cycles; c++) {
        vcycle(h, 0);
        residual(h, 0);
        double rn = norm2(n, h->r[0]);
        if (rn / r > worst_factor)
            worst_factor = rn / r;
        r = rn;
    }
    double err = max_error(h);
    double hx = 1.0 / (n - 1);
    /* a residual near rounding level stops shrinking: judge the factor only above it */
    int ok = (worst_factor < 0.25 || r < 1e-10 * r0) && err < 2.0 * hx * hx;
    printf("grid: %d\n", n);
    printf("levels: %d\n", h->levels);
    printf("cycles: %d\n", cycles);
    printf("residual_reduction: %.8e\n", r / r0);
    printf("max_error: %.8e\n", err);
    printf("verified: %d\n", ok);
    hierarchy_free(h);
    return ok ? 0 : 1;
}
