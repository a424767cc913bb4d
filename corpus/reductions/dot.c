/* lift-bench: -DN=10000000 -DREPS=40 */
/*
 * dot.c - dot products: a double dot product and an integer one.
 * Style: malloc'd vectors, const pointer parameters.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 1000
#endif
#ifndef REPS
#define REPS 3
#endif

static double kernel_dot(int n, const double *x, const double *y)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x[i] * y[i];
    return sum;
}

static long kernel_idot(int n, const int *a, const int *b)
{
    long acc = 0;
    for (int i = 0; i < n; i++)
        acc = acc + (long)a[i] * b[i];
    return acc;
}

int main(void)
{
    const int n = N;
    double *x = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));
    int *a = malloc(n * sizeof(int));
    int *b = malloc(n * sizeof(int));
    if (!x || !y || !a || !b)
        return 1;

    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % 100) / 100.0;
        y[i] = 1.0 - (double)(i % 37) / 37.0;
        a[i] = i % 1000 - 500;
        b[i] = (3 * i) % 101;
    }

    double d = 0.0;
    long id = 0;
    for (int r = 0; r < REPS; r++) {
        d += kernel_dot(n, x, y);
        id += kernel_idot(n, a, b);
        x[r % n] += 1.0; /* keep repetitions distinct */
        a[r % n] += 1;
    }

    printf("%s: %.10e\n", "dot", d);
    printf("%s: %ld\n", "idot", id);

    free(x);
    free(y);
    free(a);
    free(b);
    return 0;
}
