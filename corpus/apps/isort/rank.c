/* rank.c - one ranking pass: histogram of the buckets, prefix sum, scatter of the keys into
 * their buckets, then in each bucket a counting sort of its key range into key_rank. */
#include "is.h"

void rank_keys(Sorter *s, int iteration)
{
    int bucket_size[NBINS];
    int fill[NBINS];
    int *keys = s->keys;
    int *buf = s->bucket_buf;
    int *start = s->bucket_start;
    int *key_rank = s->key_rank;

    /* NPB IS changes two keys per iteration, so that every pass sorts different data */
    keys[iteration] = iteration;
    keys[iteration + MAX_ITERATIONS] = MAX_KEY - iteration;

    for (int b = 0; b < NBINS; b++)
        bucket_size[b] = 0;
    OMP(omp parallel for reduction(+:bucket_size[:NBINS]))
    for (long i = 0; i < s->nkeys; i++)
        bucket_size[keys[i] >> SHIFT]++;

    start[0] = 0;
    for (int b = 0; b < NBINS; b++) {
        start[b + 1] = start[b] + bucket_size[b];
        fill[b] = start[b];
    }
    for (long i = 0; i < s->nkeys; i++) {
        int b = keys[i] >> SHIFT;
        buf[fill[b]++] = keys[i];
    }

    /* the keys of bucket b lie in [b << SHIFT, (b + 1) << SHIFT): disjoint parts of key_rank */
    OMP(omp parallel for schedule(dynamic))
    for (int b = 0; b < NBINS; b++) {
        int lo = b << SHIFT, hi = (b + 1) << SHIFT;
        for (int k = lo; k < hi; k++)
            key_rank[k] = 0;
        for (int k = start[b]; k < start[b + 1]; k++)
            key_rank[buf[k]]++;
        int m = start[b];
        for (int k = lo; k < hi; k++) {
            m += key_rank[k];
            key_rank[k] = m;
        }
    }
}
