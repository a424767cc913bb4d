/* is.h - sizes and entry points of isort.  Keys are in [0, MAX_KEY); bucket b holds the keys
 * whose top LOGB bits are b. */
#ifndef ISORT_IS_H
#define ISORT_IS_H

#include "hand_omp.h"

#define MAX_KEY_LOG 20
#define LOGB 10
#define MAX_KEY (1 << MAX_KEY_LOG)
#define NBINS (1 << LOGB)
#define SHIFT (MAX_KEY_LOG - LOGB)
#define MAX_ITERATIONS 10

typedef struct {
    long nkeys;
    int *keys;          /* the keys, in generation order */
    int *bucket_buf;    /* the keys grouped by bucket */
    int *bucket_start;  /* NBINS + 1 offsets into bucket_buf */
    int *key_rank;      /* MAX_KEY: after ranking, the number of keys <= k */
} Sorter;

/* keys.c */
void generate_keys(long nkeys, unsigned long seed, int *keys);

/* rank.c */
void rank_keys(Sorter *s, int iteration);

/* verify.c */
int partial_verify(const Sorter *s, int iteration);
long full_verify(const Sorter *s, int *sorted);

#endif
