/* lift-bench: -DN=2000 */
/*
 * nussinov.c - RNA-folding-like dynamic programming: maximum number of
 * complementary base pairs of a deterministic sequence over {A,C,G,U}.
 * table[i][j] is the best score for the sub-sequence i..j.  The table is
 * filled by diagonals (d = j - i), so the cells of one diagonal only
 * depend on cells of earlier diagonals.
 * Style: global arrays, macros, a static inline pairing helper.
 */
#include <stdio.h>

#ifndef N
#define N 100
#endif

#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef unsigned char base_t; /* 0=A 1=C 2=G 3=U */

static base_t seq[N];
static int table[N][N];

/* A-U and C-G pairs */
static inline int pairs(base_t a, base_t b)
{
    return a + b == 3;
}

static void kernel_nussinov(int n)
{
    for (int d = 1; d < n; d++) {
        for (int i = 0; i < n - d; i++) {
            int j = i + d;
            int best = MAX(table[i][j - 1], table[i + 1][j]);
            best = MAX(best, table[i + 1][j - 1] + pairs(seq[i], seq[j]));
            for (int k = i + 1; k < j; k++)
                best = MAX(best, table[i][k] + table[k + 1][j]);
            table[i][j] = best;
        }
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        seq[i] = (base_t)((i * i + 3 * i + i / 7) % 4);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            table[i][j] = 0;

    kernel_nussinov(N);

    long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++)
            s += (long)table[i][j] * (1 + (i * N + j) % 7);
    printf("%s: %ld\n", "nussinov_best", (long)table[0][N - 1]);
    printf("%s: %ld\n", "nussinov_table", s);
    return 0;
}
