/* found by reading scop.py (the analysis helper `graph`).  An inner loop whose
 * header is affine only in outer loop variables was modelled as a map even with
 * a `break` in its body: it was reported parallel and got `#pragma omp simd`,
 * which GCC rejects on a loop with break. */
#include <stdio.h>

#define N 300

static double a[N];
static double b[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = (i % 11) - 9.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++) {
            if (a[j] > 0)
                break;
            b[i][j] = a[j] + i;
        }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += b[i][j] * (1 + (i + j) % 5);
    printf("%.6f\n", s);
    return 0;
}
