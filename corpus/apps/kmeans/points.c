/* points.c - synthetic clustered data from a 64-bit LCG (reproducible everywhere). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "points.h"

static double uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

double *points_new(int n, int d, int k)
{
    double *x = malloc(sizeof(double) * (size_t)n * (size_t)d);
    double *centre = malloc(sizeof(double) * (size_t)k * (size_t)d);
    if (!x || !centre) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    uint64_t seed = 12345ULL;
    for (int c = 0; c < k * d; c++)
        centre[c] = 10.0 * uniform(&seed);
    for (int i = 0; i < n; i++) {
        int c = (int)(uniform(&seed) * k);
        for (int j = 0; j < d; j++) /* a sum of three uniforms: roughly bell-shaped */
            x[i * d + j] = centre[c * d + j] + uniform(&seed) + uniform(&seed) + uniform(&seed) - 1.5;
    }
    free(centre);
    return x;
}
