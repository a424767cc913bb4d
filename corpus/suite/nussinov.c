/* lift-bench: -DN=1200 */
/* lift-bench large: -DN=1800 */
/*
 * nussinov.c - Nussinov's RNA folding: the maximum number of complementary base
 *         pairs of each subsequence (dynamic programming over a triangular table).
 * Suite style: sizes from macros, the kernel's static control part between
 * #pragma scop markers, an init function, a timer around the kernel (stderr),
 * checksums on stdout (every element too with -DDUMP_ARRAYS).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef N
#define N 60
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void dumpi(const char *name, int n, int X[n][n])
{
    long s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += (long)X[i][j] * (1 + (i * n + j) % 7);
    printf("%s: %ld\n", name, s);
#ifdef DUMP_ARRAYS
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            printf("%d\n", X[i][j]);
#endif
}

static void init_array(int n, int seq[n], int table[n][n])
{
    for (int i = 0; i < n; i++) {
        seq[i] = (i * 7 + 1) % 4;  /* 0..3; A-U (0,3) and C-G (1,2) pair */
        for (int j = 0; j < n; j++)
            table[i][j] = 0;
    }
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void kernel_nussinov(int n, int seq[n], int table[n][n])
{
    int i, j, k;
#pragma scop
    for (i = n - 1; i >= 0; i--)
        for (j = i + 1; j < n; j++) {
            if (j - 1 >= 0)
                table[i][j] = max_int(table[i][j], table[i][j - 1]);
            if (i + 1 < n)
                table[i][j] = max_int(table[i][j], table[i + 1][j]);
            if (j - 1 >= 0 && i + 1 < n) {
                if (i < j - 1)
                    table[i][j] = max_int(table[i][j], table[i + 1][j - 1] + (seq[i] + seq[j] == 3));
                else
                    table[i][j] = max_int(table[i][j], table[i + 1][j - 1]);
            }
            for (k = i + 1; k < j; k++)
                table[i][j] = max_int(table[i][j], table[i][k] + table[k + 1][j]);
        }
#pragma endscop
}

int main(void)
{
    int *seq = malloc(sizeof(int[N]));
    int (*table)[N] = malloc(sizeof(int[N][N]));
    if (!seq || !table) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    init_array(N, seq, table);
    double t0 = now();
    kernel_nussinov(N, seq, table);
    fprintf(stderr, "time: %.6f\n", now() - t0);
    dumpi("nussinov_table", N, table);
    free(seq);
    free(table);
    return 0;
}
