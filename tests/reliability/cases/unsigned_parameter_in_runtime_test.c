/* fuzz-found (traps, master seed 17007, program seed 595609368; session 17), reduced by hand.
   A time loop whose body reads A before writing it was parallelized with a private copy of A
   under a run-time test that was to hold only where the inner loops run no iteration (m == 0 or
   n == 0). The test's C text wrote isl's `-m >= 0` as `-1L*m >= 0L`: with a `size_t` m the
   product is unsigned, so the test always held, and both time steps started from the original
   A (wrong at 1 thread). Fixed in graph/ranges.py (pw_to_c): every term is cast to long,
   `-1L*(long)m`, as a coefficient of 1 already was (`(long)m`). */
#include <stdio.h>
static double g[1200], h[1200];
double nest(double *a, const double *b, unsigned n, size_t m)
{
    double *A = a + 35;
    const double *B = b + 35;
    unsigned i = 0;
    size_t j = 0;
    double s = 0.0;
    for (int t = 0; t < 2; t++) {
        for (i = 0; i < n; i++) {
            for (j = 0; j < m; j++)
                A[(long)i * 34 + j] = B[(long)i * 34 + (long)j + 1] - A[(long)i * 34 + j];
            A[(long)i * 34 + 31] = s;
        }
    }
    return s;
}
int main(void)
{
    for (int i = 0; i < 1200; i++) { g[i] = i % 7; h[i] = i % 5; }
    nest(g, h, 32, 6);
    double s = 0;
    for (int i = 0; i < 1200; i++) s = s * 1.5 + g[i];
    printf("%.17g\n", s);
    return 0;
}
