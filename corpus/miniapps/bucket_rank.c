/* lift-bench: -DN=16000000 -DREPS=10 */
/*
 * bucket_rank.c - the ranking half of an integer sort, as NPB IS writes it: keys already grouped
 * by bucket (their top bits) are counted, bucket by bucket, into the bucket's own part of a rank
 * table, which each bucket then turns into running totals; at the end every key is placed at its
 * rank, the last of equal keys first (`sorted[--rank[k]] = k`), and the placement is checked.
 * The second pass corrupts one key on purpose (a key outside its bucket's range), as a
 * verification run would, and the rank of every key must still come out as the plain loops say.
 * Style: sizes from shifts, a struct of pointers and its count, helpers per phase.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 300000
#endif
#ifndef REPS
#define REPS 2
#endif
#define KEY_LOG 16
#define LOGB 7
#define MAX_KEY (1 << KEY_LOG)
#define NBUCKETS (1 << LOGB)
#define SHIFT (KEY_LOG - LOGB)

typedef struct {
    long n;
    int *keys;    /* grouped by bucket: bucket b's keys are keys[start[b] .. start[b + 1] - 1] */
    int *start;   /* NBUCKETS + 1 offsets */
    int *rank;    /* MAX_KEY: after ranking, the number of keys <= k */
} Table;

/* each bucket counts its keys into its own range of the table, then sums that range */
static void kernel_rank(Table *t)
{
    int *keys = t->keys, *start = t->start, *rank = t->rank;
    for (int b = 0; b < NBUCKETS; b++) {
        int first = b << SHIFT, end = (b + 1) << SHIFT;
        for (int k = first; k < end; k++)
            rank[k] = 0;
        for (int i = start[b]; i < start[b + 1]; i++)
            rank[keys[i]]++;
        int total = start[b];
        for (int k = first; k < end; k++) {
            total += rank[k];
            rank[k] = total;
        }
    }
}

/* every key at its rank, counting the ranks down */
static void kernel_place(const Table *t, int *sorted)
{
    for (long i = 0; i < t->n; i++) {
        int k = t->keys[i];
        sorted[--t->rank[k]] = k;
    }
}

/* keys and their complements into two halves of one buffer, sharing the offsets: stays as written */
static void kernel_pairs(long n, const int *keys, int *pos, int *out)
{
    for (long i = 0; i < n; i++) {
        int b = keys[i] >> SHIFT;
        out[pos[b]++] = keys[i];
        out[pos[b]++] = MAX_KEY - 1 - keys[i];
    }
}

static void make_keys(Table *t, unsigned seed)
{
    int count[NBUCKETS] = {0}, fill[NBUCKETS];
    int *raw = malloc(sizeof(int) * (size_t)t->n);
    for (long i = 0; i < t->n; i++) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15;
        raw[i] = (int)((h * 40503u) >> (32 - KEY_LOG));
        count[raw[i] >> SHIFT]++;
    }
    t->start[0] = 0;
    for (int b = 0; b < NBUCKETS; b++) {
        t->start[b + 1] = t->start[b] + count[b];
        fill[b] = t->start[b];
    }
    for (long i = 0; i < t->n; i++)
        t->keys[fill[raw[i] >> SHIFT]++] = raw[i];
    free(raw);
}

int main(void)
{
    Table t;
    t.n = N;
    t.keys = malloc(sizeof(int) * (size_t)t.n);
    t.start = malloc(sizeof(int) * (NBUCKETS + 1));
    t.rank = malloc(sizeof(int) * (MAX_KEY + 16));
    int *sorted = malloc(sizeof(int) * (size_t)t.n), *pairs = malloc(sizeof(int) * 2 * (size_t)t.n);
    int *pos = malloc(sizeof(int) * NBUCKETS);
    long check = 0;
    for (int rep = 0; rep < REPS; rep++) {
        make_keys(&t, 12345u + (unsigned)rep);
        if (rep == 1)  /* one key in the next bucket's range: the ranking runs as written */
            t.keys[t.start[NBUCKETS / 2]] = (NBUCKETS / 2 + 1) << SHIFT;
        kernel_rank(&t);
        for (int k = 0; k < MAX_KEY; k += 257)
            check = (check * 31 + t.rank[k]) % 1000000007L;
        kernel_place(&t, sorted);
        long out_of_order = 0;
        for (long i = 1; i < t.n; i++)
            out_of_order += sorted[i - 1] > sorted[i];
        for (long i = 0; i < t.n; i += 97)
            check = (check * 31 + sorted[i]) % 1000000007L;
        printf("pass %d: out of order %ld\n", rep, out_of_order);
    }
    for (int b = 0; b < NBUCKETS; b++)
        pos[b] = 2 * t.start[b];
    kernel_pairs(t.n, t.keys, pos, pairs);
    for (long i = 0; i < 2 * t.n; i += 101)
        check = (check * 31 + pairs[i]) % 1000000007L;
    printf("check %ld\n", check);
    free(t.keys); free(t.start); free(t.rank); free(sorted); free(pairs); free(pos);
    return 0;
}
