/* lift-bench: -DN=10000000 -DREPS=50 */
/*
 * minmax.c - minimum and maximum value of a vector, and the index of
 * the first minimum (arg-min).
 * Style: malloc'd vector, ternary min/max, a MIN macro.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef REPS
#define REPS 3
#endif

#define MIN(a, b) ((a) < (b) ? (a) : (b))

static void kernel_minmax(int n, const double *x, double *lo_out, double *hi_out)
{
    double lo = x[0], hi = x[0];
    for (int i = 1; i < n; i++) {
        lo = MIN(lo, x[i]);
        hi = x[i] > hi ? x[i] : hi;
    }
    *lo_out = lo;
    *hi_out = hi;
}

/* arg-min: best value and its index are updated together */
static long kernel_argmin(int n, const double *x)
{
    double best = x[0];
    long idx = 0;
    for (int i = 1; i < n; i++) {
        if (x[i] < best) {
            best = x[i];
            idx = i;
        }
    }
    return idx;
}

int main(void)
{
    const int n = N;
    double *x = malloc(n * sizeof(double));
    if (!x)
        return 1;
    for (int i = 0; i < n; i++)
        x[i] = (double)((i * 7919L + 17) % 10007) / 10007.0 - 0.5;

    double slo = 0.0, shi = 0.0;
    long sidx = 0;
    for (int r = 0; r < REPS; r++) {
        double lo, hi;
        kernel_minmax(n, x, &lo, &hi);
        long k = kernel_argmin(n, x);
        slo += lo;
        shi += hi;
        sidx += k;
        x[k] = 0.75 + 0.01 * r; /* remove the current minimum */
    }

    double sx = 0.0;
    for (int i = 0; i < n; i++)
        sx += x[i] * (1 + i % 7);
    printf("%s: %.10e\n", "min", slo);
    printf("%s: %.10e\n", "max", shi);
    printf("%s: %ld\n", "argmin", sidx);
    printf("%s: %.10e\n", "minmax_x", sx);

    free(x);
    return 0;
}
