/* verify.c - NPB IS's checks: the ranks of a few keys after every pass, and at the end a full
 * sort by the ranks that must come out in order. */
#include <stdio.h>

#include "is.h"

/* the rank of five keys must equal a count made directly (keys below it) */
int partial_verify(const Sorter *s, int iteration)
{
    static const long probe[5] = {48427, 17148, 23627, 62548, 4431};
    int bad = 0;
    for (int t = 0; t < 5; t++) {
        long idx = probe[t] % s->nkeys;
        int key = s->keys[idx];
        long below = 0;
        OMP(omp parallel for reduction(+:below))
        for (long i = 0; i < s->nkeys; i++)
            below += s->keys[i] < key;
        if (key > 0 && s->key_rank[key - 1] != below)
            bad++;
    }
    if (bad)
        fprintf(stderr, "isort: pass %d: %d probed ranks are wrong\n", iteration, bad);
    return bad == 0;
}

/* place every key at its rank (from the last rank down), then count keys out of order;
 * returns the count (0 when sorted), and leaves the sorted keys in sorted */
long full_verify(const Sorter *s, int *sorted)
{
    for (long i = 0; i < s->nkeys; i++) {
        int k = s->keys[i];
        sorted[--s->key_rank[k]] = k;
    }
    long out_of_order = 0;
    OMP(omp parallel for reduction(+:out_of_order))
    for (long i = 1; i < s->nkeys; i++)
        if (sorted[i - 1] > sorted[i])
            out_of_order++;
    return out_of_order;
}
