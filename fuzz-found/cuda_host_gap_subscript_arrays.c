/* fuzz-found (brink --target cuda, master seed 16005, program seed 1369655841), reduced by hand,
   with the read case beside it. Host code between two kernels of one data scope that names a
   device array only inside another's subscript: `keys[fill[b]++] = keys[i];` writes `fill`,
   `val[idx[i]]` reads `idx`. The scan of host code (analysis/host_effects.py, `token_effects`)
   skipped a subscript's tokens after its array, so `fill` stayed on the device, the host's
   increments were lost and the next kernel summed the zeros; `idx` was read on the host before
   the kernel that wrote it came back. Fixed: the subscripts are scanned too.
   gcc -O1: "-6199256120205709513"; the emulated .cu died with a segmentation fault (`keys` filled at
   the stale offsets). */
#include <stdio.h>
#define NB 4
static int idx[64], val[64];
static long scatter(long n, int *keys, int s)
{
    unsigned fill[NB];
    long hist[NB] = {0}, sum = 0;
    for (long i = 0; i < n; i++) { unsigned b = (keys[i] + s) % NB; hist[b]++; }
    for (int b = 0; b < NB; b++) { fill[b] = 0; }
    for (unsigned i = 0; i < (unsigned)n; i++) {
        unsigned b = (keys[i] + s) % NB;
        keys[fill[b]++] = keys[i];
    }
    for (int b = 0; b < NB; b++) sum += (long)fill[b] * (b + 1);
    return sum + hist[1];
}
static long gather(int n)
{
    long sum = 0;
    for (int i = 0; i < n; i++)
        idx[i] = (i * 7) % n;
    for (int i = 0; i < n; i++) {
        if (val[idx[i]] > 140)
            break;
        sum += val[idx[i]];
    }
    for (int i = 0; i < n; i++)
        val[i] = idx[i] + i;
    return sum;
}
int main(void)
{
    int keys[40];
    for (int i = 0; i < 40; i++)
        keys[i] = (i * 7919 + 3) % 32;
    for (int i = 0; i < 64; i++) { val[i] = i * 3; idx[i] = 63 - i; }
    long h = scatter(40, keys, 6) * 1000 + gather(50);
    for (int i = 0; i < 40; i++)
        h = h * 3 + keys[i];
    for (int i = 0; i < 64; i++)
        h = h * 3 + val[i] + idx[i];
    printf("%ld\n", h);
    return 0;
}
