/* lift-bench: -DN=10000000 -DREPS=30 */
/*
 * norm2.c - Euclidean norm and max-abs (infinity) norm of a vector.
 * Style: global fixed-size array, fabs/fmax/sqrt from <math.h>.
 */
#include <stdio.h>
#include <math.h>

#ifndef N
#define N 1000
#endif
#ifndef REPS
#define REPS 3
#endif

static double v[N];

static double kernel_norm2(void)
{
    double ss = 0.0;
    for (int i = 0; i < N; i++)
        ss += v[i] * v[i];
    return sqrt(ss);
}

static double kernel_norminf(void)
{
    double m = 0.0;
    for (int i = 0; i < N; i++)
        m = fmax(m, fabs(v[i]));
    return m;
}

/* both norms in one sweep, max written with an if */
static void kernel_norms(double *two, double *inf)
{
    double ss = 0.0, mx = 0.0;
    for (int i = 0; i < N; i++) {
        double a = fabs(v[i]);
        ss += a * a;
        if (a > mx)
            mx = a;
    }
    *two = sqrt(ss);
    *inf = mx;
}

int main(void)
{
    for (int i = 0; i < N; i++)
        v[i] = (double)((i * 37) % 1001 - 500) / 250.0;

    double s2 = 0.0, si = 0.0, c2 = 0.0, ci = 0.0;
    for (int r = 0; r < REPS; r++) {
        s2 += kernel_norm2();
        si += kernel_norminf();
        double two, inf;
        kernel_norms(&two, &inf);
        c2 += two;
        ci += inf;
        v[(r * 7919) % N] *= 1.0001; /* keep repetitions distinct */
    }

    double sv = 0.0;
    for (int i = 0; i < N; i++)
        sv += v[i] * (1 + i % 7);
    printf("%s: %.10e\n", "norm2", s2);
    printf("%s: %.10e\n", "norminf", si);
    printf("%s: %.10e\n", "norms_two", c2);
    printf("%s: %.10e\n", "norms_inf", ci);
    printf("%s: %.10e\n", "norm_v", sv);
    return 0;
}
