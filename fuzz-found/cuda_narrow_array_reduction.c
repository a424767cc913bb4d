/* fuzz-found (traps --target cuda, master seed 17005, program seeds 1461312613, 724406564,
   973074360 and four more; session 17), reduced by hand, with a `short` histogram beside it.
   `a[i * 4096 + j] += ...` with `j <= m` (rows that may overlap) is an array reduction, which
   the CUDA target makes atomic updates; the compare-and-swap of lift's prelude has words of 4
   and 8 bytes only, so for `unsigned char` nvcc stopped: `incomplete type "lift_word<1>" is not
   allowed` (the emulation, plain C++, compiled it). Fixed: an array reduction into elements
   narrower than 4 bytes (the types a scalar reduction was already refused for) stays on the
   host with a remark (backend/cuda_kernels.py, `no_gpu_atomic`).
   gcc -O1 prints what the emulation of the fixed .cu prints. */
#include <stdio.h>
static unsigned char a[3 * 4096 + 80], b[3 * 4096 + 80];
static short c[200];
static void rows(int n, int m)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= m; j++)
            a[i * 4096 + j] += b[i * 4096 + j + 4096];
}
static void hist(int n)
{
    for (int i = 0; i < n; i++)
        c[b[i] % 7] += 1;
}
int main(void)
{
    for (int i = 0; i < 3 * 4096 + 80; i++) { a[i] = (unsigned char)(i * 11 % 251); b[i] = (unsigned char)(i * 7 % 253); }
    rows(2, 64);
    hist(1000);
    unsigned long long h = 1469598103934665603ULL;
    for (int i = 0; i < 3 * 4096 + 80; i++) h = (h ^ a[i]) * 1099511628211ULL;
    for (int i = 0; i < 200; i++) h = (h ^ (unsigned short)c[i]) * 1099511628211ULL;
    printf("%016llx\n", h);
    return 0;
}
