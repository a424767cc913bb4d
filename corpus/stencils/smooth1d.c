/* lift-bench: -DN=400000 -DTSTEPS=2000 */
/*
 * smooth1d.c - 3-point smoothing in 1D that records, every time step, the
 * squared change of the step (a residual) and its running total.
 * Style: PolyBench-like VLA kernel, loop variables at the top, scalar
 * statements between the loops of the time step (a reset before a
 * reduction, a history entry and a running sum after it).
 */
#include <stdio.h>

#ifndef N
#define N 500
#endif
#ifndef TSTEPS
#define TSTEPS 12
#endif

static double kernel_smooth1d(int tsteps, int n, double a[n], double b[n], double hist[tsteps])
{
    int t, i;
    double res = 0.0, total = 0.0;

    for (t = 0; t < tsteps; t++) {
        res = 0.0;
        for (i = 1; i < n - 1; i++)
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
        for (i = 1; i < n - 1; i++)
            res += (b[i] - a[i]) * (b[i] - a[i]);
        hist[t] = res;
        total += res;
        for (i = 1; i < n - 1; i++)
            a[i] = b[i];
    }
    return total;
}

int main(void)
{
    static double a[N], b[N], hist[TSTEPS];

    for (int i = 0; i < N; i++) {
        a[i] = (double)((i * 37 + 11) % 101) / 101.0;
        b[i] = 0.0;
    }
    double total = kernel_smooth1d(TSTEPS, N, a, b, hist);

    double s = 0.0, h = 0.0;
    for (int i = 0; i < N; i++)
        s += a[i] * (1 + i % 7);
    for (int t = 0; t < TSTEPS; t++)
        h += hist[t] * (1 + t % 7);
    printf("%s: %.10e\n", "smooth1d_a", s);
    printf("%s: %.10e\n", "smooth1d_hist", h);
    printf("%s: %.10e\n", "smooth1d_total", total);
    return 0;
}
