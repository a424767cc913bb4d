/* main.c - stencil3d: diffuse the lowest eigenmode and check it decayed exactly as predicted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int steps = argc > 2 ? atoi(argv[2]) : 40;
    if (n < 3 || steps < 0) {
        fprintf(stderr, "usage: %s [N [STEPS]]\n", argv[0]);
        return 2;
    }
    Sim *sim = sim_new(n, n, n, 0.125);
    if (!sim) {
        fprintf(stderr, "stencil3d: out of memory\n");
        return 1;
    }
    sim_init(sim);
    double heat0 = total_heat(sim);
    for (int t = 0; t < steps; t++)
        step(sim);
    double amplitude = pow(decay_factor(sim), steps);
    double dev = max_deviation(sim, amplitude);
    double heat = total_heat(sim);
    int ok = dev < 1e-12 && fabs(heat / heat0 - amplitude) < 1e-9;
    printf("points: %d\n", n * n * n);
    printf("steps: %d\n", steps);
    printf("heat_ratio: %.12e\n", heat / heat0);
    printf("amplitude: %.12e\n", amplitude);
    printf("verified: %d\n", ok);
    sim_free(sim);
    return ok ? 0 : 1;
}
