/* main.c - isort: generate keys, rank them MAX_ITERATIONS times, verify. */
#include <stdio.h>
#include <stdlib.h>

#include "is.h"

int main(int argc, char **argv)
{
    int log2keys = argc > 1 ? atoi(argv[1]) : 24;
    int iterations = argc > 2 ? atoi(argv[2]) : MAX_ITERATIONS;
    if (log2keys < 8 || log2keys > 30 || iterations < 1 || iterations > MAX_ITERATIONS) {
        fprintf(stderr, "usage: %s [LOG2KEYS (8..30) [ITERATIONS (1..%d)]]\n", argv[0], MAX_ITERATIONS);
        return 2;
    }
    Sorter s;
    s.nkeys = 1L << log2keys;
    s.keys = malloc(sizeof(int) * (size_t)s.nkeys);
    s.bucket_buf = malloc(sizeof(int) * (size_t)s.nkeys);
    s.bucket_start = malloc(sizeof(int) * (NBINS + 1));
    s.key_rank = malloc(sizeof(int) * MAX_KEY);
    int *sorted = malloc(sizeof(int) * (size_t)s.nkeys);
    if (!s.keys || !s.bucket_buf || !s.bucket_start || !s.key_rank || !sorted) {
        fprintf(stderr, "isort: out of memory\n");
        return 1;
    }
    generate_keys(s.nkeys, 314159265UL, s.keys);
    int passed = 0;
    for (int it = 1; it <= iterations; it++) {
        rank_keys(&s, it);
        passed += partial_verify(&s, it);
    }
    long out_of_order = full_verify(&s, sorted);
    long checksum = 0;
    for (long i = 0; i < s.nkeys; i += s.nkeys / 1024)
        checksum += (long)sorted[i];
    int ok = passed == iterations && out_of_order == 0;
    printf("keys: %ld\n", s.nkeys);
    printf("iterations: %d\n", iterations);
    printf("passed_partial: %d\n", passed);
    printf("out_of_order: %ld\n", out_of_order);
    printf("sample_checksum: %ld\n", checksum);
    printf("verified: %d\n", ok);
    free(s.keys);
    free(s.bucket_buf);
    free(s.bucket_start);
    free(s.key_rank);
    free(sorted);
    return ok ? 0 : 1;
}
