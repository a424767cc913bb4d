/* found by reading effects.py (the analysis helper `graph`).  A scalar written
 * only inside an inner loop with data-dependent bounds was a must-write, so the
 * read after the inner loop looked fed by the same row and t became private(t).
 * Rows with no entries (rowptr[i] == rowptr[i+1]) must print the previous row's
 * value; a private copy is uninitialized there. */
#include <stdio.h>

#define N 4000

static int rowptr[N + 1];
static double x[N];
static double c[N];

int main(void)
{
    for (int i = 0; i <= N; i++)
        rowptr[i] = (i / 3) * 2;
    for (int i = 0; i < N; i++)
        x[i] = 0.5 * i;
    double t = -1.0;
    for (int i = 0; i < N; i++) {
        for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
            t = x[k % N];
        c[i] = t;
    }
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += c[i] * (1 + i % 7);
    printf("%.6f\n", s);
    return 0;
}
