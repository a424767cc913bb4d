/* fuzz: loops (seed 375154559, 396 of 1000 programs, reduced by hand).  A
 * 3-deep nest whose middle loop steps by 3 (an existential in every domain)
 * with a handful of non-uniform subscripts: isl's exact dataflow analysis ran
 * for minutes (lift "hang", past the fuzzer's 120 s limit).  Now the analysis
 * stops at its isl operation budget (lifter/analysis/budget.py) and the nest
 * stays sequential with the remark "analysis budget exceeded"; the inner
 * loop nest that follows is analysed as usual. */
#include <stdio.h>

#define N 15

static unsigned A0[47][42];
static unsigned A1[32];
static unsigned B[64];

static void kernel(int n)
{
    int i, j, k;
    for (i = 0; i < N; i++) {
        for (j = 0; j < n; j += 3)
            for (k = 0; k < N; k++) {
                A0[j - i + 15][k + 12] = (((A1[i + 17] ^ A0[i + 17][i - k + 14]) >> 4)
                                          & (A1[j + 15] * ((unsigned)i * A0[j + 13][2 * k + 13])));
                A0[i + 13][i + j + 13] -= A1[13];
            }
    }
    for (i = 0; i < 64; i++)
        B[i] = 3u * (unsigned)i + A1[i % 32];
}

int main(void)
{
    unsigned x = 12345u;
    for (int i = 0; i < 47; i++)
        for (int j = 0; j < 42; j++) {
            x = x * 1103515245u + 12345u;
            A0[i][j] = (x >> 8) % 1000u;
        }
    for (int i = 0; i < 32; i++) {
        x = x * 1103515245u + 12345u;
        A1[i] = (x >> 8) % 1000u;
    }
    kernel(N);
    unsigned long h = 0;
    for (int i = 0; i < 47; i++)
        for (int j = 0; j < 42; j++)
            h = h * 31u + A0[i][j];
    for (int i = 0; i < 64; i++)
        h = h * 31u + B[i];
    printf("%lu\n", h);
    return 0;
}
