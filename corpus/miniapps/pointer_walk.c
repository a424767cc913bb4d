/* lift-bench: -DN=10000000 -DREPS=5 */
/* A signal-processing pipeline written the way C library code walks buffers: with pointers that
 * step once per element, `*dst++ = *src++ * k`, `while (n--)`, a ramp through a pointer set at
 * an offset, and a compaction whose output pointer steps only for the samples it keeps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200000
#endif
#ifndef REPS
#define REPS 3
#endif

typedef struct {
    long n;
    double *in;
    double *work;
    double *out;
} Pipeline;

static void kernel_ramp(double *buf, long n, long offset, double start, double step)
{
    double *p = buf + offset;
    for (long i = 0; i < n; i++)
        *p++ = start + step * (double)(i % 1000);
}

static void kernel_scale_copy(double *dst, const double *src, long n, double k)
{
    while (n--)
        *dst++ = *src++ * k;
}

static void kernel_axpy(long n, double a, const double *x, double *y)
{
    for (long i = 0; i < n; i++)
        *y++ += a * *x++;
}

static void kernel_mix(size_t n, double *out, const double *a, const double *b)
{
    while (n-- > 0) {
        double u = *a++;
        double v = *b++;
        *out++ = 0.75 * u + 0.25 * v;
    }
}

/* Keeps the samples above the threshold, in order: each kept sample's place depends on the
 * samples before it, so the loop stays sequential. */
static long kernel_compact(long n, const double *x, double threshold, double *kept)
{
    double *p = kept;
    for (long i = 0; i < n; i++)
        if (x[i] > threshold)
            *p++ = x[i];
    return (long)(p - kept);
}

static double checksum(const double *x, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += x[i] * (double)(1 + i % 7);
    return s;
}

int main(void)
{
    Pipeline pl = {N, malloc((N + 8) * sizeof(double)), malloc((N + 8) * sizeof(double)),
                   malloc((N + 8) * sizeof(double))};
    long kept = 0;
    if (!pl.in || !pl.work || !pl.out)
        return 1;
    for (long i = 0; i < N + 8; i++)
        pl.in[i] = pl.work[i] = pl.out[i] = 0.0;
    kernel_ramp(pl.in, pl.n, 4, -0.5, 1e-3);
    for (int r = 0; r < REPS; r++) {
        kernel_scale_copy(pl.work, pl.in, pl.n, 0.5);
        kernel_axpy(pl.n, 0.25, pl.in, pl.work);
        kernel_mix((size_t)pl.n, pl.out, pl.work, pl.in);
        kept += kernel_compact(pl.n, pl.out, 0.1, pl.work);
    }
    /* In place, shifted by one (a delay line): the run-time tests fail, the loops run as written. */
    kernel_scale_copy(pl.work + 1, pl.work, pl.n, 0.5);
    kernel_mix((size_t)pl.n, pl.out + 2, pl.out, pl.in);
    printf("work: %.10e\n", checksum(pl.work, pl.n + 8));
    printf("out: %.10e\n", checksum(pl.out, pl.n + 8));
    printf("kept: %ld\n", kept);
    free(pl.in);
    free(pl.work);
    free(pl.out);
    return 0;
}
