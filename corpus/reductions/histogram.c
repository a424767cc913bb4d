/* lift-bench: -DN=20000000 -DREPS=60 */
/*
 * histogram.c - integer histogram h[key[i]]++ with deterministic
 * keys, followed by a cumulative (prefix) sum and a normalization.
 * Style: global arrays, long counters, typedef for the key type.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 5000
#endif
#ifndef NBINS
#define NBINS 256
#endif
#ifndef REPS
#define REPS 2
#endif

typedef unsigned int key_t_;

static long hist[NBINS];
static long cum[NBINS];
static double frac[NBINS];

static void kernel_histogram(int n, const key_t_ *key)
{
    for (int b = 0; b < NBINS; b++)
        hist[b] = 0;
    for (int i = 0; i < n; i++)
        hist[key[i]]++;
}

static void kernel_prefix(void)
{
    cum[0] = hist[0];
    for (int b = 1; b < NBINS; b++)
        cum[b] = cum[b - 1] + hist[b];
}

static void kernel_normalize(long total)
{
    for (int b = 0; b < NBINS; b++)
        frac[b] = (double)cum[b] / (double)total;
}

int main(void)
{
    const int n = N;
    key_t_ *key = malloc(n * sizeof(key_t_));
    if (!key)
        return 1;
    for (int i = 0; i < n; i++)
        key[i] = (key_t_)(((long)i * i + 7L * i + 3) % 1009) % NBINS;

    long check = 0;
    for (int r = 0; r < REPS; r++) {
        kernel_histogram(n, key);
        kernel_prefix();
        kernel_normalize(n);
        check += cum[NBINS / 2];
        key[r % n] = (key[r % n] + 1) % NBINS;
    }

    long hs = 0;
    double fs = 0.0;
    for (int b = 0; b < NBINS; b++) {
        hs += hist[b] * (1 + b % 7);
        fs += frac[b] * (1 + b % 7);
    }
    printf("%s: %ld\n", "hist", hs);
    printf("%s: %ld\n", "hist_mid", check);
    printf("%s: %.10e\n", "hist_frac", fs);

    free(key);
    return 0;
}
