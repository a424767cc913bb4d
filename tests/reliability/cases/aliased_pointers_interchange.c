/* fuzz: loops (seed 1583404188, 770 of 1000 programs, reduced by hand).  The
 * locality pass interchanged this nest although A0 and A3 (plain pointer
 * parameters) are the same array: the dependence analysis treats every
 * container as memory of its own, so the reordering looked legal, and the
 * output differed even at 1 thread.  A nest that writes through a pointer
 * that may overlap another container is now reordered only under a run-time
 * test that the ranges it touches are disjoint (locality.reorder_guard), and
 * runs as written otherwise: here, where they overlap. */
#include <stdio.h>

#define N 12

static unsigned A3[36][26];

static void kernel(int n, unsigned A0[36][26], unsigned A3[36][26])
{
    int i, j, k;
    for (i = N - 1; i >= 0; i--) {
        for (j = 0; j <= n - 1; ++j)
            for (k = 0; k < n; k++)
                A3[j + 3][k - j + 11] += A0[i - k + 13][-j + 14] | (unsigned)k;
    }
}

int main(void)
{
    unsigned x = 12345u;
    for (int i = 0; i < 36; i++)
        for (int j = 0; j < 26; j++) {
            x = x * 1103515245u + 12345u;
            A3[i][j] = (x >> 8) % 1000u;
        }
    kernel(N, A3, A3);
    unsigned long h = 0;
    for (int i = 0; i < 36; i++)
        for (int j = 0; j < 26; j++)
            h = h * 31u + A3[i][j];
    printf("%lu\n", h);
    return 0;
}
