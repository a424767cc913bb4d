/* lift-bench: -DN=10000000 -DREPS=6 */
/* Statistics of a signal through helpers that return their results through output pointers,
 * as library code does (BLAS-like `dot(n, x, y, &r)`): each loop accumulates into `*result`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 100000
#endif
#ifndef REPS
#define REPS 2
#endif

typedef struct {
    long n;
    double *x;
    double *y;
    double threshold;
} Signal;

typedef struct {
    double dot;
    double norm;
    double peak;
    long above;
} Stats;

static void kernel_dot(long n, const double *x, const double *y, double *result)
{
    *result = 0.0;
    for (long i = 0; i < n; i++)
        *result += x[i] * y[i];
}

static void kernel_norm(long n, const double *x, double *out)
{
    *out = 0.0;
    for (long i = 0; i < n; i++)
        *out += x[i] * x[i];
    *out = sqrt(*out);
}

static void kernel_peak(long n, const double *x, double *peak)
{
    *peak = 0.0;
    for (long i = 0; i < n; i++)
        if (fabs(x[i]) > *peak)
            *peak = fabs(x[i]);
}

static void kernel_count(long n, const double *x, double threshold, long *count)
{
    *count = 0;
    for (long i = 0; i < n; i++)
        if (x[i] > threshold)
            (*count)++;
}

/* The running sum is the output: each element reads the previous one (a scan), not a reduction. */
static void kernel_running(long n, double *x, double *acc)
{
    for (long i = 0; i < n; i++) {
        *acc += x[i];
        x[i] = *acc;
    }
}

static void fill(Signal *s)
{
    for (long i = 0; i < s->n; i++) {
        s->x[i] = (double)((i * 7 + 3) % 1001) / 1001.0 - 0.5;
        s->y[i] = (double)((i * 13 + 1) % 997) / 997.0;
    }
}

static void stats(const Signal *s, Stats *st)
{
    kernel_dot(s->n, s->x, s->y, &st->dot);
    kernel_norm(s->n, s->x, &st->norm);
    kernel_peak(s->n, s->x, &st->peak);
    kernel_count(s->n, s->x, s->threshold, &st->above);
}

int main(void)
{
    Signal s = {N, malloc(N * sizeof(double)), malloc(N * sizeof(double)), 0.25};
    Stats st = {0};
    double check = 0.0;
    if (!s.x || !s.y)
        return 1;
    fill(&s);
    for (int r = 0; r < REPS; r++) {
        stats(&s, &st);
        check += st.dot + st.norm + st.peak + (double)st.above;
    }
    /* Results written into the input itself: the helpers must read what they are given. */
    kernel_dot(s.n / 2, s.x, s.y, &s.x[s.n / 4]);
    kernel_norm(s.n / 2, s.y, &s.y[s.n / 3]);
    double acc = 0.0;
    kernel_running(s.n, s.y, &acc);
    printf("dot: %.10e\n", st.dot);
    printf("norm: %.10e\n", st.norm);
    printf("peak: %.10e\n", st.peak);
    printf("above: %ld\n", st.above);
    printf("check: %.10e\n", check);
    printf("aliased: %.10e\n", s.x[s.n / 4] + s.y[s.n / 3]);
    printf("running: %.10e\n", acc + s.y[s.n / 2]);
    free(s.x);
    free(s.y);
    return 0;
}
