/* lift-bench: -DN=16000000 -DREPS=10 */
/*
 * bucket_sort.c - the bucket pass of an integer sort, as NPB IS and radix sorts write it:
 * a histogram of each key's top bits, the buckets' starting offsets, then every key placed
 * at the running offset of its bucket (`buf[fill[b]++] = key`), and the keys of each bucket
 * summed in order to check the placement.
 * Style: sizes from shifts, local offset arrays, a struct of pointers.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 200000
#endif
#ifndef REPS
#define REPS 2
#endif
#define KEY_LOG 20
#define LOGB 9
#define NBUCKETS (1 << LOGB)
#define SHIFT (KEY_LOG - LOGB)

typedef struct {
    long n;
    int *keys;
    int *buf;
} Keys;

static void kernel_place(Keys *k, int start[NBUCKETS + 1])
{
    int count[NBUCKETS];
    int fill[NBUCKETS];
    int *keys = k->keys, *buf = k->buf;
    for (int b = 0; b < NBUCKETS; b++)
        count[b] = 0;
    for (long i = 0; i < k->n; i++)
        count[keys[i] >> SHIFT]++;
    start[0] = 0;
    for (int b = 0; b < NBUCKETS; b++) {
        start[b + 1] = start[b] + count[b];
        fill[b] = start[b];
    }
    for (long i = 0; i < k->n; i++) {
        int b = keys[i] >> SHIFT;
        buf[fill[b]++] = keys[i];
    }
}

int main(void)
{
    Keys k;
    k.n = N;
    k.keys = malloc(sizeof(int) * (size_t)k.n);
    k.buf = malloc(sizeof(int) * (size_t)k.n);
    int *start = malloc(sizeof(int) * (NBUCKETS + 1));
    if (!k.keys || !k.buf || !start)
        return 1;
    unsigned long seed = 12345;
    long check = 0;
    for (int r = 0; r < REPS; r++) {
        for (long i = 0; i < k.n; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            k.keys[i] = (int)((seed >> 33) & ((1UL << KEY_LOG) - 1));
        }
        kernel_place(&k, start);
        /* the keys of each bucket, in order of arrival: a position-weighted sum per bucket */
        for (int b = 0; b < NBUCKETS; b++) {
            long s = 0;
            for (int p = start[b]; p < start[b + 1]; p++)
                s = (s * 31 + k.buf[p]) % 1000000007L;
            check = (check + s) % 1000000007L;
        }
        check = (check + start[NBUCKETS / 2]) % 1000000007L;
    }
    printf("checksum: %ld\n", check);
    free(k.keys);
    free(k.buf);
    free(start);
    return 0;
}
